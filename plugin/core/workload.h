// Workloads: how to launch a kernel in the gate (geometry, argument values, buffer sizes and
// contents, tolerance). One TOML file per target, format in docs/workload.md. Loading checks the
// file on its own; validateWorkload checks it against the extracted kernels; prepareLaunch turns
// one kernel's entry into the runner's parameter list and geometry.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/job.h"
#include "core/manifest.h"

namespace klineage {

// An expression (or integer literal, kept as its decimal text) and where it was written.
struct WorkloadExpr {
  std::string text;
  unsigned line = 0, column = 0;
};

struct WorkloadArg {
  std::string name;
  unsigned line = 0, column = 0;
  bool is_buffer = false;
  // scalar: the TOML value; is_int for TOML integers and booleans
  bool is_int = true;
  long long ivalue = 0;
  double fvalue = 0;
  // buffer
  WorkloadExpr elements;                    // elements reachable from the pointer passed
  WorkloadExpr offset{"0"};                 // pointer passed = allocation + offset elements
  std::optional<InitSpec> init;             // absent only for output buffers (poisoned)
  std::string init_text;                    // as written, for messages
  bool output = false;                      // compared after each run
};

struct WorkloadKernel {
  std::string name;
  std::string file;                         // the workload file, for messages
  unsigned line = 0, column = 0;            // the kernel's table
  std::vector<WorkloadExpr> grid, block;    // 1-3 entries each
  WorkloadExpr shmem{"0"};
  std::vector<WorkloadArg> args;
  Tolerance check;
  bool check_given = false;                 // `check` written: it decides, not the oracle
  std::optional<double> timeout_s;
  const WorkloadArg* findArg(const std::string& name) const;
};

struct Workload {
  std::string path;
  std::vector<WorkloadKernel> kernels;
  const WorkloadKernel* find(const std::string& name) const;
};

constexpr double kDefaultTimeoutS = 10;

// Reads and checks a workload file. Throws InputError (file:line:col, what was expected) on TOML
// syntax errors, unknown keys, wrong types and malformed expressions or init specs.
Workload loadWorkload(const std::string& path);

// Checks every workload kernel against the manifest (kernel exists, every parameter given with the
// right kind and a fillable type, expressions evaluate to valid sizes). Throws InputError.
void validateWorkload(const Workload& w, const Manifest& m);

struct PreparedLaunch {
  std::vector<ParamSpec> params;            // in the kernel's parameter order
  Dim3 grid, block;
  unsigned shmem = 0;
  Tolerance tol;
  double timeout_s = kDefaultTimeoutS;
  std::map<std::string, double> scalars;    // scalar argument values by name
};

// Evaluates one kernel's entry against its extracted parameters. Throws InputError on any mismatch.
PreparedLaunch prepareLaunch(const WorkloadKernel& wk, const KernelInfo& k);

// What the workload proves about a launch, for skill preconditions (see skills/README.md).
struct WorkloadFacts {
  std::map<std::string, unsigned> alignment;  // pointer param -> largest power of two (<= 256)
                                              // its address is a multiple of
  bool any_overlap = false;                   // two pointer params reach the same bytes
  long long block_threads = 0;                // block.x * block.y * block.z
  Dim3 grid, block;
  std::map<std::string, double> scalars;
  // Facts from a capture: every distinct block the captured launches used (empty for a workload).
  std::vector<Dim3> captured_blocks;
  unsigned captured_launches = 0;
};

// Allocations are 256-byte aligned and distinct, so alignment follows from offset * element size
// and buffers never overlap (but for a buffer that aliases another, ParamSpec::alias_of).
constexpr unsigned kAllocationAlignment = 256;
WorkloadFacts deriveFacts(const PreparedLaunch& launch);

}  // namespace klineage
