// cubinDeviceGlobals on a real cubin compiled here by nvcc (the CUDA toolkit is a build
// requirement, so it is there in CI too; no GPU needed).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>

#include "core/cubin.h"
#include "support/temp_dir.h"
#include "support/toolchain.h"

using namespace klineage;

namespace {
std::string nvcc() { return klineage::test::nvccPath(); }  // CUDA_HOME, else the toolkit CMake found
}  // namespace

TEST_CASE("cubinDeviceGlobals: __device__ variables, not __constant__ or __shared__", "[cubin]") {
  test::TempDir dir("cubin");
  const std::string src = dir.write("g.cu", R"(
__device__ int calls;
static __device__ float cache[1024];
__device__ int initialized = 5;
__constant__ float coef[4];
__global__ void k(float* y) {
  __shared__ float s[32];
  s[threadIdx.x] = y[0];
  calls++;
  cache[threadIdx.x] = s[0] + initialized + coef[0];
  y[1] = cache[3];
}
)");
  const std::string cubin = (dir.path / "g.cubin").string();
  const std::string cmd = nvcc() + " -arch=sm_90 -cubin -o " + cubin + " " + src;
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::vector<DeviceGlobal> g = cubinDeviceGlobals(cubin);
  std::map<std::string, unsigned long long> by_name;
  for (const auto& d : g) by_name[d.name] = d.bytes;
  CHECK(by_name == std::map<std::string, unsigned long long>{{"calls", 4}, {"cache", 4096}, {"initialized", 4}});
}

TEST_CASE("cubinDeviceGlobals: a module without variables, and files that are not cubins", "[cubin]") {
  test::TempDir dir("cubin");
  const std::string src = dir.write("k.cu", "__global__ void k(float* y) { y[threadIdx.x] = 1; }\n");
  const std::string cubin = (dir.path / "k.cubin").string();
  REQUIRE(std::system((nvcc() + " -arch=sm_90 -cubin -o " + cubin + " " + src).c_str()) == 0);
  CHECK(cubinDeviceGlobals(cubin).empty());

  const std::string text = dir.write("not.cubin", "hello");
  CHECK_THROWS_WITH(cubinDeviceGlobals(text), Catch::Contains(text) && Catch::Contains("truncated ELF"));
  const std::string junk = dir.write("junk.cubin", std::string(128, 'x'));
  CHECK_THROWS_WITH(cubinDeviceGlobals(junk), Catch::Contains("not a 64-bit ELF cubin"));
}

// The host link check (docs/pipeline.md, "The oracle and the host side"): objects compiled here
// by nvcc -c the way the compile stage does (PTX only), their exported symbols compared.
TEST_CASE("exportedHostSymbols: launchers and kernel stubs, not static or inline functions", "[cubin][link]") {
  test::TempDir dir("hostsym");
  const char* body = R"(
#include <cuda_runtime.h>
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
static int helper(int n) { return (n + 255) / 256; }
inline int inlined(int n) { return n; }
int table_size = 4;
cudaError_t launch_saxpy(int n, float a, LAUNCH_X x, float* y) {
  saxpy<<<helper(inlined(n)), 256>>>(n, a, x, y);
  return cudaGetLastError();
}
)";
  auto object = [&](const std::string& name, const std::string& x_type) {
    const std::string src = dir.write(name + ".cu", "#define LAUNCH_X " + x_type + "\n" + body);
    const std::string obj = (dir.path / (name + ".o")).string();
    const std::string cmd = nvcc() + " -c -arch=compute_90 -o " + obj + " " + src;
    REQUIRE(std::system(cmd.c_str()) == 0);
    return obj;
  };
  const std::vector<std::string> orig = exportedHostSymbols(object("orig", "const float*"));
  CHECK(std::find(orig.begin(), orig.end(), "_Z12launch_saxpyifPKfPf") != orig.end());
  CHECK(std::find(orig.begin(), orig.end(), "_Z5saxpyifPKfPf") != orig.end());  // the kernel's host stub
  CHECK(std::find(orig.begin(), orig.end(), "table_size") != orig.end());
  for (const auto& s : orig) {
    INFO(s);
    CHECK(s.find("helper") == std::string::npos);
    CHECK(s.find("inlined") == std::string::npos);
  }
  // The same source compiled again exports the same; a launcher taking float* x does not.
  CHECK(hostSymbolMismatch(orig, exportedHostSymbols(object("again", "const float*"))).empty());
  const std::string why = hostSymbolMismatch(orig, exportedHostSymbols(object("changed", "float*")));
  CHECK_THAT(why, Catch::Contains("no longer defines launch_saxpy(int, float, float const*, float*)") &&
                      Catch::Contains("defines launch_saxpy(int, float, float*, float*), which the original does not"));
}

TEST_CASE("hostSymbolMismatch: missing and new symbols, the list cut after five", "[cubin][link]") {
  CHECK(hostSymbolMismatch({"a", "b"}, {"a", "b"}).empty());
  CHECK_THAT(hostSymbolMismatch({"a", "b"}, {"a"}), Catch::StartsWith("the variant's host code no longer defines b"));
  CHECK_THAT(hostSymbolMismatch({"a"}, {"a", "c"}), Catch::StartsWith("the variant's host code defines c"));
  CHECK_THAT(hostSymbolMismatch({"a", "b", "c", "d", "e", "f", "g"}, {}), Catch::Contains("a, b, c, d, e and 2 more"));
  CHECK_THROWS_WITH(exportedHostSymbols("/nonexistent/x.o"), Catch::Contains("/nonexistent/x.o"));
}
