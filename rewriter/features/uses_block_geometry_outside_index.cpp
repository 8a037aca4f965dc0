// uses_block_geometry_outside_index: threadIdx/blockIdx/blockDim/gridDim appear outside the global
// index computation and the grid-stride steps.
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) {
  if (!in.kernel->hasBody()) return false;
  unsigned expected = 0;
  KernelIndex idx = kernelIndex(in.ctx, in.kernel);
  if (idx.init) expected += geometryRefs(in.ctx, idx.init);
  for (const clang::Expr* step : gridStrideSteps(in.ctx, in.kernel)) expected += geometryRefs(in.ctx, step);
  return geometryRefs(in.ctx, in.kernel->getBody()) > expected;
}
}  // namespace

const Feature& feature_uses_block_geometry_outside_index() {
  static const Feature f{
      "uses_block_geometry_outside_index",
      "blockIdx/threadIdx/blockDim/gridDim are used beyond the global index computation and the grid-stride step",
      check,
      {
          {true, R"(__global__ void k(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = threadIdx.x;
}
)"},
          {true, "__global__ void k(float* p, int w) { p[blockIdx.y * w + threadIdx.x] = 1.0f; }\n"},
          {false, R"(__global__ void k(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 0.0f;
}
)"},
          {false, R"(__global__ void k(float* p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) p[i] = 0.0f;
}
)"},
      }};
  return f;
}

}  // namespace klineage
