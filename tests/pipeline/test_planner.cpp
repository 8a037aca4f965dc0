// The planner (SEARCH planned, skill_search.cpp; docs/pipeline.md "The planner") on a copy of
// examples/quickstart, with a fake compiler and a fake GPU whose speedups the test decides: which
// chains it gates in which round, that only chains whose last step paid are extended, that it never
// gates a set of skills twice, and how the effect history orders and leaves out skills.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "effect_history.h"
#include "optimize.h"
#include "status.h"
#include "support/pipeline_project.h"

using klineage::test::FakeCompiler;
using klineage::test::Project;
namespace fs = std::filesystem;
using namespace klineage;

namespace {

// A GPU that is there (sm_90); what its jobs are worth is the subclass's.
struct FakeGpu : GpuRunner {
  DeviceProbe probe() override {
    DeviceProbe d;
    d.available = true;
    d.device = "Fake GPU";
    d.arch = "sm_90";
    return d;
  }
};

// A variant's speedup from what the gate asks: vectorized (a quarter of the threads) `vector`,
// a changed block size `block`, anything else `other`.
struct ScriptedRunner : FakeGpu {
  double vector = 1.30, block = 1.0, other = 1.0;
  size_t jobs = 0;
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    ++jobs;
    RunnerResult r;
    r.device = "Fake GPU";
    r.outcome = Outcome::Passed;
    const long long t = job.variant.grid.x * job.variant.block.x, o = job.original.grid.x * job.original.block.x;
    const double s = t < o ? vector : job.variant.block.x != job.original.block.x ? block : other;
    klineage::test::setTimes(r, s);
    if (s < 1.0) r.outcome = Outcome::Slower;
    return r;
  }
};

struct Gated {
  std::vector<std::string> chains;  // in the order they were made
  RecordingStatus status;
  int rc = -1;
};

Gated optimize(const Project& p, GpuRunner& gpu, bool with_gpu = true, unsigned jobs = 0) {
  Gated g;
  FakeCompiler cc;
  OptimizeOptions opt;
  opt.config = p.config;
  opt.jobs = jobs;
  opt.result_cache = false;
  PipelineSeams seams;
  seams.compiler = &cc;
  if (with_gpu) seams.runner = &gpu;
  seams.status = &g.status;
  g.rc = runOptimize(opt, seams);
  return g;
}

// Each kernel's chains, in variant order ("grid-stride-loop+vectorize-float4").
std::map<std::string, std::vector<std::string>> chains(const Project& p) {
  std::map<std::pair<std::string, int>, std::string> by_number;
  const nlohmann::json report = p.report();  // the loop below reads into it
  for (const auto& v : report["variants"]) {
    const std::string id = v["variant"]["id"];
    if (v["variant"]["is_original"].get<bool>()) continue;
    std::string c;
    for (const auto& s : v["variant"]["skills"]) c += (c.empty() ? "" : "+") + s.get<std::string>();
    by_number[{v["variant"]["kernel"], std::stoi(id.substr(id.find('/') + 1))}] = c;
  }
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [k, c] : by_number) out[k.first].push_back(c);
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

bool startsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// The tests of the planner's own rules plan with the library without its shipped history.
void libraryWithoutHistory(const Project& p) { p.libraryWithoutHistory(); }

}  // namespace

TEST_CASE("planner: round 1 gates a few singles and what they enable, only chains that paid are extended", "[pipeline][planner]") {
  Project p(10);
  libraryWithoutHistory(p);
  ScriptedRunner gpu;  // only the vectorized chain pays (1.30x); everything else is 1.00x
  Gated g = optimize(p, gpu);
  REQUIRE(g.rc == 0);
  const auto all = chains(p);
  std::string lines;
  for (const auto& l : g.status.lines) lines += l + "\n";
  INFO(lines);
  for (const char* k : {"saxpy", "relu"}) {
    const std::vector<std::string>& c = all.at(k);
    INFO(k << ":\n" << joined(c));
    REQUIRE(c.size() >= 5);
    CHECK(c.size() <= 10);
    // round 1: three singles, grid-stride-loop followed at once by vectorize-float4
    CHECK(c[0] == "grid-stride-loop");
    CHECK(c[1] == "grid-stride-loop+vectorize-float4");
    size_t singles = 0;
    for (size_t i = 0; i < 4 && i < c.size(); ++i) singles += c[i].find('+') == std::string::npos;
    CHECK(singles == 3);
    // later rounds extend only the chain that paid (vectorized), never a 1.00x single
    for (size_t i = 4; i < c.size(); ++i) CHECK(startsWith(c[i], "grid-stride-loop+vectorize-float4+"));
  }
  CHECK(g.status.saw("klineage: round 2"));
  // the winner is the paying chain
  CHECK(p.report()["selected"]["saxpy"]["skills"] == nlohmann::json({"grid-stride-loop", "vectorize-float4"}));
}

TEST_CASE("planner: a kernel none of whose chains paid gets the next singles, and no set of skills twice", "[pipeline][planner]") {
  Project p(10);
  libraryWithoutHistory(p);
  ScriptedRunner gpu;
  gpu.vector = 0.9;  // nothing pays
  Gated g = optimize(p, gpu);
  REQUIRE(g.rc == 0);
  for (const auto& [k, c] : chains(p)) {
    INFO(k << ":\n" << joined(c));
    size_t singles = 0;
    std::set<std::set<std::string>> sets;
    for (const auto& chain : c) {
      singles += chain.find('+') == std::string::npos;
      // the only chains of two: what a single enables at once
      if (chain.find('+') != std::string::npos) CHECK(chain == "grid-stride-loop+vectorize-float4");
      std::set<std::string> set;
      size_t from = 0;
      for (size_t at; (at = chain.find('+', from)) != std::string::npos; from = at + 1) set.insert(chain.substr(from, at - from));
      set.insert(chain.substr(from));
      CHECK(sets.insert(set).second);  // never the same set of skills twice
    }
    CHECK(singles > 3);  // more singles after round 1
  }
}

TEST_CASE("planner: the effect history it writes orders the next plan and leaves out what never paid", "[pipeline][planner]") {
  Project p(10);
  fs::create_directories(p.root / "skills");
  for (const char* id : {"grid-stride-loop", "vectorize-float4", "restrict-pointers", "launch-bounds", "block-size-128",
                         "block-size-512"})
    fs::copy_file(fs::path(KLINEAGE_SOURCE_DIR) / "skills" / (std::string(id) + ".toml"),
                  p.root / "skills" / (std::string(id) + ".toml"));
  p.setConfig("skills", {(p.root / "skills").string()});
  ScriptedRunner gpu;  // only vectorized chains pay
  REQUIRE(optimize(p, gpu).rc == 0);
  const size_t first_count = chains(p).at("saxpy").size();

  // The first run's records: each step, the kernel's features before it, its gain and the best
  // reached through it (grid-stride-loop: what vectorize-float4 reached after it).
  const fs::path learned = p.root / "build/klineage/kernels/cache/effects.json";
  REQUIRE(fs::exists(learned));
  EffectHistory h;
  RecordingStatus st;
  h.load(learned, &st);
  REQUIRE_FALSE(h.records().empty());
  bool gs_found = false;
  for (const auto& r : h.records()) {
    CHECK_FALSE(r.features.empty());
    CHECK(r.gpu == "Fake GPU");
    if (r.skill == "grid-stride-loop" && r.after.empty() && r.kernel == "saxpy") {
      gs_found = true;
      CHECK(r.gain == Approx(1.0));
      CHECK(r.best == Approx(1.30));
    }
  }
  CHECK(gs_found);

  // Shipped with the skills, it orders the next plan: what reached the most first; the singles
  // that reached 1.00x on the original's features are not tried on it.
  std::set<std::string> lost_on_original;
  const std::string original_features = [&] {
    for (const auto& r : h.records())
      if (r.kernel == "saxpy" && r.after.empty()) return r.features;
    return std::string();
  }();
  for (const auto& r : h.records())
    if (r.kernel == "saxpy" && r.after.empty() && r.best < 1.02) lost_on_original.insert(r.skill);
  REQUIRE_FALSE(lost_on_original.empty());
  fs::copy_file(learned, p.root / "skills" / "effects.json");
  Gated again = optimize(p, gpu);
  REQUIRE(again.rc == 0);
  const auto all = chains(p);
  const std::vector<std::string>& c = all.at("saxpy");
  INFO(joined(c));
  REQUIRE(c.size() >= 2);
  CHECK(c[0] == "grid-stride-loop");
  CHECK(c[1] == "grid-stride-loop+vectorize-float4");
  for (const auto& chain : c)
    for (const auto& lost : lost_on_original) CHECK_FALSE(startsWith(chain, lost));
  CHECK(c.size() < first_count);  // fewer variants gated: the losers are left out
  std::string refusals;
  for (const auto& k : again.status.lines) refusals += k + "\n";
  CHECK_THAT(refusals, Catch::Contains("skill " + *lost_on_original.begin() + " not tried") &&
                          Catch::Contains("(effect history)"));
}

TEST_CASE("planner: kernels searched at once make the same variants, refusals and lines as one at a time", "[pipeline][planner]") {
  // Every round asks the planner about all kernels at once (per_kernel.h); the variants' numbers,
  // chains and texts, the report's refusals and the console's lines must not depend on it.
  struct Run {
    Project p{10};
    ScriptedRunner gpu;
    Gated g;
  };
  auto run = [](Run& r, unsigned jobs) {
    libraryWithoutHistory(r.p);
    r.gpu.block = 1.05;  // block sizes pay a little, so later rounds extend more than one chain
    r.g = optimize(r.p, r.gpu, true, jobs);
    REQUIRE(r.g.rc == 0);
  };
  Run one, four;
  run(one, 1);
  run(four, 4);
  CHECK(chains(one.p) == chains(four.p));
  CHECK(chains(four.p).size() == 2);  // saxpy and relu
  // The variants' texts (as diffs against the original) and the refusals, kernel by kernel.
  auto texts = [](const Project& p) {
    std::map<std::string, std::string> out;
    const nlohmann::json report = p.report();
    for (const auto& v : report["variants"]) out[v["variant"]["id"]] = v["variant"]["diff"].dump();
    for (const auto& k : report["kernels"]) out["refusals of " + k["kernel"].get<std::string>()] = k["skills_not_applied"].dump();
    return out;
  };
  CHECK(texts(one.p) == texts(four.p));
  // Every line but those that say how many at a time or how long, the project's path left out.
  auto lines = [](const Run& r) {
    std::vector<std::string> out;
    for (std::string l : r.g.status.lines) {
      if (l.find(" at a time") != std::string::npos || l.find(" s)") != std::string::npos || startsWith(l, "klineage: time:"))
        continue;
      for (size_t at; (at = l.find(r.p.root.string())) != std::string::npos;) l.replace(at, r.p.root.string().size(), "<root>");
      out.push_back(l);
    }
    return out;
  };
  CHECK(joined(lines(one)) == joined(lines(four)));
  CHECK(one.g.status.saw("klineage: round 2"));
}

TEST_CASE("planner: a chain that makes the same code as another is not a variant and takes no place of BUDGET", "[pipeline][planner]") {
  // Two skills that differ only in their id (as mined skills of one transform from two experts
  // do): the second's chains are the first's code, so they are noted and not written.
  Project p(10);
  libraryWithoutHistory(p);
  std::string twin = readFile(p.root / "skills" / "vectorize-float4.toml");
  const std::string id_line = "id = \"vectorize-float4\"";
  twin.replace(twin.find(id_line), id_line.size(), "id = \"vectorize-float4-twin\"");
  atomicWrite(p.root / "skills" / "vectorize-float4-twin.toml", twin);
  ScriptedRunner gpu;
  Gated g = optimize(p, gpu);
  REQUIRE(g.rc == 0);
  std::string lines;
  for (const auto& l : g.status.lines) lines += l + "\n";
  INFO(lines);
  const auto all = chains(p);
  for (const char* k : {"saxpy", "relu"}) {
    const std::vector<std::string>& c = all.at(k);
    INFO(k << ":\n" << joined(c));
    CHECK(std::count(c.begin(), c.end(), "grid-stride-loop+vectorize-float4") == 1);
    for (const auto& chain : c) CHECK(chain.find("vectorize-float4-twin") == std::string::npos);
    // the place it would have taken went to another chain: still up to BUDGET
    CHECK(c.size() >= 5);
  }
  CHECK(g.status.saw("saxpy: skill vectorize-float4-twin (after grid-stride-loop) made the same code and launch as saxpy/"));
  for (const auto& v : p.report()["variants"]) CHECK(v.value("same_as", "") == "");  // none was even written
}

TEST_CASE("planner: a skill the history leaves out is tried when it is what a refused skill lacks", "[pipeline][planner]") {
  // A mined-like skill whose anchor requires __restrict__ (its expert had it); restrict-pointers and
  // launch-bounds never paid on such kernels (the history). restrict-pointers is still tried,
  // since it makes the mined-like skill applicable, and that one follows at once; launch-bounds,
  // which enables nothing, is not written.
  Project p(10);
  libraryWithoutHistory(p);
  std::string needs = readFile(p.root / "skills" / "block-size-128.toml");
  for (auto [from, to] : {std::pair<std::string, std::string>{"id = \"block-size-128\"", "id = \"block-size-128-restrict\""},
                          {"requires_features = [\"thread_index\", \"bounds_guard\"]",
                           "requires_features = [\"thread_index\", \"bounds_guard\", \"all_pointers_restrict\"]"}}) {
    REQUIRE(needs.find(from) != std::string::npos);
    needs.replace(needs.find(from), from.size(), to);
  }
  atomicWrite(p.root / "skills" / "block-size-128-restrict.toml", needs);

  // The original's feature signature, from a first run's records.
  ScriptedRunner gpu;
  REQUIRE(optimize(p, gpu).rc == 0);
  EffectHistory learned;
  RecordingStatus st;
  learned.load(p.root / "build/klineage/kernels/cache/effects.json", &st);
  std::string features;
  for (const auto& r : learned.records())
    if (r.kernel == "saxpy" && r.after.empty()) features = r.features;
  REQUIRE_FALSE(features.empty());
  EffectHistory shipped;
  for (const char* skill : {"restrict-pointers", "launch-bounds"})
    shipped.add({skill, features, "Fake GPU", "saxpy", "", 1.0, 1.0});
  shipped.save(p.root / "skills" / "effects.json");
  fs::remove_all(p.root / "build/klineage/kernels/cache");

  Gated g = optimize(p, gpu);
  REQUIRE(g.rc == 0);
  std::string lines;
  for (const auto& l : g.status.lines) lines += l + "\n";
  INFO(lines);
  const std::vector<std::string> c = chains(p).at("saxpy");
  INFO(joined(c));
  CHECK(std::count(c.begin(), c.end(), "restrict-pointers") == 1);
  CHECK(std::count(c.begin(), c.end(), "restrict-pointers+block-size-128-restrict") == 1);
  for (const auto& chain : c) CHECK_FALSE(startsWith(chain, "launch-bounds"));
  CHECK(g.status.saw("saxpy: skill restrict-pointers tried although the effect history left it out: it makes "
                     "block-size-128-restrict applicable"));
  CHECK(g.status.saw("saxpy: skill launch-bounds not tried"));
}

TEST_CASE("planner: without a GPU only round 1 is made", "[pipeline][planner]") {
  Project p(10);
  libraryWithoutHistory(p);  // what round 1 holds is the planner's rule, not the shipped records'
  ScriptedRunner gpu;
  Gated g = optimize(p, gpu, /*with_gpu=*/false);
  REQUIRE(g.rc == 0);
  for (const auto& [k, c] : chains(p)) {
    INFO(k << ":\n" << joined(c));
    CHECK(c.size() == 4);  // three singles and grid-stride-loop+vectorize-float4
    // vectorize-float4-keep-grid is a first step only (anchor.first_step): after grid-stride-loop
    // the grid covers n again, so it does not follow as vectorize-float4 does
    CHECK(std::find(c.begin(), c.end(), "grid-stride-loop+vectorize-float4-keep-grid") == c.end());
  }
  CHECK_FALSE(g.status.saw("klineage: round 2"));
}

TEST_CASE("planner: an unreadable effect history is a warning naming the file, and is not used", "[pipeline][planner]") {
  Project p(10);
  fs::create_directories(p.root / "skills");
  fs::copy_file(fs::path(KLINEAGE_SOURCE_DIR) / "skills" / "grid-stride-loop.toml", p.root / "skills" / "grid-stride-loop.toml");
  atomicWrite(p.root / "skills" / "effects.json", "{\"format\": 1, \"records\": [{\"skill\": 3}]}");
  p.setConfig("skills", {(p.root / "skills").string()});
  ScriptedRunner gpu;
  Gated g = optimize(p, gpu);
  REQUIRE(g.rc == 0);
  CHECK(g.status.saw((p.root / "skills" / "effects.json").string() + ": not a readable effect history"));
}

namespace {

// A variant's speedup from the skills of its chain (variant.json beside the gate's cubin: the
// planner decides what to gate, this decides what each gated chain is worth): each skill's factor,
// multiplied; 1.0 for skills not named and for the original's own jobs.
struct ChainRunner : FakeGpu {
  std::map<std::string, double> factor;
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    RunnerResult r;
    r.device = "Fake GPU";
    r.outcome = Outcome::Passed;
    double s = 1.0;
    // gate/<kernel>/<name>.cubin -> variants/<kernel>/<name>/variant.json
    const fs::path cubin(job.variant.cubin);
    const fs::path meta = cubin.parent_path().parent_path().parent_path() / "variants" / cubin.parent_path().filename() /
                          cubin.stem() / "variant.json";
    if (job.variant.cubin != job.original.cubin && fs::exists(meta))
      for (const auto& id : nlohmann::json::parse(readFile(meta.string())).value("skills", nlohmann::json::array()))
        if (factor.count(id.get<std::string>())) s *= factor.at(id.get<std::string>());
    klineage::test::setTimes(r, s);
    if (s < 1.0) r.outcome = Outcome::Slower;
    return r;
  }
};

}  // namespace

TEST_CASE("planner: with the shipped history a row softmax reaches warp-per-row, float4 registers and the reciprocal within BUDGET", "[pipeline][planner]") {
  // The naive row softmax of examples/experts (one thread per row), gated on its declared launch.
  const std::string softmax = R"(__global__ void softmax_rows(int rows, int cols, const float* in, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float m = x[0];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, x[c]);
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += expf(x[c] - m);
  for (int c = 0; c < cols; ++c) y[c] = expf(x[c] - m) / s;
}

void launch_softmax_rows(int rows, int cols, const float* in, float* out) {
  softmax_rows<<<(rows + 255) / 256, 256>>>(rows, cols, in, out);
}
)";
  const std::string workload = readFile((fs::path(KLINEAGE_SOURCE_DIR) / "examples/quickstart/klineage.toml").string()) + R"toml(
[kernel.softmax_rows]
grid = ["(rows + 255) / 256"]
block = [256]
args.rows = 4096
args.cols = 2048
args.in = { elements = "rows * cols", init = "uniform(-1, 1)" }
args.out = { elements = "rows * cols", output = true }
check = { rtol = 1e-4, atol = 1e-7 }
)toml";
  Project p(10, {{"src/softmax.cu", softmax}, {"klineage.toml", workload}}, {"softmax.cu"});
  // The skill library as shipped, effects.json included (run 4 on the H200). The fake GPU pays
  // what the catalogue's chain paid there, and 1.10x for the reciprocal; nothing else pays.
  ChainRunner gpu;
  gpu.factor = {{"warp-per-row-unrolled", 40.0}, {"warp-per-row", 35.0}, {"row-registers-vec4", 1.9},
                {"row-registers", 1.3}, {"reciprocal-multiply", 1.10}};
  Gated g = optimize(p, gpu);
  REQUIRE(g.rc == 0);
  const std::vector<std::string> c = chains(p).at("softmax_rows");
  std::string lines;
  for (const auto& l : g.status.lines) lines += l + "\n";
  INFO(lines << "softmax_rows:\n" << joined(c));
  CHECK(c.size() <= 10);
  const std::string best = "warp-per-row-unrolled+row-registers-vec4+reciprocal-multiply";
  CHECK(std::find(c.begin(), c.end(), best) != c.end());
  CHECK(p.report()["selected"]["softmax_rows"]["skills"] ==
        nlohmann::json({"warp-per-row-unrolled", "row-registers-vec4", "reciprocal-multiply"}));
}
