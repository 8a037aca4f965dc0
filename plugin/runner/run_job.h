// One gate job on an open device. Declared workload: check the variant's outputs against the
// original's on every seed. Replay (job.replay): restore a captured launch's memory, check that the
// original reproduces the capture and whether it is deterministic, then compare the variant on
// every allocation. Either way, then (if asked and correct) time both, interleaved, and decide
// "faster" with stats.h.
#pragma once
#include "core/job.h"
#include "core/launch_record.h"
#include "runner/cuda_api.h"
#include "runner/device.h"
#include "runner/watchdog.h"

namespace klineage::runner {

// Returns a result with status "ok" and an outcome (passed, slower, wrong-result or
// runtime-failed; not-run with fidelity_ok false when a replay does not reproduce its capture), or
// status "error" when a replay record's blob cannot be read. After runtime-failed or a timeout the
// context may be dead: write the result and exit. Whatever the job allocated or loaded is released
// when it returns. `record` is the loaded, checked record of a replay job
// (job_check.h: loadReplayRecord), else null.
// `watchdog`, when given, is armed around every wait for a kernel (job.launch_timeout_s).
// Progress lines ("klineage-runner: [1.23 s] ...") count seconds from the process's start, or
// from the last call of this (a serving runner calls it as each job starts).
void restartProgressClock();
// A serving runner keeps replayed blobs it has read and checked, up to max_bytes of host memory, for
// the next jobs that replay the same record (0, the default: each job reads what it needs).
void keepReplayBlobs(size_t max_bytes);
RunnerResult runJob(const CudaApi& api, const Device& device, const RunnerJob& job,
                    const LaunchRecord* record = nullptr, Watchdog* watchdog = nullptr);

}  // namespace klineage::runner
