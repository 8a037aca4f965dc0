// sharedParse: one parse per file, arguments and overlay, shared by the steps that start from it;
// any change to what the parse depends on parses again; the least recently used go first. And a
// skill search's steps from the original share its parse (applyStep).
#include <catch2/catch.hpp>

#include "support/temp_dir.h"
#include "support/toolchain.h"

#include <clang/Frontend/ASTUnit.h>

#include "rewriter/apply.h"
#include "rewriter/parse.h"
#include "rewriter/transform.h"

using namespace klineage;

namespace {
const char* kSaxpy = R"(__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";
}  // namespace

TEST_CASE("sharedParse: the same file, arguments and overlay share one parse, and any change parses again", "[parse]") {
  test::TempDir t("shared-parse");
  const std::string file = t.write("k.cu", kSaxpy);
  const std::string other = t.write("other.cu", "__global__ void o() {}\n");
  const std::vector<std::string> args = test::testClangArgs(t.path.string());
  const Overlay base{{file, kSaxpy}, {other, "__global__ void o() {}\n"}};

  const SharedParseStats s0 = sharedParseStats();
  auto a = sharedParse(file, args, base);
  REQUIRE(a->ast);
  CHECK(a->error_count == 0);
  auto b = sharedParse(file, args, base);
  CHECK(b.get() == a.get());
  CHECK(sharedParseStats().parses == s0.parses + 1);
  CHECK(sharedParseStats().hits == s0.hits + 1);

  // Another overlay entry's text, the main file's text, or the arguments: another parse.
  Overlay changed = base;
  changed[other] = "__global__ void o() { }\n";
  CHECK(sharedParse(file, args, changed).get() != a.get());
  changed = base;
  changed[file] = std::string(kSaxpy) + "// edited\n";
  auto c = sharedParse(file, args, changed);
  CHECK(c.get() != a.get());
  CHECK(c->ast->getASTContext().getSourceManager().getBufferData(
            c->ast->getASTContext().getSourceManager().getMainFileID()).str() == changed[file]);
  std::vector<std::string> more = args;
  more.push_back("-DKL_TEST=1");
  CHECK(sharedParse(file, more, base).get() != a.get());
  CHECK(sharedParseStats().parses == s0.parses + 4);

  // Kept: the kSharedParses most recently used. `a` was used before the three others; after
  // kSharedParses - 3 more distinct parses it is the least recently used one left, then gone.
  CHECK(sharedParse(file, args, base).get() == a.get());  // now the most recent
  for (size_t i = 0; i < kSharedParses - 1; ++i) {
    Overlay o = base;
    o[other] = "__global__ void o() {}\n// " + std::to_string(i) + "\n";
    sharedParse(file, args, o);
  }
  CHECK(sharedParse(file, args, base).get() == a.get());  // kSharedParses - 1 newer ones: still kept
  for (size_t i = 0; i < kSharedParses; ++i) {
    Overlay o = base;
    o[other] = "__global__ void o() {}\n/* " + std::to_string(i) + " */\n";
    sharedParse(file, args, o);
  }
  const size_t before = sharedParseStats().parses;
  auto again = sharedParse(file, args, base);  // dropped: parsed anew (the old one lives on in `a`)
  CHECK(sharedParseStats().parses == before + 1);
  CHECK(again.get() != a.get());
}

TEST_CASE("sharedParse: steps from the same sources parse them once, and a step's result is the next step's start",
          "[parse]") {
  test::TempDir t("shared-parse-steps");
  const std::string file = t.write("k.cu", kSaxpy);
  const ArgsByFile args{{file, test::testClangArgs(t.path.string())}};
  const Transform* restrict_ = findTransform("restrict-pointers");
  const Transform* bounds = findTransform("launch-bounds");
  REQUIRE(restrict_);
  REQUIRE(bounds);
  TransformFacts facts;
  facts.block_size = 256;

  const SharedParseStats s0 = sharedParseStats();
  StepResult r1 = applyStep({}, args, file, "saxpy", *restrict_, Direction::Forward, {}, facts);
  REQUIRE(r1.applied);
  CHECK(sharedParseStats().parses == s0.parses + 2);  // the original, then the edited file
  StepResult r2 = applyStep({}, args, file, "saxpy", *bounds, Direction::Forward, {}, facts);
  REQUIRE(r2.applied);
  CHECK(sharedParseStats().parses == s0.parses + 3);  // the original was shared
  // The chain's next step starts from r1's re-parse: only its own result is parsed.
  StepResult r3 = applyStep(r1.overlay, args, file, "saxpy", *bounds, Direction::Forward, {}, facts);
  REQUIRE(r3.applied);
  CHECK(sharedParseStats().parses == s0.parses + 4);
  CHECK(r3.overlay.at(file).find("__restrict__") != std::string::npos);
  CHECK(r3.overlay.at(file).find("__launch_bounds__(256)") != std::string::npos);
  // The same step again gives the same text, from shared parses only.
  StepResult r4 = applyStep(r1.overlay, args, file, "saxpy", *bounds, Direction::Forward, {}, facts);
  CHECK(r4.overlay == r3.overlay);
  CHECK(sharedParseStats().parses == s0.parses + 4);
}
