// pointer_params: the kernel has at least one pointer parameter.
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) {
  using namespace clang::ast_matchers;
  return !match(functionDecl(hasAnyParameter(parmVarDecl(hasType(hasCanonicalType(pointerType()))))), *in.kernel,
                in.ctx)
              .empty();
}
}  // namespace

const Feature& feature_pointer_params() {
  static const Feature f{"pointer_params",
                         "the kernel has at least one pointer parameter",
                         check,
                         {
                             {true, "__global__ void k(int n, float* p) { p[n] = 0.0f; }\n"},
                             {true, "typedef float* fptr;\n__global__ void k(fptr p) { p[0] = 0.0f; }\n"},
                             {false, "__device__ float out;\n__global__ void k(int n, float v) { if (n) out = v; }\n"},
                         }};
  return f;
}

}  // namespace klineage
