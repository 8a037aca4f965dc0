// bounds_guard: the global thread index is compared with a bound (if (i < n), or the condition
// of the grid-stride loop that declares it).
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) { return kernelIndex(in.ctx, in.kernel).guard != nullptr; }
}  // namespace

const Feature& feature_bounds_guard() {
  static const Feature f{"bounds_guard",
                         "the global thread index is guarded by a bounds check (if (i < n), if (i >= n) return, or "
                         "the condition of the grid-stride loop over it)",
                         check,
                         {
                             {true, R"(__global__ void k(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 0.0f;
}
)"},
                             {true, R"(__global__ void k(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  p[i] = 0.0f;
}
)"},
                             {false, R"(__global__ void k(float* p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  p[i] = 0.0f;
}
)"},
                             {false, R"(__global__ void k(float* p, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (m < n) p[i] = 0.0f;
}
)"},
                         }};
  return f;
}

}  // namespace klineage
