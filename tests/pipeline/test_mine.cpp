// `klineage mine` over a fake compiler and a fake GPU runner (docs/lineage.md): the tree of inverse
// steps from an expert kernel, identical versions merged, rejected versions kept and not expanded,
// the skills mined from it (schema 2) loaded back, `klineage skills show`'s lineage text, and the
// skill loader's error for a newer schema.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>

#include "core/diag.h"
#include "core/fs.h"
#include "core/lineage.h"
#include "core/skill.h"
#include "features/feature.h"
#include "mine.h"
#include "rewriter/transform.h"
#include "support/pipeline_project.h"

using klineage::test::FakeCompiler;
using klineage::test::Project;
using namespace klineage;
namespace fs = std::filesystem;

namespace {

// An expert in the forms the inverses recognize: __launch_bounds__ and __restrict__ pointers.
const char* kExpert = R"CU(// an expert scale kernel for the miner
#include "kernels.h"

__global__ void __launch_bounds__(256) scale(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

cudaError_t launch_scale(int n, float a, float* x, float* y) {  // not const: -restrict-pointers drops const
  scale<<<(n + 255) / 256, 256>>>(n, a, x, y);
  return cudaGetLastError();
}
)CU";

const char* kScaleWorkload = R"TOML(
[kernel.scale]
grid = ["(n + 255) / 256"]
block = [256]
args.n = 1048576
args.a = 2.0
args.x = { elements = "n", init = "uniform(-1, 1)" }
args.y = { elements = "n", output = true }
check = { rtol = 1e-5, atol = 1e-6 }
)TOML";

std::map<std::string, std::string> expertFiles() {
  std::string toml = readFile(fs::path(KLINEAGE_SOURCE_DIR) / "examples/quickstart/klineage.toml");
  return {{"src/expert.cu", kExpert}, {"klineage.toml", toml + kScaleWorkload}};
}

// Judges each version by its source (the lineage's versions/<id>.cu, found from the fake cubin's
// "fake cubin for scale/mine-<id>"): without __restrict__ 0.9x, without __launch_bounds__ 0.95x
// the expert's speed; `wrong_without_restrict` makes the versions without __restrict__ wrong.
struct SourceJudge : GpuRunner {
  fs::path out;
  bool wrong_without_restrict = false;
  double without_bounds = 0.95;  // the speed without __launch_bounds__ (1.0: it makes no difference)
  std::vector<std::string> gated;  // version ids, in the order gated
  DeviceProbe probe() override {
    DeviceProbe d;
    d.available = true;
    d.device = "Fake GPU";
    d.arch = "sm_90";
    d.driver = "13.0";
    return d;
  }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    RunnerResult r;
    r.device = "Fake GPU";
    const std::string cubin = readFile(job.variant.cubin);
    const auto at = cubin.find("mine-");
    REQUIRE(at != std::string::npos);
    const std::string id = cubin.substr(at + 5);
    gated.push_back(id);
    const std::string text = readFile(out / "versions" / (id + ".cu"));
    const bool restrict_ = text.find("__restrict__") != std::string::npos;
    const bool bounds = text.find("__launch_bounds__") != std::string::npos;
    double speedup = (restrict_ ? 1.0 : 0.9) * (bounds ? 1.0 : without_bounds);
    klineage::test::setTimes(r, speedup);
    r.outcome = Outcome::Passed;
    if (wrong_without_restrict && !restrict_) {
      r.outcome = Outcome::WrongResult;
      r.reason = "y[7]: expected 1, got 2";
    }
    return r;
  }
};

struct Mined {
  Lineage lineage;
  RecordingStatus status;
  int rc = -1;
};

Mined mine(const Project& p, SourceJudge& gpu, const std::string& skills_dir = "") {
  FakeCompiler cc;
  Mined m;
  MineOptions opt;
  opt.config = p.config;
  opt.kernel = "scale";
  opt.out_dir = (p.root / "mine").string();
  opt.emit_skills_dir = skills_dir;
  opt.lineage_out = &m.lineage;
  gpu.out = opt.out_dir;
  PipelineSeams seams;
  seams.compiler = &cc;
  seams.runner = &gpu;
  seams.status = &m.status;
  m.rc = runMine(opt, seams);
  return m;
}

std::string transformOf(const LineageVersion& v) { return v.step ? v.step->transform : ""; }

}  // namespace

TEST_CASE("mine: the inverse steps make a tree; identical versions are merged", "[mine]") {
  Project p(4, expertFiles(), {"expert.cu"});
  SourceJudge gpu;
  Mined m = mine(p, gpu);
  REQUIRE(m.rc == 0);
  const Lineage& l = m.lineage;
  std::string lines;
  for (const auto& v : l.versions) lines += lineageLine(l, v) + "\n";
  for (const auto& s : m.status.lines) lines += s + "\n";
  INFO(lines);
  // v0 the expert; v1 -launch-bounds, v2 -restrict-pointers; v3 both: reached from v1 and from v2
  REQUIRE(l.versions.size() == 4);
  CHECK(l.versions[0].outcome == "expert");
  CHECK(l.versions[0].time_ms == Approx(0.24));
  std::set<std::string> depth1;
  for (const auto& v : l.versions)
    if (v.depth == 1) depth1.insert(transformOf(v));
  CHECK(depth1 == std::set<std::string>{"launch-bounds", "restrict-pointers"});
  const LineageVersion& v3 = l.versions[3];
  CHECK(v3.depth == 2);
  CHECK(v3.accepted);
  REQUIRE(v3.also_from.size() == 1);
  CHECK(v3.also_from[0].first != v3.parent);
  CHECK(readFile(p.root / "mine" / v3.source).find("__restrict__") == std::string::npos);
  CHECK(readFile(p.root / "mine" / v3.source).find("__launch_bounds__") == std::string::npos);
  // each version was gated once against the expert; its time and the parent's speedup over it
  CHECK(gpu.gated.size() == 3);
  for (size_t i = 1; i < l.versions.size(); ++i) {
    CHECK(l.versions[i].outcome == "slower");
    CHECK(l.versions[i].time_ms > 0.24);
    REQUIRE(l.versions[i].parent_speedup);
    CHECK(*l.versions[i].parent_speedup > 1.0);
    CHECK(l.versions[i].features.size() > 0);
  }
  // the lineage file round-trips, and the status printed one line per version
  const Lineage back = loadLineage((p.root / "mine/lineage.json").string());
  CHECK(back.versions.size() == 4);
  CHECK(back.versions[3].also_from.size() == 1);
  CHECK(back.minedFrom() == (p.root / "src/expert.cu").string() + ":scale");
  CHECK(m.status.saw("klineage mine: v3 <- "));
}

TEST_CASE("mine: a version the gate finds wrong is kept with its reason and not expanded", "[mine]") {
  Project p(4, expertFiles(), {"expert.cu"});
  SourceJudge gpu;
  gpu.wrong_without_restrict = true;
  Mined m = mine(p, gpu);
  REQUIRE(m.rc == 0);
  const Lineage& l = m.lineage;
  std::string lines;
  for (const auto& v : l.versions) lines += lineageLine(l, v) + "\n";
  INFO(lines);
  REQUIRE(l.versions.size() == 4);
  const LineageVersion* unrestricted = nullptr;
  for (const auto& v : l.versions)
    if (v.depth == 1 && transformOf(v) == "restrict-pointers") unrestricted = &v;
  REQUIRE(unrestricted);
  CHECK_FALSE(unrestricted->accepted);
  CHECK(unrestricted->outcome == "wrong-result");
  CHECK(unrestricted->reason.find("expected 1, got 2") != std::string::npos);
  // nothing was made from it: v3 comes from the accepted -launch-bounds version only
  for (const auto& v : l.versions) CHECK(v.parent != unrestricted->id);
  const LineageVersion& v3 = l.versions[3];
  CHECK(v3.also_from.empty());
  CHECK(v3.outcome == "wrong-result");
  CHECK(gpu.gated.size() == 3);
}

TEST_CASE("mine: skills from the lineage load as schema 2 and show their lineage", "[mine]") {
  Project p(4, expertFiles(), {"expert.cu"});
  SourceJudge gpu;
  gpu.wrong_without_restrict = true;  // only -launch-bounds accepted; its siblings' rejection is a risk
  const fs::path dir = p.root / "mined-skills";
  Mined m = mine(p, gpu, dir.string());
  REQUIRE(m.rc == 0);
  const std::vector<Skill> skills = loadSkills({dir.string()}, transformIds(), featureIds());
  REQUIRE(skills.size() == 1);
  const Skill& s = skills[0];
  CHECK(s.schema == 2);
  CHECK(s.id == "mined-scale-launch-bounds");
  CHECK(s.transform == "launch-bounds");
  CHECK(s.provenance_kind == "mined");
  CHECK(s.mined_from == (p.root / "src/expert.cu").string() + ":scale");
  CHECK(s.lineage == "../mine/lineage.json");
  CHECK(fs::equivalent(s.lineagePath(), p.root / "mine/lineage.json"));
  std::string bounded;  // the version -launch-bounds made from the expert
  for (const auto& v : m.lineage.versions)
    if (v.depth == 1 && transformOf(v) == "launch-bounds") bounded = v.id;
  CHECK(s.lineage_version == bounded);
  CHECK(s.gpu == "Fake GPU");
  CHECK(s.cuda == "13.0");
  CHECK(s.date.size() == 10);
  // the anchor is the simplified kernel's features: restrict pointers still, no launch bounds
  CHECK(std::count(s.requires_features.begin(), s.requires_features.end(), "all_pointers_restrict") == 1);
  CHECK(std::count(s.requires_features.begin(), s.requires_features.end(), "launch_bounds") == 0);
  CHECK(std::count(s.facts.begin(), s.facts.end(), "no-overlap") == 1);
  REQUIRE(s.measured.size() == 1);
  CHECK(s.measured[0].speedup == Approx(1 / 0.95).epsilon(0.01));
  CHECK(s.measured[0].expert == s.mined_from);
  REQUIRE_FALSE(s.risks.empty());
  CHECK(s.risks[0].failure.find("-restrict-pointers") != std::string::npos);
  CHECK(s.risks[0].failure.find("wrong-result") != std::string::npos);
  // `klineage skills show`: the path from the expert to the version the forward applies to
  const std::string shown = minedSkillLineage(s);
  INFO(shown);
  CHECK(shown.find("v0 (expert)") != std::string::npos);
  CHECK(shown.find(bounded + " <- v0  -launch-bounds  slower") != std::string::npos);
  CHECK(shown.find(" ms") != std::string::npos);
  CHECK(skillToJson(s)["provenance"]["version"] == bounded);
}

TEST_CASE("mine: with every step accepted, merged steps are mined too", "[mine]") {
  Project p(4, expertFiles(), {"expert.cu"});
  SourceJudge gpu;
  const fs::path dir = p.root / "mined-skills";
  Mined m = mine(p, gpu, dir.string());
  REQUIRE(m.rc == 0);
  const std::vector<Skill> skills = loadSkills({dir.string()}, transformIds(), featureIds());
  std::multiset<std::string> transforms;
  for (const auto& s : skills) transforms.insert(s.transform);
  // launch-bounds from v0->v1 and v2->v3 (different anchors: restrict or not), restrict-pointers likewise
  CHECK(transforms.count("launch-bounds") == 2);
  CHECK(transforms.count("restrict-pointers") == 2);
  for (const auto& s : skills) {
    CHECK(s.schema == 2);
    CHECK_FALSE(minedSkillLineage(s).empty());
  }
}

TEST_CASE("mine: an expert that is not a kernel of the target is an input error", "[mine]") {
  Project p(4, expertFiles(), {"expert.cu"});
  SourceJudge gpu;
  FakeCompiler cc;
  MineOptions opt;
  opt.config = p.config;
  opt.kernel = "no_such_kernel";
  PipelineSeams seams;
  seams.compiler = &cc;
  seams.runner = &gpu;
  CHECK_THROWS_WITH(runMine(opt, seams), Catch::Contains("no such kernel") && Catch::Contains("scale"));
}

TEST_CASE("skills: a schema newer than supported names the file, the line and the versions", "[mine][skills]") {
  const fs::path dir = fs::temp_directory_path() / ("klineage-schema3-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  atomicWrite(dir / "future.toml", "# a skill from a newer KLineage\nschema = 3\nid = \"future\"\n");
  try {
    loadSkills({dir.string()}, transformIds(), featureIds());
    FAIL("schema 3 was accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find((dir / "future.toml").string()) != std::string::npos);
    CHECK(e.line == 2);
    CHECK(what.find("3 is newer than this KLineage reads") != std::string::npos);
    CHECK(what.find("1 to 2") != std::string::npos);
  }
  // schema 1 files may not use the schema 2 provenance keys
  atomicWrite(dir / "future.toml", R"(schema = 1
id = "old"
intent = "x"
transform = "launch-bounds"
[anchor]
description = "x"
[effect]
expected = "x"
[provenance]
kind = "mined"
mined_from = "a.cu:k"
)");
  CHECK_THROWS_WITH(loadSkills({dir.string()}, transformIds(), featureIds()),
                    Catch::Contains("provenance.mined_from: needs schema = 2"));
  fs::remove_all(dir);
}

TEST_CASE("mine: a step whose forward direction does not pay stays in the lineage, not in the skills", "[mine]") {
  Project p(4, expertFiles(), {"expert.cu"});
  SourceJudge gpu;
  gpu.without_bounds = 1.0;  // __launch_bounds__ changes nothing
  const fs::path dir = p.root / "mined-skills";
  Mined m = mine(p, gpu, dir.string());
  REQUIRE(m.rc == 0);
  unsigned bounds_steps = 0;
  for (const auto& v : m.lineage.versions)
    if (v.accepted && transformOf(v) == "launch-bounds") ++bounds_steps;
  CHECK(bounds_steps >= 1);  // accepted and recorded
  const std::vector<Skill> skills = loadSkills({dir.string()}, transformIds(), featureIds());
  std::multiset<std::string> transforms;
  for (const auto& s : skills) transforms.insert(s.transform);
  CHECK(transforms.count("launch-bounds") == 0);
  CHECK(transforms.count("restrict-pointers") == 2);
}
