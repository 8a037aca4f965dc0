// The runner job: everything the GPU child process (klineage-runner) needs to run one variant
// against the original, as plain JSON (<build>/klineage/<target>/gate/<variant>/job.json), and the
// result it writes back (result.json). The child owns one CUDA context; a crash or hang there ends
// only that child. Format documented in docs/runner-job.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/outcome.h"

namespace klineage {

enum class ElemType { F32, F64, I8, U8, I16, U16, I32, U32, I64, U64 };

// "float" -> F32, "unsigned int" -> U32, "size_t" -> U64, ... ; nullopt for types the harness
// cannot fill (structs, half for now).
std::optional<ElemType> elemTypeFromCType(const std::string& ctype);
const char* elemTypeName(ElemType t);             // "f32", "i32", ...
std::optional<ElemType> elemTypeFromName(const std::string& name);
unsigned elemSize(ElemType t);
bool isFloat(ElemType t);

struct Dim3 {
  long long x = 1, y = 1, z = 1;
  bool operator==(const Dim3& o) const { return x == o.x && y == o.y && z == o.z; }
};

// How a variant's launch differs from the original launch. Applied to the evaluated original
// geometry in the gate, and to the launch-site expressions in the selected source.
struct GeometryChange {
  // grid.x -> ceil(grid.x * grid_x_multiplier / grid_x_divisor);
  // grid.y -> ceil(grid.y * grid_y_multiplier / grid_y_divisor)
  unsigned grid_x_divisor = 1;
  unsigned grid_x_multiplier = 1;       // more threads per element (warp-per-row: 32)
  unsigned grid_y_divisor = 1;          // 2-D tiles that cover more rows per block
  unsigned grid_y_multiplier = 1;       // the inverse of a 2-D tile (tile-sgemm's inverse: 4)
  std::optional<long long> block_x;     // block.x -> B
  std::optional<long long> block_y;     // block.y -> B
  bool changes() const {
    return grid_x_divisor != 1 || grid_x_multiplier != 1 || grid_y_divisor != 1 || grid_y_multiplier != 1 ||
           block_x.has_value() || block_y.has_value();
  }
  void compose(const GeometryChange& later) {
    grid_x_divisor *= later.grid_x_divisor;
    grid_x_multiplier *= later.grid_x_multiplier;
    grid_y_divisor *= later.grid_y_divisor;
    grid_y_multiplier *= later.grid_y_multiplier;
    if (later.block_x) block_x = later.block_x;
    if (later.block_y) block_y = later.block_y;
  }
};
Dim3 applyGrid(const GeometryChange& g, Dim3 grid);
// "grid.x/4", "grid.x*32", "grid.x*256/512, block.x 512", "grid.x/2, grid.y/2, block 32x8": for
// progress lines and reports ("" when nothing changes).
std::string geometryText(const GeometryChange& g);
// "4096" for a 1-D size, else "[4096,2,1]": for reports and notes.
std::string dimText(const Dim3& d);
Dim3 applyBlock(const GeometryChange& g, Dim3 block);

struct InitSpec {
  enum Kind { Uniform, Constant, Iota, Zeros, Poison } kind = Zeros;
  double lo = 0, hi = 1;   // Uniform
  double value = 0;        // Constant
};

struct ParamSpec {
  std::string name;
  bool is_buffer = false;
  ElemType type = ElemType::F32;
  unsigned size_bytes = 4;  // scalar size as the kernel declares it (pointers: 8)
  // scalars
  double fvalue = 0;
  long long ivalue = 0;
  // buffers
  unsigned long long elements = 0;
  unsigned long long offset_elements = 0;  // pointer passed = allocation + offset (models x + 1)
  InitSpec init;
  bool output = false;     // compared after each run
  // Set: no allocation of its own; the pointer passed points into the allocation of the buffer
  // parameter of this name (same element type), offset_elements from that allocation's start.
  // Models aliasing (an output that overlaps an input: `klineage mine --probe`, docs/lineage.md).
  std::string alias_of;
};

// A __device__ variable of a module: the runner restores it before every run, and a variant whose
// variables differ after a run from their values at load keeps state between launches (rejected).
struct DeviceGlobal {
  std::string name;        // symbol name in the cubin (cuModuleGetGlobal)
  unsigned long long bytes = 0;
};

struct LaunchSpec {
  std::string cubin;       // path to the compiled module
  std::string function;    // mangled kernel name in the module
  Dim3 grid, block;
  unsigned shmem = 0;
  // The module's __device__ variables. Unset: the runner reads them from the cubin's symbol table.
  std::optional<std::vector<DeviceGlobal>> globals;
};

// Where a kernel is launched: the geometry part of a LaunchSpec.
struct Geometry {
  Dim3 grid, block;
  unsigned shmem = 0;
  bool operator==(const Geometry& o) const { return grid == o.grid && block == o.block && shmem == o.shmem; }
};

struct Tolerance {
  double rtol = 1e-5, atol = 1e-6;
};

// Errors of a kernel's output against the oracle, relative to the oracle's own size: the largest
// element error over the largest |oracle| element, and the L2 norm of the errors over the oracle's.
struct ErrorNorms {
  double max_rel = 0, l2_rel = 0;
};

// The oracle rule (docs/runner-job.md, "The oracle"): a variant passes when it is no less accurate
// than the original, both measured against the oracle: its error norms are within
// max(k x the original's, floor_ulps x the type's epsilon).
struct OracleRule {
  double k = 2;
  double floor_ulps = 4;
};

// The original promoted one precision level (rewriter/oracle/promote-precision): run beside the
// original with the original's geometry on every input set, probe and replay.
struct OracleSpec {
  std::string cubin;       // the promoted kernel's module
  std::string function;    // its mangled name (the original's: the signature does not change)
  OracleRule rule;
};

// What klineage-runner's output ends with once its result is written and its output closed: the
// gate's cue that the job is over though the process may still be exiting (docs/runner-job.md).
inline constexpr const char* kRunnerDoneLine = "klineage-runner: result written\n";

struct ProfileSpec {
  bool enabled = true;
  unsigned warmup = 3;
  unsigned min_runs = 20;
  // Keep timing until both min_runs and min_ms are reached, or until either kernel's summed time
  // reaches max_ms: a 29 ms original against a 0.04 ms variant stops after 20 runs each, where
  // min_ms alone ran both 2000 times (a minute). Replaying three gates' timed runs
  // (scripts/timing-budget.py, docs/performance.md "Run 7") under 50 / 250 instead of 100 / 1000
  // moved the median speedup by 0.02%, changed no verdict and only swapped winners tied within 1%.
  double min_ms = 50;
  double max_ms = 250;
  unsigned max_runs = 2000;
  unsigned long long flush_bytes = 0;  // 0: twice the device's L2 size
  // Timed runs of the variant whose outputs are checked too: about this many, drawn at random,
  // plus always the last one (a variant must not be right only on the runs that are checked).
  unsigned check_runs = 8;
};

// Another shape the variant must also be right on (correctness only, not timed): the kernel's
// parameters at other sizes (n + 1, a small n, ...) with the geometry each launch would get.
struct ProbeSpec {
  std::string name;                  // "n = 67108865", for messages
  std::vector<ParamSpec> params;
  Geometry original, variant;
};

// Replaying a captured launch (core/launch_record.h) instead of a declared workload: the runner
// restores every recorded allocation from its `before` snapshot, passes the recorded parameter
// bytes (pointers patched to the new allocations) and compares every allocation.
struct ReplaySpec {
  std::string record_dir;  // directory of record.json and its blobs
  // Pointee element type of each kernel parameter, in parameter order (from the manifest): an
  // allocation is compared as the type of the first pointer parameter pointing into it, with the
  // job's tolerance for floats; nullopt (or a missing entry) compares the bytes exactly.
  // When not empty it has one entry per recorded parameter.
  std::vector<std::optional<ElemType>> param_elem_types;
  std::vector<std::string> param_names;  // optional, for messages ("y"); else "param 3"
  bool check_fidelity = true;   // the original's replay must reproduce the recorded `after` state
  unsigned determinism_runs = 2;  // runs of the original compared with each other (0, 1: no check)
  // Bytes (0 or 8) past a 16-byte boundary at which each allocation is placed, contents and every
  // pointer into it shifted alike: the replay of a variant's path for unaligned pointers, which
  // captured pointers (256-byte aligned allocations) never take. An allocation that a parameter
  // of 16-byte or unknown element type points into stays aligned.
  unsigned misalign_bytes = 0;
};

// Bytes of guard pattern before and after every buffer the runner allocates (checked after each
// run: a write outside a buffer is runtime-failed). A guard word reads as a NaN in f32 and f64,
// so an out-of-bounds read that reaches an output shows up as a wrong result.
constexpr unsigned long long kDefaultGuardBytes = 64 * 1024;
constexpr uint32_t kGuardWord = 0x7FF4A5A5u;

struct RunnerJob {
  LaunchSpec original, variant;
  std::vector<ParamSpec> params;      // unused (may be empty) when `replay` is set
  std::vector<uint64_t> seeds{1, 2};  // each seed is a differently filled input set
  // Input sets drawn at run time from a random source, after `seeds`: data no documented
  // generator predicts. The timed runs use the last input set checked.
  unsigned random_seeds = 1;
  Tolerance tolerance;
  ProfileSpec profile;
  std::optional<ReplaySpec> replay;   // set: replay a captured launch; seeds and params unused
  std::vector<ProbeSpec> probes;      // also checked (declared parameters, in either mode)
  // Set: float outputs are judged against this oracle (the original promoted); else with
  // `tolerance`, and oracle_none says why there is no oracle (for the result and the report).
  std::optional<OracleSpec> oracle;
  std::string oracle_none;
  unsigned long long guard_bytes = kDefaultGuardBytes;  // 0: none (under compute-sanitizer)
  // A kernel launch that has not finished after this many seconds ends the job as a timeout
  // (the runner's own watchdog); 0: no limit but the gate's on the whole process.
  double launch_timeout_s = 0;
};

struct BufferCompare {
  std::string param;
  bool ok = true;
  // Judged against the oracle: both kernels' errors (unset: compared with the tolerance).
  std::optional<ErrorNorms> error_original, error_variant;
  std::string oracle_detail;      // the rule's numbers for people ("" without the oracle)
  unsigned long long mismatches = 0;
  double max_abs_err = 0, max_rel_err = 0;
  std::optional<unsigned long long> first_mismatch;
  std::string expected, actual;   // values at the first mismatch, printed
  // The first few mismatches (index from the allocation start, expected, actual), first included.
  struct Sample {
    unsigned long long index = 0;
    std::string expected, actual;
  };
  std::vector<Sample> samples;
};

struct TimingStats {
  double median_ms = 0, p10_ms = 0, p90_ms = 0, min_ms = 0;
  unsigned runs = 0;
  // The timed runs behind the median, in run order (at most kMaxTimingSamples, evenly thinned
  // beyond that): for the report's timing distributions.
  std::vector<double> samples_ms;
};
constexpr unsigned kMaxTimingSamples = 500;

// Whether the runner could run the job at all (JSON "ok", "no-device", "error"); what the variant
// did is the outcome.
enum class RunStatus { Ok, NoDevice, Error };
const char* runStatusName(RunStatus s);

struct RunnerResult {
  RunStatus status = RunStatus::Ok;
  // What the runner found: passed (every check passed; judge() in the gate decides passed or
  // slower from the timings), wrong-result, runtime-failed, timeout.
  Outcome outcome = Outcome::NotRun;
  std::string reason;
  std::string device;             // e.g. "NVIDIA H200 (sm_90)"
  std::vector<BufferCompare> compares;  // the first seed that failed, or the last seed
  // "promoted" when float outputs were judged against the oracle, else "none: <why>".
  std::string oracle;
  std::optional<TimingStats> original_time, variant_time;
  double speedup = 0;             // original median / variant median
  double noise = 0;               // relative noise used to decide "faster"
  // Replay jobs only (docs/runner-job.md, "Replay"):
  std::optional<bool> fidelity_ok;  // replaying the original reproduced the capture; unset: not checked
  std::string fidelity_reason;      // why not, naming the allocation and the first difference
  bool nondeterministic = false;    // the original's runs differed from each other
  double widened_atol = 0, widened_rtol = 0;  // the tolerance then used for the variant (else 0)
  // What was checked (docs/runner-job.md, "What the runner checks"):
  std::vector<uint64_t> seeds_used;  // every input set, the random ones included
  unsigned timed_runs_checked = 0;   // timed variant runs whose outputs were compared
  unsigned timed_runs_checked_on_gpu = 0;  // of those, found exactly right on the GPU (no copy to the host)
  unsigned probes_checked = 0;
  unsigned input_sets_checked_on_gpu = 0;  // input sets whose variant run was found exactly right on the GPU
  unsigned probes_checked_on_gpu = 0;      // probe shapes likewise (no copy of either kernel's outputs to the host)
  // The probe shape (its name) on which the *original* kernel itself failed to run (runtime-failed):
  // a shape outside the original's own domain (a float4 row kernel probed with C = 4097), which the
  // gate leaves out and runs the job again without, instead of blaming the variant.
  std::string original_failed_probe;
};

void to_json(nlohmann::json& j, const ErrorNorms& e);
void from_json(const nlohmann::json& j, ErrorNorms& e);
void to_json(nlohmann::json& j, const RunnerJob& job);
void from_json(const nlohmann::json& j, RunnerJob& job);
void to_json(nlohmann::json& j, const RunnerResult& r);
void from_json(const nlohmann::json& j, RunnerResult& r);
void to_json(nlohmann::json& j, const GeometryChange& g);
void from_json(const nlohmann::json& j, GeometryChange& g);
void to_json(nlohmann::json& j, const Dim3& d);
void from_json(const nlohmann::json& j, Dim3& d);
void to_json(nlohmann::json& j, const TimingStats& t);
void from_json(const nlohmann::json& j, TimingStats& t);

}  // namespace klineage
