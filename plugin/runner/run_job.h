// One gate job on an open device: check the variant's outputs against the original's on every
// seed, then (if asked and correct) time both, interleaved, and decide "faster" with stats.h.
#pragma once
#include "core/job.h"
#include "runner/cuda_api.h"
#include "runner/device.h"

namespace klineage::runner {

// Always returns a result with status "ok" and an outcome (passed, slower, wrong-result or
// runtime-failed). After runtime-failed the context may be dead: write the result and exit.
RunnerResult runJob(const CudaApi& api, const Device& device, const RunnerJob& job);

}  // namespace klineage::runner
