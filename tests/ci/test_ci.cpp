// `klineage ci` on a copy of examples/quickstart with a fake compiler and a fake GPU whose times
// each test sets: every verdict, the noise scaling, a baseline from another GPU, no GPU, and the
// JUnit XML (checked with Python's XML parser, check_junit.py).
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "baseline.h"
#include "ci.h"
#include "core/fs.h"
#include "gate/process.h"
#include "support/pipeline_project.h"
#include "verdict.h"

using klineage::test::FakeCompiler;
using klineage::test::Project;
namespace fs = std::filesystem;
using namespace klineage;

namespace {

TimingStats stats(double median, double noise) {
  TimingStats t{median, median * (1 - noise), median * (1 + noise), median * (1 - noise), 40, {}};
  for (int i = 0; i < 40; ++i) t.samples_ms.push_back(median * (1 + noise * ((i % 5) - 2) / 2.0));
  return t;
}

// Times per kernel: the original's median, the kept kernel's median, their relative noise.
struct FakeGpu : GpuRunner {
  struct Times {
    double original = 0.24, kept = 0.19, noise = 0.01;
    Outcome outcome = Outcome::Passed;
  };
  bool available = true;
  std::string name = "Fake GPU", driver = "13.0";
  std::map<std::string, Times> times{{"saxpy", {}}, {"relu", {0.20, 0.13, 0.01}}};
  DeviceProbe probe() override {
    DeviceProbe d;
    d.available = available;
    d.device = name;
    d.arch = "sm_90";
    d.driver = driver;
    d.reason = available ? "" : "no device in this test";
    return d;
  }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    const Times& t = times.at(job.variant.function.find("saxpy") != std::string::npos ? "saxpy" : "relu");
    RunnerResult r;
    r.device = name;
    r.outcome = t.outcome;
    r.reason = t.outcome == Outcome::WrongResult ? "y[7]: expected 1, got 2" : "";
    r.original_time = stats(t.original, t.noise);
    r.variant_time = stats(t.kept, t.noise);
    r.speedup = t.original / t.kept;
    r.noise = t.noise;
    return r;
  }
};

struct Ci {
  Project project{1};
  FakeCompiler cc;
  FakeGpu gpu;
  RecordingStatus status;
  CiOptions opt;
  Ci() {
    opt.config = project.config;
    opt.baseline = (project.root / "klineage-baseline.json").string();
  }
  int run() {
    PipelineSeams s;
    s.compiler = &cc;
    s.runner = &gpu;
    s.status = &status;
    status.lines.clear();
    return runCi(opt, s);
  }
  int record() {
    opt.update_baseline = true;
    const int rc = run();
    opt.update_baseline = false;
    return rc;
  }
  fs::path out() const { return project.root / "build/klineage/kernels/ci"; }
  nlohmann::json result() const { return nlohmann::json::parse(readFile(out() / "ci.json")); }
  std::string verdict(const std::string& kernel) const {
    const nlohmann::json r = result();
    for (const auto& k : r["kernels"])
      if (k["kernel"] == kernel) return k["verdict"];
    return "absent";
  }
  std::string junitCheck(int tests, int failures, int skipped) const {
    ProcessResult p = runProcess({"python3", std::string(KLINEAGE_SOURCE_DIR) + "/tests/ci/check_junit.py",
                                  (out() / "ci-junit.xml").string(), std::to_string(tests), std::to_string(failures),
                                  std::to_string(skipped)},
                                 60);
    return p.exit_code == 0 ? "ok" : p.output;
  }
};

CiMeasurement measured(double kept, double original, double noise = 0.01, std::string hash = "h1") {
  return {kept, kept * (1 - noise), kept * (1 + noise), original, original * (1 - noise), original * (1 + noise), hash};
}

BaselineEntry entry(double kept, double original, double noise = 0.01, std::string hash = "h1") {
  BaselineEntry e;
  e.kernel = "saxpy";
  e.shape = "grid 262144 x block 256";
  e.median_ms = kept;
  e.original_median_ms = original;
  e.noise = noise;
  e.kernel_hash = hash;
  return e;
}

}  // namespace

TEST_CASE("ci verdict: faster, same and slower against the baseline, scaled by the original's time", "[ci]") {
  CiThresholds t;  // 5%, 0.005 ms, 2x noise
  const BaselineEntry b = entry(0.19, 0.24);
  CHECK(compareToBaseline(measured(0.19, 0.24), &b, t).verdict == CiVerdict::Same);
  CHECK(compareToBaseline(measured(0.196, 0.24), &b, t).verdict == CiVerdict::Same);  // +3%
  KernelCiResult slow = compareToBaseline(measured(0.21, 0.24), &b, t);                // +10.5%
  CHECK(slow.verdict == CiVerdict::Slower);
  CHECK(slow.reason.find("slower: 0.2100 ms vs expected 0.1900 ms") != std::string::npos);
  CHECK(compareToBaseline(measured(0.17, 0.24), &b, t).verdict == CiVerdict::Faster);  // -10.5%
  // A machine 30% slower today runs the original 30% slower too: the kept kernel is expected so.
  KernelCiResult machine = compareToBaseline(measured(0.19 * 1.3, 0.24 * 1.3), &b, t);
  CHECK(machine.verdict == CiVerdict::Same);
  CHECK(machine.scaled);
  CHECK(machine.expected_ms == Approx(0.19 * 1.3));
  // ... but not when the original itself changed since the baseline: then absolute times count.
  CHECK(compareToBaseline(measured(0.19 * 1.3, 0.24 * 1.3, 0.01, "h2"), &b, t).verdict == CiVerdict::Slower);
  CHECK(compareToBaseline(measured(0.19, 0.24), nullptr, t).verdict == CiVerdict::New);
}

TEST_CASE("ci verdict: the threshold widens with the measured noise and ignores tiny absolute changes", "[ci]") {
  CiThresholds t;
  const BaselineEntry quiet = entry(0.19, 0.24, 0.01);
  const double eight = 0.19 * 1.08;
  CHECK(compareToBaseline(measured(eight, 0.24, 0.01), &quiet, t).verdict == CiVerdict::Slower);
  // 6% noise now: threshold 2 x 6% = 12%, so +8% is within it
  KernelCiResult noisy = compareToBaseline(measured(eight, 0.24, 0.06), &quiet, t);
  CHECK(noisy.verdict == CiVerdict::Same);
  CHECK(noisy.threshold == Approx(0.12));
  // noise recorded in the baseline counts as well
  const BaselineEntry loud = entry(0.19, 0.24, 0.06);
  CHECK(compareToBaseline(measured(eight, 0.24, 0.01), &loud, t).verdict == CiVerdict::Same);
  // --max-slowdown is the floor of the threshold
  t.max_slowdown = 0.10;
  CHECK(compareToBaseline(measured(eight, 0.24, 0.01), &quiet, t).verdict == CiVerdict::Same);
  // --min-ms: a 50% slowdown of a 2 us kernel is 1 us, below the absolute floor
  CiThresholds abs;
  abs.min_ms = 0.005;
  const BaselineEntry tiny = entry(0.002, 0.003);
  CHECK(compareToBaseline(measured(0.003, 0.003), &tiny, abs).verdict == CiVerdict::Same);
  abs.min_ms = 0.0005;
  CHECK(compareToBaseline(measured(0.003, 0.003), &tiny, abs).verdict == CiVerdict::Slower);
}

TEST_CASE("ci baseline: round trip, and bad files named with what was expected", "[ci]") {
  Project p(1);
  Baseline b;
  b.target = "kernels";
  b.gpu = "NVIDIA H200";
  b.driver = "13.0";
  b.cuda = "13.0";
  b.kernels.push_back(entry(0.19, 0.24));
  const std::string path = (p.root / "b.json").string();
  saveBaseline(b, path);
  Baseline back = loadBaseline(path);
  REQUIRE(back.kernels.size() == 1);
  CHECK(back.find("saxpy", "grid 262144 x block 256")->median_ms == 0.19);
  CHECK(back.find("saxpy", "grid 1 x block 256") == nullptr);
  CHECK(notComparable(back, "NVIDIA H200", "13.0").empty());
  CHECK(notComparable(back, "NVIDIA H100", "13.0").find("recorded on NVIDIA H200") != std::string::npos);
  CHECK(notComparable(back, "NVIDIA H200", "12.8").find("driver") != std::string::npos);
  atomicWrite(path, "{\"format\": \"klineage-baseline-1\", \"gpu\": \"x\", \"driver\": \"1\", \"kernels\": [{\"kernel\": \"k\"}]}");
  CHECK_THROWS_WITH(loadBaseline(path), Catch::Contains("b.json") && Catch::Contains("kernels[0]") &&
                                            Catch::Contains("median_ms"));
  atomicWrite(path, "{\"kernels\": []}");
  CHECK_THROWS_WITH(loadBaseline(path), Catch::Contains("klineage-baseline-1"));
  atomicWrite(path, "{not json");
  CHECK_THROWS_WITH(loadBaseline(path), Catch::Contains("not valid JSON"));
}

TEST_CASE("klineage ci: record a baseline, pass on the same times, fail on a slower kernel", "[ci]") {
  Ci ci;
  // no baseline yet: cannot measure, and it says how to record one
  CHECK(ci.run() == kCiCannotMeasure);
  CHECK(ci.status.saw("--update-baseline"));

  REQUIRE(ci.record() == kCiPass);
  const Baseline b = loadBaseline(ci.opt.baseline);
  REQUIRE(b.kernels.size() == 2);
  CHECK(b.gpu == "Fake GPU");
  CHECK(b.driver == "13.0");
  const BaselineEntry* saxpy = b.find("saxpy", "grid 262144 x block 256");
  REQUIRE(saxpy != nullptr);
  CHECK(saxpy->median_ms == Approx(0.19));
  CHECK(saxpy->original_median_ms == Approx(0.24));
  CHECK(saxpy->variant == "saxpy/original");  // nothing selected in this build tree
  CHECK_FALSE(saxpy->kernel_hash.empty());

  CHECK(ci.run() == kCiPass);
  CHECK(ci.verdict("saxpy") == "same");
  CHECK(ci.verdict("relu") == "same");
  CHECK(ci.junitCheck(2, 0, 0) == "ok");
  CHECK(fs::exists(ci.out() / "report.html"));
  CHECK(readFile(ci.out().parent_path() / "report.html").find("klineage-ci-1") != std::string::npos);
  const std::string md = readFile(ci.out() / "ci-summary.md");
  CHECK(md.find("| `saxpy` | grid 262144 x block 256 | same |") != std::string::npos);
  // the samples behind each median are in ci.json for the report
  CHECK(ci.result()["kernels"][0]["samples_ms"].size() == 40);

  ci.gpu.times["saxpy"].kept = 0.19 * 1.2;  // the kept saxpy is 20% slower
  CHECK(ci.run() == kCiRegression);
  CHECK(ci.verdict("saxpy") == "slower");
  CHECK(ci.verdict("relu") == "same");
  CHECK(ci.result()["verdict"] == "regression");
  CHECK(ci.junitCheck(2, 1, 0) == "ok");
  const std::string xml = readFile(ci.out() / "ci-junit.xml");
  CHECK(xml.find("<failure type=\"slower\" message=\"slower: 0.2280 ms vs expected 0.1900 ms") != std::string::npos);
  CHECK(xml.find("<property name=\"median_ms\" value=\"0.228000\"/>") != std::string::npos);
  CHECK(readFile(ci.out() / "ci-summary.md").find("🔴 slower") != std::string::npos);

  // the whole machine 20% slower: the original is too, so it passes
  ci.gpu.times["saxpy"] = {0.24 * 1.2, 0.19 * 1.2, 0.01, Outcome::Passed};
  CHECK(ci.run() == kCiPass);
  CHECK(ci.verdict("saxpy") == "same");

  ci.gpu.times["saxpy"] = {0.24, 0.15, 0.01, Outcome::Passed};
  CHECK(ci.run() == kCiPass);
  CHECK(ci.verdict("saxpy") == "faster");
}

TEST_CASE("klineage ci: a wrong result is exit 2 and never updates the baseline", "[ci]") {
  Ci ci;
  REQUIRE(ci.record() == kCiPass);
  const std::string before = readFile(ci.opt.baseline);
  ci.gpu.times["relu"].outcome = Outcome::WrongResult;
  CHECK(ci.run() == kCiWrong);
  CHECK(ci.verdict("relu") == "wrong");
  CHECK(ci.junitCheck(2, 1, 0) == "ok");
  CHECK(readFile(ci.out() / "ci-junit.xml").find("<failure type=\"wrong\"") != std::string::npos);
  CHECK(ci.record() == kCiWrong);
  CHECK(readFile(ci.opt.baseline) == before);
  CHECK(ci.status.saw("the baseline was not updated"));
}

TEST_CASE("klineage ci: a baseline from another GPU or driver is reported as not comparable", "[ci]") {
  Ci ci;
  REQUIRE(ci.record() == kCiPass);
  ci.gpu.name = "Other GPU";
  ci.gpu.times["saxpy"].kept = 0.19 * 1.5;
  CHECK(ci.run() == kCiPass);  // a warning, not a failure
  CHECK(ci.status.saw("warning: baseline not comparable: the baseline was recorded on Fake GPU, this run is on Other GPU"));
  CHECK(ci.result()["comparable"] == false);
  CHECK(ci.verdict("saxpy") == "slower");
  CHECK(ci.junitCheck(2, 0, 0) == "ok");
  CHECK(readFile(ci.out() / "ci-summary.md").find("Baseline not comparable") != std::string::npos);
  ci.opt.strict = true;
  CHECK(ci.run() == kCiCannotMeasure);
  ci.opt.strict = false;
  ci.gpu.name = "Fake GPU";
  ci.gpu.driver = "12.8";
  CHECK(ci.run() == kCiPass);
  CHECK(ci.status.saw("driver"));
}

TEST_CASE("klineage ci: without a GPU it cannot measure (exit 3, or as told) and says so", "[ci]") {
  Ci ci;
  REQUIRE(ci.record() == kCiPass);
  ci.gpu.available = false;
  CHECK(ci.run() == kCiCannotMeasure);
  CHECK(ci.status.saw("no CUDA device"));
  CHECK(ci.junitCheck(2, 0, 2) == "ok");
  ci.opt.no_gpu_exit = 77;
  CHECK(ci.run() == 77);
  ci.opt.allow_no_gpu = true;
  CHECK(ci.run() == kCiPass);
  CHECK(ci.result()["verdict"] == "cannot-measure");
}

TEST_CASE("klineage ci: a kernel of the baseline that is no longer gated is exit 3", "[ci]") {
  Ci ci;
  REQUIRE(ci.record() == kCiPass);
  Baseline b = loadBaseline(ci.opt.baseline);
  b.kernels.push_back(entry(0.5, 0.6));
  b.kernels.back().kernel = "gone";
  saveBaseline(b, ci.opt.baseline);
  CHECK(ci.run() == kCiCannotMeasure);
  CHECK(ci.verdict("gone") == "not-measured");
  CHECK(ci.junitCheck(3, 1, 0) == "ok");
}
