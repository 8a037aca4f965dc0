// cubinDeviceGlobals on a real cubin compiled here by nvcc (the CUDA toolkit is a build
// requirement, so it is there in CI too; no GPU needed).
#include <catch2/catch.hpp>

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
