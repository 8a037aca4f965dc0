// `klineage ci`: times every kernel of a target as the build now compiles it, against the original
// in the same process and against a committed baseline, and gives one verdict per kernel and an
// exit code CI can gate on (docs/ci.md). Writes ci.json, ci-junit.xml, ci-summary.md and
// report.html under build/klineage/<target>/ci/.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "optimize.h"
#include "verdict.h"

namespace klineage {

// The exit codes of `klineage ci`.
constexpr int kCiPass = 0;
constexpr int kCiRegression = 1;
constexpr int kCiWrong = 2;
constexpr int kCiCannotMeasure = 3;

struct CiOptions {
  std::string config;
  std::string baseline;           // klineage-baseline.json
  bool update_baseline = false;   // rewrite it from this run (atomically) instead of failing
  bool strict = false;            // a baseline from another GPU or driver is an error (exit 3)
  bool allow_no_gpu = false;      // no GPU: exit 0 (with a message) instead of 3
  int no_gpu_exit = kCiCannotMeasure;  // the code for "no GPU" when not allowed (CTest: 77 = skipped)
  CiThresholds thresholds;
  std::string junit, markdown;    // extra copies of the JUnit XML and the Markdown summary ("" none)
  unsigned jobs = 0;
};

struct CiKernel {
  std::string kernel, shape, variant;  // variant: what the build keeps ("saxpy/original" when none)
  KernelCiResult result;
  std::optional<CiMeasurement> now;
  std::optional<BaselineEntry> base;
  std::vector<double> samples_ms, original_samples_ms;
  double speedup_vs_original = 0;      // original median / kept median, same process
};

struct CiResult {
  std::string target, gpu, arch, driver, cuda;
  std::string baseline_path;
  std::optional<Baseline> baseline;
  std::string not_comparable;          // "" comparable
  bool gpu_available = false;
  std::string no_gpu_reason;
  std::vector<CiKernel> kernels;
  std::string verdict;                 // "pass", "regression", "wrong", "cannot-measure"
  int exit_code = kCiPass;
  double seconds = 0;
  std::vector<std::string> notes;      // one line each: the baseline updated, ...
};

// The exit code and overall verdict from the kernels' verdicts (docs/ci.md, "Exit status").
void decideExit(CiResult& r, const CiOptions& opt);

nlohmann::json ciJson(const CiResult& r);          // format klineage-ci-1
std::string junitXml(const CiResult& r);           // one testcase per kernel and shape
std::string markdownSummary(const CiResult& r);    // for a pull-request comment or a step summary

int runCi(const CiOptions& opt, const PipelineSeams& seams);

}  // namespace klineage
