// `klineage optimize`: extract -> variants -> gate -> select -> selected sources, for one target.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "gate/gate.h"

namespace klineage {

struct OptimizeOptions {
  std::string config;
  bool require_gpu = false;     // also from the config / KLINEAGE_REQUIRE_GPU
  unsigned jobs = 0;            // parallel compiles (0: hardware threads)
  std::string only_kernel;      // restrict to one kernel ("" = all)
  // Hand-written variants of one kernel gated like the generated ones (`klineage gate`).
  std::vector<std::string> extra_variant_sources;
  std::string extra_variant_kernel;
  unsigned repeat = 1;          // gate each variant this many times (fresh random inputs each)
  bool skip_skills = false;     // with an extra variant: gate only that one
  bool write_selection = true;
};

// Returns the process exit code. Compiler and runner are injectable for tests.
int runOptimize(const OptimizeOptions& opt, Compiler* compiler = nullptr, GpuRunner* runner = nullptr);

}  // namespace klineage
