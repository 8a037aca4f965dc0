// Reading and checking a runner job before any GPU work, so that a malformed job is reported as
// such (status "error", exit 2) and never as a failure of the variant.
#pragma once
#include <string>

#include "core/job.h"
#include "core/launch_record.h"

namespace klineage::runner {

// Parses the job file. Empty on success, else what is wrong, prefixed with the file name
// ("job.json: params[1] (y): elements must be at least 1").
std::string readJob(const std::string& path, RunnerJob* job);

// For a replay job: loads and verifies the launch record (every blob's size and CRC-32) and checks
// that it can be replayed (parameters 0..n-1, 8-byte pointers inside their allocations, a `before`
// snapshot for every allocation, one param_elem_types entry per parameter). Empty on success, else
// what is wrong, naming the file.
std::string loadReplayRecord(const RunnerJob& job, LaunchRecord* record);

}  // namespace klineage::runner
