// Kernel features (rewriter/features/): the registry's shape, every registered feature's own
// examples run through extraction (with and without the feature), the manifest's feature ids
// against its older KernelFeatures fields, skills validated against the registry's ids, and the
// one list of barriers, atomics and warp collectives.
#include <catch2/catch.hpp>

#include "support/toolchain.h"

#include "support/input_error.h"
#include "support/temp_dir.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <clang/Frontend/ASTUnit.h>

#include "core/diag.h"
#include "core/flags.h"
#include "core/manifest.h"
#include "core/skill.h"
#include "rewriter/extract.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/parse.h"
#include "rewriter/transform.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {

struct TempDir : test::TempDir {
  TempDir() : test::TempDir("features") {}
};

std::vector<std::string> clangArgs(const std::string& include_dir) { return test::testClangArgs(include_dir); }

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Kernel k of one example, extracted with example.cu as the target's only source.
KernelInfo extractExample(const FeatureExample& ex) {
  TempDir t;
  std::string file = t.write("example.cu", ex.code);
  if (!ex.header.empty()) t.write("example.cuh", ex.header);
  Manifest m = extractManifest("t", {{file, clangArgs(t.path.string())}});
  INFO(nlohmann::json(m).dump(2));
  REQUIRE(m.diagnostics.empty());
  const KernelInfo* k = m.find("k");
  REQUIRE(k);
  REQUIRE(k->feature_ids);
  return *k;
}

}  // namespace

TEST_CASE("features: every registered feature has an id, a doc, its own file and examples both ways", "[features]") {
  REQUIRE_FALSE(allFeatures().empty());
  std::vector<std::string> ids = featureIds();
  for (const Feature* f : allFeatures()) {
    INFO("feature " << f->id);
    CHECK_FALSE(f->id.empty());
    CHECK(std::all_of(f->id.begin(), f->id.end(), [](char c) {
      return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
    }));
    CHECK(std::count(ids.begin(), ids.end(), f->id) == 1);
    CHECK_FALSE(f->doc.empty());
    CHECK(f->check != nullptr);
    CHECK(fs::is_regular_file(fs::path(KLINEAGE_SOURCE_DIR) / "rewriter" / "features" / (f->id + ".cpp")));
    CHECK(std::any_of(f->examples.begin(), f->examples.end(), [](const FeatureExample& e) { return e.present; }));
    CHECK(std::any_of(f->examples.begin(), f->examples.end(), [](const FeatureExample& e) { return !e.present; }));
    CHECK(findFeature(f->id) == f);
  }
  CHECK(findFeature("no_such_feature") == nullptr);
}

TEST_CASE("features: each feature's examples, through extraction", "[features]") {
  unsigned runs = 0;
  for (const Feature* f : allFeatures()) {
    for (size_t i = 0; i < f->examples.size(); ++i) {
      const FeatureExample& ex = f->examples[i];
      INFO("feature " << f->id << ", example " << i + 1 << " (expected " << (ex.present ? "present" : "absent")
                      << "):\n"
                      << ex.code << (ex.header.empty() ? "" : "\nexample.cuh:\n" + ex.header));
      KernelInfo k = extractExample(ex);
      INFO("feature_ids: " << nlohmann::json(*k.feature_ids).dump());
      CHECK(contains(*k.feature_ids, f->id) == ex.present);
      CHECK(kernelHasFeature(k, f->id) == ex.present);
      // The manifest's older fields say the same about the features they describe.
      if (contains(legacyFeatureIds(), f->id)) CHECK(contains(legacyFeaturesOf(k), f->id) == ex.present);
      ++runs;
    }
  }
  CHECK(runs >= 2 * allFeatures().size());
}

TEST_CASE("features: the features core knows without ids are all registered", "[features]") {
  std::vector<std::string> ids = featureIds();
  for (const std::string& legacy : legacyFeatureIds()) {
    INFO(legacy);
    CHECK(contains(ids, legacy));
  }
  CHECK(featureNames() == legacyFeatureIds());
}

TEST_CASE("features: a manifest records feature ids and keeps KernelFeatures filled", "[features]") {
  FeatureExample ex{true, R"(__global__ void k(const float* __restrict__ x, float* __restrict__ y, int n) {
  __shared__ float tile[256];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    tile[threadIdx.x] = x[i];
    __syncthreads();
    y[i] = tile[threadIdx.x];
    atomicAdd(y, 1.0f);
  }
}
)", ""};
  KernelInfo k = extractExample(ex);
  CHECK(*k.feature_ids == std::vector<std::string>{"all_pointers_restrict", "atomics", "barriers", "bounds_guard",
                                                   "grid_stride_loop", "loops", "pointer_params", "shared_memory",
                                                   "thread_index", "uses_block_geometry_outside_index"});
  CHECK(k.features.thread_index == "blockIdx.x * blockDim.x + threadIdx.x");
  CHECK(k.features.index_var == "i");
  CHECK(k.features.bounds_guard == "i < n");
  CHECK(k.features.grid_stride_loop);
  CHECK(k.features.loops == 1);
  CHECK(k.features.shared_memory);
  CHECK(k.features.barriers);
  CHECK(k.features.atomics);
  CHECK_FALSE(k.features.shuffles);
  CHECK(k.features.uses_block_geometry_outside_index);
  CHECK(legacyFeaturesOf(k) == *k.feature_ids);  // every one of these is a legacy feature

  // manifest.json carries the ids; reading it back gives them again
  nlohmann::json j = k;
  CHECK(j.at("feature_ids") == nlohmann::json(*k.feature_ids));
  KernelInfo back = j.get<KernelInfo>();
  REQUIRE(back.feature_ids);
  CHECK(*back.feature_ids == *k.feature_ids);
}

TEST_CASE("features: skills are checked against the registry's ids", "[features][skills]") {
  const std::string dir = KLINEAGE_SOURCE_DIR "/skills";
  std::vector<Skill> skills = loadSkills({dir}, transformIds(), featureIds());
  CHECK_FALSE(skills.empty());
  for (const Skill& s : skills) {
    INFO(s.path);
    if (s.hasTransform()) CHECK(findTransform(s.transform) != nullptr);  // llm-only skills name none
    for (const auto& f : s.requires_features) CHECK(findFeature(f));
    for (const auto& f : s.forbids_features) CHECK(findFeature(f));
  }

  TempDir t;
  std::string file = t.write("s.toml", R"(schema = 1
id = "s"
intent = "x"
transform = "launch-bounds"
[anchor]
description = "x"
requires_features = ["loops", "unrolled_loops"]
[effect]
expected = "x"
[provenance]
kind = "hand-written"
)");
  InputError e = test::inputError([&] { loadSkills({t.path.string()}, transformIds(), featureIds()); });
  CHECK(e.file == file);
  CHECK(e.line == 7);
  CHECK_THAT(e.what(), Catch::Contains("anchor.requires_features: unknown feature 'unrolled_loops'; valid features: "));
  for (const std::string& id : featureIds()) CHECK_THAT(e.what(), Catch::Contains(id));
}

TEST_CASE("features: one list of barriers, atomics and warp collectives", "[features]") {
  auto kind = [](const char* n) { return intrinsicKind(n); };
  CHECK(kind("__syncthreads") == IntrinsicKind::Barrier);
  CHECK(kind("__syncthreads_or") == IntrinsicKind::Barrier);
  CHECK(kind("__syncwarp") == IntrinsicKind::Barrier);
  CHECK(kind("barrier_sync") == IntrinsicKind::Barrier);  // a barrier, though it ends in _sync
  CHECK(kind("sync") == IntrinsicKind::Barrier);          // cooperative groups
  CHECK(kind("atomicAdd") == IntrinsicKind::Atomic);
  CHECK(kind("atomicCAS_block") == IntrinsicKind::Atomic);
  CHECK(kind("fetch_add") == IntrinsicKind::Atomic);
  CHECK(kind("__shfl_down_sync") == IntrinsicKind::WarpCollective);
  CHECK(kind("shfl_xor") == IntrinsicKind::WarpCollective);
  CHECK(kind("__ballot_sync") == IntrinsicKind::WarpCollective);
  CHECK(kind("__match_any_sync") == IntrinsicKind::WarpCollective);
  CHECK(kind("__reduce_add_sync") == IntrinsicKind::WarpCollective);
  CHECK(kind("reduce") == IntrinsicKind::WarpCollective);
  CHECK_FALSE(kind("fmaxf"));
  CHECK_FALSE(kind("syncData"));
  CHECK_FALSE(kind(""));
  CHECK_FALSE(intrinsicPatterns().empty());
}

TEST_CASE("features: index and stride matchers compare the AST, not the text", "[features]") {
  const std::string path = "/tmp/klineage-features/matchers.cu";
  const std::string code = R"(__global__ void k(float* p) {
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  int b = threadIdx.x + blockDim.x * blockIdx.x;
  long c = (long)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long d = static_cast<unsigned long>(blockIdx.x * blockDim.x + threadIdx.x);
  int e = ((blockIdx.x) * (blockDim.x)) + (threadIdx.x);
  int no1 = blockIdx.x * (blockDim.x + threadIdx.x);
  int no2 = blockIdx.y * blockDim.x + threadIdx.x;
  int no3 = (short)blockIdx.x * blockDim.x + threadIdx.x;
  int no4 = blockIdx.x * blockDim.x + threadIdx.x + 1;
  unsigned s1 = blockDim.x * gridDim.x;
  unsigned long s2 = (unsigned long)gridDim.x * blockDim.x;
  unsigned nos = blockDim.x * gridDim.y;
  p[a + b + c + d + e + no1 + no2 + no3 + no4 + s1 + s2 + nos] = 0.0f;
}
)";
  ParsedUnit pu = parseUnit(path, clangArgs("/tmp"), Overlay{{path, code}});
  REQUIRE(pu.ast);
  REQUIRE(pu.error_count == 0);
  auto& ctx = pu.ast->getASTContext();
  const clang::FunctionDecl* k = nullptr;
  for (auto* d : ctx.getTranslationUnitDecl()->decls())
    if (auto* fd = llvm::dyn_cast<clang::FunctionDecl>(d); fd && fd->getNameAsString() == "k") k = fd;
  REQUIRE(k);
  unsigned seen = 0;
  for (const clang::Stmt* s : llvm::cast<clang::CompoundStmt>(k->getBody())->body()) {
    auto* ds = llvm::dyn_cast<clang::DeclStmt>(s);
    if (!ds) continue;
    auto* vd = llvm::cast<clang::VarDecl>(ds->getSingleDecl());
    std::string n = vd->getNameAsString();
    INFO(n);
    bool index = n.size() == 1, stride = n[0] == 's';
    CHECK(isGlobalThreadIndex(ctx, vd->getInit()) == index);
    CHECK(isGridStride(ctx, vd->getInit()) == stride);
    ++seen;
  }
  CHECK(seen == 12);
}
