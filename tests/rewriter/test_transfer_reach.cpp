// How far the family skills reach on the frozen transfer suite (examples/transfer) without a GPU:
// every kernel is brought to the normal form and every family transform's forward is tried with the
// block its launcher uses in src/check.cu (what capture would record). Round 1 of the planner tries
// the same single steps; the gate then decides on a GPU (tests/gpu/transfer_reach.sh).
//
// Generic skills (restrict-pointers, launch-bounds, block-size, ...) apply nearly everywhere and say
// nothing about whether a kernel's *family* is recognized, so only family transforms count here.
// The table printed (KLINEAGE_REACH_PRINT=1) is what the "round 1 reach" quotes;
// KLINEAGE_REACH_DUMP=<dir> writes every family variant there.
// Also: every family transform that applies to a normal form has a library skill whose anchor fits
// it (requires/forbids features). The histogram's grid-stride normal form once fitted no
// privatize-histogram skill, so the GPU never saw the variant the transform could make.
#include <catch2/catch.hpp>

#include "support/toolchain.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>

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

// The transforms that make a family's optimization (not hints any kernel takes).
const std::map<std::string, std::vector<std::string>> kFamilyTransforms = {
    {"reduction", {"tree-reduce-shuffle", "block-reduce-atomic", "block-reduce-cas"}},
    {"rows", {"warp-per-row", "row-registers"}},
    {"2-D", {"tile-transpose", "tile-sgemm"}},
    {"elementwise", {"grid-stride-loop", "vectorize-access"}},
    {"histogram", {"privatize-histogram"}},
    {"scan", {"block-scan-shuffle"}},
    {"columns", {"column-partial-sums"}},
    {"stencil", {"coarsen-rows", "unswitch-bounds"}},
    {"convolution", {"window-tile", "unswitch-bounds"}},
};

struct Kernel {
  const char* family;  // the family a skill exists for, or "" when none does yet
  const char* file;    // where the kernel is defined, relative to examples/transfer
  const char* unit;    // the target source that includes it (header kernels), else ""
  const char* name;
  long long bx, by;    // the block src/check.cu's launch uses
};

// Every kernel of examples/transfer/README.md's table, with the block its launcher passes.
const Kernel kKernels[] = {
    {"reduction", "src/reduce.cu", "", "block_reduce_sum", 256, 1},
    {"reduction", "src/reduce.cu", "", "dot_kernel", 256, 1},
    {"reduction", "src/max_int.cu", "", "reduce_max_int", 256, 1},
    {"reduction", "src/min_float.cu", "", "min_partial_kernel", 512, 1},
    {"reduction", "src/min_float.cu", "", "min_final_kernel", 512, 1},
    {"reduction", "include/transfer/detail/reduce_generic.cuh", "src/ops.cu", "sum_kernel", 256, 1},
    {"scan", "src/scan.cu", "", "scan_segments_hs", 1024, 1},
    {"rows", "src/rows.cu", "", "softmax_forward_kernel", 128, 1},
    {"rows", "src/rows.cu", "", "layernorm_forward_kernel", 128, 1},
    {"rows", "src/argmax.cu", "", "row_max_argmax", 128, 1},
    {"columns", "src/colsum.cu", "", "column_sums", 128, 1},
    {"2-D", "src/transpose.cu", "", "transpose_naive_kernel", 32, 8},
    {"stencil", "src/stencil.cu", "", "laplacian5", 16, 16},
    {"stencil", "src/blur.cu", "", "box_blur_kernel", 16, 16},
    {"2-D", "src/sgemm.cu", "", "gemm_naive", 32, 32},
    {"2-D", "src/linear.cu", "", "linear_forward_nt", 16, 16},
    {"elementwise", "include/transfer/detail/activations.cuh", "src/ops.cu", "gelu_tanh_kernel", 256, 1},
    {"elementwise", "src/elementwise.cu", "", "axpy_kernel", 512, 1},
    {"elementwise", "include/transfer/detail/activations.cuh", "src/ops.cu", "relu_inplace_kernel", 256, 1},
    {"elementwise", "src/epilogue.cu", "", "bias_residual_add_kernel", 256, 1},
    {"elementwise", "src/elementwise.cu", "", "scale_clip_kernel", 256, 1},
    {"elementwise", "src/vecadd.cu", "", "vecAdd", 1024, 1},
    {"rows", "src/gemv.cu", "", "gemv_row_kernel", 256, 1},
    {"convolution", "src/conv1d.cu", "", "conv1d_const_kernel", 256, 1},
    {"convolution", "src/conv1d.cu", "", "conv1d_kernel", 128, 1},
    {"histogram", "src/histogram.cu", "", "histo_kernel", 256, 1},
    {"elementwise", "src/gather.cu", "", "gather_kernel", 256, 1},
};

struct Reach {
  std::vector<std::string> applied;  // "transform" for each family transform whose forward applied
  std::vector<std::string> refused;  // "transform: why" for the others
  // Applied transforms no library skill of which fits the normal form's features (the skill search
  // would never try them: an anchor written for another spelling hides what the transform can do).
  std::vector<std::string> unanchored;
};

const std::vector<Skill>& librarySkills() {
  static const std::vector<Skill> skills = loadSkills({std::string(KLINEAGE_SOURCE_DIR) + "/skills"}, transformIds());
  return skills;
}

bool someSkillFits(const std::string& transform, const KernelInfo& info) {
  for (const Skill& s : librarySkills()) {
    if (s.transform != transform) continue;
    bool fits = true;
    for (const auto& f : s.requires_features) fits = fits && kernelHasFeature(info, f);
    for (const auto& f : s.forbids_features) fits = fits && !kernelHasFeature(info, f);
    if (fits) return true;
  }
  return false;
}

// A transfer kernel in normal form, with what a step on it needs: its file, the target source that
// compiles it (a header kernel's unit, else "") and the block its launcher uses.
struct NormalForm {
  std::string file, unit;
  ArgsByFile args;
  CanonicalForm c;
  TransformFacts facts;
  StepResult step(const Overlay& from, const char* name, const std::string& id, const TransformParams& params) const {
    const Transform* t = findTransform(id);
    REQUIRE(t != nullptr);
    return applyStep(from, args, file, name, *t, Direction::Forward, params, facts, unit);
  }
};

const Kernel& kernelNamed(const std::string& name) {
  for (const Kernel& k : kKernels)
    if (name == k.name) return k;
  FAIL("no transfer kernel " << name);
  throw;
}

NormalForm normalFormOf(const Kernel& k) {
  NormalForm n;
  n.file = kTransfer + "/" + k.file;
  const std::string unit = *k.unit ? kTransfer + "/" + k.unit : n.file;
  n.unit = n.file != unit ? unit : "";
  Overlay overlay{{unit, readFile(unit)}};
  if (n.file != unit) overlay[n.file] = readFile(n.file);
  n.args = ArgsByFile{{unit, test::testClangArgs(kTransfer + "/include")}};
  Manifest m = extractManifest("t", {{unit, n.args.at(unit)}}, overlay);
  const KernelInfo* info = m.find(k.name);
  REQUIRE(info != nullptr);
  n.c = canonicalize(overlay, n.args, n.file, k.name, *info, n.unit);
  n.facts.block = Dim3{k.bx, k.by, 1};
  n.facts.block_size = k.bx * k.by;
  return n;
}

Reach reachOf(const Kernel& k) {
  const NormalForm n = normalFormOf(k);
  const std::string& file = n.file;
  const CanonicalForm& c = n.c;
  Reach r;
  std::set<std::string> tried;
  for (const auto& [family, ids] : kFamilyTransforms)
    for (const std::string& id : ids) {
      if (!tried.insert(id).second) continue;
      StepResult s = n.step(c.overlay, k.name, id, {});
      if (s.applied) {
        r.applied.push_back(id);
        // KLINEAGE_REACH_DUMP=<dir>: each family variant's file, to read what the gate would see.
        if (const char* dump = std::getenv("KLINEAGE_REACH_DUMP"))
          atomicWrite(std::string(dump) + "/" + k.name + "." + id + ".cu", s.overlay.at(file));
        if (!someSkillFits(id, c.info)) r.unanchored.push_back(id);
      } else
        r.refused.push_back(id + ": " + s.reason);
    }
  return r;
}

}  // namespace

TEST_CASE("transfer reach: the family skills apply to >= 90% of the frozen suite's kernels of a family they cover", "[canonical][reach]") {
  const bool print = std::getenv("KLINEAGE_REACH_PRINT") != nullptr;
  int covered = 0, reached = 0, uncovered_reached = 0;
  std::vector<std::string> missed, unanchored;
  for (const Kernel& k : kKernels) {
    Reach r = reachOf(k);
    const bool has_family = *k.family != '\0';
    covered += has_family;
    if (!r.applied.empty()) (has_family ? reached : uncovered_reached) += 1;
    std::string line = std::string(k.name) + " [" + (has_family ? k.family : "no family skill") + "]: ";
    for (const std::string& a : r.unanchored) unanchored.push_back(std::string(k.name) + ": " + a);
    if (!r.applied.empty()) {
      for (const std::string& a : r.applied)
        line += a + (std::find(r.unanchored.begin(), r.unanchored.end(), a) != r.unanchored.end() ? " (no skill fits) " : " ");
    } else {
      line += "none";
      if (has_family) missed.push_back(k.name);
      // The family's own transforms say most about why.
      if (has_family)
        for (const std::string& why : r.refused)
          for (const std::string& id : kFamilyTransforms.at(k.family))
            if (why.rfind(id + ":", 0) == 0) line += "\n    " + why.substr(0, 220);
    }
    if (print) std::cout << line << "\n";
  }
  if (print)
    std::cout << "transfer-reach (no GPU, round 1): " << reached << " of " << covered
              << " kernels of a covered family got a family variant; " << uncovered_reached
              << " of " << (std::size(kKernels) - covered) << " without a family skill did\n";
  INFO("missed: " << [&] {
    std::string s;
    for (const auto& m : missed) s += m + " ";
    return s;
  }());
  CHECK(reached * 10 >= covered * 9);
  // A family transform that applies to a kernel's normal form must be reachable by some skill.
  INFO("applied, but no library skill of the transform fits the normal form's features: " << [&] {
    std::string s;
    for (const auto& u : unanchored) s += u + "; ";
    return s;
  }());
  CHECK(unanchored.empty());
}

// The planner stacks steps: the blur's interior fast path must survive coarsen-rows (either order),
// since the two gain on different costs (guards and the run-time divisor; rows a warp reads).
TEST_CASE("transfer reach: box_blur_kernel takes unswitch-bounds and coarsen-rows in either order", "[canonical][reach]") {
  const NormalForm n = normalFormOf(kernelNamed("box_blur_kernel"));
  const TransformParams wide{{"rows", "4"}, {"block_x", "64"}};
  for (bool unswitch_first : {true, false}) {
    INFO((unswitch_first ? "unswitch-bounds first" : "coarsen-rows first"));
    StepResult s1 = n.step(n.c.overlay, "box_blur_kernel", unswitch_first ? "unswitch-bounds" : "coarsen-rows",
                           unswitch_first ? TransformParams{} : wide);
    INFO("first step: " << s1.reason);
    REQUIRE(s1.applied);
    StepResult s2 = n.step(s1.overlay, "box_blur_kernel", unswitch_first ? "coarsen-rows" : "unswitch-bounds",
                           unswitch_first ? wide : TransformParams{});
    INFO("second step: " << s2.reason);
    REQUIRE(s2.applied);
    const std::string& text = s2.overlay.at(n.file);
    CHECK(text.find("every tap inside the bounds") != std::string::npos);
    CHECK(text.find("kl_r") != std::string::npos);
    // Both paths keep the division the user wrote; only the fast one lost the tap guard.
    size_t divisions = 0;
    for (size_t p = text.find("sum / count"); p != std::string::npos; p = text.find("sum / count", p + 1)) ++divisions;
    CHECK(divisions == 2);
  }
}

// The segment scan as users write it (one block of 1024 threads a segment, the length a parameter)
// takes 4 elements a thread: block.x 1024 -> 256, every read of the thread index per element.
TEST_CASE("transfer reach: scan_segments_hs takes block-scan-shuffle with 4 items a thread", "[canonical][reach]") {
  NormalForm n = normalFormOf(kernelNamed("scan_segments_hs"));
  StepResult s = n.step(n.c.overlay, "scan_segments_hs", "block-scan-shuffle", {{"items", "4"}});
  INFO(s.reason);
  REQUIRE(s.applied);
  REQUIRE(s.geometry.block_x.has_value());
  CHECK(*s.geometry.block_x == 256);
  if (const char* dump = std::getenv("KLINEAGE_REACH_DUMP"))
    atomicWrite(std::string(dump) + "/scan_segments_hs.block-scan-shuffle-items.cu", s.overlay.at(n.file));
  const std::string& text = s.overlay.at(n.file);
  CHECK(text.find("kl_items[kl_j] = in[(4 * thid + kl_j)]") != std::string::npos);
  CHECK(text.find("out[(4 * thid + kl_j)] = kl_items[kl_j]") != std::string::npos);
  // 1000 threads are not whole warps of 4 items: refused, not mis-scanned.
  n.facts.block = Dim3{1000, 1, 1};
  n.facts.block_size = 1000;
  CHECK_FALSE(n.step(n.c.overlay, "scan_segments_hs", "block-scan-shuffle", {{"items", "4"}}).applied);
}

// A debugging aid, not a check: KLINEAGE_CHAIN="<kernel>:<transform>[=k=v;k=v],<transform>..."
// applies that chain to the transfer kernel's normal form (the block from kKernels) and prints each
// step's reason; KLINEAGE_REACH_DUMP=<dir> also writes the last text. Without it the case does nothing.
TEST_CASE("transfer reach: a chain named in KLINEAGE_CHAIN, printed", "[reach]") {
  const char* chain = std::getenv("KLINEAGE_CHAIN");
  if (!chain) return;
  std::string spec = chain;
  const std::string name = spec.substr(0, spec.find(':'));
  const Kernel& k = kernelNamed(name);
  NormalForm n = normalFormOf(k);
  Overlay cur = n.c.overlay;
  std::string rest = spec.substr(spec.find(':') + 1);
  while (!rest.empty()) {
    std::string step = rest.substr(0, rest.find(','));
    rest = rest.find(',') == std::string::npos ? "" : rest.substr(rest.find(',') + 1);
    TransformParams params;
    std::string id = step.substr(0, step.find('='));
    if (step.find('=') != std::string::npos) {
      std::string kv = step.substr(step.find('=') + 1);
      while (!kv.empty()) {
        std::string one = kv.substr(0, kv.find(';'));
        kv = kv.find(';') == std::string::npos ? "" : kv.substr(kv.find(';') + 1);
        params[one.substr(0, one.find('='))] = one.substr(one.find('=') + 1);
      }
    }
    StepResult s = n.step(cur, k.name, id, params);
    std::cout << id << ": " << (s.applied ? "applied: " : "refused: ") << s.reason << "\n";
    if (!s.applied) break;
    cur = s.overlay;
    if (s.geometry.block_x) n.facts.block->x = *s.geometry.block_x;
    if (s.geometry.block_y) n.facts.block->y = *s.geometry.block_y;
    n.facts.block_size = n.facts.block->x * n.facts.block->y;
  }
  if (const char* dump = std::getenv("KLINEAGE_REACH_DUMP"))
    atomicWrite(std::string(dump) + "/" + k.name + ".chain.cu", cur.at(n.file));
}
