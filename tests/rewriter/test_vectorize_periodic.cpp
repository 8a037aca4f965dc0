// vectorize-access's row-periodic operands (p[i % m] read as one vector at (kl_v * 4 % m) / 4,
// behind `m % 4 == 0`) beyond the golden texts: the mineable expert mine_bias_gelu
// (examples/experts/src/mine/bias_gelu.cu) walks back through the inverses to the naive bias_gelu,
// and at each step the forward of the simplified version gives the parent back (what klineage mine
// keeps); the naive kernel run through the forwards is the expert; the inverse refuses a condition
// term without its vector read; the index identity the transform relies on, in int and size_t.
#include <catch2/catch.hpp>

#include "support/toolchain.h"

#include <cstddef>

#include "core/flags.h"
#include "core/fs.h"
#include "rewriter/apply.h"
#include "rewriter/transform.h"

using namespace klineage;

namespace {

const std::string kIncludeDir = std::string(KLINEAGE_SOURCE_DIR) + "/examples/experts/include";
const std::string kNaive = std::string(KLINEAGE_SOURCE_DIR) + "/examples/experts/src/naive/elementwise.cu";
const std::string kMine = std::string(KLINEAGE_SOURCE_DIR) + "/examples/experts/src/mine/bias_gelu.cu";

StepResult run(const std::string& file, const std::string& kernel, const std::string& id, const std::string& text,
               Direction dir) {
  const Transform* t = findTransform(id);
  REQUIRE(t != nullptr);
  TransformFacts facts;
  facts.block_size = 256;
  return applyStep(Overlay{{file, text}}, ArgsByFile{{file, test::testClangArgs(kIncludeDir)}}, file, kernel, *t, dir,
                   {}, facts);
}

// The kernel's definition, `__global__ void <name>(` to its closing brace at column 0.
std::string kernelText(const std::string& text, const std::string& name) {
  const size_t b = text.find("__global__ void " + name + "(");
  REQUIRE(b != std::string::npos);
  const size_t e = text.find("\n}\n", b);
  REQUIRE(e != std::string::npos);
  return text.substr(b, e + 3 - b);
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

const char* kGather = R"(__global__ void k(int n, int cols, const float* in, const float* bias, float* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    out[i] = in[i] + bias[i % cols];
  }
}
)";

}  // namespace

TEST_CASE("vectorize-access: mine_bias_gelu walks back to the naive bias_gelu, each forward giving its parent back",
          "[transforms]") {
  const std::string expert = readFile(kMine);
  const std::string kernel = kernelText(expert, "mine_bias_gelu");
  CHECK(kernel.find("float4 kl_bias = reinterpret_cast<const float4*>(bias)[(kl_v * 4 % cols) / 4];") != std::string::npos);
  CHECK(kernel.find("& 15) == 0 && cols % 4 == 0) {") != std::string::npos);
  std::string text = expert;
  for (const std::string id : {"vectorize-access", "grid-stride-loop", "restrict-pointers"}) {
    const StepResult back = run(kMine, "mine_bias_gelu", id, text, Direction::Inverse);
    INFO("-" << id << ": " << back.reason);
    REQUIRE(back.applied);
    const std::string simpler = back.overlay.at(kMine);
    if (id == std::string("vectorize-access")) CHECK(back.geometry.grid_x_multiplier == 4);
    const StepResult again = run(kMine, "mine_bias_gelu", id, simpler, Direction::Forward);
    INFO("forward: " << again.reason);
    REQUIRE(again.applied);
    CHECK(kernelText(again.overlay.at(kMine), "mine_bias_gelu") == kernelText(text, "mine_bias_gelu"));
    text = simpler;
  }
  // the naive kernel, its pointers without const (-restrict-pointers drops the const it removes
  // __restrict__ with)
  const std::string naive = kernelText(readFile(kNaive), "bias_gelu");
  CHECK(kernelText(text, "mine_bias_gelu") ==
        replaced(replaced(naive, "const float*", "float*"), "void bias_gelu(", "void mine_bias_gelu("));
}

TEST_CASE("vectorize-access: the naive bias_gelu through grid-stride-loop, vectorize-access, restrict-pointers is the "
          "mineable expert",
          "[transforms]") {
  std::string text = readFile(kNaive);
  for (const std::string id : {"grid-stride-loop", "vectorize-access", "restrict-pointers"}) {
    const StepResult f = run(kNaive, "bias_gelu", id, text, Direction::Forward);
    INFO(id << ": " << f.reason);
    REQUIRE(f.applied);
    text = f.overlay.at(kNaive);
  }
  CHECK(replaced(kernelText(text, "bias_gelu"), "void bias_gelu(", "void mine_bias_gelu(") ==
        kernelText(readFile(kMine), "mine_bias_gelu"));
}

TEST_CASE("vectorize-access: the inverse takes `&& m % 4 == 0` only with its vector read", "[transforms]") {
  const std::string path = "/tmp/klineage-golden/properties/periodic.cu";
  auto step = [&](const std::string& text, Direction dir) {
    const Transform* t = findTransform("vectorize-access");
    REQUIRE(t != nullptr);
    return applyStep(Overlay{{path, text}}, ArgsByFile{{path, test::testClangArgs(kIncludeDir)}}, path, "k", *t, dir, {}, {});
  };
  const StepResult f = step(kGather, Direction::Forward);
  INFO(f.reason);
  REQUIRE(f.applied);
  CHECK(f.reason == "4-wide vector accesses to in, bias[i % cols], out behind an alignment check and cols % 4 == 0; grid.x / 4");
  const std::string vectorized = f.overlay.at(path);
  CHECK(step(vectorized, Direction::Inverse).overlay.at(path) == kGather);
  // a term naming another modulus than the vector read's, a term that is not `name % 4 == 0`
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"&& cols % 4 == 0", "&& n % 4 == 0"}, {"&& cols % 4 == 0", "&& cols % 8 == 0"},
           {"&& cols % 4 == 0", "&& (cols) % 4 == 0"}, {"&& cols % 4 == 0", "&& cols % 4 == 0 && n > 0"}}) {
    const std::string changed = replaced(vectorized, from, to);
    REQUIRE(changed != vectorized);
    const StepResult b = step(changed, Direction::Inverse);
    INFO(to);
    CHECK_FALSE(b.applied);
  }
}

TEST_CASE("vectorize-access: (4k + L) % m == (4k % m) + L when m % 4 == 0, in int and size_t", "[transforms]") {
  for (int m : {4, 8, 12, 64, 1000, -4, -12}) {
    REQUIRE(m % 4 == 0);
    for (int k = 0; k < 300; ++k)
      for (int L = 0; L < 4; ++L) {
        INFO("m " << m << " k " << k << " L " << L);
        CHECK((4 * k + L) % m == (4 * k % m) / 4 * 4 + L);  // int, as `i % cols` with int i and cols
        const size_t kz = static_cast<size_t>(k);
        CHECK((4 * kz + L) % m == (kz * 4 % m) / 4 * 4 + L);  // size_t i, int m converted
      }
  }
}
