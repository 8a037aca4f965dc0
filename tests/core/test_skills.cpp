#include <catch2/catch.hpp>

#include "support/input_error.h"
#include "support/temp_dir.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <unistd.h>

#include "core/diag.h"
#include "core/facts/fact.h"
#include "core/skill.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTransforms = {"restrict-pointers", "launch-bounds", "grid-stride-loop",
                                              "vectorize-access"};

// The registered transforms' ids: one folder each under rewriter/transforms/ (the rewriter's
// transformIds() needs Clang, which core's tests do not link; the golden test checks that the
// folders and transformIds() agree).
std::vector<std::string> transformFolders() {
  std::vector<std::string> ids;
  for (const auto& e : fs::directory_iterator(fs::path(KLINEAGE_SOURCE_DIR) / "rewriter" / "transforms"))
    if (e.is_directory()) ids.push_back(e.path().filename().string());
  std::sort(ids.begin(), ids.end());
  return ids;
}

size_t shippedSkillFiles() {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(KLINEAGE_SOURCE_DIR) / "skills"))
    n += e.path().extension() == ".toml";
  return n;
}

struct TempDir : test::TempDir {
  TempDir() : test::TempDir("skills") {}
};

using test::inputError;
using test::writeFile;

// The brief's example skill, with one measured effect. Line numbers matter to the tests below.
const std::string kExample = R"TOML(schema = 1
id = "vectorize-float4"
intent = "Move 4 elements per thread-iteration with 16-byte loads/stores"
transform = "vectorize-access"
[params]
width = 4
[anchor]
description = "elementwise grid-stride loop over float/int arrays indexed by the loop variable"
requires_features = ["grid_stride_loop"]
forbids_features = ["barriers", "atomics", "shuffles"]
[preconditions]
facts = ["aligned16(all pointers)", "no-overlap"]
[effect]
expected = "memory-bound elementwise kernels: fewer, wider memory transactions"
[[effect.measured]]
workload = "saxpy n=2^26"
gpu = "NVIDIA H200"
speedup = 1.26
[[risks]]
failure = "misaligned address fault when a pointer is not 16-byte aligned"
avoided_by = "aligned16 precondition"
[provenance]
kind = "hand-written"
)TOML";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  size_t pos = s.find(from);
  REQUIRE(pos != std::string::npos);
  return s.replace(pos, from.size(), to);
}

KernelInfo gridStrideKernel() {
  KernelInfo k;
  k.name = "saxpy";
  for (const char* n : {"x", "y"}) {
    ParamInfo p;
    p.name = n;
    p.is_pointer = true;
    p.pointee = "float";
    p.type = "float *";
    k.params.push_back(p);
  }
  k.features.thread_index = "blockIdx.x * blockDim.x + threadIdx.x";
  k.features.index_var = "i";
  k.features.grid_stride_loop = true;
  k.features.loops = 1;
  return k;
}

WorkloadFacts factsWithOffsets(unsigned long long x_off, unsigned long long y_off) {
  PreparedLaunch l;
  l.grid = {1024, 1, 1};
  l.block = {256, 1, 1};
  for (auto [name, off] : {std::pair<const char*, unsigned long long>{"x", x_off}, {"y", y_off}}) {
    ParamSpec p;
    p.name = name;
    p.is_buffer = true;
    p.type = ElemType::F32;
    p.elements = 1 << 20;
    p.offset_elements = off;
    l.params.push_back(p);
  }
  return deriveFacts(l);
}

}  // namespace

TEST_CASE("skills: the shipped skills load", "[skills]") {
  std::vector<Skill> skills = loadSkills({std::string(KLINEAGE_SOURCE_DIR) + "/skills"}, transformFolders());
  REQUIRE(skills.size() == shippedSkillFiles());
  std::map<std::string, const Skill*> by_id;
  std::set<std::string> transforms_used;
  for (const auto& s : skills) {
    CHECK(s.schema == 1);
    CHECK(s.provenance_kind == "hand-written");
    // measured entries carry a workload, a GPU and a positive speedup
    for (const auto& m : s.measured) {
      CHECK_FALSE(m.workload.empty());
      CHECK_FALSE(m.gpu.empty());
      CHECK(m.speedup > 0);
    }
    CHECK_FALSE(s.intent.empty());
    CHECK_FALSE(s.risks.empty());
    by_id[s.id] = &s;
    if (!s.transform.empty()) transforms_used.insert(s.transform);
  }
  REQUIRE(by_id.size() == skills.size());
  // every transform is named by at least one skill (block-size by one per size, the reductions by two grids)
  for (const std::string& t : transformFolders()) {
    INFO("transform " << t);
    CHECK(transforms_used.count(t) == 1);
  }
  CHECK(by_id["vectorize-float4"]->measured.size() == 4);  // quickstart saxpy, relu; experts bias_gelu, scale_add
  CHECK(by_id["restrict-pointers"]->measured.empty());
  CHECK(by_id["restrict-pointers"]->params.at("add_const") == true);
  CHECK(by_id["restrict-pointers"]->facts == std::vector<std::string>{"no-overlap"});
  CHECK(by_id["launch-bounds"]->facts == std::vector<std::string>{"uniform-block-size"});
  CHECK(by_id["block-size-512"]->params.at("threads") == 512);
  CHECK(by_id["block-size-512"]->search_rank == 1);
  // The 4-wide reductions (and row-registers' float4 mode) are tried before the scalar forms until
  // measured (rankSkills: the rank first).
  for (const auto& [vec4, scalar] : {std::pair<std::string, std::string>{"block-reduce-atomic-vec4", "block-reduce-atomic-unrolled"},
                                     {"block-reduce-atomic-vec4", "block-reduce-atomic"},
                                     {"block-reduce-cas-vec4", "block-reduce-cas"},
                                     {"row-registers-vec4", "row-registers"}}) {
    INFO(vec4 << " before " << scalar);
    REQUIRE(by_id.count(vec4));
    CHECK(by_id[vec4]->params.at("vector_width") == 4);
    CHECK(by_id[vec4]->transform == by_id[scalar]->transform);
    CHECK(by_id[vec4]->search_rank < by_id[scalar]->search_rank);
    CHECK(by_id[vec4]->measured.empty());
  }
  const Skill& vec = *by_id["vectorize-float4"];
  CHECK(vec.params.at("width") == 4);
  CHECK(vec.facts == std::vector<std::string>{"aligned16(all pointers)", "no-overlap"});
  CHECK(vec.requires_features == std::vector<std::string>{"grid_stride_loop"});
  CHECK_THAT(vec.path, Catch::EndsWith(".toml"));
}

TEST_CASE("skills: every field of a skill file is read", "[skills]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  std::string path = writeFile(dir, "vec.toml", kExample);
  std::vector<Skill> skills = loadSkills({dir.string()}, kTransforms);
  REQUIRE(skills.size() == 1);
  const Skill& s = skills[0];
  CHECK(s.id == "vectorize-float4");
  CHECK(s.transform == "vectorize-access");
  CHECK(s.path == path);
  CHECK(s.params == nlohmann::json{{"width", 4}});
  CHECK(s.anchor_description == "elementwise grid-stride loop over float/int arrays indexed by the loop variable");
  CHECK(s.forbids_features == std::vector<std::string>{"barriers", "atomics", "shuffles"});
  CHECK(s.expected_effect == "memory-bound elementwise kernels: fewer, wider memory transactions");
  REQUIRE(s.measured.size() == 1);
  CHECK(s.measured[0].workload == "saxpy n=2^26");
  CHECK(s.measured[0].gpu == "NVIDIA H200");
  CHECK(s.measured[0].speedup == Approx(1.26));
  REQUIRE(s.risks.size() == 1);
  CHECK(s.risks[0].avoided_by == "aligned16 precondition");

  nlohmann::json j = skillToJson(s);
  CHECK(j["id"] == "vectorize-float4");
  CHECK(j["params"]["width"] == 4);
  CHECK(j["anchor"]["requires_features"] == nlohmann::json::array({"grid_stride_loop"}));
  CHECK(j["preconditions"]["facts"][0] == "aligned16(all pointers)");
  CHECK(j["effect"]["measured"][0]["speedup"].get<double>() == Approx(1.26));
  CHECK(j["provenance"]["kind"] == "hand-written");
  CHECK(j["path"] == path);
}

TEST_CASE("skills: files are read in sorted order and non-TOML files ignored", "[skills]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  writeFile(dir, "b.toml", replaced(kExample, "vectorize-float4", "b-skill"));
  writeFile(dir, "a.toml", replaced(kExample, "vectorize-float4", "a-skill"));
  writeFile(dir, "README.md", "not a skill");
  std::vector<Skill> skills = loadSkills({dir.string()}, kTransforms);
  REQUIRE(skills.size() == 2);
  CHECK(skills[0].id == "a-skill");
  CHECK(skills[1].id == "b-skill");
}

TEST_CASE("skills: errors name the file, line and what was expected", "[skills]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  auto load = [&](const std::string& text) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::string path = writeFile(dir, "s.toml", text);
    InputError e = inputError([&] { loadSkills({dir.string()}, kTransforms); });
    CHECK(e.file == path);
    CHECK_THAT(e.what(), Catch::StartsWith(path + ":"));
    return e;
  };

  InputError e = load(replaced(kExample, "width = 4", "width = = 4"));
  CHECK(e.line == 6);
  CHECK(e.column > 0);

  e = load(replaced(kExample, "id = \"vectorize-float4\"", "id = 3"));
  CHECK(e.line == 2);
  CHECK(e.column == 6);
  CHECK_THAT(e.what(), Catch::Contains("id: expected a string, found a integer"));

  e = load(replaced(kExample, "intent = \"Move 4 elements per thread-iteration with 16-byte loads/stores\"\n", ""));
  CHECK(e.line == 1);
  CHECK_THAT(e.what(), Catch::Contains("missing 'intent'; expected intent = \"...\" (a string)"));

  e = load(replaced(kExample, "transform = \"vectorize-access\"", "transform = \"vectorise\""));
  CHECK(e.line == 4);
  CHECK_THAT(e.what(), Catch::Contains(
                           "unknown transform 'vectorise'; known transforms: restrict-pointers, launch-bounds, "
                           "grid-stride-loop, vectorize-access"));

  e = load(replaced(kExample, "\"barriers\", \"atomics\"", "\"barriers\", \"atomic\""));
  CHECK(e.line == 10);
  CHECK_THAT(e.what(), Catch::Contains("anchor.forbids_features: unknown feature 'atomic'; valid features: "));
  CHECK_THAT(e.what(), Catch::Contains("atomics"));

  e = load(replaced(kExample, "\"no-overlap\"]", "\"no-alias\"]"));
  CHECK(e.line == 12);
  CHECK_THAT(e.what(), Catch::Contains("preconditions.facts: unknown fact 'no-alias'; valid facts: aligned<N>(all pointers)"));
  CHECK_THAT(e.what(), Catch::Contains("no-overlap"));

  e = load(replaced(kExample, "aligned16(all pointers)", "aligned12(all pointers)"));
  CHECK_THAT(e.what(), Catch::Contains("unknown fact 'aligned12(all pointers)'"));

  e = load(replaced(kExample, "schema = 1", "schema = 3"));
  CHECK(e.line == 1);
  CHECK_THAT(e.what(), Catch::Contains("schema: 3 is newer than this KLineage reads; supported schema versions: 1 to 2"));

  e = load(replaced(kExample, "kind = \"hand-written\"", "kind = \"handwritten\""));
  CHECK(e.line == 23);
  CHECK_THAT(e.what(), Catch::Contains("expected \"hand-written\" or \"mined\""));

  e = load(replaced(kExample, "speedup = 1.26", "speedup = \"fast\""));
  CHECK(e.line == 18);
  CHECK_THAT(e.what(), Catch::Contains("effect.measured.speedup: expected a positive number, found a string"));

  e = load(replaced(kExample, "[params]", "[parameters]"));
  CHECK(e.line == 5);
  CHECK_THAT(e.what(), Catch::Contains("unknown key 'parameters' in the skill file; expected one of: anchor, effect"));

  e = load(replaced(kExample, "[effect]\nexpected = \"memory-bound elementwise kernels: fewer, wider memory transactions\"\n",
                    "[effect]\n"));
  CHECK(e.line == 13);
  CHECK_THAT(e.what(), Catch::Contains("missing 'effect.expected'"));

  e = load(replaced(kExample, "requires_features = [\"grid_stride_loop\"]", "requires_features = [\"barriers\"]"));
  CHECK_THAT(e.what(), Catch::Contains("'barriers' is also required"));
}

TEST_CASE("skills: a skill id defined twice names both files", "[skills]") {
  TempDir ta, tb;
  const fs::path &a = ta.path, &b = tb.path;
  std::string first = writeFile(a, "vec.toml", kExample);
  std::string second = writeFile(b, "vec-again.toml", kExample);
  InputError e = inputError([&] { loadSkills({a.string(), b.string()}, kTransforms); });
  CHECK(e.file == second);
  CHECK(e.line == 2);
  CHECK_THAT(e.what(), Catch::Contains(second + ":2:"));
  CHECK_THAT(e.what(), Catch::Contains("skill id 'vectorize-float4' is already defined in " + first));

  InputError missing = inputError([&] { loadSkills({(a / "nope").string()}, kTransforms); });
  CHECK_THAT(missing.what(), Catch::Contains("expected a directory of skill files"));
}

TEST_CASE("skills: preconditions check features and workload facts", "[skills]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  writeFile(dir, "vec.toml", kExample);
  Skill vec = loadSkills({dir.string()}, kTransforms).at(0);
  KernelInfo k = gridStrideKernel();
  std::string why;

  WorkloadFacts aligned = factsWithOffsets(0, 4);  // 4 floats = 16 bytes
  CHECK(preconditionsHold(vec, k, &aligned, &why));

  WorkloadFacts off1 = factsWithOffsets(0, 1);  // y + 1: 4-byte aligned
  CHECK_FALSE(factHolds("aligned16(all pointers)", k, off1, nullptr));
  CHECK(factHolds("aligned4(all pointers)", k, off1, nullptr));
  CHECK_FALSE(preconditionsHold(vec, k, &off1, &why));
  CHECK_THAT(why, Catch::Contains("pointer 'y' is only 4-byte aligned"));

  CHECK_FALSE(preconditionsHold(vec, k, nullptr, &why));
  CHECK_THAT(why, Catch::Contains("aligned16(all pointers): not proven"));

  KernelInfo with_barrier = k;
  with_barrier.features.barriers = true;
  CHECK_FALSE(preconditionsHold(vec, with_barrier, &aligned, &why));
  CHECK_THAT(why, Catch::Contains("forbidden feature 'barriers'"));

  KernelInfo flat = k;
  flat.features.grid_stride_loop = false;
  CHECK_FALSE(preconditionsHold(vec, flat, &aligned, &why));
  CHECK_THAT(why, Catch::Contains("lacks required feature 'grid_stride_loop'"));
}

TEST_CASE("skills: derived features and the uniform-block-size fact", "[skills]") {
  KernelInfo k = gridStrideKernel();
  CHECK(kernelHasFeature(k, "pointer_params"));
  CHECK_FALSE(kernelHasFeature(k, "all_pointers_restrict"));
  for (auto& p : k.params) p.is_restrict = true;
  CHECK(kernelHasFeature(k, "all_pointers_restrict"));
  CHECK(kernelHasFeature(k, "thread_index"));
  CHECK_FALSE(kernelHasFeature(k, "bounds_guard"));
  CHECK_FALSE(kernelHasFeature(k, "launch_bounds"));

  WorkloadFacts f = factsWithOffsets(0, 0);  // block 256
  std::string why;
  CHECK_FALSE(factHolds("uniform-block-size", k, f, &why));
  CHECK_THAT(why, Catch::Contains("no launch site"));

  LaunchSite a, b;
  a.file = b.file = "/src/app.cu";
  a.line = 10;
  b.line = 20;
  a.block = b.block = "256";
  a.block_value = b.block_value = 256;
  k.launches = {a, b};
  CHECK(factHolds("uniform-block-size", k, f, &why));

  k.launches[1].block_value = 128;
  k.launches[1].block = "128";
  CHECK_FALSE(factHolds("uniform-block-size", k, f, &why));
  CHECK_THAT(why, Catch::Contains("/src/app.cu:20 is 128, the workload's is 256"));

  k.launches[1].block_value.reset();
  k.launches[1].block = "threads";
  CHECK_FALSE(factHolds("uniform-block-size", k, f, &why));
  CHECK_THAT(why, Catch::Contains("(threads) is not a compile-time constant"));
}

TEST_CASE("skills: features are checked by id, from the manifest's feature ids when it has them", "[skills]") {
  KernelInfo k = gridStrideKernel();  // no feature ids: the older fields describe it
  CHECK_FALSE(k.feature_ids);
  CHECK(kernelHasFeature(k, "grid_stride_loop"));
  CHECK(featureIdsOf(k) == legacyFeaturesOf(k));
  CHECK(featureIdsOf(k) == std::vector<std::string>{"grid_stride_loop", "loops", "pointer_params", "thread_index"});

  k.feature_ids = std::vector<std::string>{"barriers", "loops", "unrolled_loops"};  // what extraction found
  CHECK(kernelHasFeature(k, "barriers"));
  CHECK(kernelHasFeature(k, "unrolled_loops"));        // a feature only the registry knows
  CHECK_FALSE(kernelHasFeature(k, "grid_stride_loop"));  // the ids decide, not the older fields
  CHECK_FALSE(kernelHasFeature(k, "no_such_feature"));

  TempDir tmp;
  writeFile(tmp.path, "vec.toml", kExample);
  Skill vec = loadSkills({tmp.path.string()}, kTransforms).at(0);
  WorkloadFacts aligned = factsWithOffsets(0, 4);
  std::string why;
  CHECK_FALSE(preconditionsHold(vec, k, &aligned, &why));
  CHECK_THAT(why, Catch::Contains("lacks required feature 'grid_stride_loop'"));
  k.feature_ids = std::vector<std::string>{"grid_stride_loop", "loops"};
  CHECK(preconditionsHold(vec, k, &aligned, &why));
}

TEST_CASE("skills: manifest.json without feature ids still loads", "[skills]") {
  KernelInfo k = gridStrideKernel();
  nlohmann::json j = k;
  CHECK_FALSE(j.contains("feature_ids"));
  KernelInfo back = j.get<KernelInfo>();
  CHECK_FALSE(back.feature_ids);
  CHECK(kernelHasFeature(back, "grid_stride_loop"));

  k.feature_ids = std::vector<std::string>{"loops"};
  j = k;
  CHECK(j.at("feature_ids") == nlohmann::json::array({"loops"}));
  back = j.get<KernelInfo>();
  REQUIRE(back.feature_ids);
  CHECK(*back.feature_ids == std::vector<std::string>{"loops"});
}

TEST_CASE("skills: feature ids are validated against the list passed in", "[skills]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  std::string text = replaced(kExample, "requires_features = [\"grid_stride_loop\"]",
                              "requires_features = [\"grid_stride_loop\", \"unrolled_loops\"]");
  std::string path = writeFile(dir, "vec.toml", text);

  // the registry's ids (featureIds() in the rewriter) may name features core does not know
  std::vector<std::string> registry = legacyFeatureIds();
  registry.push_back("unrolled_loops");
  std::vector<Skill> skills = loadSkills({dir.string()}, kTransforms, registry);
  REQUIRE(skills.size() == 1);
  CHECK(skills[0].requires_features == std::vector<std::string>{"grid_stride_loop", "unrolled_loops"});

  // without the registry's ids only the features core describes are known
  InputError e = inputError([&] { loadSkills({dir.string()}, kTransforms); });
  CHECK(e.file == path);
  CHECK(e.line == 9);
  CHECK_THAT(e.what(), Catch::Contains("anchor.requires_features: unknown feature 'unrolled_loops'; valid features: "
                                       "all_pointers_restrict, atomics"));

  // and an id outside the list passed in is an error listing that list
  e = inputError([&] { loadSkills({dir.string()}, kTransforms, {"grid_stride_loop", "barriers", "atomics", "shuffles"}); });
  CHECK(e.line == 9);
  CHECK_THAT(e.what(), Catch::Contains("unknown feature 'unrolled_loops'; valid features: grid_stride_loop, barriers, "
                                       "atomics, shuffles"));
}

TEST_CASE("skills: every registered fact has a doc, a form and examples both ways", "[skills][facts]") {
  REQUIRE_FALSE(allFacts().empty());
  std::vector<std::string> ids = factIds();
  CHECK(ids == std::vector<std::string>{"aligned<N>(all pointers)", "no-overlap", "uniform-block-size"});
  CHECK(factForms().size() == allFacts().size());
  for (const Fact* f : allFacts()) {
    INFO("fact " << f->id);
    CHECK(std::count(ids.begin(), ids.end(), f->id) == 1);
    CHECK_FALSE(f->doc.empty());
    CHECK_FALSE(f->form.empty());
    CHECK(f->names != nullptr);
    CHECK(f->check != nullptr);
    CHECK(std::any_of(f->examples.begin(), f->examples.end(), [](const FactExample& e) { return e.holds; }));
    CHECK(std::any_of(f->examples.begin(), f->examples.end(), [](const FactExample& e) { return !e.holds; }));
  }
}

TEST_CASE("skills: each fact's examples", "[skills][facts]") {
  for (const Fact* f : allFacts()) {
    for (size_t i = 0; i < f->examples.size(); ++i) {
      const FactExample& ex = f->examples[i];
      INFO("fact " << f->id << ", example " << i + 1 << ": " << ex.written << (ex.holds ? " holds" : " fails"));
      REQUIRE(findFact(ex.written) == f);
      CHECK(isKnownFact(ex.written));
      KernelInfo k = gridStrideKernel();
      k.name = "k";
      WorkloadFacts wf;
      ex.setup(k, wf);
      std::string why;
      CHECK(factHolds(ex.written, k, wf, &why) == ex.holds);
      if (!ex.holds) {
        CHECK_THAT(why, Catch::StartsWith(ex.written + ": "));
        CHECK_THAT(why, Catch::Contains(ex.why));
      }
    }
  }
}

TEST_CASE("skills: fact names: families, exact ids, unknown ones", "[skills][facts]") {
  for (const char* ok : {"aligned2(all pointers)", "aligned16(all pointers)", "aligned256(all pointers)", "no-overlap",
                         "uniform-block-size"})
    CHECK(isKnownFact(ok));
  for (const char* bad : {"aligned12(all pointers)", "aligned512(all pointers)", "aligned016(all pointers)",
                          "aligned1(all pointers)", "aligned16", "aligned<N>(all pointers)", "no-alias", "No-overlap", ""})
    CHECK_FALSE(isKnownFact(bad));
  std::string why;
  CHECK_FALSE(factHolds("no-alias", gridStrideKernel(), WorkloadFacts{}, &why));
  CHECK(why == "no-alias: unknown fact");
}

TEST_CASE("skills: an unknown fact is reported at its line with every valid fact", "[skills][facts]") {
  TempDir tmp;
  std::string path = writeFile(tmp.path, "vec.toml", replaced(kExample, "\"no-overlap\"]", "\"no-aliasing\"]"));
  InputError e = inputError([&] { loadSkills({tmp.path.string()}, kTransforms); });
  CHECK(e.file == path);
  CHECK(e.line == 12);
  CHECK_THAT(e.what(), Catch::Contains("preconditions.facts: unknown fact 'no-aliasing'; valid facts: "));
  for (const std::string& form : factForms()) CHECK_THAT(e.what(), Catch::Contains(form));
}

TEST_CASE("skills: search_rank is read, checked and defaults to 0", "[skills]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  writeFile(dir, "a.toml", kExample);
  std::vector<Skill> s = loadSkills({dir.string()}, kTransforms);
  REQUIRE(s.size() == 1);
  CHECK(s[0].search_rank == 0);
  writeFile(dir, "a.toml", replaced(kExample, "transform = \"vectorize-access\"", "transform = \"vectorize-access\"\nsearch_rank = 1"));
  s = loadSkills({dir.string()}, kTransforms);
  CHECK(s[0].search_rank == 1);
  CHECK(skillToJson(s[0])["search_rank"] == 1);
  for (const char* bad : {"search_rank = 101", "search_rank = \"first\"", "search_rank = 0.5"}) {
    INFO(bad);
    writeFile(dir, "a.toml", replaced(kExample, "transform = \"vectorize-access\"", std::string("transform = \"vectorize-access\"\n") + bad));
    InputError e = inputError([&] { loadSkills({dir.string()}, kTransforms); });
    CHECK(e.line == 5);
    CHECK_THAT(e.what(), Catch::Contains("search_rank: expected an integer from -100 to 100"));
  }
}

TEST_CASE("skills: anchor.first_step is read, checked and defaults to false", "[skills]") {
  TempDir tmp;
  const fs::path& dir = tmp.path;
  writeFile(dir, "a.toml", kExample);
  std::vector<Skill> s = loadSkills({dir.string()}, kTransforms);
  REQUIRE(s.size() == 1);
  CHECK_FALSE(s[0].first_step);
  const std::string anchor = "forbids_features = [\"barriers\", \"atomics\", \"shuffles\"]";
  REQUIRE(kExample.find(anchor) != std::string::npos);
  writeFile(dir, "a.toml", replaced(kExample, anchor, anchor + "\nfirst_step = true"));
  s = loadSkills({dir.string()}, kTransforms);
  CHECK(s[0].first_step);
  CHECK(skillToJson(s[0])["anchor"]["first_step"] == true);
  writeFile(dir, "a.toml", replaced(kExample, anchor, anchor + "\nfirst_step = \"yes\""));
  InputError e = inputError([&] { loadSkills({dir.string()}, kTransforms); });
  CHECK_THAT(e.what(), Catch::Contains("anchor.first_step: expected true or false"));
  CHECK(e.line > 0);
}
