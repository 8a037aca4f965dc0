// Inverse launch changes (what `klineage mine` launches a simplified kernel with): for every
// round-trip golden case of every transform (rewriter/transforms/<id>/golden/<case>.in.cu), the
// inverse step's GeometryChange undoes the forward's: the launch after forward then inverse is the
// original grid and block again. The golden keys set params and the block as in test_golden.cpp;
// the inverse gets the block forward launches with, and the original block as its params where it
// needs them (tile-transpose: block_x, block_y; block-size: from_threads).
#include <catch2/catch.hpp>

#include "support/toolchain.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/flags.h"
#include "core/fs.h"
#include "rewriter/apply.h"
#include "rewriter/parse.h"
#include "rewriter/transform.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string>& clangArgs() {
  static const std::vector<std::string> args = [] {
    ClangParseSetup setup;
    setup.cuda_path = klineage::test::cudaHome();
    setup.resource_dir = klineage::test::clangResourceDir();
    setup.compat_dir = std::string(KLINEAGE_SOURCE_DIR) + "/rewriter/compat";
    return clangArgsFor(CudaFlags{}, setup);
  }();
  return args;
}

struct Case {
  TransformParams params;
  Dim3 block{256, 1, 1};
};

// The `// golden: key=value` lines (unquoted values are enough for the round-trip cases here).
Case caseOf(const std::string& text) {
  Case c;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    auto p = line.find("// golden:");
    if (p == std::string::npos) continue;
    std::istringstream words(line.substr(p + 10));
    for (std::string w; words >> w;) {
      auto eq = w.find('=');
      if (eq == std::string::npos) continue;
      std::string k = w.substr(0, eq), v = w.substr(eq + 1);
      if (!v.empty() && v.front() == '"') v = v.substr(1, v.size() - 2);
      if (k == "block") {
        Dim3 d;
        REQUIRE(std::sscanf(v.c_str(), "%lldx%lldx%lld", &d.x, &d.y, &d.z) >= 2);
        c.block = d;
      } else if (k == "block_size") {
        if (v != "none") c.block = Dim3{std::stoll(v), 1, 1};
      } else {
        c.params[k] = v;
      }
    }
  }
  return c;
}

StepResult step(const std::string& id, const std::string& text, Direction dir, const TransformParams& params,
                const Dim3& block) {
  const std::string path = "/tmp/klineage-inverse-geometry/" + id + ".cu";
  TransformFacts facts;
  facts.block = block;
  facts.block_size = block.x * block.y * block.z;
  return applyStep({{path, text}}, {{path, clangArgs()}}, path, "k", *findTransform(id), dir, params, facts);
}

}  // namespace

TEST_CASE("inverse geometry: every round-trip golden's inverse undoes its forward's launch change", "[golden][geometry]") {
  const fs::path root = fs::path(KLINEAGE_SOURCE_DIR) / "rewriter" / "transforms";
  unsigned changed = 0;
  // The transforms whose inverses this covers (a transform added later joins the list with its
  // inverse geometry).
  for (const std::string id : {"block-reduce-atomic", "block-size", "grid-stride-loop", "launch-bounds",
                               "privatize-histogram", "restrict-pointers", "tile-sgemm", "tile-transpose", "unroll",
                               "vectorize-access", "warp-per-row"}) {
    const fs::path dir = root / id / "golden";
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (name.size() < 7 || name.compare(name.size() - 6, 6, ".in.cu") != 0 || name.find(".fwd-only.") != std::string::npos ||
          name.find(".inv-only.") != std::string::npos)
        continue;
      const std::string in = readFile(e.path());
      const Case c = caseOf(in);
      const StepResult f = step(id, in, Direction::Forward, c.params, c.block);
      INFO(id << "/" << name << ": forward: " << f.reason);
      REQUIRE(f.applied);
      const Dim3 launched = applyBlock(f.geometry, c.block);
      TransformParams inv = c.params;
      if (id == "tile-transpose") inv["block_x"] = std::to_string(c.block.x), inv["block_y"] = std::to_string(c.block.y);
      if (id == "block-size") inv["from_threads"] = std::to_string(c.block.x);
      const StepResult i = step(id, f.overlay.begin()->second, Direction::Inverse, inv, launched);
      INFO("inverse: " << i.reason << " (forward " << geometryText(f.geometry) << ", inverse " << geometryText(i.geometry) << ")");
      REQUIRE(i.applied);
      // A grid every divisor divides comes back exactly; the block comes back as it was.
      const Dim3 grid{4096 * 3, 64 * 3, 1};
      const Dim3 back = applyGrid(i.geometry, applyGrid(f.geometry, grid));
      CHECK(back == grid);
      CHECK(applyBlock(i.geometry, launched) == c.block);
      CHECK(f.geometry.changes() == i.geometry.changes());
      changed += f.geometry.changes() ? 1 : 0;
    }
  }
  CHECK(changed >= 7);  // vectorize-access, block-size, the tiles, block-reduce-atomic, privatize-histogram, warp-per-row
}

TEST_CASE("inverse geometry: tile-sgemm's grid * 4 in x and y", "[geometry]") {
  // tile-sgemm's inverse: grid * 4 in x and y; the launch-site rewrite writes both
  GeometryChange g;
  g.grid_x_multiplier = 4;
  g.grid_y_multiplier = 4;
  CHECK(geometryText(g) == "grid.x*4, grid.y*4");
  CHECK(applyGrid(g, Dim3{3, 5, 1}) == Dim3{12, 20, 1});
  nlohmann::json j = g;
  CHECK(j.get<GeometryChange>().grid_y_multiplier == 4);
}
