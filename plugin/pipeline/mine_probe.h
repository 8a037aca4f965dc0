// `klineage mine --probe` (docs/lineage.md, "Probing preconditions"): after the lineage is mined,
// every step that becomes a skill (core/lineage.h, skillSteps) is gated once more per precondition
// its skill would carry, on a launch of the declared workload that breaks exactly that one
// (core/precondition_probes.h): the parent (the forward step's result) against the simplified
// version. Its evidence goes into the step's `probes` (lineage.json) and from there into the
// mined skill's [preconditions] (verified, unverified, not_required) and risks.
#pragma once
#include <map>
#include <string>

#include "core/lineage.h"
#include "plan.h"

namespace klineage {

struct Pipeline;

// A version's compiled module: what a probe job loads for it.
struct VersionBuild {
  std::string cubin;
  std::string function;  // its mangled name in that module
};

// Fills step.probes of every step of skillSteps(lin). Without a GPU every probe is not-run; without
// a workload entry for the kernel (a captured launch only) every precondition is unprobed. Returns
// the number of runner jobs run.
unsigned probePreconditions(Pipeline& p, const KernelPlan& plan, Lineage& lin,
                            const std::map<std::string, VersionBuild>& builds);

}  // namespace klineage
