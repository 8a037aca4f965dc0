// tile-transpose beyond its golden texts: the launch change it reports for each original block
// shape, a round trip on the experts catalogue's naive transpose itself, and the features
// extraction sees before and after (what skills/tile-transpose.toml requires and forbids).
#include <catch2/catch.hpp>

#include "support/toolchain.h"

#include <algorithm>

#include "core/flags.h"
#include "core/fs.h"
#include "core/manifest.h"
#include "rewriter/apply.h"
#include "rewriter/extract.h"
#include "rewriter/transform.h"

using namespace klineage;

namespace {

const std::string kIncludeDir = std::string(KLINEAGE_SOURCE_DIR) + "/examples/experts/include";
const std::string kNaive = std::string(KLINEAGE_SOURCE_DIR) + "/examples/experts/src/naive/transpose.cu";

StepResult run(const std::string& text, Direction dir, TransformFacts facts) {
  const Transform* t = findTransform("tile-transpose");
  REQUIRE(t != nullptr);
  return applyStep(Overlay{{kNaive, text}}, ArgsByFile{{kNaive, test::testClangArgs(kIncludeDir)}}, kNaive, "transpose",
                   *t, dir, {}, facts);
}

TransformFacts blockOf(long long x, long long y) {
  TransformFacts f;
  f.block = Dim3{x, y, 1};
  f.block_size = x * y;
  return f;
}

std::vector<std::string> featuresOf(const std::string& text) {
  Manifest m = extractManifest("t", {{kNaive, test::testClangArgs(kIncludeDir)}}, Overlay{{kNaive, text}});
  const KernelInfo* k = m.find("transpose");
  REQUIRE(k);
  REQUIRE(k->feature_ids);
  return *k->feature_ids;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE("tile-transpose: the experts' naive transpose round-trips, 16 x 16 -> 32 x 8", "[transforms]") {
  const std::string naive = readFile(kNaive);
  StepResult f = run(naive, Direction::Forward, blockOf(16, 16));
  INFO(f.reason);
  REQUIRE(f.applied);
  CHECK(f.geometry.grid_x_divisor == 2);
  CHECK(f.geometry.grid_y_divisor == 2);
  CHECK(f.geometry.grid_x_multiplier == 1);
  CHECK(f.geometry.block_x == 32);
  CHECK(f.geometry.block_y == 8);
  const std::string tiled = f.overlay.at(kNaive);
  CHECK(tiled.find("__shared__ float kl_tile[32][33];") != std::string::npos);
  CHECK(tiled.find("int x = blockIdx.x * 32 + threadIdx.x;  // column of `in`") != std::string::npos);
  CHECK(tiled.find("out[x * rows + y] = kl_tile[threadIdx.x][threadIdx.y + kl_j];") != std::string::npos);
  // the launch function is the caller's (the selected source rewrites the launch sites)
  CHECK(tiled.find("transpose<<<grid, dim3(16, 16)>>>") != std::string::npos);

  StepResult b = run(tiled, Direction::Inverse, blockOf(32, 8));
  INFO(b.reason);
  REQUIRE(b.applied);
  // back to 16 x 16 blocks (the block_x / block_y params' defaults), grid * 2 in x and y
  CHECK(b.geometry.block_x == 16);
  CHECK(b.geometry.block_y == 16);
  CHECK(b.geometry.grid_x_multiplier == 2);
  CHECK(b.geometry.grid_y_multiplier == 2);
  CHECK(b.overlay.at(kNaive) == naive);
}

TEST_CASE("tile-transpose: the grid shrinks by 32 / block in each dimension", "[transforms]") {
  const std::string naive = readFile(kNaive);
  struct Case {
    long long bx, by;
    unsigned dx, dy;
  };
  for (Case c : {Case{32, 8, 1, 4}, Case{8, 32, 4, 1}, Case{32, 32, 1, 1}, Case{16, 4, 2, 8}}) {
    INFO("block " << c.bx << " x " << c.by);
    StepResult f = run(naive, Direction::Forward, blockOf(c.bx, c.by));
    INFO(f.reason);
    REQUIRE(f.applied);
    CHECK(f.geometry.grid_x_divisor == c.dx);
    CHECK(f.geometry.grid_y_divisor == c.dy);
    CHECK(f.geometry.block_x == 32);
    CHECK(f.geometry.block_y == 8);
  }
  StepResult one_d = run(naive, Direction::Forward, TransformFacts{256, std::nullopt});  // shape() 256 x 1
  CHECK_FALSE(one_d.applied);
  CHECK_THAT(one_d.reason, Catch::Contains("does not divide the 32 x 32 tile"));
}

TEST_CASE("tile-transpose: features of the naive and the tiled transpose", "[transforms]") {
  const std::string naive = readFile(kNaive);
  std::vector<std::string> before = featuresOf(naive);
  INFO("naive: " << nlohmann::json(before).dump());
  // what skills/tile-transpose.toml requires and forbids
  CHECK(has(before, "thread_index"));
  CHECK(has(before, "pointer_params"));
  CHECK_FALSE(has(before, "shared_memory"));
  CHECK_FALSE(has(before, "barriers"));
  CHECK_FALSE(has(before, "atomics"));
  StepResult f = run(naive, Direction::Forward, blockOf(16, 16));
  REQUIRE(f.applied);
  std::vector<std::string> after = featuresOf(f.overlay.at(kNaive));
  INFO("tiled: " << nlohmann::json(after).dump());
  CHECK(has(after, "shared_memory"));  // so the skill does not apply twice
  CHECK(has(after, "barriers"));
}
