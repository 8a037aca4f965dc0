// all_pointers_restrict: the kernel has pointer parameters and every one of them is __restrict__.
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) {
  using namespace clang::ast_matchers;
  auto pointer = parmVarDecl(hasType(hasCanonicalType(pointerType())));
  auto unrestricted = parmVarDecl(hasType(hasCanonicalType(pointerType())), unless(hasType(cuda::isRestrictQualifiedType())));
  return !match(functionDecl(hasAnyParameter(pointer), unless(hasAnyParameter(unrestricted))), *in.kernel, in.ctx).empty();
}
}  // namespace

const Feature& feature_all_pointers_restrict() {
  static const Feature f{
      "all_pointers_restrict",
      "the kernel has pointer parameters and all of them are already __restrict__",
      check,
      {
          {true, "__global__ void k(float* __restrict__ y, const float* __restrict__ x) { y[0] = x[0]; }\n"},
          {false, "__global__ void k(float* __restrict__ y, const float* x) { y[0] = x[0]; }\n"},
          {false, "__global__ void k(int n) { (void)n; }\n"},  // no pointer at all
      }};
  return f;
}

}  // namespace klineage
