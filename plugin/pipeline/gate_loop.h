// The gate over a GPU backend: every variant's jobs (its shape with the probes, then every other
// captured launch, `repeat` times on fresh random inputs) run as the backend has room, variants
// on several GPUs at once; each variant's own jobs run one after another, the first rejection
// ends it.
#pragma once
#include <vector>

#include "gate/variant.h"
#include "plan.h"

namespace klineage {

struct Pipeline;

// Gates every report that is still to be gated (no outcome yet); the others are only reported.
// Without a GPU they are not-run ("no CUDA device").
void gateAll(Pipeline& p, const Plans& plans, std::vector<VariantReport>& reports, unsigned repeat);

// The original's report of a kernel among `reports` (nullptr when absent).
const VariantReport* originalOf(const std::vector<VariantReport>& reports, const std::string& kernel);

}  // namespace klineage
