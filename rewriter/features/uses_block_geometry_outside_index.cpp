// uses_block_geometry_outside_index: threadIdx/blockIdx/blockDim/gridDim appear outside the global
// index computation and the grid-stride steps. A local that only names the block's row in y or z
// (`int row = blockIdx.y;`, never written) does not count: it is the same for every thread of the
// block and for every element a thread of it handles along x (a bias + residual add over rows).
#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"

namespace klineage {
namespace {
// `T v = blockIdx.y;` or `blockIdx.z` (casts allowed), v never written.
bool blockRowLocal(clang::ASTContext& ctx, const clang::Stmt* body, const clang::VarDecl* v) {
  if (!v || !v->getInit() || !v->getType()->isIntegerType() || v->isStaticLocal()) return false;
  const clang::Expr* e = cuda::stripIndexCasts(v->getInit());
  return (cuda::isBuiltinMember(e, "blockIdx", "y") || cuda::isBuiltinMember(e, "blockIdx", "z")) &&
         onlyReads(ctx, body, v);
}

bool check(const FeatureInput& in) {
  if (!in.kernel->hasBody()) return false;
  unsigned expected = 0;
  KernelIndex idx = kernelIndex(in.ctx, in.kernel);
  if (idx.init) expected += geometryRefs(in.ctx, idx.init);
  for (const clang::Expr* step : gridStrideSteps(in.ctx, in.kernel)) expected += geometryRefs(in.ctx, step);
  struct Locals : clang::RecursiveASTVisitor<Locals> {
    std::vector<const clang::VarDecl*> vars;
    bool VisitVarDecl(clang::VarDecl* v) {
      vars.push_back(v);
      return true;
    }
  } locals;
  locals.TraverseStmt(in.kernel->getBody());
  for (const clang::VarDecl* v : locals.vars)
    if (blockRowLocal(in.ctx, in.kernel->getBody(), v)) expected += geometryRefs(in.ctx, v->getInit());
  return geometryRefs(in.ctx, in.kernel->getBody()) > expected;
}
}  // namespace

const Feature& feature_uses_block_geometry_outside_index() {
  static const Feature f{
      "uses_block_geometry_outside_index",
      "blockIdx/threadIdx/blockDim/gridDim are used beyond the global index computation and the grid-stride step",
      check,
      {
          {true, R"(__global__ void k(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = threadIdx.x;
}
)"},
          {true, "__global__ void k(float* p, int w) { p[blockIdx.y * w + threadIdx.x] = 1.0f; }\n"},
          {false, R"(__global__ void k(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 0.0f;
}
)"},
          {false, R"(__global__ void k(float* p, const float* b, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y;
  if (col < cols) {
    if (row < rows) p[row * cols + col] += b[col];
  }
}
)"},
          {true, R"(__global__ void k(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.x;
  if (i < n) p[i] = b;
}
)"},
          {false, R"(__global__ void k(float* p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) p[i] = 0.0f;
}
)"},
      }};
  return f;
}

}  // namespace klineage
