// shared_memory: the kernel declares or uses __shared__ memory.
#include <clang/AST/Attr.h>

#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
bool check(const FeatureInput& in) {
  using namespace clang::ast_matchers;
  auto shared = varDecl(hasAttr(clang::attr::CUDAShared));
  return !findAllIn<clang::Decl>(in.ctx, in.kernel->getBody(), decl(shared).bind("d"), "d").empty() ||
         !findAllIn<clang::Expr>(in.ctx, in.kernel->getBody(), declRefExpr(to(shared)).bind("e"), "e").empty();
}
}  // namespace

const Feature& feature_shared_memory() {
  static const Feature f{"shared_memory",
                         "the kernel uses __shared__ memory (declared in it, or an extern __shared__ array it uses)",
                         check,
                         {
                             {true, R"(__global__ void k(float* p) {
  __shared__ float tile[64];
  tile[threadIdx.x] = p[threadIdx.x];
  p[threadIdx.x] = tile[63 - threadIdx.x];
}
)"},
                             {true, R"(extern __shared__ float dynamic_tile[];
__global__ void k(float* p) { dynamic_tile[threadIdx.x] = p[threadIdx.x]; }
)"},
                             {false, "__global__ void k(float* p) { float local[4] = {}; p[threadIdx.x] = local[0]; }\n"},
                         }};
  return f;
}

}  // namespace klineage
