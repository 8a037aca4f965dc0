// The gate: every variant is compiled, run against the original under the same harness, and ends
// in one named outcome. The compiler and the GPU runner are interfaces so the pipeline can be
// tested without nvcc or a GPU (tests/gate/ uses fakes).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/job.h"
#include "gate/variant.h"

namespace klineage {

struct CompileRequest {
  std::string id;
  std::vector<std::string> argv;  // full command, argv[0] = nvcc
  std::string cubin;
  // Optional: the whole translation unit compiled to a host object too, after the cubin (its
  // exported symbols are compared with the original's: the host side must still link).
  std::vector<std::string> object_argv;
  std::string object;
};
struct CompileResult {
  bool ok = false;
  std::string log;  // compiler output (errors)
  double seconds = 0;
};
class Compiler {
 public:
  virtual ~Compiler() = default;
  virtual CompileResult compile(const CompileRequest& req) = 0;
};
// Runs the real command with a wall-clock limit (default 300 s).
std::unique_ptr<Compiler> makeProcessCompiler(double timeout_s = 300);

struct DeviceProbe {
  bool available = false;
  std::string device;   // "NVIDIA H200"
  std::string arch;     // "sm_90"
  std::string reason;   // why not available
  unsigned count = 1;   // devices of this kind the runner sees
  std::string driver;   // the CUDA version the driver supports ("13.0"); "" when not reported
  std::string driver_version;  // the driver's own release ("570.86.15"); "" when not reported
};
// Reads the JSON line `klineage-runner --probe` prints (the last one in `output`).
DeviceProbe parseProbe(const std::string& output, const std::string& what_failed);
class GpuRunner {
 public:
  virtual ~GpuRunner() = default;
  virtual DeviceProbe probe() = 0;
  // Runs one job; never throws for a failing kernel: a crash is runtime-failed, a hang timeout.
  virtual RunnerResult run(const RunnerJob& job, const std::string& work_dir, double timeout_s) = 0;
  // The same job under compute-sanitizer (`tool`: memcheck, racecheck, synccheck); any error it
  // reports makes the outcome runtime-failed, with the report. Status "error" where the runner
  // cannot do it.
  virtual RunnerResult sanitize(const RunnerJob& job, const std::string& work_dir, double timeout_s,
                                const std::string& sanitizer, const std::string& tool) {
    (void)job, (void)work_dir, (void)timeout_s, (void)sanitizer;
    RunnerResult r;
    r.status = RunStatus::Error;
    r.reason = "this GPU runner cannot run compute-sanitizer " + tool;
    return r;
  }
};
// Runs `klineage-runner` as a child process per job (its own CUDA context); device >= 0 selects
// that device (CUDA_VISIBLE_DEVICES) for every child.
std::unique_ptr<GpuRunner> makeChildRunner(const std::string& runner_path, int device = -1);

// The first lines of compute-sanitizer's report in `output`, joined for a reason.
std::string sanitizerReport(const std::string& output);

// Compiles many requests on `jobs` threads; results in request order.
std::vector<CompileResult> compileAll(Compiler& c, const std::vector<CompileRequest>& reqs, unsigned jobs);

// Applies a runner result to a report: outcome, reason, timings.
void recordRun(VariantReport& rep, const RunnerResult& res);

// One progress line: "saxpy  grid-stride-loop+vectorize-access  passed  0.412 ms  1.31x".
std::string progressLine(const VariantReport& rep);

}  // namespace klineage
