// The gate's side of "no wrong or hostile variant gets through", on the quickstart with a fake
// compiler and GPU: the launch that is gated (the launch site's; a hand-written variant's own),
// probe shapes in every job, signature changes, the winner's re-check and the sanitizer pass.
#include <catch2/catch.hpp>

#include <functional>

#include "core/fs.h"
#include "gate_jobs.h"
#include "optimize.h"
#include "support/pipeline_project.h"

using namespace klineage;
using klineage::test::FakeCompiler;
using klineage::test::Project;

namespace {

bool vectorized(const RunnerJob& j) { return j.variant.grid.x < j.original.grid.x; }
bool recheck(const RunnerJob& j) { return !j.profile.enabled && j.seeds.empty(); }

// Every job passes (vectorized ones 1.3x, others 1.05x) unless `verdict` says otherwise.
struct Runner : GpuRunner {
  std::vector<RunnerJob> jobs, sanitized;
  std::function<std::optional<RunnerResult>(const RunnerJob&)> verdict = [](const RunnerJob&) { return std::nullopt; };
  std::function<RunnerResult(const RunnerJob&)> sanitizer = [](const RunnerJob&) {
    RunnerResult r;
    r.outcome = Outcome::Passed;
    return r;
  };
  DeviceProbe probe() override { return {true, "Fake GPU", "sm_90", ""}; }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    jobs.push_back(job);
    if (auto v = verdict(job)) return *v;
    RunnerResult r;
    r.outcome = Outcome::Passed;
    r.speedup = vectorized(job) ? 1.30 : 1.05;
    r.probes_checked = static_cast<unsigned>(job.probes.size());
    klineage::test::setTimes(r, r.speedup);
    return r;
  }
  RunnerResult sanitize(const RunnerJob& job, const std::string&, double, const std::string&, const std::string&) override {
    sanitized.push_back(job);
    return sanitizer(job);
  }
};

RunnerResult wrong(const std::string& why) {
  RunnerResult r;
  r.outcome = Outcome::WrongResult;
  r.reason = why;
  return r;
}

const nlohmann::json* variantIn(const nlohmann::json& rep, const std::string& id) {
  for (const auto& v : rep["variants"])
    if (v["variant"]["id"] == id) return &v;
  return nullptr;
}

std::string selectedChain(const Project& p, const std::string& kernel) {
  const nlohmann::json rep = p.report();
  if (!rep["selected"].contains(kernel)) return "(none)";
  std::string c;
  for (const auto& s : rep["selected"][kernel]["skills"]) c += (c.empty() ? "" : "+") + s.get<std::string>();
  return c;
}

const std::string kSaxpyHead = "#include \"kernels.h\"\n";

}  // namespace

TEST_CASE("gate: every job carries probe shapes, with the geometry the launch site gives them", "[pipeline][hardening]") {
  Project p(6);
  // The planner's rules, not the shipped records: with run 9's merged in, the history ranks
  // grid-stride-loop+vectorize-float4 (the grid kept) before vectorize-float4 alone.
  p.libraryWithoutHistory();
  FakeCompiler cc;
  Runner gpu;
  OptimizeOptions opt;
  opt.config = p.config;
  opt.only_kernel = "saxpy";
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);
  REQUIRE(!gpu.jobs.empty());
  size_t misaligned = 0;
  for (const RunnerJob& j : gpu.jobs) {
    CHECK(j.original.grid.x == 262144);  // saxpy<<<(n + 255) / 256, 256>>> at n = 2^26
    // A variant with vectorize-access's alignment test also runs with misaligned pointers: the
    // declared launch, x and y one element past their allocations' (256-byte aligned) starts.
    if (j.probes.size() == 4) {
      ++misaligned;
      const ProbeSpec& m = j.probes[3];
      CHECK(m.name == "misaligned: x 4 bytes past a 16-byte boundary, y 4 bytes past a 16-byte boundary");
      CHECK(m.params[2].offset_elements == 1);
      CHECK(m.params[3].offset_elements == 1);
      CHECK(m.params[2].elements == (1ull << 26));
      CHECK(m.params[0].ivalue == (1ll << 26));
      CHECK(m.original.grid.x == j.original.grid.x);
      CHECK(m.variant.grid.x == j.variant.grid.x);
      CHECK(j.variant.grid.x <= j.original.grid.x);  // vectorized: divided, or kept by a grid-stride loop
    }
    REQUIRE(j.probes.size() >= 3);
    CHECK(j.probes[0].name == "n = 67108865");
    CHECK(j.probes[0].original.grid.x == 262145);
    CHECK(j.probes[1].name == "n = 1013");
    CHECK(j.probes[1].original.grid.x == 4);
    CHECK(j.probes[2].name == "n = 37");
    CHECK(j.probes[2].original.grid.x == 1);
    CHECK(j.probes[2].params[0].ivalue == 37);
    CHECK(j.probes[2].params[2].elements == 37);
    // The variant's launch site divides the grid (vectorized: by 4; a larger block: by its
    // factor), and so does each probe's: ceil(4 / d) at n = 1013.
    INFO(j.variant.grid.x << " x " << j.variant.block.x);
    if (j.variant.grid.x <= j.original.grid.x) {
      const long long d = j.original.grid.x / j.variant.grid.x;
      CHECK(j.probes[1].variant.grid.x == (4 + d - 1) / d);
    }
  }
  CHECK(misaligned > 0);
  CHECK(misaligned < gpu.jobs.size());  // not for the variants without the test
  // Which variants: exactly those whose source has the alignment test.
  const nlohmann::json rep = p.report();
  for (const auto& v : rep["variants"]) {
    const std::string skills = v["variant"]["skills"].dump();
    INFO(v["variant"]["id"] << " " << skills);
    if (v["outcome"] != "passed" || v["variant"]["is_original"].get<bool>()) continue;
    const bool has_test = readFile(v["variant"]["source"].get<std::string>()).find("& 15) == 0") != std::string::npos;
    CHECK(has_test == (skills.find("vectorize") != std::string::npos));
  }
}

TEST_CASE("gate: the winner is re-checked on fresh inputs, one that fails is dropped for the next best", "[pipeline][hardening]") {
  Project p(6);
  FakeCompiler cc;
  Runner gpu;
  gpu.verdict = [](const RunnerJob& j) -> std::optional<RunnerResult> {
    if (vectorized(j) && recheck(j)) return wrong("seed 123: y[1]: expected 1, got 2");
    return std::nullopt;
  };
  OptimizeOptions opt;
  opt.config = p.config;
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);
  const nlohmann::json rep = p.report();
  // The vectorized chain won on its first gate run, failed its re-check, and is not kept.
  CHECK(selectedChain(p, "saxpy").find("vectorize") == std::string::npos);
  CHECK(selectedChain(p, "saxpy") != "(none)");
  bool saw_dropped = false;
  for (const auto& v : rep["variants"])
    if (v["reason"].get<std::string>().rfind("re-checked before keeping it", 0) == 0) {
      saw_dropped = true;
      CHECK(v["outcome"] == "wrong-result");
    }
  CHECK(saw_dropped);
  size_t rechecks = 0;
  for (const auto& j : gpu.jobs)
    if (recheck(j)) {
      ++rechecks;
      CHECK(j.random_seeds == 2);
      // the probe shapes, and for a vectorized winner its misaligned probe
      CHECK(j.probes.size() == (j.probes.size() == 4 && j.probes[3].name.rfind("misaligned:", 0) == 0 ? 4u : 3u));
    }
  CHECK(rechecks >= 4);  // saxpy: the dropped winner and the next; relu: its winner, at least
  // The kept winner says what it went through.
  const std::string kept = rep["selected"]["saxpy"]["variant"];
  CHECK(variantIn(rep, kept)->at("checks").dump().find("re-checked on 2 fresh random input sets") != std::string::npos);
  // The sources were first built for the dropped winner, while the re-checks ran; what the build
  // compiles is built again for the kept one: its kernel is the gated variant's, not vectorized.
  const Selection sel = p.selection();
  const SelectedSource* s = sel.find((p.root / "src/saxpy.cu").string());
  REQUIRE(s != nullptr);
  REQUIRE(s->kernels.size() == 1);
  CHECK(s->kernels[0].variant_id == kept);
  CHECK(readFile(s->selected).find("float4") == std::string::npos);
}

TEST_CASE("gate: SANITIZE runs the winner under compute-sanitizer without guards, a report drops it", "[pipeline][hardening]") {
  Project p(6);
  p.setConfig("sanitize", "memcheck");
  FakeCompiler cc;
  Runner gpu;
  gpu.sanitizer = [](const RunnerJob& j) {
    RunnerResult r;
    r.outcome = vectorized(j) ? Outcome::RuntimeFailed : Outcome::Passed;
    r.reason = vectorized(j) ? "Invalid __global__ read of size 16 bytes" : "";
    return r;
  };
  OptimizeOptions opt;
  opt.config = p.config;
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);
  REQUIRE(!gpu.sanitized.empty());
  for (const auto& j : gpu.sanitized) {
    CHECK(j.guard_bytes == 0);
    CHECK(j.probes.empty());
    CHECK_FALSE(j.profile.enabled);
  }
  CHECK(selectedChain(p, "saxpy").find("vectorize") == std::string::npos);
  const nlohmann::json rep = p.report();
  bool dropped = false;
  for (const auto& v : rep["variants"])
    dropped |= v["reason"].get<std::string>().find("compute-sanitizer --tool memcheck: Invalid __global__ read") != std::string::npos;
  CHECK(dropped);
}

TEST_CASE("gate: SANITIZE with a tool compute-sanitizer does not have is an error naming config.json", "[pipeline][hardening]") {
  Project p(6);
  p.setConfig("sanitize", "leakcheck");
  FakeCompiler cc;
  Runner gpu;
  OptimizeOptions opt;
  opt.config = p.config;
  CHECK_THROWS_WITH(runOptimize(opt, &cc, &gpu), Catch::Contains("config.json") && Catch::Contains("memcheck, racecheck, synccheck"));
}

TEST_CASE("gate: a hand-written variant runs with its own launch, one the gate cannot evaluate is refused", "[pipeline][hardening]") {
  Project p(6);
  FakeCompiler cc;
  const std::string kernel =
      "__global__ void saxpy(int n, float a, const float* x, float* y) {\n"
      "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];\n"
      "}\n";
  auto gate = [&](const std::string& name, const std::string& launcher, Runner& gpu) {
    OptimizeOptions opt;
    opt.config = p.config;
    opt.skip_skills = true;
    opt.write_selection = false;
    opt.only_kernel = opt.extra_variant_kernel = "saxpy";
    opt.extra_variant_sources = {p.write("variants/" + name + ".cu", kSaxpyHead + kernel + launcher)};
    const int rc = runOptimize(opt, &cc, &gpu);
    nlohmann::json rep = nlohmann::json::parse(readFile(p.root / "build/klineage/kernels/gate-report.json"));
    nlohmann::json v = *variantIn(rep, "saxpy/hand-written-" + name);
    CHECK(rc == gateExitCode(outcomeFromName(v["outcome"].get<std::string>())));  // klineage gate's exit status
    return v;
  };
  SECTION("a fixed grid: that grid on every shape") {
    Runner gpu;
    nlohmann::json v = gate("fixed", "cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {\n"
                                     "  saxpy<<<1056, 256>>>(n, a, x, y);\n  return cudaGetLastError();\n}\n", gpu);
    CHECK(v["outcome"] == "passed");
    REQUIRE(gpu.jobs.size() == 2);  // the gate run, then the winner's re-check
    CHECK(recheck(gpu.jobs[1]));
    CHECK(gpu.jobs[0].variant.grid.x == 1056);
    CHECK(gpu.jobs[0].original.grid.x == 262144);
    for (const auto& pr : gpu.jobs[0].probes) CHECK(pr.variant.grid.x == 1056);
  }
  SECTION("an under-launch is run as written (and then fails on the GPU)") {
    Runner gpu;
    gate("half", "cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {\n"
                 "  saxpy<<<(n + 255) / 256 / 2, 256>>>(n, a, x, y);\n  return cudaGetLastError();\n}\n", gpu);
    REQUIRE(!gpu.jobs.empty());
    CHECK(gpu.jobs[0].variant.grid.x == 131072);
    CHECK(gpu.jobs[0].probes[2].variant.grid.x == 0);  // (37 + 255) / 256 / 2: as written, and invalid
  }
  SECTION("dynamic shared memory from sizeof") {
    Runner gpu;
    gate("shmem", "cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {\n"
                  "  saxpy<<<(n + 511) / 512, 512, 512 * sizeof(float)>>>(n, a, x, y);\n  return cudaGetLastError();\n}\n", gpu);
    REQUIRE(!gpu.jobs.empty());
    CHECK(gpu.jobs[0].variant.block.x == 512);
    CHECK(gpu.jobs[0].variant.shmem == 2048);
  }
  SECTION("launches through locals, a clamp and a constexpr block size are evaluated as the program computes them") {
    Runner gpu;
    nlohmann::json v = gate("local", "constexpr int kBlock = 128;\n"
                                     "cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {\n"
                                     "  int blocks = (n + kBlock - 1) / kBlock / 64;\n"
                                     "  saxpy<<<blocks > 0 ? blocks : 1, kBlock>>>(n, a, x, y);\n"
                                     "  return cudaGetLastError();\n}\n", gpu);
    CHECK(v["outcome"] == "passed");
    REQUIRE(!gpu.jobs.empty());
    CHECK(gpu.jobs[0].variant.grid.x == (1 << 26) / 128 / 64);
    CHECK(gpu.jobs[0].variant.block.x == 128);
    CHECK(gpu.jobs[0].probes[2].variant.grid.x == 1);  // n = 37: the clamp
  }
  SECTION("a launch through a variable the launcher changes is refused naming it, never run") {
    Runner gpu;
    nlohmann::json v = gate("changed", "cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {\n"
                                       "  int blocks = n / 256;\n  if (n % 256) blocks++;\n"
                                       "  saxpy<<<blocks, 256>>>(n, a, x, y);\n  return cudaGetLastError();\n}\n", gpu);
    CHECK(v["outcome"] == "not-run");
    CHECK_THAT(v["reason"].get<std::string>(),
               Catch::Contains("'blocks' is changed after its declaration") && Catch::Contains("blocks++"));
    CHECK(gpu.jobs.empty());
  }
  SECTION("a changed signature is refused naming the parameter, never compiled or run") {
    Runner gpu;
    const int compiled_before = cc.calls;
    const std::string changed =
        "__global__ void saxpy(int n, float a, const float4* x, float* y) { }\n"
        "cudaError_t launch_saxpy(int n, float a, const float* x, float* y) {\n"
        "  saxpy<<<(n + 255) / 256, 256>>>(n, a, (const float4*)x, y);\n  return cudaGetLastError();\n}\n";
    OptimizeOptions opt;
    opt.config = p.config;
    opt.skip_skills = true;
    opt.write_selection = false;
    opt.only_kernel = opt.extra_variant_kernel = "saxpy";
    opt.extra_variant_sources = {p.write("variants/sig.cu", kSaxpyHead + changed)};
    REQUIRE(runOptimize(opt, &cc, &gpu) == gateExitCode(Outcome::NotRun));
    nlohmann::json rep = nlohmann::json::parse(readFile(p.root / "build/klineage/kernels/gate-report.json"));
    const nlohmann::json& v = *variantIn(rep, "saxpy/hand-written-sig");
    CHECK(v["outcome"] == "not-run");
    CHECK_THAT(v["reason"].get<std::string>(), Catch::Contains("parameter 3 of kernel saxpy") && Catch::Contains("float4"));
    CHECK(gpu.jobs.empty());
    CHECK(cc.calls == compiled_before + 2);  // only the original's translation unit (its cubin and host object)
  }
}

TEST_CASE("gate: a variant's own launch reads the launcher's block_size as the original's captured launch shows it",
          "[pipeline][hardening]") {
  // row_sum<<<ceil_div(rows, block_size), block_size>>>(x, y, rows, cols) in launch_rows(..., int block_size),
  // captured with block 256; the variant launches half the block.
  using Op = LaunchExpr::Op;
  auto param = LaunchExpr::param("block_size");
  auto one = LaunchExpr::constant(1);
  auto ceilDiv = [](LaunchExpr a, LaunchExpr b) {
    return LaunchExpr::node(Op::Div, {LaunchExpr::node(Op::Sub, {LaunchExpr::node(Op::Add, {a, b}), LaunchExpr::constant(1)}), b});
  };
  KernelInfo k;
  k.name = "row_sum";
  for (const char* n : {"rows", "cols"}) {
    ParamInfo p;
    p.name = n;
    p.type = "int";
    k.params.push_back(p);
  }
  LaunchSite site;
  site.launcher = "launch_rows";
  site.grid_expr = {ceilDiv(LaunchExpr::arg("rows"), param), one, one};
  site.block_expr = {param, one, one};
  site.shmem_expr = LaunchExpr::constant(0);
  k.launches = {site};
  KernelPlan plan;
  plan.info = &k;
  Variant v;
  LaunchSite own = site;
  const auto half = LaunchExpr::node(Op::Div, {param, LaunchExpr::constant(2)});
  own.grid_expr = {ceilDiv(LaunchExpr::arg("rows"), half), one, one};
  own.block_expr = {half, one, one};
  v.own_launches = {own};
  const std::map<std::string, double> scalars = {{"rows", 1000}, {"cols", 64}};
  std::string why;
  auto g = variantGeometry(plan, v, Geometry{Dim3{4, 1, 1}, Dim3{256, 1, 1}, 0}, scalars, &why);
  INFO(why);
  REQUIRE(g);
  CHECK(g->block == (Dim3{128, 1, 1}));
  CHECK(g->grid == (Dim3{8, 1, 1}));
  // In another launching function, block_size is not known: not run, and the reason names it.
  v.own_launches[0].launcher = "other";
  CHECK_FALSE(variantGeometry(plan, v, Geometry{Dim3{4, 1, 1}, Dim3{256, 1, 1}, 0}, scalars, &why));
  CHECK_THAT(why, Catch::Contains("'block_size' is a parameter of the launching function"));
}
