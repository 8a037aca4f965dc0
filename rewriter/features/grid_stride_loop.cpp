// grid_stride_loop: the kernel has a loop stepping by the grid's size (i += blockDim.x * gridDim.x).
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) { return !gridStrideSteps(in.ctx, in.kernel).empty(); }
}  // namespace

const Feature& feature_grid_stride_loop() {
  static const Feature f{
      "grid_stride_loop",
      "the body has a grid-stride loop (for (...; ...; i += blockDim.x * gridDim.x), either order, casts allowed)",
      check,
      {
          {true, R"(__global__ void k(float* p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) p[i] = 0.0f;
}
)"},
          {true, R"(__global__ void k(float* p, unsigned long n) {
  for (unsigned long i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += (unsigned long)gridDim.x * blockDim.x)
    p[i] = 0.0f;
}
)"},
          {false, R"(__global__ void k(float* p, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) p[i] = 0.0f;
}
)"},
          {false, R"(__global__ void k(float* p, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x * gridDim.y) p[i] = 0.0f;
}
)"},
      }};
  return f;
}

}  // namespace klineage
