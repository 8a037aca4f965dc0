// Precondition probes (`klineage mine --probe`, docs/lineage.md): launches of a kernel's declared
// workload that each break exactly one precondition a mined skill would carry, so that the miner
// can gate the step's forward direction on them and learn which preconditions it really needs.
//
//   aligned<N>(all pointers)  "misaligned": every buffer whose element type is smaller than N
//                             passed 4 bytes (or one element, when larger) past its aligned start,
//                             via offset_elements (still aligned for its own element type);
//   no-overlap                "aliased": an output and an input of the same element type made to
//                             overlap (the smaller points at the larger's start: in place), via
//                             ParamSpec::alias_of;
//   uniform-block-size        "block B": the launch with block.x halved and doubled, grid.x scaled
//   (or, when not carried,    the other way so the launch covers the same threads (ceil);
//    the implicit block-size)
//   divisible-sizes           the gate's probe shapes (core/probes.h: n + 1, small, tiny): sizes that
//                             break any divisibility of the measured ones. Not a fact: implicit in
//                             every mined step (it was measured on one size).
//
// Each probe is checked to break its precondition and hold the others (the facts, as deriveFacts
// and factHolds see the probe's launch); a precondition with no such probe is unprobed, with why.
// Plain data, no Clang; the miner (plugin/pipeline/mine_probe.cpp) runs them.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "core/workload.h"

namespace klineage {

// The implicit preconditions of every mined step, besides the facts it carries.
constexpr const char* kDivisibleSizes = "divisible-sizes";
constexpr const char* kBlockSize = "block-size";  // only when uniform-block-size is not carried

struct PreconditionProbe {
  std::string precondition;  // "aligned16(all pointers)", "no-overlap", ..., "divisible-sizes"
  std::string name;          // "misaligned: x +4 bytes, y +4 bytes", "aliased: y = x", "block 128 (grid.x 8192)", "n = 1013"
  PreparedLaunch launch;     // the expert's launch on the probe
  // The probe sets the launch's geometry itself (block probes); otherwise the caller evaluates the
  // expert's launch site for the probe's scalars, as the gate does for its probe shapes.
  bool own_geometry = false;
  bool timed = false;        // full size: worth timing (the step's speed without the precondition)
};

struct PreconditionProbes {
  std::vector<PreconditionProbe> probes;
  std::map<std::string, std::string> unprobed;  // precondition -> why no probe breaks it
};

// The preconditions a mined step is probed for: its facts, then divisible-sizes, and block-size
// when uniform-block-size is not among the facts.
std::vector<std::string> probedPreconditions(const std::vector<std::string>& facts);

// `base` is the expert's gated launch of the workload entry (its geometry as the gate launches the
// expert). `preconditions` as probedPreconditions gives them.
PreconditionProbes preconditionProbes(const WorkloadKernel& wk, const KernelInfo& k, const PreparedLaunch& base,
                                      const std::vector<std::string>& preconditions);

}  // namespace klineage
