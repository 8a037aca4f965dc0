// Where the tests find the CUDA toolkit and clang's resource directory: CUDA_HOME and
// KLINEAGE_CLANG_RESOURCE_DIR like the product, else what CMake found at configure time.
#pragma once
#include <cstdlib>
#include <string>
#include <vector>

#include "core/flags.h"

namespace klineage::test {

inline std::string cudaHome() {
  const char* e = std::getenv("CUDA_HOME");
  return e && *e ? e : KLINEAGE_TEST_CUDA_HOME;
}
inline std::string nvccPath() { return cudaHome() + "/bin/nvcc"; }
inline std::string clangResourceDir() {
  const char* e = std::getenv("KLINEAGE_CLANG_RESOURCE_DIR");
  return e && *e ? e : KLINEAGE_TEST_CLANG_RESOURCE_DIR;
}
// The parse setup the tests give clang (the product's defaultParseSetup, minus the installed paths).
inline ClangParseSetup testParseSetup() {
  ClangParseSetup s;
  s.cuda_path = cudaHome();
  s.resource_dir = clangResourceDir();
  s.compat_dir = std::string(KLINEAGE_SOURCE_DIR) + "/rewriter/compat";
  return s;
}

// clang's arguments for a C++17 sm_90 parse with one include directory (the rewriter tests' files).
inline std::vector<std::string> testClangArgs(const std::string& include_dir) {
  CudaFlags f;
  f.std = "c++17";
  f.archs = {"sm_90"};
  f.includes = {include_dir};
  return clangArgsFor(f, testParseSetup());
}

}  // namespace klineage::test
