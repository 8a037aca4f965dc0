// in_header: the kernel is defined outside the target's sources (in a header they include).
#include <algorithm>

#include "rewriter/ast_util.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) {
  if (in.target_sources) {
    std::string file = fileOf(in.ctx, in.kernel->getSourceRange());
    return std::find(in.target_sources->begin(), in.target_sources->end(), file) == in.target_sources->end();
  }
  const auto& sm = in.ctx.getSourceManager();
  return !sm.isWrittenInMainFile(sm.getExpansionLoc(in.kernel->getLocation()));
}
}  // namespace

const Feature& feature_in_header() {
  static const Feature f{"in_header",
                         "the kernel is defined outside the target's sources (in a header they include)",
                         check,
                         {
                             {true, "#include \"example.cuh\"\n",
                              "#pragma once\n__global__ void k(float* p) { p[threadIdx.x] = 0.0f; }\n"},
                             {false, "#include \"example.cuh\"\n__global__ void k(float* p) { p[threadIdx.x] = kOne; }\n",
                              "#pragma once\nconstexpr float kOne = 1.0f;\n"},
                         }};
  return f;
}

}  // namespace klineage
