// thread_index: the kernel computes the global thread index blockIdx.x * blockDim.x + threadIdx.x
// into a variable (or a grid-stride loop's variable).
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) { return kernelIndex(in.ctx, in.kernel).var != nullptr; }
}  // namespace

const Feature& feature_thread_index() {
  static const Feature f{
      "thread_index",
      "the kernel computes a global thread index (T i = blockIdx.x * blockDim.x + threadIdx.x, any operand order, "
      "integer casts allowed)",
      check,
      {
          {true, "__global__ void k(float* p) { int i = blockIdx.x * blockDim.x + threadIdx.x; p[i] = 0.0f; }\n"},
          {true, "__global__ void k(float* p) { unsigned long i = threadIdx.x + (unsigned long)blockDim.x * "
                 "blockIdx.x; p[i] = 0.0f; }\n"},
          {true, R"(__global__ void k(float* p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) p[i] = 0.0f;
}
)"},
          {false, "__global__ void k(float* p) { int i = blockIdx.x * 32 + threadIdx.x; p[i] = 0.0f; }\n"},
          {false, "__global__ void k(float* p) { int i = blockIdx.x * (blockDim.x + threadIdx.x); p[i] = 0.0f; }\n"},
          {false, "__global__ void k(float* p) { p[blockIdx.x * blockDim.x + threadIdx.x] = 0.0f; }\n"},
      }};
  return f;
}

}  // namespace klineage
