// The whole `klineage optimize` pipeline on a copy of examples/quickstart, with a fake compiler
// and a fake GPU runner: extraction, variants, gate outcomes, selection, launch-site rewriting and
// the selection file the build reads, all without nvcc or a GPU.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "core/manifest.h"
#include "gate/selection.h"
#include "optimize.h"
#include "status.h"
#include "variant_source.h"
#include "support/pipeline_project.h"

using klineage::test::FakeCompiler;
using klineage::test::Project;

namespace fs = std::filesystem;
using namespace klineage;

namespace {

// Decides outcomes from what the gate asks: a variant that runs fewer threads (the vectorized
// ones, grid.x / 4 at the same block) is `vector_outcome` at 1.30x; every other variant (block-size
// ones keep the number of threads) is 1.05x faster.
struct FakeRunner : GpuRunner {
  bool available = true;
  Outcome vector_outcome = Outcome::Passed;
  std::vector<RunnerJob> jobs;
  DeviceProbe probe() override {
    DeviceProbe d;
    d.available = available;
    d.device = "Fake GPU";
    d.arch = "sm_90";
    d.reason = available ? "" : "no device in this test";
    return d;
  }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    jobs.push_back(job);
    RunnerResult r;
    r.device = "Fake GPU";
    bool vectorized = job.variant.grid.x * job.variant.block.x < job.original.grid.x * job.original.block.x;
    r.outcome = vectorized ? vector_outcome : Outcome::Passed;
    r.speedup = vectorized ? 1.30 : 1.05;
    r.noise = 0.01;
    klineage::test::setTimes(r, r.speedup);
    r.reason = r.outcome == Outcome::WrongResult ? "y[7]: expected 1, got 2" : "";
    return r;
  }
};

std::string chainOf(const SelectedKernel& k) {
  std::string c;
  for (const auto& s : k.skills) c += (c.empty() ? "" : "+") + s;
  return c;
}

}  // namespace

TEST_CASE("pipeline: the fastest passing variant is selected and its launches rewritten", "[pipeline]") {
  Project p(6);
  std::string saxpy_before = readFile(p.root / "src/saxpy.cu");
  FakeCompiler cc;
  FakeRunner gpu;
  OptimizeOptions opt;
  opt.config = p.config;
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);

  // every variant was compiled and run against the original with the workload's launch
  CHECK(cc.calls >= 6);
  REQUIRE_FALSE(gpu.jobs.empty());
  for (const auto& j : gpu.jobs) {
    CHECK(j.original.grid.x == 262144);  // (2^26 + 255) / 256
    CHECK(j.original.block.x == 256);
    // the same threads (block-size variants), or a quarter (vectorized, 4 elements per thread)
    long long threads = j.variant.grid.x * j.variant.block.x;
    CHECK((threads == (1LL << 26) || threads == (1LL << 24)));
  }
  Selection sel = p.selection();
  std::string outcomes;
  const nlohmann::json all = p.report();
  for (const auto& v : all["variants"])
    outcomes += v["variant"]["id"].get<std::string>() + "=" + v["outcome"].get<std::string>() + "(" +
                v["reason"].get<std::string>().substr(0, 60) + ") ";
  INFO(outcomes);
  REQUIRE(sel.sources.size() == 2);
  const SelectedSource* s = sel.find((p.root / "src/saxpy.cu").string());
  REQUIRE(s != nullptr);
  REQUIRE(s->kernels.size() == 1);
  // ties at 1.30x: the chain with the fewest transforms wins
  CHECK(chainOf(s->kernels[0]) == "grid-stride-loop+vectorize-float4");
  CHECK(s->kernels[0].geometry.grid_x_divisor == 4);
  std::string text = readFile(s->selected);
  CHECK(text.find("float4") != std::string::npos);
  CHECK(text.find("saxpy<<<(((n + 255) / 256) + 3) / 4, 256>>>") != std::string::npos);
  // the user's file is untouched and the selection is fresh for it
  CHECK(readFile(p.root / "src/saxpy.cu") == saxpy_before);
  auto d = decideMaterialize(sel, s->original, [](const std::string& f) { return readFile(f); });
  CHECK(d.use_selected);
  // the report names every variant with an outcome
  auto rep = p.report();
  CHECK(rep["selected"]["saxpy"]["skills"] == nlohmann::json({"grid-stride-loop", "vectorize-float4"}));
  for (const auto& v : rep["variants"]) CHECK_FALSE(v["outcome"].get<std::string>().empty());
}

TEST_CASE("pipeline: with BUDGET 4 the chain a skill enables is gated before other single skills", "[pipeline]") {
  // vectorize-float4 needs the grid-stride loop first: the search follows grid-stride-loop into it at
  // once instead of spending the budget on the other skills alone (breadth first, it never got there).
  Project p(4);
  FakeCompiler cc;
  FakeRunner gpu;
  OptimizeOptions opt;
  opt.config = p.config;
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);
  const nlohmann::json all = p.report();
  std::map<std::string, std::vector<std::string>> chains;
  for (const auto& v : all["variants"]) {
    std::string c;
    for (const auto& s : v["variant"]["skills"]) c += (c.empty() ? "" : "+") + s.get<std::string>();
    if (!c.empty()) chains[v["variant"]["kernel"].get<std::string>()].push_back(c);
  }
  for (const char* k : {"saxpy", "relu"}) {
    INFO(k);
    REQUIRE(chains[k].size() <= 4);
    REQUIRE(chains[k].size() >= 2);
    CHECK(chains[k][0] == "grid-stride-loop");
    CHECK(chains[k][1] == "grid-stride-loop+vectorize-float4");
  }
  Selection sel = p.selection();
  const SelectedSource* s = sel.find((p.root / "src/saxpy.cu").string());
  REQUIRE(s != nullptr);
  REQUIRE(s->kernels.size() == 1);
  CHECK(chainOf(s->kernels[0]) == "grid-stride-loop+vectorize-float4");
}

TEST_CASE("pipeline: a wrong variant is never selected, whatever its speed", "[pipeline]") {
  Project p(6);
  FakeCompiler cc;
  FakeRunner gpu;
  gpu.vector_outcome = Outcome::WrongResult;
  OptimizeOptions opt;
  opt.config = p.config;
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);
  Selection sel = p.selection();
  const SelectedSource* s = sel.find((p.root / "src/saxpy.cu").string());
  REQUIRE(s != nullptr);
  REQUIRE(s->kernels.size() == 1);
  std::string chain = chainOf(s->kernels[0]);
  CHECK(chain.find("vectorize") == std::string::npos);
  CHECK(s->kernels[0].geometry.grid_x_divisor == 1);
  CHECK(readFile(s->selected).find("saxpy<<<(n + 255) / 256, 256>>>") != std::string::npos);  // launch as written
  unsigned wrong = 0;
  const nlohmann::json rep = p.report();  // keep it alive: the loop reads into it
  for (const auto& v : rep["variants"]) wrong += v["outcome"] == "wrong-result";
  CHECK(wrong >= 1);
}

TEST_CASE("pipeline: without a GPU the originals are kept, REQUIRE_GPU makes it an error", "[pipeline]") {
  Project p(2);
  FakeCompiler cc;
  FakeRunner gpu;
  gpu.available = false;
  OptimizeOptions opt;
  opt.config = p.config;
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);
  CHECK(gpu.jobs.empty());
  CHECK(p.selection().sources.empty());
  const nlohmann::json rep = p.report();
  for (const auto& v : rep["variants"])
    if (!v["variant"]["is_original"].get<bool>()) CHECK(v["outcome"] == "not-run");
  opt.require_gpu = true;
  CHECK(runOptimize(opt, &cc, &gpu) == 1);
}

TEST_CASE("pipeline: skills are tried by search_rank, then measured effect, then the narrower anchor", "[pipeline]") {
  auto skill = [](std::string id, int rank, std::vector<double> speedups, size_t requires) {
    Skill s;
    s.id = std::move(id);
    s.search_rank = rank;
    for (double x : speedups) s.measured.push_back({"w", "gpu", x});
    s.requires_features.assign(requires, "thread_index");
    return s;
  };
  std::vector<Skill> v = {skill("block-size-512", 1, {}, 2), skill("generic", 0, {}, 0),
                          skill("grid-stride-loop", 0, {}, 2), skill("vectorize", 0, {1.2, 1.6}, 1),
                          skill("measured-tuning", 1, {3.0}, 2), skill("reduce", 0, {700.0}, 3)};
  rankSkills(v);
  std::vector<std::string> ids;
  for (const auto& s : v) ids.push_back(s.id);
  CHECK(ids == std::vector<std::string>{"reduce", "vectorize", "grid-stride-loop", "generic", "measured-tuning",
                                        "block-size-512"});
  CHECK(measuredSpeedup(v[1]) == Approx(std::sqrt(1.2 * 1.6)));
  CHECK(measuredSpeedup(v[2]) == 1.0);
}

namespace {
// The fakes, each taking a known time per call, so the report's stages can be checked against it.
struct SlowCompiler : FakeCompiler {
  std::atomic<int> compiles{0};
  CompileResult compile(const CompileRequest& req) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    ++compiles;
    return FakeCompiler::compile(req);
  }
};
struct SlowRunner : FakeRunner {
  const SlowCompiler* cc = nullptr;
  int compiled_before_gate = -1;  // the originals' and round 1's compiles: before the first job
  RunnerResult run(const RunnerJob& job, const std::string& dir, double t) override {
    if (compiled_before_gate < 0 && cc) compiled_before_gate = cc->compiles;
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    return FakeRunner::run(job, dir, t);
  }
};
}  // namespace

TEST_CASE("pipeline: the report says where the run's time went, stage by stage", "[pipeline]") {
  Project p(4);
  SlowCompiler cc;
  SlowRunner gpu;
  gpu.cc = &cc;
  OptimizeOptions opt;
  opt.config = p.config;
  opt.jobs = 1;  // one compile at a time: compile time adds up
  RecordingStatus log;
  PipelineSeams seams;
  seams.compiler = &cc;
  seams.runner = &gpu;
  seams.status = &log;
  REQUIRE(runOptimize(opt, seams) == 0);
  const nlohmann::json rep = p.report();
  std::vector<std::string> names;
  std::map<std::string, double> sec;
  double sum = 0;
  for (const auto& s : rep["stages"]) {
    names.push_back(s["stage"].get<std::string>());
    sec[names.back()] = s["seconds"].get<double>();
    CHECK(sec[names.back()] >= 0);
    sum += sec[names.back()];
  }
  CHECK(names == std::vector<std::string>{"setup", "extract", "load", "capture", "compile-originals", "plan",
                                          "oracles", "rewrite", "compile-variants", "gate", "select"});
  CHECK(sum == Approx(rep["seconds"].get<double>()).margin(1e-6));
  // The gate ran every job at 40 ms, the winners' re-checks in select; the compiles were 30 ms each.
  size_t gated = 0, rechecks = 0;
  for (const auto& v : rep["variants"]) {
    if (v["variant"]["is_original"].get<bool>() || v["outcome"] == "not-run") continue;
    (v["variant"]["id"].get<std::string>().find("-recheck") != std::string::npos ? rechecks : gated) += 1;
  }
  REQUIRE(gated >= 4);
  CHECK(sec["gate"] >= 0.040 * static_cast<double>(gated));
  CHECK(sec["gate"] + sec["select"] >= 0.040 * static_cast<double>(gpu.jobs.size()));
  CHECK(sec["compile-originals"] >= 0.030 * 4);  // saxpy.cu and relu.cu: each a cubin and a host object
  // compile-variants is round 1's; the later rounds' compiles are part of the gate stage.
  REQUIRE(gpu.compiled_before_gate >= 4 + 2);
  CHECK(sec["compile-variants"] >= 0.030 * static_cast<double>(gpu.compiled_before_gate - 4));
  CHECK(sec["extract"] > 0);
  // ... and the console says it in one line.
  CHECK(log.saw("klineage: time: setup "));
  CHECK(log.saw(", gate "));
}

TEST_CASE("pipeline: winners in files that share nothing are re-applied at once, with the same selected sources", "[pipeline]") {
  // saxpy.cu and relu.cu each hold one kernel and its launch: two independent sets, re-applied on
  // two threads at -j 4 and one after another at -j 1.
  std::map<std::string, std::string> texts[2];
  std::vector<std::string> chains[2];
  for (int i = 0; i < 2; ++i) {
    Project p(4);
    FakeCompiler cc;
    FakeRunner gpu;
    OptimizeOptions opt;
    opt.config = p.config;
    opt.jobs = i == 0 ? 1 : 4;
    REQUIRE(runOptimize(opt, &cc, &gpu) == 0);
    const Selection sel = p.selection();
    REQUIRE(sel.sources.size() == 2);
    for (const auto& s : sel.sources) {
      texts[i][fs::path(s.original).filename().string()] = readFile(s.selected);
      for (const auto& k : s.kernels) chains[i].push_back(k.name + ": " + chainOf(k));
    }
  }
  CHECK(chains[0] == chains[1]);
  CHECK(texts[0] == texts[1]);
  REQUIRE(texts[1].count("relu.cu"));
  CHECK(texts[1].at("relu.cu").find("float4") != std::string::npos);  // each file holds its winner
  CHECK(texts[1].at("saxpy.cu").find("float4") != std::string::npos);
}

namespace {

// The original itself fails on one probe shape (its own domain is smaller than our probes: a float4
// row kernel probed with a row length that is not a multiple of 4); every other run passes.
struct ProbeFailRunner : GpuRunner {
  std::string bad_probe;  // the probe name the original fails on ("" picks the first probe seen)
  std::vector<RunnerJob> jobs;
  DeviceProbe probe() override { return {true, "Fake GPU", "sm_90", "", 1}; }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    jobs.push_back(job);
    RunnerResult r;
    r.device = "Fake GPU";
    if (bad_probe.empty() && !job.probes.empty()) bad_probe = job.probes.front().name;
    for (const ProbeSpec& p : job.probes)
      if (p.name == bad_probe) {
        r.outcome = Outcome::RuntimeFailed;
        r.reason = "probe " + p.name + ": the original kernel saxpy failed: CUDA_ERROR_MISALIGNED_ADDRESS";
        r.original_failed_probe = p.name;
        return r;
      }
    r.outcome = Outcome::Passed;
    r.speedup = 1.2;
    r.noise = 0.01;
    klineage::test::setTimes(r, r.speedup);
    r.probes_checked = static_cast<unsigned>(job.probes.size());
    return r;
  }
};

}  // namespace

TEST_CASE("pipeline: a probe shape the original itself cannot run is left out, not blamed on the variant", "[pipeline][probes]") {
  Project p(4);
  FakeCompiler cc;
  ProbeFailRunner gpu;
  OptimizeOptions opt;
  opt.config = p.config;
  REQUIRE(runOptimize(opt, &cc, &gpu) == 0);
  REQUIRE_FALSE(gpu.bad_probe.empty());
  const nlohmann::json rep = p.report();
  int gated = 0;
  for (const auto& v : rep["variants"]) {
    if (v["variant"]["is_original"].get<bool>() || v["variant"]["kernel"] != "saxpy") continue;
    INFO(v["variant"]["id"] << ": " << v["outcome"] << " " << v["reason"]);
    if (v["outcome"] == "not-run") continue;
    ++gated;
    CHECK(v["outcome"] != "runtime-failed");
    bool noted = false;
    for (const auto& c : v["checks"])
      noted = noted || c.get<std::string>().find("probe " + gpu.bad_probe + " left out: the original itself fails there") == 0;
    CHECK(noted);
  }
  CHECK(gated > 0);
  // Each job that had the probe (the gate's, the winner's re-check) ran again without it.
  size_t with = 0, without = 0;
  for (const RunnerJob& j : gpu.jobs) {
    bool has = false;
    for (const ProbeSpec& pr : j.probes) has = has || pr.name == gpu.bad_probe;
    (has ? with : without) += 1;
  }
  CHECK(with >= static_cast<size_t>(gated));
  CHECK(without >= with);
  CHECK_FALSE(p.selection().sources.empty());  // a winner was kept
}
