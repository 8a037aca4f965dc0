// Clang AST matchers for CUDA kernel shapes, shared by the feature checks (features/*.cpp) and the
// transforms: the built-in geometry variables (threadIdx.x, ...), the global thread index
// blockIdx.x * blockDim.x + threadIdx.x, the grid stride blockDim.x * gridDim.x, grid-stride
// loops, and calls to the intrinsics of features/intrinsics.h. They compare the AST, not text: any
// operand order, parentheses, implicit conversions and explicit casts to integer types of at least
// 32 bits are accepted; `blockIdx.x * (blockDim.x + threadIdx.x)` is not an index.
#pragma once
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/ASTMatchers/ASTMatchers.h>

#include "rewriter/features/intrinsics.h"

namespace klineage {
namespace cuda {

using namespace clang::ast_matchers;
template <typename T>
using Matcher = clang::ast_matchers::internal::Matcher<T>;

// The expression under parentheses, implicit casts and explicit casts to an integer type of at
// least 32 bits ((int), static_cast<size_t>, long(...), ...).
const clang::Expr* stripIndexCasts(const clang::Expr* e);

// `var.field` for a CUDA built-in (threadIdx, blockIdx, blockDim, gridDim; x, y or z), as clang
// represents it (a property reference behind a PseudoObjectExpr).
bool isBuiltinMember(const clang::Expr* e, const char* var, const char* field);

// Small shape tests the shared-memory transforms share: an integer literal of value v (through
// parentheses and implicit casts), a `__syncthreads()` call statement, and the variable an
// expression names (through stripIndexCasts; null when it names none).
bool isIntLiteral(const clang::Expr* e, uint64_t v);
bool isSyncthreads(const clang::Stmt* s);
const clang::VarDecl* varOf(const clang::Expr* e);

// The thread's x index as the shared-memory transforms accept it: `threadIdx.x` (text
// "threadIdx.x"), or a local initialized from it that nothing under `body` writes (text: its name;
// *var set). Casts as stripIndexCasts.
bool isThreadIndexX(clang::ASTContext& ctx, const clang::Stmt* body, const clang::Expr* e, std::string* text = nullptr,
                    const clang::VarDecl** var = nullptr);

// A shared array's element type as written in the variant ("" when sh is not an array), and whether
// the warp shuffles take it (shuffleTakes; a dependent type is left to the gate's compile).
std::string arrayElementType(clang::ASTContext& ctx, const clang::VarDecl* sh);
bool shufflesArrayElement(clang::ASTContext& ctx, const clang::VarDecl* sh);

// e (through stripIndexCasts) matches inner.
AST_MATCHER_P(clang::Expr, ignoringIndexCasts, Matcher<clang::Expr>, inner) {
  const clang::Expr* e = stripIndexCasts(&Node);
  return e && inner.matches(*e, Finder, Builder);
}

AST_MATCHER_P2(clang::Expr, builtinMember, std::string, var, std::string, field) {
  return isBuiltinMember(&Node, var.c_str(), field.c_str());
}

// A reference to threadIdx, blockIdx, blockDim or gridDim (any component).
AST_MATCHER(clang::DeclRefExpr, refersToBuiltinGeometry) {
  const std::string n = Node.getDecl()->getNameAsString();
  return n == "threadIdx" || n == "blockIdx" || n == "blockDim" || n == "gridDim";
}

// A call the intrinsics list classifies as `kind`.
AST_MATCHER_P(clang::CallExpr, callsIntrinsic, IntrinsicKind, kind) {
  auto k = intrinsicKind(calleeName(&Node));
  return k && *k == kind;
}

AST_MATCHER(clang::QualType, isRestrictQualifiedType) { return Node.isRestrictQualified(); }

// The kernel is a template's pattern.
AST_MATCHER(clang::FunctionDecl, isTemplatePattern) { return Node.getDescribedFunctionTemplate() != nullptr; }

// blockIdx.x * blockDim.x + threadIdx.x (either order of either operator, casts as above).
inline Matcher<clang::Expr> globalThreadIndex() {
  return ignoringIndexCasts(binaryOperator(
      hasOperatorName("+"),
      hasOperands(ignoringIndexCasts(builtinMember("threadIdx", "x")),
                  ignoringIndexCasts(binaryOperator(hasOperatorName("*"),
                                                    hasOperands(ignoringIndexCasts(builtinMember("blockIdx", "x")),
                                                                ignoringIndexCasts(builtinMember("blockDim", "x"))))))));
}

// blockDim.x * gridDim.x (either order, casts as above): the grid-stride step.
inline Matcher<clang::Expr> gridStride() {
  return ignoringIndexCasts(binaryOperator(hasOperatorName("*"),
                                           hasOperands(ignoringIndexCasts(builtinMember("blockDim", "x")),
                                                       ignoringIndexCasts(builtinMember("gridDim", "x")))));
}

// for (...; ...; v += <grid stride>): a grid-stride loop (the loop binds as "loop", the step as "step").
inline Matcher<clang::Stmt> gridStrideLoop() {
  return forStmt(hasIncrement(binaryOperator(hasOperatorName("+="), hasRHS(expr(gridStride()).bind("step")))))
      .bind("loop");
}

}  // namespace cuda

// Whether an expression is the global thread index / the grid stride (see cuda:: above).
bool isGlobalThreadIndex(clang::ASTContext& ctx, const clang::Expr* e);
bool isGridStride(clang::ASTContext& ctx, const clang::Expr* e);
// Whether a for statement is a grid-stride loop (its increment adds the grid stride).
bool isGridStrideLoop(clang::ASTContext& ctx, const clang::ForStmt* s);

// Every node under `root` (root included) that `m` matches, in traversal order: the node each
// match binds as `id`.
template <typename Node, typename M>
std::vector<const Node*> findAllIn(clang::ASTContext& ctx, const clang::Stmt* root, const M& m, const char* id) {
  using namespace clang::ast_matchers;
  std::vector<const Node*> out;
  if (!root) return out;
  for (const BoundNodes& b : match(m, *root, ctx))
    if (const Node* n = b.getNodeAs<Node>(id)) out.push_back(n);
  for (const BoundNodes& b : match(stmt(forEachDescendant(m)), *root, ctx))
    if (const Node* n = b.getNodeAs<Node>(id)) out.push_back(n);
  return out;
}

// What the kernel's body shows about its element index, for the features that describe it.
struct KernelIndex {
  const clang::VarDecl* var = nullptr;     // the variable holding the global thread index
  const clang::Expr* init = nullptr;       // its initializer
  const clang::ForStmt* loop = nullptr;    // the grid-stride loop declaring it, if any
  const clang::Expr* guard = nullptr;      // the bounds check on it: the loop's condition, or the
                                           // first if (var <op> ...) after the declaration
};

// The index: the variable a grid-stride loop declares with the global thread index, else the
// first local variable initialized with it (null var when there is none).
KernelIndex kernelIndex(clang::ASTContext& ctx, const clang::FunctionDecl* kernel);

// The grid-stride steps of every grid-stride loop in the kernel.
std::vector<const clang::Expr*> gridStrideSteps(clang::ASTContext& ctx, const clang::FunctionDecl* kernel);

// Loops of any kind (for, while, do, range-for) in the kernel.
unsigned loopCount(clang::ASTContext& ctx, const clang::FunctionDecl* kernel);

// Whether the kernel calls an intrinsic of `kind` (features/intrinsics.h).
bool callsIntrinsicOf(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, IntrinsicKind kind);

// References to threadIdx/blockIdx/blockDim/gridDim under `s`.
unsigned geometryRefs(clang::ASTContext& ctx, const clang::Stmt* s);

}  // namespace klineage
