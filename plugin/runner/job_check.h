// Reading and checking a runner job before any GPU work, so that a malformed job is reported as
// such (status "error", exit 2) and never as a failure of the variant.
#pragma once
#include <string>

#include "core/job.h"

namespace klineage::runner {

// Parses the job file. Empty on success, else what is wrong, prefixed with the file name
// ("job.json: params[1] (y): elements must be at least 1").
std::string readJob(const std::string& path, RunnerJob* job);

}  // namespace klineage::runner
