// atomics: the kernel calls an atomic (the Atomic entries of features/intrinsics.h).
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) { return callsIntrinsicOf(in.ctx, in.kernel, IntrinsicKind::Atomic); }
}  // namespace

const Feature& feature_atomics() {
  static const Feature f{"atomics",
                         "the kernel uses atomic operations (atomicAdd, atomicCAS, ..., cuda::atomic fetch_*)",
                         check,
                         {
                             {true, "__global__ void k(int* count) { atomicAdd(count, 1); }\n"},
                             {true, "__global__ void k(unsigned* m, unsigned v) { atomicMax(m + threadIdx.x, v); }\n"},
                             {false, "__global__ void k(int* count) { count[threadIdx.x] += 1; }\n"},
                         }};
  return f;
}

}  // namespace klineage
