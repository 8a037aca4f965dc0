// `klineage optimize` and `klineage gate`: extract -> plan -> variants -> compile -> gate ->
// select -> selected sources and report, for one target.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "capture.h"
#include "gate/backend.h"
#include "gate/config.h"
#include "gate/gate.h"
#include "status.h"

namespace klineage {

struct Report;

struct OptimizeOptions {
  std::string config;
  bool require_gpu = false;     // also from the config / KLINEAGE_REQUIRE_GPU
  unsigned jobs = 0;            // parallel compiles, kernels rewritten at once (0: hardware threads)
  std::string only_kernel;      // restrict to one kernel ("" = all)
  // Hand-written variants of one kernel gated like the generated ones (`klineage gate`).
  std::vector<std::string> extra_variant_sources;
  std::string extra_variant_kernel;
  unsigned repeat = 1;          // gate each variant this many times (fresh random inputs each)
  bool skip_skills = false;     // with an extra variant: gate only that one
  bool write_selection = true;
  // `klineage ci`: gate each kernel as the build now compiles it (the selected copy where the
  // selection is fresh, else the original) against the original; no skills, no selection, no
  // report files. The run's Report goes to `report_out`.
  bool measure_build = false;
  Report* report_out = nullptr;
  // Reuse earlier gate results and stop early when nothing changed (`--no-cache`: off; the config's
  // result_cache too). Only `klineage optimize` uses the cache: `gate` and `ci` always measure.
  bool result_cache = true;
};

// The replaceable parts; unset ones are the real thing (nvcc, the config's backend over
// klineage-runner, the CUPTI capture, a status that keeps its lines to itself).
struct PipelineSeams {
  Compiler* compiler = nullptr;
  GpuBackend* backend = nullptr;
  GpuRunner* runner = nullptr;   // with no backend: a local backend over this one runner
  Capturer* capturer = nullptr;
  Status* status = nullptr;
};

// Returns the process exit code: kExitOk, kExitFailure; for `klineage gate` (write_selection
// off) the gate exit code of the first variant not passed or slower (core/outcome.h).
int runOptimize(const OptimizeOptions& opt, const PipelineSeams& seams);
inline int runOptimize(const OptimizeOptions& opt, Compiler* compiler = nullptr, GpuRunner* runner = nullptr) {
  PipelineSeams s;
  s.compiler = compiler;
  s.runner = runner;
  return runOptimize(opt, s);
}

// The backend a config names: local over klineage-runner, or Slurm with its options.
std::unique_ptr<GpuBackend> makeBackend(const Config& cfg, const std::string& staging_dir);

}  // namespace klineage
