// Properties of the transforms beyond the golden texts: the geometry each reports, what
// restrict-pointers leaves alone, grid-stride-loop round trips, and what the block reductions'
// inverses accept of a 4-wide accumulation (vector_width 4).
#include <catch2/catch.hpp>

#include "support/toolchain.h"

#include "core/flags.h"
#include "rewriter/apply.h"
#include "rewriter/transform.h"

using namespace klineage;

namespace {

const std::string kPath = "/tmp/klineage-golden/properties/k.cu";

StepResult run(const std::string& id, const std::string& text, Direction dir, TransformFacts facts = {},
               const TransformParams& params = {}) {
  static const std::vector<std::string> args = [] {
    ClangParseSetup setup;
    setup.cuda_path = klineage::test::cudaHome();  // CUDA_HOME, like the product
    setup.resource_dir = klineage::test::clangResourceDir();  // KLINEAGE_CLANG_RESOURCE_DIR
    setup.compat_dir = std::string(KLINEAGE_SOURCE_DIR) + "/rewriter/compat";
    return clangArgsFor(CudaFlags{}, setup);
  }();
  const Transform* t = findTransform(id);
  REQUIRE(t != nullptr);
  return applyStep(Overlay{{kPath, text}}, ArgsByFile{{kPath, args}}, kPath, "k", *t, dir, params, facts);
}

std::string textOf(const StepResult& r) { return r.overlay.at(kPath); }

const char* kScale = R"(__global__ void k(const float* x, float* y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = a * x[i];
  }
}
)";

}  // namespace

TEST_CASE("vectorize-access forward reports grid_x_divisor 4, inverse 1", "[transforms]") {
  StepResult f = run("vectorize-access", kScale, Direction::Forward);
  INFO(f.reason);
  REQUIRE(f.applied);
  CHECK(f.geometry.grid_x_divisor == 4);
  CHECK_FALSE(f.geometry.block_x.has_value());
  CHECK(textOf(f).find("reinterpret_cast<const float4*>(x)[kl_v]") != std::string::npos);
  CHECK(textOf(f).find("float4 kl_y;") != std::string::npos);  // y is only written
  StepResult b = run("vectorize-access", textOf(f), Direction::Inverse);
  REQUIRE(b.applied);
  CHECK(b.geometry.grid_x_divisor == 1);
  CHECK(textOf(b) == kScale);
}

TEST_CASE("vectorize-access with grid_divisor 1 keeps the grid and its inverse does not scale it", "[transforms]") {
  // A grid-stride kernel whose launcher capped its grid: the same vector text, the grid untouched.
  const TransformParams keep{{"grid_divisor", "1"}};
  StepResult f = run("vectorize-access", kScale, Direction::Forward, {}, keep);
  INFO(f.reason);
  REQUIRE(f.applied);
  CHECK_FALSE(f.geometry.changes());
  CHECK(textOf(f) == textOf(run("vectorize-access", kScale, Direction::Forward)));
  StepResult b = run("vectorize-access", textOf(f), Direction::Inverse, {}, keep);
  REQUIRE(b.applied);
  CHECK_FALSE(b.geometry.changes());
  CHECK(textOf(b) == kScale);
  StepResult half = run("vectorize-access", kScale, Direction::Forward, {}, {{"grid_divisor", "2"}});
  REQUIRE(half.applied);
  CHECK(half.geometry.grid_x_divisor == 2);
  StepResult bad = run("vectorize-access", kScale, Direction::Forward, {}, {{"grid_divisor", "3"}});
  CHECK_FALSE(bad.applied);
  CHECK_THAT(bad.reason, Catch::Contains("grid_divisor must be 1, 2 or 4"));
}

TEST_CASE("restrict-pointers does not add const to a pointer written through", "[transforms]") {
  const char* src = R"(__global__ void k(float* x, float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = x[i];
    z[i] += x[i];
  }
}
)";
  StepResult r = run("restrict-pointers", src, Direction::Forward);
  INFO(r.reason);
  REQUIRE(r.applied);
  std::string out = textOf(r);
  CHECK(out.find("const float* __restrict__ x") != std::string::npos);
  CHECK(out.find("float* __restrict__ y") != std::string::npos);
  CHECK(out.find("const float* __restrict__ y") == std::string::npos);
  CHECK(out.find("float* __restrict__ z") != std::string::npos);
  CHECK(out.find("const float* __restrict__ z") == std::string::npos);
  CHECK_FALSE(r.geometry.changes());
}

TEST_CASE("grid-stride-loop forward then inverse round-trips", "[transforms]") {
  const char* src = R"(__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = v > 0.0f ? v : 0.0f;
  }
}
)";
  StepResult f = run("grid-stride-loop", src, Direction::Forward);
  INFO(f.reason);
  REQUIRE(f.applied);
  CHECK_FALSE(f.geometry.changes());  // correct for any grid
  CHECK(textOf(f).find("for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)") !=
        std::string::npos);
  StepResult b = run("grid-stride-loop", textOf(f), Direction::Inverse);
  INFO(b.reason);
  REQUIRE(b.applied);
  CHECK(textOf(b) == src);
  // and the round trip composes: forward again gives the same loop
  StepResult f2 = run("grid-stride-loop", textOf(b), Direction::Forward);
  REQUIRE(f2.applied);
  CHECK(textOf(f2) == textOf(f));
}

TEST_CASE("grid-stride-loop forward then vectorize-access composes", "[transforms]") {
  const char* src = R"(__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = x[i] * x[i];
  }
}
)";
  StepResult g = run("grid-stride-loop", src, Direction::Forward);
  REQUIRE(g.applied);
  StepResult v = run("vectorize-access", textOf(g), Direction::Forward);
  INFO(v.reason);
  REQUIRE(v.applied);
  CHECK(v.geometry.grid_x_divisor == 4);
  StepResult vb = run("vectorize-access", textOf(v), Direction::Inverse);
  REQUIRE(vb.applied);
  StepResult gb = run("grid-stride-loop", textOf(vb), Direction::Inverse);
  REQUIRE(gb.applied);
  CHECK(textOf(gb) == src);
}

TEST_CASE("launch sites: grid.x multiplier, grid.y divisor and a 2-D block are written around the user's expressions",
          "[transforms]") {
  const std::string file = "/tmp/klineage-golden/properties/launch.cu";
  const std::string text = R"(__global__ void k(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 0.0f;
}
void run(float* p, int n, int h) {
  k<<<(n + 255) / 256, 256>>>(p, n);
  dim3 grid((n + 15) / 16, (h + 15) / 16);
  k<<<grid, dim3(16, 16)>>>(p, n);
}
)";
  ClangParseSetup setup;
  setup.cuda_path = klineage::test::cudaHome();
  setup.resource_dir = klineage::test::clangResourceDir();
  setup.compat_dir = std::string(KLINEAGE_SOURCE_DIR) + "/rewriter/compat";
  ArgsByFile args{{file, clangArgsFor(CudaFlags{}, setup)}};

  GeometryChange rows;  // warp-per-row
  rows.grid_x_multiplier = 32;
  Overlay o{{file, text}};
  unsigned n = 0;
  std::string why;
  REQUIRE(rewriteLaunches(o, args, "k", rows, &why, &n));
  CHECK(n == 2);
  CHECK(o.at(file).find("k<<<(((n + 255) / 256) * 32), 256>>>") != std::string::npos);
  CHECK(o.at(file).find("k<<<dim3((((grid).x) * 32), ((grid).y), (grid).z), dim3(16, 16)>>>") != std::string::npos);

  GeometryChange tile;  // a 32 x 8 block covering 32 x 32 where 16 x 16 covered 16 x 16
  tile.grid_x_divisor = 2;
  tile.grid_y_divisor = 2;
  tile.block_x = 32;
  tile.block_y = 8;
  Overlay t{{file, text}};
  REQUIRE(rewriteLaunches(t, args, "k", tile, &why, &n));
  CHECK(t.at(file).find("k<<<(((n + 255) / 256) + 1) / 2, dim3(32, 8, 1)>>>") != std::string::npos);
  CHECK(t.at(file).find("k<<<dim3((((grid).x) + 1) / 2, (((grid).y) + 1) / 2, (grid).z), dim3(32, 8, (dim3(16, 16)).z)>>>") !=
        std::string::npos);

  // Only the files named are parsed and edited (the selection names those with the kernel's launches).
  const std::string other = "/tmp/klineage-golden/properties/launch_other.cu";
  const std::string other_text = "__global__ void k(float* p, int n);\nvoid again(float* p, int n) { k<<<n, 64>>>(p, n); }\n";
  ArgsByFile two{{file, args.at(file)}, {other, args.at(file)}};
  Overlay both_files{{file, text}, {other, other_text}};
  const std::set<std::string> only_other{other};
  REQUIRE(rewriteLaunches(both_files, two, "k", rows, &why, &n, &only_other));
  CHECK(n == 1);
  CHECK(both_files.at(file) == text);
  CHECK(both_files.at(other).find("k<<<((n) * 32), 64>>>") != std::string::npos);
  Overlay every{{file, text}, {other, other_text}};
  REQUIRE(rewriteLaunches(every, two, "k", rows, &why, &n));
  CHECK(n == 3);

  // the gate applies the same change to the evaluated launch
  CHECK(applyGrid(rows, Dim3{16, 1, 1}).x == 512);
  Dim3 g = applyGrid(tile, Dim3{438, 157, 1});
  CHECK(g.x == 219);
  CHECK(g.y == 79);
  Dim3 b = applyBlock(tile, Dim3{16, 16, 1});
  CHECK((b.x == 32 && b.y == 8 && b.z == 1));
  GeometryChange both = rows;
  both.compose(tile);
  CHECK(applyGrid(both, Dim3{3, 1, 1}).x == 48);  // ceil(3 * 32 / 2)
}

TEST_CASE("block-size keeps the number of threads: block.x = B, grid.x * B0 / B", "[transforms]") {
  const char* text = R"(__global__ void k(int n, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f;
}
)";
  TransformFacts facts;
  facts.block_size = 256;
  const std::string file = "/tmp/klineage-golden/properties/k.cu";
  ClangParseSetup setup;
  setup.cuda_path = klineage::test::cudaHome();
  setup.resource_dir = klineage::test::clangResourceDir();
  setup.compat_dir = std::string(KLINEAGE_SOURCE_DIR) + "/rewriter/compat";
  ArgsByFile args{{file, clangArgsFor(CudaFlags{}, setup)}};
  for (long long b : {64LL, 512LL, 1024LL}) {
    INFO(b);
    StepResult r = applyStep(Overlay{{file, text}}, args, file, "k", *findTransform("block-size"), Direction::Forward,
                             TransformParams{{"threads", std::to_string(b)}}, facts);
    REQUIRE(r.applied);
    CHECK(r.overlay.at(file).find("__launch_bounds__(" + std::to_string(b) + ") k(") != std::string::npos);
    REQUIRE(r.geometry.block_x);
    CHECK(*r.geometry.block_x == b);
    // 2^26 elements at 256 threads: 262144 blocks; the same threads at B
    Dim3 g = applyGrid(r.geometry, Dim3{262144, 1, 1});
    CHECK(g.x * b == 262144LL * 256);
    CHECK(applyBlock(r.geometry, Dim3{256, 1, 1}).x == b);
    // an odd grid still covers every old thread
    CHECK(applyGrid(r.geometry, Dim3{3, 1, 1}).x * b >= 3 * 256);
  }
}

TEST_CASE("tile-sgemm reports grid / 4 in x and y for a 16 x 16 block, and refuses another block", "[transforms]") {
  const char* text = R"(__global__ void k(int M, int N, int K, const float* A, const float* B, float* C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
)";
  TransformFacts facts;
  facts.block = Dim3{16, 16, 1};
  facts.block_size = 256;
  StepResult r = run("tile-sgemm", text, Direction::Forward, facts);
  REQUIRE(r.applied);
  CHECK(r.geometry.grid_x_divisor == 4);
  CHECK(r.geometry.grid_y_divisor == 4);
  CHECK_FALSE(r.geometry.block_x);
  // 1536 x 1024 of C on 16 x 16 blocks: 64 x 96 blocks; 64 x 64 tiles: 16 x 24
  Dim3 g = applyGrid(r.geometry, Dim3{64, 96, 1});
  CHECK((g.x == 16 && g.y == 24));
  facts.block = Dim3{32, 8, 1};
  StepResult no = run("tile-sgemm", text, Direction::Forward, facts);
  CHECK_FALSE(no.applied);
}

TEST_CASE("block reductions with vector_width 4: grid.x / coarsen as without it, the inverse takes only forward's 4-wide form",
          "[transforms]") {
  const char* sum = R"(__global__ void k(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}
)";
  const char* max = R"(__global__ void k(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    int* addr = reinterpret_cast<int*>(out);
    int old = *addr;
    while (v > __int_as_float(old)) {
      int assumed = old;
      old = atomicCAS(addr, assumed, __float_as_int(v));
      if (old == assumed) break;
    }
  }
}
)";
  TransformFacts facts;
  facts.block_size = 256;
  const TransformParams vec4{{"vector_width", "4"}, {"coarsen", "16"}};
  for (const auto& [id, src] : {std::pair<std::string, std::string>{"block-reduce-atomic", sum}, {"block-reduce-cas", max}}) {
    INFO(id);
    StepResult f = run(id, src, Direction::Forward, facts, vec4);
    INFO(f.reason);
    REQUIRE(f.applied);
    CHECK(f.geometry.grid_x_divisor == 16);
    CHECK_THAT(f.reason, Catch::Contains("4-wide loads of x when 16-byte aligned"));
    const std::string out = textOf(f);
    CHECK(out.find("float4 kl_x4 = reinterpret_cast<const float4*>(x)[kl_v];") != std::string::npos);
    // The inverse with vector_width 4 takes the original back; without it, it refuses the 4-wide
    // form, and with it the scalar one: klineage mine runs every param set the skills give, and the
    // step records the one that made it, so a mined skill's forward writes the form it measured.
    StepResult b = run(id, out, Direction::Inverse, facts, vec4);
    INFO(b.reason);
    REQUIRE(b.applied);
    CHECK(textOf(b) == src);
    CHECK(b.geometry.grid_x_multiplier == 16);
    StepResult scalar_params = run(id, out, Direction::Inverse, facts);
    CHECK_FALSE(scalar_params.applied);
    CHECK_THAT(scalar_params.reason, Catch::Contains("the accumulation loads vectors: not vector_width 1's form"));
    StepResult scalar_form = run(id, textOf(run(id, src, Direction::Forward, facts)), Direction::Inverse, facts, vec4);
    CHECK_FALSE(scalar_form.applied);
    CHECK_THAT(scalar_form.reason, Catch::Contains("the accumulation is the scalar loop, not vector_width 4's form"));
    // A 4-wide form that is not forward's is not taken back to the per-element kernel: the tail
    // dropped (tests/gpu/planted/reduce_*_vec4_no_tail.cu), or a lane missing.
    const size_t tail = out.find("    for (int i = (n / 4) * 4 + ");
    REQUIRE(tail != std::string::npos);
    const std::string no_tail = out.substr(0, tail) + out.substr(out.find('\n', tail) + 1);
    StepResult nt = run(id, no_tail, Direction::Inverse, facts, vec4);
    CHECK_FALSE(nt.applied);
    CHECK_THAT(nt.reason, Catch::Contains("the aligned branch is not the 4-wide accumulation forward writes"));
    const size_t lane = out.find("kl_x4.w");
    REQUIRE(lane != std::string::npos);
    const size_t line = out.rfind('\n', lane) + 1;
    const std::string three_lanes = out.substr(0, line) + out.substr(out.find('\n', lane) + 1);
    StepResult tl = run(id, three_lanes, Direction::Inverse, facts, vec4);
    CHECK_FALSE(tl.applied);
    CHECK_THAT(tl.reason, Catch::Contains("the aligned branch is not the 4-wide accumulation forward writes"));
  }
}

// (No ';' in a test's name: CMake's test discovery would split it into two tests.)
TEST_CASE("coarsen-rows: grid.y / rows, and with block_x a block that wide whose grid still covers every column and row",
          "[transforms]") {
  const char* text = R"(__global__ void k(const float* u, float* v, int nx, int ny) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < ny && col < nx) v[row * nx + col] = 2.0f * u[row * nx + col];
}
)";
  TransformFacts facts;
  facts.block = Dim3{16, 16, 1};
  facts.block_size = 256;
  StepResult r = run("coarsen-rows", text, Direction::Forward, facts, {{"rows", "4"}});
  REQUIRE(r.applied);
  CHECK(r.geometry.grid_y_divisor == 4);
  CHECK(r.geometry.grid_x_divisor == 1);
  CHECK_FALSE(r.geometry.block_x);
  // the inverse takes the 4 rows back: grid.y * 4
  StepResult back = run("coarsen-rows", textOf(r), Direction::Inverse, facts);
  REQUIRE(back.applied);
  CHECK(back.geometry.grid_y_multiplier == 4);
  CHECK(textOf(back) == text);
  // 4000 x 3000 on 16 x 16 blocks: 250 x 188 blocks. Each new geometry must cover >= 4000 columns and
  // >= 3008 rows (the original's), with the new block.
  for (long long bx : {32LL, 64LL, 128LL}) {
    INFO("block_x " << bx);
    StepResult w = run("coarsen-rows", text, Direction::Forward, facts, {{"rows", "4"}, {"block_x", std::to_string(bx)}});
    REQUIRE(w.applied);
    REQUIRE(w.geometry.block_x);
    REQUIRE(w.geometry.block_y);
    CHECK(*w.geometry.block_x == bx);
    CHECK(*w.geometry.block_x * *w.geometry.block_y == 256);
    const Dim3 g = applyGrid(w.geometry, Dim3{250, 188, 1});
    CHECK(g.x * bx >= 250 * 16);
    CHECK(g.y * *w.geometry.block_y * 4 >= 188 * 16);
    CHECK(g.x * bx < 250 * 16 + bx);                          // no more than one block column extra
    CHECK(g.y * *w.geometry.block_y * 4 < 188 * 16 + *w.geometry.block_y * 4);
  }
  // block_x needs the block; one not dividing the threads into warps is refused
  StepResult none = run("coarsen-rows", text, Direction::Forward, TransformFacts{}, {{"block_x", "64"}});
  CHECK_FALSE(none.applied);
  StepResult odd = run("coarsen-rows", text, Direction::Forward, facts, {{"block_x", "48"}});
  CHECK_FALSE(odd.applied);
}
