// template: the kernel is a function template.
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) {
  using namespace clang::ast_matchers;
  return !match(functionDecl(cuda::isTemplatePattern()), *in.kernel, in.ctx).empty();
}
}  // namespace

const Feature& feature_template() {
  static const Feature f{"template",
                         "the kernel is a template",
                         check,
                         {
                             {true, "template <typename T>\n__global__ void k(T* p) { p[threadIdx.x] = T(); }\n"},
                             {true, "template <int N>\n__global__ void k(float* p) { p[threadIdx.x % N] = 0.0f; }\n"
                                    "template __global__ void k<4>(float*);\n"},
                             {false, "__global__ void k(float* p) { p[threadIdx.x] = 0.0f; }\n"},
                         }};
  return f;
}

}  // namespace klineage
