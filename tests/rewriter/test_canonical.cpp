// The normal form (rewriter/canonical/canonical.h) on the frozen transfer suite's own files
// (examples/transfer, never edited to make a pass apply): what the passes do to its spellings, and
// that a transform that refused the user's spelling applies to the normal form.
#include <catch2/catch.hpp>

#include "support/toolchain.h"

#include <algorithm>

#include "core/fs.h"
#include "core/manifest.h"
#include "core/skill.h"
#include "rewriter/apply.h"
#include "rewriter/canonical/canonical.h"
#include "rewriter/extract.h"
#include "rewriter/transform.h"

using namespace klineage;

namespace {

const std::string kTransfer = std::string(KLINEAGE_SOURCE_DIR) + "/examples/transfer";

struct Unit {
  std::string file;
  Overlay overlay;
  ArgsByFile args;
  KernelInfo info;
};

Unit unitOf(const std::string& rel, const std::string& kernel) {
  Unit u;
  u.file = kTransfer + "/" + rel;
  u.overlay = {{u.file, readFile(u.file)}};
  u.args = {{u.file, test::testClangArgs(kTransfer + "/include")}};
  Manifest m = extractManifest("t", {{u.file, u.args.at(u.file)}}, u.overlay);
  const KernelInfo* k = m.find(kernel);
  REQUIRE(k != nullptr);
  u.info = *k;
  return u;
}

TransformFacts blockOf(long long x, long long y = 1) {
  TransformFacts f;
  f.block = Dim3{x, y, 1};
  f.block_size = x * y;
  return f;
}

StepResult forward(const Unit& u, const Overlay& o, const std::string& kernel, const std::string& transform,
                   const TransformFacts& facts, const TransformParams& params = {}) {
  const Transform* t = findTransform(transform);
  REQUIRE(t != nullptr);
  return applyStep(o, u.args, u.file, kernel, *t, Direction::Forward, params, facts);
}

}  // namespace

TEST_CASE("canonical: the transfer transpose's early return becomes the guard tile-transpose matches", "[canonical]") {
  Unit u = unitOf("src/transpose.cu", "transpose_naive_kernel");
  StepResult before = forward(u, u.overlay, "transpose_naive_kernel", "tile-transpose", blockOf(32, 8));
  CHECK_FALSE(before.applied);
  CHECK_THAT(before.reason, Catch::Contains("statements"));

  CanonicalForm c = canonicalize(u.overlay, u.args, u.file, "transpose_naive_kernel", u.info);
  REQUIRE(c.applied.size() == 1);
  CHECK_THAT(c.applied[0], Catch::StartsWith("early-return-guard:"));
  CHECK_THAT(c.applied[0], Catch::Contains("x < w && y < h"));
  // What describes the kernel's place in the target is the extracted one's.
  CHECK(c.info.launches.size() == u.info.launches.size());
  CHECK(c.info.name == u.info.name);
  CHECK(c.info.source_hash != u.info.source_hash);

  StepResult after = forward(u, c.overlay, "transpose_naive_kernel", "tile-transpose", blockOf(32, 8));
  INFO(after.reason);
  CHECK(after.applied);
  // The user's file is not what changed: the normal form is an overlay.
  CHECK(readFile(u.file) == u.overlay.at(u.file));
}

TEST_CASE("canonical: macros in the stencil's body are expanded until none is left, then the early return", "[canonical]") {
  Unit u = unitOf("src/stencil.cu", "laplacian5");
  CanonicalForm c = canonicalize(u.overlay, u.args, u.file, "laplacian5", u.info);
  REQUIRE_FALSE(c.applied.empty());
  CHECK_THAT(c.applied[0], Catch::StartsWith("expand-macros:"));
  CHECK_THAT(c.applied[0], Catch::Contains("IDX"));
  // Expanded again: no project macro is left in the kernel's body.
  StepResult again = applyStep(c.overlay, u.args, u.file, "laplacian5", *findCanonicalPass("expand-macros"),
                               Direction::Forward, {}, {});
  CHECK_FALSE(again.applied);
  CHECK_THAT(again.reason, Catch::Contains("no macro of the project"));
  // The definitions stay (the launcher uses DIV_UP).
  CHECK(c.overlay.at(u.file).find("#define IDX") != std::string::npos);
}

TEST_CASE("canonical: a kernel already in normal form is left as it is", "[canonical]") {
  Unit u = unitOf("src/reduce.cu", "block_reduce_sum");
  CanonicalForm c = canonicalize(u.overlay, u.args, u.file, "block_reduce_sum", u.info);
  CHECK(c.applied.empty());
  CHECK(c.overlay.at(u.file) == u.overlay.at(u.file));
  CHECK(c.info.source_hash == u.info.source_hash);
  // Deterministic: the same text gives the same normal form (selection derives it again).
  Unit t = unitOf("src/transpose.cu", "transpose_naive_kernel");
  CHECK(canonicalize(t.overlay, t.args, t.file, "transpose_naive_kernel", t.info).overlay ==
        canonicalize(t.overlay, t.args, t.file, "transpose_naive_kernel", t.info).overlay);
}

TEST_CASE("canonical: tree-reduce-shuffle applies to the transfer suite's textbook reductions", "[canonical]") {
  struct Case {
    const char* file;
    const char* kernel;
    long long block;
  };
  for (const Case& k : {Case{"src/reduce.cu", "block_reduce_sum", 256}, Case{"src/reduce.cu", "dot_kernel", 256},
                        Case{"src/max_int.cu", "reduce_max_int", 256}, Case{"src/min_float.cu", "min_partial_kernel", 512},
                        Case{"src/min_float.cu", "min_final_kernel", 512}}) {
    INFO(k.file << " " << k.kernel);
    Unit u = unitOf(k.file, k.kernel);
    CanonicalForm c = canonicalize(u.overlay, u.args, u.file, k.kernel, u.info);
    StepResult r = forward(u, c.overlay, k.kernel, "tree-reduce-shuffle", blockOf(k.block));
    INFO(r.reason);
    CHECK(r.applied);
    // A block that is not a power of two is refused.
    StepResult odd = forward(u, c.overlay, k.kernel, "tree-reduce-shuffle", blockOf(96));
    CHECK_FALSE(odd.applied);
    // coarsen (skill tree-reduce-shuffle-coarse): only where one element per thread feeds the tree
    // and one atomic of the tree's operation takes each block's result; a grid-stride dot product
    // and the per-block partials of the float minimum keep their grid.
    const Transform* t = findTransform("tree-reduce-shuffle");
    StepResult coarse = applyStep(c.overlay, u.args, u.file, k.kernel, *t, Direction::Forward, {{"coarsen", "8"}},
                                  blockOf(k.block));
    INFO(coarse.reason);
    const bool one_element = std::string(k.kernel) == "block_reduce_sum" || std::string(k.kernel) == "reduce_max_int";
    CHECK(coarse.applied == one_element);
    if (one_element) CHECK(coarse.geometry.grid_x_divisor == 8);
  }
}

TEST_CASE("canonical: the transfer suite's one-thread-per-row softmax and layernorm reach warp-per-row", "[canonical]") {
  // softmax: the running max written as a comparison becomes fmaxf; y[j] is read back at j.
  Unit s = unitOf("src/rows.cu", "softmax_forward_kernel");
  StepResult before = forward(s, s.overlay, "softmax_forward_kernel", "warp-per-row", blockOf(256));
  CHECK_FALSE(before.applied);
  CanonicalForm cs = canonicalize(s.overlay, s.args, s.file, "softmax_forward_kernel", s.info);
  // the running max, then the two row pointers x = inp + idx * C and y = out + idx * C
  REQUIRE(cs.applied.size() == 3);
  CHECK_THAT(cs.applied[0], Catch::StartsWith("select-to-minmax:"));
  CHECK_THAT(cs.applied[1], Catch::StartsWith("inline-pointer-offset:"));
  CHECK_THAT(cs.applied[2], Catch::StartsWith("inline-pointer-offset:"));
  const std::string& text = cs.overlay.at(s.file);
  CHECK(text.find("inp[idx * C + j]") != std::string::npos);
  CHECK(text.find("out[idx * C + j]") != std::string::npos);
  StepResult after = forward(s, cs.overlay, "softmax_forward_kernel", "warp-per-row", blockOf(256));
  INFO(after.reason);
  CHECK(after.applied);
  CHECK(after.geometry.grid_x_multiplier == 32);
  // the row read at inp[idx * C + j] is still the row row-registers keeps in registers
  StepResult regs = forward(s, after.overlay, "softmax_forward_kernel", "row-registers", blockOf(256));
  INFO(regs.reason);
  CHECK(regs.applied);

  // layernorm: a constant before the row index, an early return, double accumulators, three outputs.
  Unit l = unitOf("src/rows.cu", "layernorm_forward_kernel");
  CanonicalForm cl = canonicalize(l.overlay, l.args, l.file, "layernorm_forward_kernel", l.info);
  REQUIRE(cl.applied.size() == 3);
  CHECK_THAT(cl.applied[0], Catch::StartsWith("early-return-guard:"));
  CHECK_THAT(cl.applied[1], Catch::StartsWith("inline-pointer-offset:"));
  CHECK_THAT(cl.applied[2], Catch::StartsWith("inline-pointer-offset:"));
  StepResult ln = forward(l, cl.overlay, "layernorm_forward_kernel", "warp-per-row", blockOf(256));
  INFO(ln.reason);
  CHECK(ln.applied);
  StepResult lregs = forward(l, ln.overlay, "layernorm_forward_kernel", "row-registers", blockOf(256));
  INFO(lregs.reason);
  CHECK(lregs.applied);
  // A block that is not whole warps is still refused.
  CHECK_FALSE(forward(l, cl.overlay, "layernorm_forward_kernel", "warp-per-row", blockOf(48)).applied);
}

TEST_CASE("canonical: the transfer suite's in-place ReLU (a header kernel) gets the bounds guard the elementwise skills start from", "[canonical]") {
  Unit u = unitOf("src/ops.cu", "relu_inplace_kernel");
  REQUIRE(u.info.in_header);
  auto has = [](const KernelInfo& k, const std::string& f) {
    return k.feature_ids && std::find(k.feature_ids->begin(), k.feature_ids->end(), f) != k.feature_ids->end();
  };
  CHECK_FALSE(has(u.info, "bounds_guard"));
  CanonicalForm c = canonicalize(u.overlay, u.args, u.info.range.file, "relu_inplace_kernel", u.info, u.file);
  REQUIRE(c.applied.size() == 1);
  CHECK_THAT(c.applied[0], Catch::StartsWith("split-bounds-guard:"));
  CHECK(has(c.info, "bounds_guard"));
  // Only the header changed, in the overlay; the unit is as it was.
  REQUIRE(c.overlay.count(u.info.range.file));
  CHECK(c.overlay.at(u.info.range.file) != readFile(u.info.range.file));
  CHECK(c.overlay.at(u.file) == u.overlay.at(u.file));
  StepResult g = applyStep(c.overlay, u.args, u.info.range.file, "relu_inplace_kernel", *findTransform("grid-stride-loop"),
                           Direction::Forward, {}, blockOf(256), u.file);
  INFO(g.reason);
  CHECK(g.applied);
}

TEST_CASE("canonical: a template kernel launched through a using-declaration in a template launcher has its launch site", "[canonical]") {
  // ops.cu: `using transfer::detail::sum_kernel;` then `sum_kernel<T><<<(unsigned)blocks, kSumThreads>>>`
  // inside `template <typename T> static void launch_sum(...)`.
  Unit u = unitOf("src/ops.cu", "sum_kernel");
  REQUIRE(u.info.is_template);
  REQUIRE_FALSE(u.info.launches.empty());
  for (const LaunchSite& l : u.info.launches) {
    INFO(l.file << ":" << l.line << " block " << l.block);
    CHECK(l.block == "kSumThreads");
  }
}

TEST_CASE("canonical: the transfer suite's gemm_naive with its 32 x 32 block gets tile-sgemm at grid / 2 and a 16 x 16 block", "[canonical]") {
  // typedef'd element type, size_t indices i / j / p, `i < M && j < N`, alpha * acc + beta * C.
  Unit u = unitOf("src/sgemm.cu", "gemm_naive");
  CanonicalForm c = canonicalize(u.overlay, u.args, u.file, "gemm_naive", u.info);
  StepResult r = forward(u, c.overlay, "gemm_naive", "tile-sgemm", blockOf(32, 32));
  INFO(r.reason);
  REQUIRE(r.applied);
  CHECK(r.geometry.grid_x_divisor == 2);
  CHECK(r.geometry.grid_y_divisor == 2);
  CHECK(r.geometry.block_x == 16);
  CHECK(r.geometry.block_y == 16);
  // 16 x 16 is the tile's own block: grid / 4, the block kept.
  StepResult s = forward(u, c.overlay, "gemm_naive", "tile-sgemm", blockOf(16, 16));
  REQUIRE(s.applied);
  CHECK(s.geometry.grid_x_divisor == 4);
  CHECK_FALSE(s.geometry.block_x.has_value());
  // A 32 x 8 block does not cover whole 64 x 64 tiles with square blocks: refused.
  CHECK_FALSE(forward(u, c.overlay, "gemm_naive", "tile-sgemm", blockOf(32, 8)).applied);
}

TEST_CASE("canonical: the transfer suite's grid-stride while histogram matches a library skill of privatize-histogram, which applies", "[canonical]") {
  Unit u = unitOf("src/histogram.cu", "histo_kernel");
  CanonicalForm c = canonicalize(u.overlay, u.args, u.file, "histo_kernel", u.info);
  REQUIRE_FALSE(c.applied.empty());
  CHECK_THAT(c.applied[0], Catch::StartsWith("grid-stride-while:"));
  // The skill search asks the features of the normal form: a grid-stride loop of atomics, no guard.
  const std::vector<Skill> skills = loadSkills({std::string(KLINEAGE_SOURCE_DIR) + "/skills"}, transformIds());
  std::vector<std::string> fitting;
  for (const Skill& s : skills) {
    if (s.transform != "privatize-histogram") continue;
    bool fits = true;
    for (const auto& f : s.requires_features) fits = fits && kernelHasFeature(c.info, f);
    for (const auto& f : s.forbids_features) fits = fits && !kernelHasFeature(c.info, f);
    if (fits) fitting.push_back(s.id);
  }
  INFO("privatize-histogram skills whose features fit the normal form");
  std::sort(fitting.begin(), fitting.end());
  REQUIRE(fitting == std::vector<std::string>{"privatize-histogram-grid-stride", "privatize-histogram-grid-stride-vector"});
  StepResult r = forward(u, c.overlay, "histo_kernel", "privatize-histogram", blockOf(256));
  INFO(r.reason);
  CHECK(r.applied);
  CHECK_FALSE(r.geometry.changes());  // a grid-stride kernel keeps its grid
  // The vector skill's params: the buffer is bytes, so 16 of them a uint4 load, grid still kept.
  StepResult v = forward(u, c.overlay, "histo_kernel", "privatize-histogram", blockOf(256), {{"vector_width", "16"}});
  INFO(v.reason);
  CHECK(v.applied);
  CHECK_FALSE(v.geometry.changes());
  CHECK(v.overlay.at(u.file).find("reinterpret_cast<const uint4*>(buffer)[kl_v]") != std::string::npos);
}
