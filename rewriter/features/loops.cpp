// loops: the kernel's body has a loop of any kind.
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) { return loopCount(in.ctx, in.kernel) > 0; }
}  // namespace

const Feature& feature_loops() {
  static const Feature f{"loops",
                         "the body contains at least one loop (for, while, do, range-for)",
                         check,
                         {
                             {true, "__global__ void k(float* p) { for (int j = 0; j < 4; ++j) p[j] = 0.0f; }\n"},
                             {true, "__global__ void k(int* p) { int j = 0; while (p[j]) ++j; p[0] = j; }\n"},
                             {true, "__global__ void k(int* p) { int j = 0; do { p[j] = 0; } while (++j < 4); }\n"},
                             {false, "__global__ void k(float* p) { p[threadIdx.x] = 0.0f; }\n"},
                         }};
  return f;
}

}  // namespace klineage
