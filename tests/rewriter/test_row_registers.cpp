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
