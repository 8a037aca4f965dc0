// Probe shapes: other sizes of a declared workload on which every variant must give the same
// results as the original (correctness only, not timed). A variant that is right only for the
// declared n (a multiple of 4, of 32, of the tile) fails on them.
//
// The size arguments are the integer scalars that a buffer size, offset, grid, block or shmem
// expression of the entry uses. Probes, at most kMaxProbes, each evaluated like the entry itself
// (one that does not evaluate, e.g. a size below 1, is left out):
//   "<a> + 1"  each size argument one larger than declared, the others as declared;
//   "small"    every size argument min(declared - 1, 1013): a few blocks, not a multiple of 2;
//   "tiny"     every size argument min(declared - 1, 37): less than a warp's worth of blocks.
// `divisible_by` (argument -> d) leaves out probes that break a divisibility a variant requires
// (a fact its transform recorded): it is then only right for such sizes, and says so.
// A variant that tests its pointers' 16-byte alignment gets one more, "misaligned:" (the declared
// launch with every pointer off a 16-byte boundary; pipeline/gate_jobs.h misalignedProbe).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "core/workload.h"

namespace klineage {

constexpr size_t kMaxProbes = 4;

struct Probe {
  std::string name;      // "n = 67108865"
  PreparedLaunch launch;
};

// The size arguments of an entry (sorted).
std::vector<std::string> sizeArguments(const WorkloadKernel& wk, const KernelInfo& k);

std::vector<Probe> probeLaunches(const WorkloadKernel& wk, const KernelInfo& k,
                                 const std::map<std::string, long long>& divisible_by = {});

}  // namespace klineage
