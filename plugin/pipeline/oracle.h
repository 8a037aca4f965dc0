// The gate's oracle (docs/runner-job.md, "The oracle"): each planned kernel's original, promoted one
// precision level by the rewriter (rewriter/oracle/promote-precision), written under
// oracle/<kernel>/ and compiled beside the original. Every job of the kernel then carries it, and
// the runner judges float outputs by their distance to it instead of by a tolerance.
#pragma once

#include "plan.h"

namespace klineage {

struct Pipeline;

// Sets each plan's oracle_cubin, or oracle_none with why there is none: the workload gives the
// kernel's tolerance (`check`), the promotion refuses a construct, or the promoted kernel does not
// compile. The promotions run one kernel at a time; the compiles run p.jobs at once.
void prepareOracles(Pipeline& p, Plans& plans);

}  // namespace klineage
