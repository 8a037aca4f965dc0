// shuffles: the kernel uses a warp shuffle or another warp collective (the WarpCollective entries
// of features/intrinsics.h: shuffles, votes, matches, warp reductions).
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) { return callsIntrinsicOf(in.ctx, in.kernel, IntrinsicKind::WarpCollective); }
}  // namespace

const Feature& feature_shuffles() {
  static const Feature f{"shuffles",
                         "the kernel uses warp shuffles or other warp collectives (__shfl*_sync, __ballot_sync, "
                         "__any_sync, __match_*_sync, __reduce_*_sync, cooperative-groups shfl/reduce)",
                         check,
                         {
                             {true, R"(__global__ void k(float* p) {
  float v = p[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x == 0) p[0] = v;
}
)"},
                             {true, "__global__ void k(unsigned* p) { p[threadIdx.x] = __ballot_sync(0xffffffffu, p[0] > 0); }\n"},
                             {false, "__global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }\n"},
                         }};
  return f;
}

}  // namespace klineage
