// The RUN program's launches of the target's kernels, captured once and reused until the kernels'
// sources, the program's bytes or its command line change (the key of captures/<key>/).
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "context.h"
#include "core/launch_record.h"
#include "core/manifest.h"

namespace klineage {

struct CaptureFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The capture's key: the kernels' source hashes, the program's command line and its bytes.
std::string captureKey(const Config& cfg, const Manifest& manifest);

// Kernel name -> its captured launches. Reuses captures/<key>/ when it is readable (a corrupt one
// is captured again, a failed run's is never reused) and removes every other capture. Throws
// CaptureFailed when the program cannot be captured.
std::map<std::string, std::vector<LaunchRecord>> obtainCaptures(Pipeline& p, const Manifest& manifest);

}  // namespace klineage
