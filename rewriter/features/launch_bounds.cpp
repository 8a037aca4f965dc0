// launch_bounds: the kernel already has __launch_bounds__.
#include <clang/AST/Attr.h>

#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) {
  using namespace clang::ast_matchers;
  return !match(functionDecl(hasAttr(clang::attr::CUDALaunchBounds)), *in.kernel, in.ctx).empty();
}
}  // namespace

const Feature& feature_launch_bounds() {
  static const Feature f{"launch_bounds",
                         "the kernel already has __launch_bounds__",
                         check,
                         {
                             {true, "__global__ void __launch_bounds__(256) k(float* p) { p[threadIdx.x] = 0.0f; }\n"},
                             {true, "__global__ void __launch_bounds__(128, 4) k(float* p) { p[threadIdx.x] = 0.0f; }\n"},
                             {false, "__global__ void k(float* p) { p[threadIdx.x] = 0.0f; }\n"},
                         }};
  return f;
}

}  // namespace klineage
