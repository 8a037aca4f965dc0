// barriers: the kernel calls a barrier (the Barrier entries of features/intrinsics.h).
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) { return callsIntrinsicOf(in.ctx, in.kernel, IntrinsicKind::Barrier); }
}  // namespace

const Feature& feature_barriers() {
  static const Feature f{"barriers",
                         "the kernel calls __syncthreads() or another barrier (__syncwarp, cooperative-groups sync, "
                         "__threadfence_block)",
                         check,
                         {
                             {true, R"(__global__ void k(float* p) {
  __shared__ float s[32];
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[31 - threadIdx.x];
}
)"},
                             {true, "__global__ void k(float* p) { p[threadIdx.x] = 1.0f; __syncwarp(); }\n"},
                             {false, "__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n"},
                         }};
  return f;
}

}  // namespace klineage
