// The oracle stage (plugin/pipeline/oracle.h) and the host link check of the compile stage, through
// runOptimize with a fake runner: which jobs carry an oracle, what the report says, and a variant
// whose launcher no longer links is compile-failed (real nvcc for that one).
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>

#include "core/fs.h"
#include "optimize.h"
#include "support/pipeline_project.h"

using namespace klineage;
using klineage::test::FakeCompiler;
using klineage::test::Project;
namespace fs = std::filesystem;

namespace {

struct RecordingRunner : GpuRunner {
  std::vector<RunnerJob> jobs;
  DeviceProbe probe() override {
    DeviceProbe d;
    d.available = true;
    d.device = "Fake GPU";
    d.arch = "sm_90";
    return d;
  }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    jobs.push_back(job);
    RunnerResult r;
    r.device = "Fake GPU";
    r.outcome = Outcome::Passed;
    r.oracle = job.oracle ? "promoted" : "none: " + job.oracle_none;
    BufferCompare c;
    c.param = "y";
    if (job.oracle) {
      c.error_original = ErrorNorms{3e-7, 1e-7};
      c.error_variant = ErrorNorms{2e-7, 0.9e-7};
    }
    r.compares.push_back(c);
    klineage::test::setTimes(r, 1.2);
    return r;
  }
};

// The quickstart's workload without saxpy's `check`: saxpy is judged against its oracle, relu by
// its tolerance.
std::string workloadWithoutSaxpyCheck() {
  std::string toml = readFile(fs::path(KLINEAGE_SOURCE_DIR) / "examples/quickstart/klineage.toml");
  const std::string check = "check = { rtol = 1e-5, atol = 1e-6 }\n";
  const size_t at = toml.find(check);
  REQUIRE(at != std::string::npos);
  return toml.erase(at, check.size());
}

// Which requests asked for a host object too (the compile stage's link check).
struct ObjectCountingCompiler : FakeCompiler {
  std::vector<std::string> with_object, without_object;
  CompileResult compile(const CompileRequest& req) override {
    (req.object_argv.empty() ? without_object : with_object).push_back(req.id);
    return FakeCompiler::compile(req);
  }
};

}  // namespace

TEST_CASE("oracle: a kernel without a workload tolerance is gated against its promoted original", "[pipeline][oracle]") {
  Project p(3, {{"klineage.toml", workloadWithoutSaxpyCheck()}});
  ObjectCountingCompiler cc;
  RecordingRunner gpu;
  OptimizeOptions opt;
  opt.config = p.config;
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);
  const fs::path oracle_dir = p.root / "build/klineage/kernels/oracle/saxpy";
  // The promoted source: the original's file with the kernel in double, the launcher untouched.
  const std::string promoted = readFile(oracle_dir / "saxpy.cu");
  CHECK(promoted.find("(double)") != std::string::npos);
  CHECK(promoted.find("cudaError_t launch_saxpy(int n, float a, const float* x, float* y)") != std::string::npos);
  CHECK(fs::exists(oracle_dir / "oracle.cubin"));
  CHECK_FALSE(fs::exists(p.root / "build/klineage/kernels/oracle/relu"));
  size_t saxpy_jobs = 0, relu_jobs = 0;
  for (const RunnerJob& j : gpu.jobs) {
    if (j.original.function == "_Z5saxpyifPKfPf") {
      ++saxpy_jobs;
      REQUIRE(j.oracle);
      CHECK(j.oracle->cubin == (oracle_dir / "oracle.cubin").string());
      CHECK(j.oracle->function == "_Z5saxpyifPKfPf");
      CHECK(j.oracle->rule.k == 2);
    } else {
      ++relu_jobs;
      CHECK_FALSE(j.oracle);
      CHECK_THAT(j.oracle_none, Catch::Contains("the workload gives this kernel's tolerance (check in"));
    }
  }
  CHECK(saxpy_jobs > 0);
  CHECK(relu_jobs > 0);
  // The report: both errors per gated variant, the oracle's note on the kernel.
  const nlohmann::json rep = p.report();
  bool saw_error = false;
  for (const auto& v : rep["variants"]) {
    if (v["variant"]["is_original"].get<bool>() || !v.contains("error")) continue;
    if (v["variant"]["kernel"] == "saxpy") {
      CHECK(v["error"]["oracle"] == "promoted");
      CHECK(v["error"]["original"]["max_rel"].get<double>() == Approx(3e-7));
      CHECK(v["error"]["variant"]["l2_rel"].get<double>() == Approx(0.9e-7));
      saw_error = true;
    } else {
      CHECK_THAT(v["error"]["oracle"].get<std::string>(), Catch::StartsWith("none: the workload gives"));
      CHECK(v["error"]["variant"].is_null());
    }
  }
  CHECK(saw_error);
  bool noted = false;
  for (const auto& k : rep["kernels"])
    for (const auto& n : k["notes"]) noted = noted || n.get<std::string>().find("oracle: the original promoted") == 0;
  CHECK(noted);
  // The skills' variants are the rewriter's work alone: no host object for them; the originals'
  // objects are compiled as requests of their own.
  for (const auto& id : cc.with_object) CHECK(id.find("hand-written") != std::string::npos);
  CHECK(std::count_if(cc.without_object.begin(), cc.without_object.end(),
                      [](const std::string& id) { return id.find("(host object)") != std::string::npos; }) == 2);
  const std::string html = readFile(p.root / "build/klineage/kernels/report.html");
  CHECK(html.find("3e-07 / 2e-07") != std::string::npos);
}

TEST_CASE("oracle: a variant whose launcher no longer links is compile-failed, naming the symbol", "[pipeline][link]") {
  // Real nvcc (no GPU needed): the originals and the variant compile to cubins and host objects.
  Project p(0);
  auto nvcc = makeProcessCompiler();
  RecordingRunner gpu;
  const std::string ok = p.write("variants/ok.cu", readFile(p.root / "src/saxpy.cu"));
  std::string changed = readFile(p.root / "src/saxpy.cu");
  changed = std::regex_replace(changed, std::regex("launch_saxpy\\(int n, float a, const float\\* x"),
                               "launch_saxpy(int n, float a, float* x");
  const std::string bad = p.write("variants/changed_launcher.cu", changed);
  OptimizeOptions opt;
  opt.config = p.config;
  opt.write_selection = false;  // `klineage gate`
  opt.extra_variant_kernel = "saxpy";
  opt.extra_variant_sources = {ok, bad};
  runOptimize(opt, nvcc.get(), &gpu);
  const nlohmann::json rep = nlohmann::json::parse(readFile(p.root / "build/klineage/kernels/gate-report.json"));
  std::map<std::string, nlohmann::json> by_id;
  for (const auto& v : rep["variants"]) by_id[v["variant"]["id"].get<std::string>()] = v;
  REQUIRE(by_id.count("saxpy/hand-written-ok"));
  REQUIRE(by_id.count("saxpy/hand-written-changed_launcher"));
  CHECK(by_id["saxpy/hand-written-ok"]["outcome"] == "passed");
  const auto& v = by_id["saxpy/hand-written-changed_launcher"];
  CHECK(v["outcome"] == "compile-failed");
  CHECK_THAT(v["reason"].get<std::string>(),
             Catch::Contains("no longer defines launch_saxpy(int, float, float const*, float*)") &&
                 Catch::Contains("launch_saxpy(int, float, float*, float*)"));
}
