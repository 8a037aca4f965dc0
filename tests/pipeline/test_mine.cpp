// `klineage mine` over a fake compiler and a fake GPU runner (docs/lineage.md): the tree of inverse
// steps from an expert kernel, identical versions merged, parameter sets whose forward does not give
// the parent back dropped, rejected versions kept and not expanded,
// the skills mined from it (schema 2) loaded back, `klineage skills show`'s lineage text, and the
// skill loader's error for a newer schema.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "core/diag.h"
#include "core/fs.h"
#include "core/lineage.h"
#include "core/skill.h"
#include "features/feature.h"
#include "mine.h"
#include "rewriter/transform.h"
#include "support/pipeline_project.h"
#include "support/temp_dir.h"

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
  // When set, a version's speed relative to the expert's is speed(its text) / speed(the expert's).
  std::function<double(const std::string&)> speed;
  std::vector<std::string> gated;  // version ids, in the order gated
  // --probe: a probe job runs a simplified version (the original) against its parent (the variant).
  // A kernel with __launch_bounds__(256) fails at a larger block; a parent that adds __restrict__
  // is wrong on an aliased launch.
  bool racy_alias = false;          // every kernel differs from itself on an aliased launch
  bool racy_alias_timed = false;    // ... but only in its timed runs (what an earlier run left)
  bool misaligned_no_gain = false;  // no forward step pays on misaligned pointers
  bool probes_lost = false;         // probe jobs find no device
  std::vector<RunnerJob> probe_jobs;
  DeviceProbe probe() override {
    DeviceProbe d;
    d.available = true;
    d.device = "Fake GPU";
    d.arch = "sm_90";
    d.driver = "13.0";
    return d;
  }
  // The source of the version a cubin was compiled from (the expert's for the original).
  std::string textOf(const std::string& cubin_path) const {
    const std::string cubin = readFile(cubin_path);
    const auto at = cubin.find("mine-");
    return readFile(out / "versions" / ((at == std::string::npos ? "v0" : cubin.substr(at + 5)) + ".cu"));
  }
  static bool has(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }
  double speedOf(const std::string& text) const {
    return (has(text, "__restrict__") ? 1.0 : 0.9) * (has(text, "__launch_bounds__") ? 1.0 : without_bounds);
  }
  RunnerResult probeRun(const RunnerJob& job) {
    probe_jobs.push_back(job);
    RunnerResult r;
    r.device = "Fake GPU";
    if (probes_lost) {
      r.status = RunStatus::NoDevice;
      r.reason = "no CUDA device (the driver went away)";
      return r;
    }
    const std::string so = textOf(job.original.cubin), sv = textOf(job.variant.cubin);
    bool aliased = false, misaligned = false;
    for (const auto& prm : job.params) {
      aliased = aliased || !prm.alias_of.empty();
      misaligned = misaligned || (prm.alias_of.empty() && prm.offset_elements > 0);
    }
    for (auto [text, l, which] : {std::tuple{&so, &job.original, "original"}, std::tuple{&sv, &job.variant, "variant"}})
      if (has(*text, "__launch_bounds__") && l->block.x * l->block.y * l->block.z > 256) {
        r.outcome = Outcome::RuntimeFailed;
        r.reason = std::string("launching the ") + which + " kernel scale (block [" + std::to_string(l->block.x) +
                   ",1,1]): CUDA_ERROR_INVALID_VALUE";
        return r;
      }
    if (aliased && racy_alias_timed && job.profile.enabled) {
      r.outcome = Outcome::WrongResult;
      r.reason = "timed run 60: x[0]: expected 3, got 4";
      return r;
    }
    if (aliased && (racy_alias || (has(sv, "__restrict__") && !has(so, "__restrict__")))) {
      r.outcome = Outcome::WrongResult;
      r.reason = "seed 1: x[0]: expected 3, got 4";
      return r;
    }
    r.outcome = Outcome::Passed;
    if (job.profile.enabled) klineage::test::setTimes(r, misaligned && misaligned_no_gain ? 1.0 : speedOf(sv) / speedOf(so));
    return r;
  }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    if (readFile(job.original.cubin).find("mine-") != std::string::npos) return probeRun(job);
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
    if (speed) speedup = speed(text) / speed(readFile(out / "versions/v0.cu"));
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

Mined mine(const Project& p, SourceJudge& gpu, const std::string& skills_dir = "", bool probe = false,
           const std::string& kernel = "scale") {
  FakeCompiler cc;
  Mined m;
  MineOptions opt;
  opt.config = p.config;
  opt.kernel = kernel;
  opt.out_dir = (p.root / "mine").string();
  opt.emit_skills_dir = skills_dir;
  opt.probe = probe;
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

TEST_CASE("mine: the inverse steps make a tree, identical versions are merged", "[mine]") {
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
  // the anchor: what the library's launch-bounds skills require (nothing: the transform checks the
  // kernel itself); the simplified kernel's other features (restrict pointers still, no launch
  // bounds) are named, not required
  CHECK(s.requires_features.empty());
  CHECK_THAT(s.anchor_description, Catch::Contains("also had:") && Catch::Contains("all_pointers_restrict"));
  CHECK(s.anchor_description.find("launch_bounds") == std::string::npos);
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

namespace {

const LineageVersion* versionBy(const Lineage& l, const std::string& transform, const std::string& parent) {
  for (const auto& v : l.versions)
    if (v.parent == parent && transformOf(v) == transform) return &v;
  return nullptr;
}

std::vector<const StepProbe*> probesOf(const LineageStep& s, const std::string& precondition) {
  std::vector<const StepProbe*> out;
  for (const auto& p : s.probes)
    if (p.precondition == precondition) out.push_back(&p);
  return out;
}

// The aliased probe of the step that took __restrict__ off the expert (there is one).
const StepProbe& restrictAliasProbe(const Lineage& l) {
  const LineageVersion* unrestricted = versionBy(l, "restrict-pointers", "v0");
  REQUIRE(unrestricted);
  auto alias = probesOf(*unrestricted->step, "no-overlap");
  REQUIRE(alias.size() == 1);
  return *alias[0];
}

// The probe jobs that were controls: a simplified version run against itself.
std::vector<const RunnerJob*> controlJobs(const std::vector<RunnerJob>& probe_jobs) {
  std::vector<const RunnerJob*> out;
  for (const auto& j : probe_jobs)
    if (j.variant.cubin == j.original.cubin) out.push_back(&j);
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

const Skill* skillFor(const std::vector<Skill>& skills, const std::string& transform, bool with_restrict) {
  for (const auto& s : skills)
    if (s.transform == transform &&
        (contains(s.requires_features, "all_pointers_restrict") ||
         s.anchor_description.find("all_pointers_restrict") != std::string::npos) == with_restrict)
      return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("mine --probe: a probe that breaks the step verifies its precondition, one that passes drops it", "[mine][probe]") {
  Project p(4, expertFiles(), {"expert.cu"});
  SourceJudge gpu;
  const fs::path dir = p.root / "mined-skills";
  Mined m = mine(p, gpu, dir.string(), /*probe=*/true);
  REQUIRE(m.rc == 0);
  std::string lines;
  for (const auto& s : m.status.lines) lines += s + "\n";
  INFO(lines);
  const Lineage& l = m.lineage;
  // -launch-bounds from the expert: v1 keeps __restrict__ and loses the bound
  const LineageVersion* unbounded = versionBy(l, "launch-bounds", "v0");
  REQUIRE(unbounded);
  const LineageStep& bounds_step = *unbounded->step;
  CHECK(contains(unbounded->facts, "uniform-block-size"));
  auto blocks = probesOf(bounds_step, "uniform-block-size");
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0]->probe == "block 128 (grid 8192)");
  CHECK(blocks[0]->outcome == "holds");
  REQUIRE(blocks[0]->speedup);
  CHECK(*blocks[0]->speedup == Approx(1 / 0.95).epsilon(0.01));
  CHECK(blocks[1]->probe == "block 512 (grid 2048)");
  CHECK(blocks[1]->outcome == "breaks-correctness");  // the parent's __launch_bounds__(256) cannot launch 512
  CHECK_THAT(blocks[1]->reason, Catch::Contains("launching the variant kernel"));
  auto mis = probesOf(bounds_step, "aligned16(all pointers)");
  REQUIRE(mis.size() == 1);
  CHECK(mis[0]->probe == "misaligned: x +4 bytes, y +4 bytes");
  CHECK(mis[0]->outcome == "holds");
  auto alias = probesOf(bounds_step, "no-overlap");
  REQUIRE(alias.size() == 1);
  CHECK(alias[0]->probe == "aliased: y = x (in place)");
  CHECK(alias[0]->outcome == "holds");  // both sides have __restrict__: the step does not add it
  auto sizes = probesOf(bounds_step, "divisible-sizes");
  REQUIRE(sizes.size() == 3);
  for (const auto* sp : sizes) CHECK(sp->outcome == "holds");

  // -restrict-pointers from the expert: the parent adds __restrict__, wrong when y = x
  const LineageVersion* unrestricted = versionBy(l, "restrict-pointers", "v0");
  REQUIRE(unrestricted);
  auto restrict_alias = probesOf(*unrestricted->step, "no-overlap");
  REQUIRE(restrict_alias.size() == 1);
  CHECK(restrict_alias[0]->outcome == "breaks-correctness");
  CHECK_THAT(restrict_alias[0]->reason, Catch::Contains("wrong-result: seed 1: x[0]"));
  // at block 512 the simplified version itself (still bounded to 256) cannot launch: says nothing
  auto restrict_blocks = probesOf(*unrestricted->step, "uniform-block-size");
  REQUIRE(restrict_blocks.size() == 2);
  CHECK(restrict_blocks[1]->outcome == "inconclusive");
  CHECK_THAT(restrict_blocks[1]->reason, Catch::Contains("the simplified version itself fails"));

  // the jobs: the simplified version as the original, its parent as the variant
  REQUIRE_FALSE(gpu.probe_jobs.empty());
  bool saw_offset = false, saw_alias = false;
  for (const auto& j : gpu.probe_jobs) {
    CHECK(readFile(j.original.cubin).find("mine-") != std::string::npos);
    for (const auto& prm : j.params) {
      saw_offset = saw_offset || (prm.name == "x" && prm.offset_elements == 1);
      saw_alias = saw_alias || prm.alias_of == "x";
    }
  }
  CHECK(saw_offset);
  CHECK(saw_alias);
  CHECK(m.status.saw("klineage mine: probe " + unbounded->id + " -> v0  uniform-block-size  block 512 (grid 2048)  breaks-correctness"));

  // lineage.json round-trips the evidence
  const Lineage back = loadLineage((p.root / "mine/lineage.json").string());
  const LineageVersion* b = back.find(unbounded->id);
  REQUIRE(b);
  REQUIRE(b->step->probes.size() == bounds_step.probes.size());
  for (size_t i = 0; i < bounds_step.probes.size(); ++i) {
    const StepProbe &x = bounds_step.probes[i], &y = b->step->probes[i];
    CHECK(x.precondition == y.precondition);
    CHECK(x.probe == y.probe);
    CHECK(x.outcome == y.outcome);
    CHECK(x.reason == y.reason);
    CHECK(x.speedup.has_value() == y.speedup.has_value());
  }

  // the skills: verified preconditions stay facts, not-required ones are dropped; risks name the probe
  const std::vector<Skill> skills = loadSkills({dir.string()}, transformIds(), featureIds());
  const Skill* lb = skillFor(skills, "launch-bounds", true);
  REQUIRE(lb);
  CHECK(lb->verified == std::vector<std::string>{"uniform-block-size"});
  CHECK(lb->facts == std::vector<std::string>{"uniform-block-size"});
  CHECK(contains(lb->not_required, "aligned16(all pointers)"));
  CHECK(contains(lb->not_required, "no-overlap"));
  CHECK(contains(lb->not_required, "divisible-sizes"));
  CHECK(lb->unverified.empty());
  CHECK(lb->precondition_probes.size() == bounds_step.probes.size());
  bool risk = false;
  for (const auto& r : lb->risks)
    risk = risk || (r.failure.find("block 512 (grid 2048)") != std::string::npos &&
                    r.avoided_by.find("uniform-block-size") != std::string::npos);
  CHECK(risk);
  const Skill* rp = skillFor(skills, "restrict-pointers", false);  // from v0: the bound still there
  REQUIRE(rp);
  CHECK(contains(rp->verified, "no-overlap"));
  CHECK(contains(rp->facts, "no-overlap"));
  CHECK(contains(rp->not_required, "uniform-block-size"));  // block 128 held; 512 said nothing
  // `klineage skills show`
  const std::string shown = preconditionEvidenceText(*lb);
  INFO(shown);
  CHECK_THAT(shown, Catch::Contains("uniform-block-size: required") && Catch::Contains("block 512 (grid 2048)  breaks-correctness") &&
                        Catch::Contains("no-overlap: not required"));
  CHECK(skillToJson(*lb)["preconditions"]["verified"] == nlohmann::json{"uniform-block-size"});
}

TEST_CASE("mine --probe: no gain without a precondition verifies it too, the step stays a skill", "[mine][probe]") {
  Project p(4, expertFiles(), {"expert.cu"});
  SourceJudge gpu;
  gpu.misaligned_no_gain = true;
  const fs::path dir = p.root / "mined-skills";
  Mined m = mine(p, gpu, dir.string(), true);
  REQUIRE(m.rc == 0);
  const std::vector<Skill> skills = loadSkills({dir.string()}, transformIds(), featureIds());
  REQUIRE_FALSE(skills.empty());
  for (const auto& s : skills) {
    CHECK(contains(s.verified, "aligned16(all pointers)"));
    CHECK(contains(s.facts, "aligned16(all pointers)"));
    bool speed = false;
    for (const auto& e : s.precondition_probes) speed = speed || (e.outcome == "breaks-speed" && e.speedup && *e.speedup == Approx(1.0));
    CHECK(speed);
  }
}

TEST_CASE("mine --probe: what no probe settles is unverified and stays a fact", "[mine][probe]") {
  SECTION("a wrong result the simplified version also gives against itself is inconclusive") {
    Project p(4, expertFiles(), {"expert.cu"});
    SourceJudge gpu;
    gpu.racy_alias = true;
    const fs::path dir = p.root / "mined-skills";
    Mined m = mine(p, gpu, dir.string(), true);
    REQUIRE(m.rc == 0);
    const StepProbe& alias = restrictAliasProbe(m.lineage);
    CHECK(alias.outcome == "inconclusive");
    CHECK_THAT(alias.reason, Catch::Contains("does not agree with itself"));
    const std::vector<Skill> skills = loadSkills({dir.string()}, transformIds(), featureIds());
    const Skill* rp = skillFor(skills, "restrict-pointers", false);
    REQUIRE(rp);
    CHECK(contains(rp->unverified, "no-overlap"));
    CHECK(contains(rp->facts, "no-overlap"));
    // the difference was seen on the input sets: the controls are not timed
    const auto controls = controlJobs(gpu.probe_jobs);
    CHECK_FALSE(controls.empty());
    for (const RunnerJob* j : controls) CHECK_FALSE(j->profile.enabled);
  }
  SECTION("a wrong result seen only in timed runs gets a control with timed runs") {
    // Unprofiled, the simplified version agrees with itself; only its timed runs differ (as the
    // tiled sgemm does at a block its tiles do not fit: shared memory left by an earlier run).
    Project p(4, expertFiles(), {"expert.cu"});
    SourceJudge gpu;
    gpu.racy_alias_timed = true;
    Mined m = mine(p, gpu, (p.root / "mined-skills").string(), true);
    REQUIRE(m.rc == 0);
    const StepProbe& alias = restrictAliasProbe(m.lineage);
    CHECK(alias.outcome == "inconclusive");
    CHECK_THAT(alias.reason, Catch::Contains("does not agree with itself") && Catch::Contains("timed run 60"));
    bool timed_control = false;
    for (const RunnerJob* j : controlJobs(gpu.probe_jobs)) timed_control = timed_control || j->profile.enabled;
    CHECK(timed_control);
  }
  SECTION("probes that cannot run leave every precondition unverified and the facts as they were") {
    Project p(4, expertFiles(), {"expert.cu"});
    SourceJudge gpu;
    gpu.probes_lost = true;
    const fs::path dir = p.root / "mined-skills";
    Mined m = mine(p, gpu, dir.string(), true);
    REQUIRE(m.rc == 0);
    const std::vector<Skill> skills = loadSkills({dir.string()}, transformIds(), featureIds());
    REQUIRE_FALSE(skills.empty());
    for (const auto& s : skills) {
      CHECK(s.verified.empty());
      CHECK(s.not_required.empty());
      CHECK(contains(s.unverified, "aligned16(all pointers)"));
      CHECK(contains(s.unverified, "divisible-sizes"));
      const LineageVersion* v = m.lineage.find(s.lineage_version);
      REQUIRE(v);
      CHECK(s.facts == v->facts);
      for (const auto& e : s.precondition_probes) CHECK(e.outcome == "not-run");
    }
  }
  SECTION("without --probe nothing is probed and the skills read as before") {
    Project p(4, expertFiles(), {"expert.cu"});
    SourceJudge gpu;
    const fs::path dir = p.root / "mined-skills";
    Mined m = mine(p, gpu, dir.string());
    REQUIRE(m.rc == 0);
    CHECK(gpu.probe_jobs.empty());
    for (const auto& v : m.lineage.versions)
      if (v.step) CHECK(v.step->probes.empty());
    for (const auto& s : loadSkills({dir.string()}, transformIds(), featureIds())) {
      CHECK(s.verified.empty());
      CHECK(s.precondition_probes.empty());
      CHECK(preconditionEvidenceText(s).empty());
      CHECK(readFile(s.path).find("verified") == std::string::npos);
    }
  }
}

TEST_CASE("mined skills: a precondition no probe can reach is unverified, the probe keys are checked", "[mine][probe][skills]") {
  // A lineage by hand: v1 <- v0 by -restrict-pointers, paying 1.2x, probed.
  Lineage l;
  l.target = "t";
  l.kernel = "k";
  l.expert_file = "/src/k.cu";
  l.gpu = "Fake GPU";
  l.shape = "grid 4 block 256";
  LineageVersion v0, v1;
  v0.id = "v0";
  v0.outcome = "expert";
  v0.accepted = true;
  v0.time_ms = 1.0;
  v1.id = "v1";
  v1.parent = "v0";
  v1.depth = 1;
  v1.step = LineageStep{"restrict-pointers", nlohmann::json::object(), "dropped __restrict__", {}};
  v1.outcome = "slower";
  v1.accepted = true;
  v1.time_ms = 1.2;
  v1.parent_speedup = 1.2;
  v1.facts = {"aligned16(all pointers)", "no-overlap"};
  v1.step->probes = {{"aligned16(all pointers)", "", "unprobed", "every pointer's element type is 16 bytes or larger", std::nullopt},
                     {"no-overlap", "aliased: y = x (in place)", "breaks-correctness", "wrong-result: x[0]", std::nullopt},
                     {"divisible-sizes", "n = 1013", "holds", "same results", std::nullopt}};
  l.versions = {v0, v1};
  klineage::test::TempDir dir("probed-skills");
  saveLineage((dir.path / "lineage.json").string(), l);
  const Lineage back = loadLineage((dir.path / "lineage.json").string());
  REQUIRE(back.versions[1].step->probes.size() == 3);
  CHECK(back.versions[1].step->probes[0].probe.empty());
  CHECK(back.versions[1].step->probes[0].outcome == "unprobed");
  const auto files = emitMinedSkills(back, (dir.path / "lineage.json").string(), (dir.path / "skills").string());
  REQUIRE(files.size() == 1);
  const std::vector<Skill> skills = loadSkills({(dir.path / "skills").string()}, transformIds(), featureIds());
  REQUIRE(skills.size() == 1);
  const Skill& s = skills[0];
  CHECK(s.unverified == std::vector<std::string>{"aligned16(all pointers)"});
  CHECK(s.verified == std::vector<std::string>{"no-overlap"});
  CHECK(s.not_required == std::vector<std::string>{"divisible-sizes"});
  CHECK(s.facts == std::vector<std::string>{"aligned16(all pointers)", "no-overlap"});
  REQUIRE(s.precondition_probes.size() == 3);
  CHECK(s.precondition_probes[0].probe.empty());
  CHECK(s.precondition_probes[1].step == "v1 -> v0");
  CHECK_THAT(preconditionEvidenceText(s), Catch::Contains("aligned16(all pointers): unverified") &&
                                               Catch::Contains("(no probe)  unprobed"));

  // the loader's checks on the new keys
  const std::string file = files[0];
  const std::string text = readFile(file);
  auto rejects = [&](const std::string& edited, const std::string& message) {
    atomicWrite(file, edited);
    CHECK_THROWS_WITH(loadSkills({(dir.path / "skills").string()}, transformIds(), featureIds()), Catch::Contains(message));
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  rejects(replaced("not_required = [\"divisible-sizes\"]", "not_required = [\"no-overlap\"]"),
          "'no-overlap' is also in preconditions.verified");
  rejects(replaced("not_required = [\"divisible-sizes\"]", "not_required = [\"fast-enough\"]"),
          "unknown precondition 'fast-enough'");
  rejects(replaced("outcome = \"holds\"", "outcome = \"fine\""), "preconditions.probes.outcome: \"fine\"");
  rejects(replaced("schema = 2", "schema = 1"), "needs schema = 2");
  atomicWrite(file, text);
  CHECK_NOTHROW(loadSkills({(dir.path / "skills").string()}, transformIds(), featureIds()));
}

namespace {

// A reduction expert as block-reduce-atomic's forward writes it with coarsen 16 and `unroll` (1: no
// pragma), no __restrict__ or __launch_bounds__: -block-reduce-atomic is the only inverse that is kept
// (the skills give it coarsen 16; 16 and unroll 4; 64; and 16, unroll 4, vector_width 4).
std::map<std::string, std::string> reductionFiles(unsigned unroll) {
  const std::string pragma = unroll > 1 ? "  #pragma unroll " + std::to_string(unroll) + "\n" : "";
  const std::string expert = R"CU(// a reduction expert for the miner
#include "kernels.h"

__global__ void rsum(int n, float* x, float* out) {
  float kl_sum = 0;
)CU" + pragma + R"CU(  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_sum += x[i];
  // one sum per warp, then per block, then one atomic per block
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);
  __shared__ float kl_warp_sums[32];
  if (threadIdx.x % 32 == 0) kl_warp_sums[threadIdx.x / 32] = kl_sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    kl_sum = threadIdx.x < blockDim.x / 32 ? kl_warp_sums[threadIdx.x] : 0;
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);
    if (threadIdx.x == 0) atomicAdd(out, kl_sum);
  }
}

cudaError_t launch_rsum(int n, float* x, float* out) {
  cudaError_t err = cudaMemsetAsync(out, 0, sizeof(float));
  if (err != cudaSuccess) return err;
  rsum<<<(n + 4095) / 4096, 256>>>(n, x, out);
  return cudaGetLastError();
}
)CU";
  const char* workload = R"TOML(
[kernel.rsum]
grid = ["(n + 4095) / 4096"]
block = [256]
args.n = 1048576
args.x = { elements = "n", init = "uniform(-1, 1)" }
args.out = { elements = 1, init = "zeros", output = true }
check = { rtol = 1e-3, atol = 4.0 }
)TOML";
  const std::string toml = readFile(fs::path(KLINEAGE_SOURCE_DIR) / "examples/quickstart/klineage.toml");
  return {{"src/expert.cu", expert}, {"klineage.toml", toml + workload}};
}

// The block reduction is twice as fast as the naive kernel (one atomicAdd per element).
Mined mineReduction(const Project& p, SourceJudge& gpu, const fs::path& skills) {
  gpu.speed = [](const std::string& text) { return text.find("kl_sum") != std::string::npos ? 1.0 : 0.5; };
  return mine(p, gpu, skills.string(), false, "rsum");
}

std::string paramsOf(const LineageStep& s) { return s.params.dump(); }

const DroppedStep* droppedWith(const Lineage& l, const std::string& transform, const std::string& params) {
  for (const auto& d : l.dropped)
    if (d.step.transform == transform && paramsOf(d.step) == params) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("mine: a parameter set the inverse ignored is dropped when its forward does not give the expert back",
          "[mine]") {
  // The expert has no `#pragma unroll`: -block-reduce-atomic with coarsen 16, unroll 4 (its skill is
  // loaded first) and with coarsen 16 make the same version, but only coarsen 16's forward writes the
  // expert again: it is the version's step, not a merged one.
  Project p(4, reductionFiles(1), {"expert.cu"});
  SourceJudge gpu;
  const fs::path dir = p.root / "mined-skills";
  Mined m = mineReduction(p, gpu, dir);
  REQUIRE(m.rc == 0);
  const Lineage& l = m.lineage;
  std::string lines;
  for (const auto& v : l.versions) lines += lineageLine(l, v) + "\n";
  for (const auto& s : m.status.lines) lines += s + "\n";
  INFO(lines);
  const LineageVersion* naive = nullptr;
  for (const auto& v : l.versions) {
    if (v.parent == "v0" && transformOf(v) == "block-reduce-atomic" && v.step->params.value("coarsen", "") == "16")
      naive = &v;
    // no step of the tree carries a parameter the expert does not have
    if (v.step) CHECK_FALSE(v.step->params.contains("unroll"));
    for (const auto& [parent, step] : v.also_from) CHECK_FALSE(step.params.contains("unroll"));
  }
  REQUIRE(naive);
  CHECK(paramsOf(*naive->step) == R"({"coarsen":"16"})");
  CHECK(naive->also_from.empty());
  CHECK(naive->geometry.grid_x_multiplier == 16);
  // the dropped parameter set, with why, and the version it reached
  const DroppedStep* unrolled = droppedWith(l, "block-reduce-atomic", R"({"coarsen":"16","unroll":"4"})");
  REQUIRE(unrolled);
  CHECK(unrolled->parent == "v0");
  CHECK(unrolled->reason == "forward with coarsen=16, unroll=4 does not give v0 back");
  CHECK(unrolled->version == naive->id);
  CHECK(m.status.saw("-block-reduce-atomic from v0: forward with coarsen=16, unroll=4 does not give v0 back: dropped from " +
                     naive->id + "'s steps"));
  // coarsen 64 undoes the step as well (the naive kernel on 4x the grid it needs): kept
  bool coarse = false;
  for (const auto& v : l.versions) coarse = coarse || (v.step && paramsOf(*v.step) == R"({"coarsen":"64"})");
  CHECK(coarse);
  // -grid-stride-loop of the reduction's loop: grid-stride-loop's forward refuses what it leaves (it
  // would cover n / 16), and no other parameter set's forward gives v0 back: the version is made and
  // gated all the same, its step one a language model would apply, with the forward diff as example
  const LineageVersion* gsl = nullptr;
  for (const auto& v : l.versions)
    if (v.parent == "v0" && transformOf(v) == "grid-stride-loop") gsl = &v;
  REQUIRE(gsl);
  CHECK(gsl->step->materialize == "llm");
  CHECK_THAT(gsl->step->forward, Catch::StartsWith("forward with the default parameters refuses the simplified version"));
  CHECK_THAT(gsl->step->example, Catch::Contains("i += blockDim.x * gridDim.x") && Catch::Contains("\n+"));
  CHECK(gsl->accepted);
  CHECK(droppedWith(l, "grid-stride-loop", "{}") == nullptr);
  CHECK_THAT(lineageLine(l, *gsl), Catch::Contains("-grid-stride-loop (llm)"));

  // the skills: coarsen 16 and coarsen 64, no unroll
  const std::vector<Skill> skills = loadSkills({dir.string()}, transformIds(), featureIds());
  std::set<std::string> params;
  for (const auto& s : skills) {
    CHECK(s.transform == "block-reduce-atomic");
    CHECK_FALSE(s.params.contains("unroll"));
    params.insert(s.params.dump());
    REQUIRE(s.measured.size() == 1);
    CHECK(s.measured[0].speedup == Approx(2.0).epsilon(0.01));
  }
  CHECK(params == std::set<std::string>{R"({"coarsen":16})", R"({"coarsen":64})"});

  // lineage.json keeps the dropped steps
  const Lineage back = loadLineage((p.root / "mine/lineage.json").string());
  REQUIRE(back.dropped.size() == l.dropped.size());
  const DroppedStep* b = droppedWith(back, "block-reduce-atomic", R"({"coarsen":"16","unroll":"4"})");
  REQUIRE(b);
  CHECK(b->parent == "v0");
  CHECK(b->reason == unrolled->reason);
  CHECK(b->version == naive->id);
  const LineageVersion* bg = back.find(gsl->id);
  REQUIRE(bg);
  REQUIRE(bg->step);
  CHECK(bg->step->materialize == "llm");
  CHECK(bg->step->forward == gsl->step->forward);
  CHECK(bg->step->example == gsl->step->example);
  CHECK(back.find(naive->id)->step->materialize == "rewriter");
}

TEST_CASE("mine: the parameter set whose forward gives the expert back is kept as the step", "[mine]") {
  // The expert has `#pragma unroll 4`: coarsen 16 alone does not write it back; coarsen 16, unroll 4
  // does and is the step, its skill with unroll 4.
  Project p(4, reductionFiles(4), {"expert.cu"});
  SourceJudge gpu;
  const fs::path dir = p.root / "mined-skills";
  Mined m = mineReduction(p, gpu, dir);
  REQUIRE(m.rc == 0);
  const Lineage& l = m.lineage;
  std::string lines;
  for (const auto& v : l.versions) lines += lineageLine(l, v) + "\n";
  for (const auto& s : m.status.lines) lines += s + "\n";
  INFO(lines);
  REQUIRE(l.versions.size() == 2);  // the expert and the naive kernel
  const LineageVersion& naive = l.versions[1];
  CHECK(transformOf(naive) == "block-reduce-atomic");
  CHECK(paramsOf(*naive.step) == R"({"coarsen":"16","unroll":"4"})");
  CHECK(naive.also_from.empty());
  const DroppedStep* plain = droppedWith(l, "block-reduce-atomic", R"({"coarsen":"16"})");
  REQUIRE(plain);
  CHECK(plain->reason == "forward with coarsen=16 does not give v0 back");
  CHECK(plain->version == naive.id);
  // coarsen 64 makes another version, but its forward has no pragma either: not followed
  const DroppedStep* coarse = droppedWith(l, "block-reduce-atomic", R"({"coarsen":"64"})");
  REQUIRE(coarse);
  CHECK(coarse->version.empty());
  CHECK(m.status.saw("-block-reduce-atomic from v0: forward with coarsen=64 does not give v0 back: not followed"));
  CHECK(gpu.gated == std::vector<std::string>{naive.id});

  const std::vector<Skill> skills = loadSkills({dir.string()}, transformIds(), featureIds());
  REQUIRE(skills.size() == 1);
  CHECK(skills[0].transform == "block-reduce-atomic");
  CHECK(skills[0].params == nlohmann::json{{"coarsen", 16}, {"unroll", 4}});
  CHECK(skills[0].lineage_version == naive.id);
}

TEST_CASE("mine: a paying step no forward transform reproduces becomes a skill a language model applies, with the "
          "expert's diff as its example",
          "[mine]") {
  // -grid-stride-loop's forward refuses the version it leaves (test above); here the expert's
  // grid-stride loop is what makes it fast (a version without gridDim runs at half speed).
  Project p(4, reductionFiles(1), {"expert.cu"});
  SourceJudge gpu;
  gpu.speed = [](const std::string& text) { return text.find("gridDim") != std::string::npos ? 1.0 : 0.5; };
  const fs::path dir = p.root / "mined-skills";
  Mined m = mine(p, gpu, dir.string(), false, "rsum");
  REQUIRE(m.rc == 0);
  const Lineage& l = m.lineage;
  std::string lines;
  for (const auto& v : l.versions) lines += lineageLine(l, v) + "\n";
  INFO(lines);
  const LineageVersion* gsl = nullptr;
  for (const auto& v : l.versions)
    if (v.parent == "v0" && transformOf(v) == "grid-stride-loop") gsl = &v;
  REQUIRE(gsl);
  REQUIRE(gsl->parent_speedup);
  CHECK(*gsl->parent_speedup == Approx(2.0).epsilon(0.01));

  const std::vector<Skill> skills = loadSkills({dir.string()}, transformIds(), featureIds());
  const Skill* llm = nullptr;
  for (const auto& s : skills) {
    CHECK(s.transform != "grid-stride-loop");  // no rewriter skill claims what its forward cannot write
    if (s.materialize == Materialize::Llm) llm = &s;
  }
  REQUIRE(llm);
  CHECK(llm->id == "mined-rsum-grid-stride-loop-llm");
  CHECK(llm->transform.empty());
  CHECK(llm->params.empty());
  CHECK(llm->example == gsl->step->example);
  CHECK_THAT(llm->example, Catch::Contains("+  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)"));
  CHECK(llm->lineage_version == gsl->id);
  REQUIRE(llm->measured.size() == 1);
  CHECK(llm->measured[0].speedup == Approx(2.0).epsilon(0.01));
  CHECK_THAT(readFile(llm->path), Catch::Contains("# grid-stride-loop's forward does not give v0 back from " + gsl->id +
                                                  ": forward with the default parameters refuses"));
}

TEST_CASE("mine: a forward step reproduces its parent up to comments and the names it introduces", "[mine]") {
  const std::string forward =
      "#pragma unroll\n for (int kl_r = 0; kl_r < 4; ++kl_r) {  // kl: 4 consecutive rows\n"
      "  int row = (blockIdx.y * blockDim.y + threadIdx.y) * 4 + kl_r;\n  out[row] = 1; }";
  const std::string expert =
      "#pragma unroll\nfor (int r = 0; r < 4; ++r) {\n  /* each thread: 4 rows */ int row = (blockIdx.y * blockDim.y "
      "+ threadIdx.y) * 4 + r;\n  out[row] = 1;\n}";
  CHECK(sameUpToTransformNames(forward, expert));
  CHECK(sameUpToTransformNames(expert, expert));
  // Any other token differs: another count, another operator.
  std::string other = expert;
  other.replace(other.find("r < 4"), 5, "r < 8");
  CHECK_FALSE(sameUpToTransformNames(forward, other));
  // The expert's name already stands for something else: `r` is also the user's own `r`.
  CHECK_FALSE(sameUpToTransformNames("int kl_r = 0; int r = kl_r;", "int r = 0; int r = r;"));
  // Two names of the transform cannot be one name of the expert, nor one of them two.
  CHECK_FALSE(sameUpToTransformNames("int kl_a = 0; int kl_b = kl_a;", "int t = 0; int t = t;"));
  CHECK_FALSE(sameUpToTransformNames("int kl_a = 0; int x = kl_a;", "int s = 0; int x = t;"));
  // A name of the user is never renamed.
  CHECK_FALSE(sameUpToTransformNames("int row = 0;", "int r = 0;"));
}

TEST_CASE("mined skills: the anchor keeps the features the transform's library skills need, not the expert's others",
          "[mine][skills]") {
  // v1 <- v0 by -coarsen-rows (pays 1.13x) and v2 <- v0 by an llm step (pays 1.05x); the expert has
  // __restrict__, __launch_bounds__ and loops, which coarsen-rows' library skill does not require.
  Lineage l;
  l.target = "t";
  l.kernel = "k";
  l.expert_file = "/src/k.cu";
  l.gpu = "Fake GPU";
  l.shape = "grid [4,4] block [32,8]";
  LineageVersion v0, v1, v2;
  v0.id = "v0";
  v0.outcome = "expert";
  v0.accepted = true;
  v0.time_ms = 1.0;
  const std::vector<std::string> feats{"all_pointers_restrict", "launch_bounds", "loops", "pointer_params", "thread_index"};
  v1.id = "v1";
  v1.parent = "v0";
  v1.depth = 1;
  v1.step = LineageStep{"coarsen-rows", nlohmann::json{{"rows", 4}}, "one row per thread", {}};
  v1.outcome = "slower";
  v1.accepted = true;
  v1.time_ms = 1.13;
  v1.parent_speedup = 1.13;
  v1.features = feats;
  v2 = v1;
  v2.id = "v2";
  v2.step = LineageStep{"launch-bounds", nlohmann::json::object(), "dropped the bound", {}};
  v2.step->materialize = "llm";
  v2.step->example = "-__launch_bounds__(256)";
  v2.time_ms = 1.05;
  v2.parent_speedup = 1.05;
  l.versions = {v0, v1, v2};
  klineage::test::TempDir dir("anchor-skills");
  saveLineage((dir.path / "lineage.json").string(), l);
  Skill lib;
  lib.id = "coarsen-rows";
  lib.transform = "coarsen-rows";
  lib.provenance_kind = "hand-written";
  lib.requires_features = {"pointer_params"};
  Skill lib2 = lib;
  lib2.id = "coarsen-rows-wide";
  lib2.requires_features = {"pointer_params", "thread_index"};
  const auto needs = transformNeeds({lib, lib2});
  REQUIRE(needs.count("coarsen-rows"));
  CHECK(needs.at("coarsen-rows") == std::vector<std::string>{"pointer_params"});  // what both require
  const auto files = emitMinedSkills(l, (dir.path / "lineage.json").string(), (dir.path / "skills").string(), needs);
  REQUIRE(files.size() == 2);
  const std::vector<Skill> skills = loadSkills({(dir.path / "skills").string()}, transformIds(), featureIds());
  REQUIRE(skills.size() == 2);
  for (const Skill& s : skills) {
    INFO(s.id);
    if (s.hasTransform()) {
      CHECK(s.requires_features == std::vector<std::string>{"pointer_params"});
      CHECK_THAT(s.anchor_description, Catch::Contains("also had: all_pointers_restrict, launch_bounds, loops, thread_index"));
    } else {  // an llm step: the model is shown the expert's form, so the anchor stays the version's
      CHECK(s.requires_features == feats);
    }
  }
  // Without a library the anchor is the version's features, as before.
  klineage::test::TempDir dir2("anchor-skills-plain");
  emitMinedSkills(l, (dir.path / "lineage.json").string(), (dir2.path / "skills").string());
  for (const Skill& s : loadSkills({(dir2.path / "skills").string()}, transformIds(), featureIds())) CHECK(s.requires_features == feats);
}
