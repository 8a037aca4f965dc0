// row-registers after warp-per-row: the skill's anchor (skills/row-registers.toml) matches the
// features extraction reports for warp-per-row's output and not for the naive one-thread-per-row
// kernel, and the transform applies to that output (plain and unrolled) but not to the naive kernel.
#include <catch2/catch.hpp>

#include "support/temp_dir.h"
#include "support/toolchain.h"

#include <algorithm>
#include <filesystem>

#include "core/fs.h"
#include "core/manifest.h"
#include "core/skill.h"
#include "rewriter/apply.h"
#include "rewriter/extract.h"
#include "rewriter/features/feature.h"
#include "rewriter/transform.h"
#include "rewriter/vector_access.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {

const char* kNaiveSoftmax = R"(__global__ void k(int rows, int cols, const float* in, float* out) {
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
)";

bool anchorMatches(const Skill& s, const KernelInfo& k, std::string& why) {
  for (const auto& f : s.requires_features)
    if (!kernelHasFeature(k, f)) return why = "lacks " + f, false;
  for (const auto& f : s.forbids_features)
    if (kernelHasFeature(k, f)) return why = "has " + f, false;
  return true;
}

}  // namespace

TEST_CASE("row-registers: its skill anchors on warp-per-row's output, not on the naive kernel", "[row-registers]") {
  test::TempDir t("row-registers");
  const std::string file = t.write("k.cu", kNaiveSoftmax);
  const std::vector<std::string> args = test::testClangArgs(t.path.string());
  std::vector<Skill> skills =
      loadSkills({(fs::path(KLINEAGE_SOURCE_DIR) / "skills").string()}, transformIds(), featureIds());
  auto it = std::find_if(skills.begin(), skills.end(), [](const Skill& s) { return s.id == "row-registers"; });
  REQUIRE(it != skills.end());
  const Skill& skill = *it;

  Manifest m = extractManifest("t", {{file, args}});
  const KernelInfo* naive = m.find("k");
  REQUIRE(naive);
  std::string why;
  CHECK_FALSE(anchorMatches(skill, *naive, why));
  INFO("naive: " << why);

  TransformFacts facts;
  facts.block_size = 256;
  Overlay original{{file, kNaiveSoftmax}};
  ArgsByFile by_file{{file, args}};
  StepResult rr_naive = applyStep(original, by_file, file, "k", *findTransform("row-registers"), Direction::Forward,
                                  {}, facts);
  CHECK_FALSE(rr_naive.applied);
  CHECK_THAT(rr_naive.reason, Catch::Contains("not in warp-per-row's form"));

  for (const char* unroll : {"1", "4"}) {
    INFO("warp-per-row unroll=" << unroll);
    StepResult wpr = applyStep(original, by_file, file, "k", *findTransform("warp-per-row"), Direction::Forward,
                               {{"unroll", unroll}}, facts);
    REQUIRE(wpr.applied);
    INFO("features after warp-per-row: " << nlohmann::json(featureIdsOf(wpr.kernel_after)).dump());
    CHECK(anchorMatches(skill, wpr.kernel_after, why));
    INFO(why);
    StepResult rr = applyStep(wpr.overlay, by_file, file, "k", *findTransform("row-registers"), Direction::Forward,
                              {{"max_cols", "2048"}}, facts);
    INFO(rr.reason);
    REQUIRE(rr.applied);
    CHECK_FALSE(rr.geometry.changes());
    // and back: inverse(forward(x)) == x
    StepResult back = applyStep(rr.overlay, by_file, file, "k", *findTransform("row-registers"), Direction::Inverse,
                                {}, facts);
    REQUIRE(back.applied);
    CHECK(back.overlay.at(file) == wpr.overlay.at(file));
    // applied twice: the loops it rewrote are no longer top-level strided loops
    StepResult twice = applyStep(rr.overlay, by_file, file, "k", *findTransform("row-registers"), Direction::Forward,
                                 {}, facts);
    CHECK_FALSE(twice.applied);
  }
}

namespace {

const char* kNaiveLayernorm = R"(__global__ void k(int rows, int cols, float eps, const float* in, const float* gamma, const float* beta, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = in + (size_t)r * cols;
  float* y = out + (size_t)r * cols;
  float mean = 0.0f;
  for (int c = 0; c < cols; ++c) mean += x[c];
  mean /= cols;
  float var = 0.0f;
  for (int c = 0; c < cols; ++c) {
    float d = x[c] - mean;
    var += d * d;
  }
  var /= cols;
  float rstd = rsqrtf(var + eps);
  for (int c = 0; c < cols; ++c) y[c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
}
)";

}  // namespace

// Float4 mode cannot be run here (no GPU): what is checkable is that it applies after warp-per-row,
// writes its runtime check (row length, cols % 4, vector_access.h's alignment check over every array
// accessed as vectors), goes back exactly, and that vector_width 1 is today's output byte for byte.
TEST_CASE("row-registers: vector_width 4 after warp-per-row, its runtime check, its inverse", "[row-registers]") {
  test::TempDir t("row-registers-vec4");
  const std::vector<std::string> args = test::testClangArgs(t.path.string());
  TransformFacts facts;
  facts.block_size = 256;
  const Transform& rr = *findTransform("row-registers");
  for (const char* naive : {kNaiveSoftmax, kNaiveLayernorm}) {
    const std::string file = t.write("k.cu", naive);
    const bool layernorm = std::string(naive).find("gamma") != std::string::npos;
    INFO((layernorm ? "layernorm" : "softmax"));
    Overlay original{{file, naive}};
    ArgsByFile by_file{{file, args}};
    StepResult wpr = applyStep(original, by_file, file, "k", *findTransform("warp-per-row"), Direction::Forward,
                               {{"unroll", "4"}}, facts);
    REQUIRE(wpr.applied);

    // vector_width 1 (or absent) is the scalar form, byte for byte.
    StepResult scalar = applyStep(wpr.overlay, by_file, file, "k", rr, Direction::Forward, {{"max_cols", "2048"}}, facts);
    StepResult scalar1 = applyStep(wpr.overlay, by_file, file, "k", rr, Direction::Forward,
                                   {{"max_cols", "2048"}, {"vector_width", "1"}}, facts);
    REQUIRE(scalar.applied);
    REQUIRE(scalar1.applied);
    CHECK(scalar1.overlay.at(file) == scalar.overlay.at(file));
    CHECK(scalar.overlay.at(file).find("kl_row4") == std::string::npos);

    const TransformParams vec{{"max_cols", "2048"}, {"vector_width", "4"}};
    StepResult v4 = applyStep(wpr.overlay, by_file, file, "k", rr, Direction::Forward, vec, facts);
    INFO(v4.reason);
    REQUIRE(v4.applied);
    CHECK_FALSE(v4.geometry.changes());
    const std::string& text = v4.overlay.at(file);
    CHECK(text.find("float4 kl_row4[16];") != std::string::npos);
    const std::string aligned = layernorm ? alignmentCheck({"x", "y", "gamma", "beta"}) : alignmentCheck({"x", "y"});
    CHECK(isAlignmentCheck(aligned));
    CHECK(text.find("const bool kl_in_regs = cols <= 16 * 128 && cols % 4 == 0 && " + aligned + ";") != std::string::npos);
    CHECK(text.find("reinterpret_cast<float4*>(y)[kl_j * 32 + kl_lane] = kl_v;") != std::string::npos);
    if (layernorm) CHECK(text.find("const float4 kl_gamma_4 = reinterpret_cast<const float4*>(gamma)[kl_j * 32 + kl_lane];") != std::string::npos);
    // The original loops stay, verbatim, as the fallback of every register loop.
    CHECK(text.find("#pragma unroll 4\n  for (int c = 0 + kl_lane; c < cols; c += 32)") != std::string::npos);

    // Back with vector_width 4; the scalar inverse does not take the float4 form, nor the reverse.
    StepResult back = applyStep(v4.overlay, by_file, file, "k", rr, Direction::Inverse, vec, facts);
    INFO(back.reason);
    REQUIRE(back.applied);
    CHECK(back.overlay.at(file) == wpr.overlay.at(file));
    StepResult back1 = applyStep(v4.overlay, by_file, file, "k", rr, Direction::Inverse, {{"max_cols", "2048"}}, facts);
    CHECK_FALSE(back1.applied);
    CHECK_THAT(back1.reason, Catch::Contains("vector_width 4's form"));
    StepResult back_scalar = applyStep(scalar.overlay, by_file, file, "k", rr, Direction::Inverse, vec, facts);
    CHECK_FALSE(back_scalar.applied);

    // A block whose x size is not a multiple of 32: nothing says the lanes of a warp share a row.
    TransformFacts odd;
    odd.block_size = 48;
    StepResult v4_odd = applyStep(wpr.overlay, by_file, file, "k", rr, Direction::Forward, vec, odd);
    CHECK_FALSE(v4_odd.applied);
    CHECK_THAT(v4_odd.reason, Catch::Contains("multiple of 32 threads in x"));
  }
}

// What `klineage mine` does with a float4 version: the inverse runs with each skill's parameters
// (row-registers' and row-registers-vec4's), and a step is kept only when the forward with the same
// parameters gives the parent back. Only row-registers-vec4's set takes the float4 form back, and
// its forward reproduces it, so the step records vector_width 4.
TEST_CASE("row-registers: a float4 version is taken back with row-registers-vec4's parameters only", "[row-registers]") {
  test::TempDir t("row-registers-vec4-mine");
  const std::string file = t.write("k.cu", kNaiveSoftmax);
  const std::vector<std::string> args = test::testClangArgs(t.path.string());
  std::vector<Skill> skills =
      loadSkills({(fs::path(KLINEAGE_SOURCE_DIR) / "skills").string()}, transformIds(), featureIds());
  auto paramsOf = [&](const std::string& id) {
    auto it = std::find_if(skills.begin(), skills.end(), [&](const Skill& s) { return s.id == id; });
    REQUIRE(it != skills.end());
    TransformParams p;
    for (auto& [k, v] : it->params.items()) p[k] = v.is_string() ? v.get<std::string>() : v.dump();
    return p;
  };
  const TransformParams vec = paramsOf("row-registers-vec4"), scalar = paramsOf("row-registers");
  CHECK(vec.at("vector_width") == "4");
  TransformFacts facts;
  facts.block_size = 256;
  const Transform& rr = *findTransform("row-registers");
  ArgsByFile by_file{{file, args}};
  StepResult wpr = applyStep(Overlay{{file, kNaiveSoftmax}}, by_file, file, "k", *findTransform("warp-per-row"),
                             Direction::Forward, {}, facts);
  REQUIRE(wpr.applied);
  StepResult v4 = applyStep(wpr.overlay, by_file, file, "k", rr, Direction::Forward, vec, facts);
  REQUIRE(v4.applied);
  CHECK_FALSE(applyStep(v4.overlay, by_file, file, "k", rr, Direction::Inverse, scalar, facts).applied);
  StepResult back = applyStep(v4.overlay, by_file, file, "k", rr, Direction::Inverse, vec, facts);
  REQUIRE(back.applied);
  CHECK(back.overlay.at(file) == wpr.overlay.at(file));
  StepResult again = applyStep(back.overlay, by_file, file, "k", rr, Direction::Forward, vec, facts);
  REQUIRE(again.applied);
  CHECK(again.overlay.at(file) == v4.overlay.at(file));
}
