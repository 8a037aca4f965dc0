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
};
class GpuRunner {
 public:
  virtual ~GpuRunner() = default;
  virtual DeviceProbe probe() = 0;
  // Runs one job; never throws for a failing kernel: a crash is runtime-failed, a hang timeout.
  virtual RunnerResult run(const RunnerJob& job, const std::string& work_dir, double timeout_s) = 0;
};
// Runs `klineage-runner` as a child process per job (its own CUDA context).
std::unique_ptr<GpuRunner> makeChildRunner(const std::string& runner_path);

// Compiles many requests on `jobs` threads; results in request order.
std::vector<CompileResult> compileAll(Compiler& c, const std::vector<CompileRequest>& reqs, unsigned jobs);

// Applies a runner result to a report: outcome, reason, timings.
void recordRun(VariantReport& rep, const RunnerResult& res);

// One progress line: "saxpy  grid-stride-loop+vectorize-access  passed  0.412 ms  1.31x".
std::string progressLine(const VariantReport& rep);

}  // namespace klineage
