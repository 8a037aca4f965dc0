// Extraction (rewriter/extract.h): real CUDA sources written to a temp dir, parsed by clang 16 with
// the flags KLineage derives for them, and the manifest facts the skills rely on checked.
#include <catch2/catch.hpp>

#include "support/toolchain.h"

#include "support/temp_dir.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/flags.h"
#include "core/launch_eval.h"
#include "core/manifest.h"
#include "extract.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {

struct TempDir : test::TempDir {
  TempDir() : test::TempDir("extract") {}
};

std::vector<std::string> clangArgs(const std::string& include_dir) { return test::testClangArgs(include_dir); }

Manifest extract(const TempDir& t, const std::vector<std::string>& files) {
  std::vector<SourceToParse> srcs;
  for (const auto& f : files) srcs.push_back({f, clangArgs(t.path.string())});
  return extractManifest("t", srcs);
}

// 1-based line of the first line of `text` containing `needle`, and the column where it starts.
unsigned lineOf(const std::string& text, const std::string& needle, unsigned* column = nullptr) {
  std::istringstream in(text);
  std::string line;
  for (unsigned n = 1; std::getline(in, line); ++n) {
    auto p = line.find(needle);
    if (p != std::string::npos) {
      if (column) *column = static_cast<unsigned>(p) + 1;
      return n;
    }
  }
  return 0;
}

const ParamInfo* param(const KernelInfo& k, const std::string& name) {
  for (const auto& p : k.params)
    if (p.name == name) return &p;
  return nullptr;
}

std::string describe(const Manifest& m) { return nlohmann::json(m).dump(2); }

size_t countNamed(const Manifest& m, const std::string& name) {
  return std::count_if(m.kernels.begin(), m.kernels.end(), [&](const KernelInfo& k) { return k.name == name; });
}

const char* kSaxpy = R"(#include <cuda_runtime.h>

// y = a * x + y
__global__ void saxpy(int n, float a, const float* __restrict__ x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void relu(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

void launch(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
  relu<<<(n + 127) / 128, 128, 0, 0>>>(n, x, y);
}
)";

}  // namespace

TEST_CASE("extract: saxpy parameters, features and launch site", "[extract]") {
  TempDir t;
  std::string file = t.write("saxpy.cu", kSaxpy);
  Manifest m = extract(t, {file});
  INFO(describe(m));
  CHECK(m.target == "t");
  CHECK(m.sources == std::vector<std::string>{file});
  CHECK(m.diagnostics.empty());
  CHECK(m.kernels.size() == 2);
  const KernelInfo* k = m.find("saxpy");
  REQUIRE(k);
  CHECK(k->qualified_name == "saxpy");
  CHECK(k->mangled_name == "_Z5saxpyifPKfPf");  // saxpy(int, float, const float*, float*)
  CHECK(!k->in_header);
  CHECK(!k->is_template);
  CHECK(k->declarations == 1);
  CHECK(!k->launch_bounds);
  CHECK(k->range.file == file);
  CHECK(k->range.begin_line == lineOf(kSaxpy, "__global__ void saxpy"));
  CHECK(k->range.end_line == lineOf(kSaxpy, "__global__ void relu") - 2);  // the closing brace
  CHECK(k->range.begin_offset < k->range.end_offset);

  REQUIRE(k->params.size() == 4);
  CHECK(k->params[0].name == "n");
  CHECK(k->params[1].name == "a");
  CHECK(k->params[2].name == "x");
  CHECK(k->params[3].name == "y");
  const ParamInfo *n = param(*k, "n"), *a = param(*k, "a"), *x = param(*k, "x"), *y = param(*k, "y");
  CHECK(!n->is_pointer);
  CHECK(n->size_bytes == 4);
  CHECK(!a->is_pointer);
  CHECK(a->size_bytes == 4);
  CHECK(x->is_pointer);
  CHECK(x->pointee == "float");
  CHECK(x->pointee_const);
  CHECK(x->is_restrict);
  CHECK(x->size_bytes == 8);
  CHECK(x->read);
  CHECK(!x->written);
  CHECK(y->is_pointer);
  CHECK(y->pointee == "float");
  CHECK(!y->pointee_const);
  CHECK(!y->is_restrict);
  CHECK(y->read);     // + y[i]
  CHECK(y->written);  // y[i] =

  CHECK(k->features.thread_index == "blockIdx.x * blockDim.x + threadIdx.x");
  CHECK(k->features.index_var == "i");
  CHECK(k->features.bounds_guard == "i < n");
  CHECK(!k->features.grid_stride_loop);
  CHECK(k->features.loops == 0);
  CHECK(!k->features.shared_memory);
  CHECK(!k->features.barriers);
  CHECK(!k->features.atomics);
  CHECK(!k->features.shuffles);
  CHECK(!k->features.uses_block_geometry_outside_index);

  REQUIRE(k->launches.size() == 1);
  const LaunchSite& l = k->launches[0];
  unsigned col = 0;
  CHECK(l.file == file);
  CHECK(l.line == lineOf(kSaxpy, "saxpy<<<", &col));
  CHECK(l.column == col);
  CHECK(l.grid == "(n + 255) / 256");
  CHECK(l.block == "256");
  CHECK(l.grid_type == "int");
  REQUIRE(l.block_value);
  CHECK(*l.block_value == 256);
  CHECK(l.shmem == "");
  CHECK(l.stream == "");
  CHECK(l.args == std::vector<std::string>{"n", "a", "x", "y"});
  CHECK(l.in_target_sources);
  CHECK(l.config_range.file == file);
  CHECK(l.config_range.begin_line == l.line);

  // relu: the input is only read, the output only written; shmem and stream as written
  const KernelInfo* r = m.find("relu");
  REQUIRE(r);
  CHECK(r->mangled_name == "_Z4reluiPKfPf");
  CHECK(param(*r, "in")->read);
  CHECK(!param(*r, "in")->written);
  CHECK(!param(*r, "out")->read);
  CHECK(param(*r, "out")->written);
  REQUIRE(r->launches.size() == 1);
  CHECK(r->launches[0].grid == "(n + 127) / 128");
  CHECK(r->launches[0].block_value == 128LL);
  CHECK(r->launches[0].shmem == "0");
  CHECK(r->launches[0].stream == "0");
  CHECK(r->launches[0].line == lineOf(kSaxpy, "relu<<<"));
}

TEST_CASE("extract: shared memory, barriers and atomics", "[extract]") {
  TempDir t;
  std::string file = t.write("sum.cu", R"(
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float buf[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, buf[0]);
}
)");
  Manifest m = extract(t, {file});
  INFO(describe(m));
  CHECK(m.diagnostics.empty());
  const KernelInfo* k = m.find("block_sum");
  REQUIRE(k);
  CHECK(k->features.shared_memory);
  CHECK(k->features.barriers);
  CHECK(k->features.atomics);
  CHECK(!k->features.shuffles);
  CHECK(k->features.loops == 1);
  CHECK(k->features.thread_index == "blockIdx.x * blockDim.x + threadIdx.x");
  CHECK(k->features.uses_block_geometry_outside_index);  // threadIdx.x indexes buf
  CHECK(k->launches.empty());
  CHECK(param(*k, "in")->read);
  CHECK(!param(*k, "in")->written);
  CHECK(param(*k, "out")->written);  // handed to atomicAdd
}

TEST_CASE("extract: warp-shuffle reduction", "[extract]") {
  TempDir t;
  std::string file = t.write("warp.cu", R"(
__global__ void warp_sum(const float* in, float* out) {
  float v = in[blockIdx.x * 32 + threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
)");
  Manifest m = extract(t, {file});
  INFO(describe(m));
  CHECK(m.diagnostics.empty());
  const KernelInfo* k = m.find("warp_sum");
  REQUIRE(k);
  CHECK(k->features.shuffles);
  CHECK(!k->features.barriers);
  CHECK(!k->features.atomics);
  CHECK(!k->features.shared_memory);
  CHECK(k->features.loops == 1);
  CHECK(k->features.thread_index.empty());  // not the flat global index
}

TEST_CASE("extract: template kernel with two instantiations", "[extract]") {
  TempDir t;
  const std::string text = R"(
template <typename T>
__global__ void scale(T* p, T s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= s;
}

void run(float* f, double* d, int n) {
  scale<float><<<(n + 127) / 128, 128>>>(f, 2.0f, n);
  scale<<<(n + 127) / 128, 128>>>(d, 2.0, n);
}
)";
  std::string file = t.write("scale.cu", text);
  Manifest m = extract(t, {file});
  INFO(describe(m));
  CHECK(m.diagnostics.empty());
  REQUIRE(countNamed(m, "scale") == 1);
  const KernelInfo* k = m.find("scale");
  REQUIRE(k);
  CHECK(k->is_template);
  CHECK(k->mangled_name.empty());
  // scale<float>(float*, float, int) and scale<double>(double*, double, int), as nvcc names them
  CHECK(k->instantiations == std::vector<std::string>{"_Z5scaleIdEvPT_S0_i", "_Z5scaleIfEvPT_S0_i"});
  REQUIRE(k->launches.size() == 2);
  CHECK(k->launches[0].line == lineOf(text, "scale<float><<<"));
  CHECK(k->launches[1].line == lineOf(text, "scale<<<"));
  CHECK(k->launches[1].block_value == 128LL);
}

TEST_CASE("extract: a kernel defined in a header is listed once, in_header", "[extract]") {
  TempDir t;
  t.write("inc/fill.cuh", R"(#pragma once
__global__ void fill(float* p, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}
)");
  std::string a = t.write("a.cu", "#include \"inc/fill.cuh\"\nvoid fa(float* p, int n) { fill<<<n / 64, 64>>>(p, 1.0f, n); }\n");
  std::string b = t.write("b.cu", "#include \"inc/fill.cuh\"\n\nvoid fb(float* p, int n) { fill<<<n / 32, 32>>>(p, 2.0f, n); }\n");
  Manifest m = extract(t, {a, b});
  INFO(describe(m));
  CHECK(m.diagnostics.empty());
  REQUIRE(countNamed(m, "fill") == 1);
  const KernelInfo* k = m.find("fill");
  CHECK(k->in_header);
  CHECK(k->range.file == (t.path / "inc/fill.cuh").string());
  CHECK(k->range.begin_line == 2);
  CHECK(k->mangled_name == "_Z4fillPffi");
  // both launch sites, each in its own source
  REQUIRE(k->launches.size() == 2);
  CHECK(k->launches[0].file == a);
  CHECK(k->launches[0].line == 2);
  CHECK(k->launches[0].block_value == 64LL);
  CHECK(k->launches[1].file == b);
  CHECK(k->launches[1].line == 3);
  CHECK(k->launches[1].block_value == 32LL);
}

TEST_CASE("extract: kernel in a namespace, __launch_bounds__", "[extract]") {
  TempDir t;
  std::string file = t.write("ns.cu", R"(
namespace math {
namespace detail {
__global__ void __launch_bounds__(128) twice(float* p) { p[threadIdx.x] *= 2.0f; }
}
__global__ void __launch_bounds__(256, 2) thrice(float* p) { p[threadIdx.x] *= 3.0f; }
}
void go(float* p) {
  math::detail::twice<<<1, 128>>>(p);
  math::thrice<<<1, 256>>>(p);
}
)");
  Manifest m = extract(t, {file});
  INFO(describe(m));
  CHECK(m.diagnostics.empty());
  const KernelInfo* k = m.find("twice");
  REQUIRE(k);
  CHECK(k->qualified_name == "math::detail::twice");
  CHECK(k->mangled_name == "_ZN4math6detail5twiceEPf");
  REQUIRE(k->launch_bounds);
  CHECK(*k->launch_bounds == "128");
  CHECK(k->launches.size() == 1);
  CHECK(m.find("math::detail::twice") == k);
  const KernelInfo* k3 = m.find("thrice");
  REQUIRE(k3);
  CHECK(k3->qualified_name == "math::thrice");
  REQUIRE(k3->launch_bounds);
  CHECK(*k3->launch_bounds == "256, 2");
  CHECK(k3->launches.size() == 1);
  // a param written through p[threadIdx.x] *= ...: read and written
  CHECK(param(*k, "p")->read);
  CHECK(param(*k, "p")->written);
}

TEST_CASE("extract: typedef'd and aliased element types are their canonical types", "[extract]") {
  TempDir t;
  std::string file = t.write("alias.cu", R"(
typedef float floatX;
using index_t = long;
#define DATA_TYPE double
__global__ void scale(floatX* out, const floatX* __restrict__ inp, DATA_TYPE* acc, index_t n, floatX s) {
  index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i] = inp[i] * s; acc[i] += out[i]; }
}
)");
  Manifest m = extract(t, {file});
  INFO(describe(m));
  const KernelInfo* k = m.find("scale");
  REQUIRE(k);
  REQUIRE(k->params.size() == 5);
  CHECK(k->params[0].type == "floatX *");  // pointers keep the spelling
  CHECK(k->params[0].pointee == "float");
  CHECK(k->params[1].pointee == "float");
  CHECK(k->params[1].pointee_const);
  CHECK(k->params[2].pointee == "double");
  CHECK(k->params[3].type == "long");
  CHECK(k->params[4].type == "float");
  CHECK(elemTypeFromCType(k->params[0].pointee) == ElemType::F32);
}

TEST_CASE("extract: launch with dim3 grid and block variables", "[extract]") {
  TempDir t;
  std::string file = t.write("dim.cu", R"(
__global__ void k2(float* p, int w) { p[blockIdx.y * w + threadIdx.x] = 1.0f; }
void go(float* p, int w, int h, cudaStream_t s) {
  dim3 grid((w + 15) / 16, h);
  dim3 block(16, 16);
  k2<<<grid, block, 0, s>>>(p, w);
}
)");
  Manifest m = extract(t, {file});
  INFO(describe(m));
  CHECK(m.diagnostics.empty());
  const KernelInfo* k = m.find("k2");
  REQUIRE(k);
  REQUIRE(k->launches.size() == 1);
  const LaunchSite& l = k->launches[0];
  CHECK(l.grid == "grid");
  CHECK(l.block == "block");
  CHECK(l.grid_type == "dim3");
  CHECK(l.block_type == "dim3");
  // resolved through the locals (launch_resolve.h): the grid over the kernel's argument w and the
  // launcher's parameter h, the block a constant
  CHECK(l.block_value == 256LL);
  CHECK(describeResolved(l) == "grid ((w + 15) / 16, h, 1), block (16, 16, 1)");
  CHECK(l.launcher == "go");
  CHECK(l.stream == "s");
  CHECK(k->features.uses_block_geometry_outside_index);
}

TEST_CASE("extract: a prototype in another source counts as a declaration", "[extract]") {
  TempDir t;
  std::string def = t.write("def.cu", R"(
__global__ void shared_k(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 0.0f;
}
)");
  std::string use = t.write("use.cu", R"(
__global__ void shared_k(float* p, int n);
void run(float* p, int n) { shared_k<<<(n + 63) / 64, 64>>>(p, n); }
)");
  // The order of the sources must not matter.
  for (const auto& order : {std::vector<std::string>{def, use}, std::vector<std::string>{use, def}}) {
    Manifest m = extract(t, order);
    INFO(describe(m));
    CHECK(m.diagnostics.empty());
    REQUIRE(countNamed(m, "shared_k") == 1);
    const KernelInfo* k = m.find("shared_k");
    CHECK(k->declarations == 2);
    CHECK(k->range.file == def);
    CHECK(!k->in_header);
    REQUIRE(k->launches.size() == 1);
    CHECK(k->launches[0].file == use);
    CHECK(k->launches[0].line == 3);
    CHECK(k->launches[0].block_value == 64LL);
  }
}

TEST_CASE("extract: a syntax error in one kernel keeps the rest of the file", "[extract]") {
  TempDir t;
  std::string bad = t.write("bad.cu", R"(__global__ void good_before(float* p) { p[threadIdx.x] = 1.0f; }

__global__ void broken(float* p) {
  p[threadIdx.x] = ;
}

__global__ void good_after(float* p) { p[threadIdx.x] = 2.0f; }
)");
  std::string fine = t.write("fine.cu", "__global__ void other(int* q) { q[0] = 1; }\n");
  Manifest m = extract(t, {bad, fine});
  INFO(describe(m));
  REQUIRE(m.diagnostics.size() == 1);
  CHECK(m.diagnostics[0].file == bad);
  REQUIRE(!m.diagnostics[0].errors.empty());
  const std::string& first = m.diagnostics[0].errors[0];
  CHECK(first.rfind(bad + ":4:", 0) == 0);
  CHECK(first.find("expected expression") != std::string::npos);
  CHECK(m.find("good_before"));
  CHECK(m.find("good_after"));
  CHECK(m.find("other"));
}

TEST_CASE("extract: source_hash follows the kernel's text only", "[extract]") {
  TempDir t;
  const std::string base = R"(
__global__ void k(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 1.0f;
}
int helper(int x) { return x + 1; }
)";
  auto hashOf = [&](const std::string& text) {
    std::string f = t.write("h.cu", text);
    Manifest m = extract(t, {f});
    const KernelInfo* k = m.find("k");
    REQUIRE(k);
    return k->source_hash;
  };
  std::string h0 = hashOf(base);
  CHECK(h0.size() == 16);
  CHECK(hashOf(base) == h0);  // deterministic

  std::string body = base;
  body.replace(body.find("1.0f"), 4, "2.0f");
  CHECK(hashOf(body) != h0);

  std::string unrelated = base;
  unrelated.replace(unrelated.find("x + 1"), 5, "x + 2");
  CHECK(hashOf(unrelated) == h0);

  // moved down by a new function above it: same text, same hash
  CHECK(hashOf("int first() { return 0; }\n\n" + base) == h0);

  // it is the FNV-1a hash of the kernel's definition as written
  const std::string def = base.substr(base.find("void k"), base.find("int helper") - 1 - base.find("void k"));
  const bool plain = h0 == fnv1a64Hex(def);
  const bool with_attr = h0 == fnv1a64Hex("__global__ " + def);
  CHECK((plain || with_attr));
}

TEST_CASE("extract: the block of a launch, an integer or a dim3 built in place", "[extract]") {
  TempDir t;
  std::string text = R"(
__global__ void k2(float* p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) p[y * w + x] = 0.0f;
}
constexpr int kTile = 8;
void run(float* p, int w, int h, int b) {
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  k2<<<grid, dim3(16, 16)>>>(p, w, h);
  k2<<<grid, dim3(32, kTile, 2)>>>(p, w, h);
  k2<<<grid, 128>>>(p, w, h);
  k2<<<grid, dim3(b, 4)>>>(p, w, h);
  dim3 block(16, 16);
  k2<<<grid, block>>>(p, w, h);
}
)";
  std::string file = t.write("k2.cu", text);
  Manifest m = extract(t, {file});
  INFO(describe(m));
  const KernelInfo* k = m.find("k2");
  REQUIRE(k);
  REQUIRE(k->launches.size() == 5);
  CHECK(k->launches[0].block_dims == std::vector<long long>{16, 16, 1});
  CHECK(k->launches[0].block_value == 256LL);
  CHECK(k->launches[1].block_dims == std::vector<long long>{32, 8, 2});
  CHECK(k->launches[1].block_value == 512LL);
  CHECK(k->launches[2].block_dims == std::vector<long long>{128, 1, 1});
  CHECK(k->launches[2].block_value == 128LL);
  // a component known only at run time (the launcher's parameter b): no constant block
  CHECK(k->launches[3].block_dims.empty());
  CHECK_FALSE(k->launches[3].block_value);
  CHECK(describeResolved(k->launches[3]) == "grid ((w + 15) / 16, (h + 15) / 16, 1), block (b, 4, 1)");
  // a dim3 local that keeps its initializer is that constant
  CHECK(k->launches[4].block_dims == std::vector<long long>{16, 16, 1});
  CHECK(k->launches[4].block_value == 256LL);
}

TEST_CASE("extract: reads and writes through casts and pointer arithmetic", "[extract]") {
  TempDir t;
  std::string file = t.write("casts.cu", R"(
__global__ void vec(int n, float* in, float* out, float* off, float* esc) {
  if (((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) & 15) == 0) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n / 4) reinterpret_cast<float4*>(out)[v] = reinterpret_cast<const float4*>(in)[v];
  }
  (off + 1)[threadIdx.x] = 0.0f;
  float* back = reinterpret_cast<float*>(reinterpret_cast<unsigned long long>(esc) + 4);
  back[0] = 1.0f;
}
)");
  Manifest m = extract(t, {file});
  INFO(describe(m));
  const KernelInfo* k = m.find("vec");
  REQUIRE(k);
  // the alignment test neither reads nor writes; the float4 accesses count as what they are
  CHECK(param(*k, "in")->read);
  CHECK(!param(*k, "in")->written);
  CHECK(param(*k, "out")->written);
  CHECK(!param(*k, "out")->read);
  // a store through p + 1 is a store
  CHECK(param(*k, "off")->written);
  // a pointer turned into an integer for anything but the alignment test may be written through
  CHECK(param(*k, "esc")->read);
  CHECK(param(*k, "esc")->written);
}

TEST_CASE("extract: parsing several sources at once gives the same manifest as one at a time", "[extract]") {
  // The transfer suite: 20 sources, kernels in nested headers, templates launched through
  // using-declarations, launch sites before their kernel's definition is seen.
  const std::string root = std::string(KLINEAGE_SOURCE_DIR) + "/examples/transfer";
  std::vector<SourceToParse> sources;
  for (const auto& e : fs::directory_iterator(root + "/src"))
    if (e.path().extension() == ".cu" && e.path().filename() != "check.cu")
      sources.push_back({e.path().string(), test::testClangArgs(root + "/include")});
  std::sort(sources.begin(), sources.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
  REQUIRE(sources.size() >= 5);
  sources.resize(5);  // enough for two batches of 3; every source parse costs ~1 s here
  const Manifest one = extractManifest("t", sources, {}, nullptr, 1);
  const Manifest three = extractManifest("t", sources, {}, nullptr, 3);
  REQUIRE_FALSE(one.kernels.empty());
  CHECK(nlohmann::json(three).dump() == nlohmann::json(one).dump());
}

TEST_CASE("extract: the per-unit memo gives a fresh extraction's manifest, an edit parses only the units it touches",
          "[extract]") {
  // A copy of five transfer-suite sources and its headers, so the test can edit them.
  test::TempDir t("extract-memo");
  const std::string from = std::string(KLINEAGE_SOURCE_DIR) + "/examples/transfer";
  fs::copy(from + "/include", t.path / "include", fs::copy_options::recursive);
  fs::create_directories(t.path / "src");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(from + "/src"))
    if (e.path().extension() == ".cu" && e.path().filename() != "check.cu") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  REQUIRE(names.size() >= 5);
  names.resize(5);
  std::vector<SourceToParse> sources;
  for (const auto& n : names) {
    fs::copy_file(from + "/src/" + n, t.path / "src" / n);
    sources.push_back({(t.path / "src" / n).string(), test::testClangArgs((t.path / "include").string())});
  }
  const std::string memo = (t.path / "memo").string();
  auto fresh = [&] { return nlohmann::json(extractManifest("t", sources, {}, nullptr, 2)).dump(); };
  auto memoized = [&](unsigned& reused) {
    return nlohmann::json(extractManifest("t", sources, {}, nullptr, 2, memo, &reused)).dump();
  };
  unsigned reused = 99;
  const std::string expected = fresh();
  CHECK(memoized(reused) == expected);
  CHECK(reused == 0);
  CHECK(memoized(reused) == expected);  // every unit's fragment read back from the memo
  CHECK(reused == 5);

  // an edit of one source: only that unit is parsed again, the manifest is a fresh one's
  {
    std::ofstream(sources[1].file, std::ios::app) << "\n// edited\n__global__ void kl_memo_added(float* p) { p[0] = 1.0f; }\n";
  }
  const std::string edited = fresh();
  CHECK(edited != expected);
  CHECK(memoized(reused) == edited);
  CHECK(reused == 4);

  // a header every source includes: every unit again
  {
    std::ofstream(t.path / "include/transfer/transfer.h", std::ios::app) << "\n// edited\n";
  }
  CHECK(memoized(reused) == fresh());
  CHECK(reused == 0);

  // other arguments (a define), and a memo file that is not JSON: parsed again, not trusted
  sources[0].clang_args.push_back("-DKL_MEMO_TEST=1");
  for (const auto& e : fs::directory_iterator(memo)) std::ofstream(e.path()) << "{ not json";
  CHECK(memoized(reused) == fresh());
  CHECK(reused == 0);
  CHECK(memoized(reused) == fresh());
  CHECK(reused == 5);
}
