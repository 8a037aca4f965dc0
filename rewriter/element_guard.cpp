#include "element_guard.h"

#include <clang/AST/RecursiveASTVisitor.h>

#include "ast_util.h"
#include "features/cuda_matchers.h"
#include "features/intrinsics.h"
#include "source_buffer.h"

namespace klineage {

std::string sideEffectOf(const clang::Stmt* s) {
  struct V : clang::RecursiveASTVisitor<V> {
    std::string why;
    bool VisitBinaryOperator(clang::BinaryOperator* bo) {
      if (bo->isAssignmentOp()) why = "an assignment";
      return why.empty();
    }
    bool VisitUnaryOperator(clang::UnaryOperator* uo) {
      if (uo->isIncrementDecrementOp()) why = "an increment or decrement";
      return why.empty();
    }
    bool VisitCallExpr(clang::CallExpr* c) {
      std::string n = calleeName(c);
      if (auto kind = intrinsicKind(n)) why = n + " (" + describe(*kind) + ")";
      return why.empty();
    }
  } v;
  v.TraverseStmt(const_cast<clang::Stmt*>(s));
  return v.why;
}

bool matchElementGuard(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, ElementGuard& out, std::string& why,
                       const std::string& shape) {
  SourceBuffer src(ctx);
  auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(kernel->getBody());
  if (!body) return why = "the kernel has no body", false;
  if (body->size() != 2) return why = "the body is not `" + shape + "`", false;
  auto* ds = llvm::dyn_cast<clang::DeclStmt>(body->body_front());
  auto* vd = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
  if (!vd || !vd->getInit() || !vd->getType()->isIntegerType() || !isGlobalThreadIndex(ctx, vd->getInit()))
    return why = "the body does not start with `T i = blockIdx.x * blockDim.x + threadIdx.x;`", false;
  auto* guard = llvm::dyn_cast<clang::IfStmt>(body->body_back());
  if (!guard || guard->getElse() || guard->getInit() || guard->getConditionVariable())
    return why = "the index is not followed by a bounds guard `if (i < n)` without else", false;
  auto* cond = llvm::dyn_cast<clang::BinaryOperator>(guard->getCond()->IgnoreParenImpCasts());
  auto isIndex = [&](const clang::Expr* e) { return referencedDecl(e) == vd; };
  if (!cond || !((cond->getOpcode() == clang::BO_LT && isIndex(cond->getLHS())) ||
                 (cond->getOpcode() == clang::BO_GT && isIndex(cond->getRHS()))))
    return why = "the guard is not `i < n`", false;
  const clang::Expr* bound = cond->getOpcode() == clang::BO_LT ? cond->getRHS() : cond->getLHS();
  if (usesDecl(bound, vd) || !sideEffectOf(bound).empty())
    return why = "the bound of the guard uses the index or has side effects", false;
  if (!src.inFile(ds) || !src.inFile(guard) || !src.inFile(body->getLBracLoc()) || !src.inFile(body->getRBracLoc()))
    return why = "the kernel body is written through a macro", false;
  out.body = body;
  out.index = vd;
  out.decl_text = sourceText(ctx, clang::SourceRange(ds->getBeginLoc(), vd->getInit()->getEndLoc()));
  out.cond_text = sourceText(ctx, guard->getCond()->getSourceRange());
  out.guard = guard;
  out.wide_index = ctx.getTypeSize(vd->getType()) >= 64;
  out.index_type = vd->getType().getUnqualifiedType().getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
  return true;
}

bool matchGuardedAtomic(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, GuardedAtomic& out,
                        std::string& why) {
  GuardedAtomic g;
  if (!matchElementGuard(ctx, kernel, g, why, "T i = <global thread index>; if (i < n) atomic(...);")) return false;
  const clang::Stmt* then = g.guard->getThen();
  if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(then)) {
    if (cs->size() != 1) return why = "the guarded code is more than one atomic call", false;
    then = cs->body_front();
  }
  auto* call = llvm::dyn_cast<clang::CallExpr>(then);
  std::string callee = call ? calleeName(call) : "";
  if (!call || callee.rfind("atomic", 0) != 0 || call->getNumArgs() != 2)
    return why = "the guarded code is not one call `atomicXxx(address, value)`", false;
  g.atomic = call;
  g.callee = callee;
  out = g;
  return true;
}

std::string gridStrideHeader(const ElementGuard& g) {
  std::string stride = g.wide_index ? "(" + g.index_type + ")blockDim.x * gridDim.x" : "blockDim.x * gridDim.x";
  return "for (" + g.decl_text + "; " + g.cond_text + "; " + g.index->getNameAsString() + " += " + stride + ")";
}

bool replaceBody(clang::ASTContext& ctx, clang::Rewriter& rw, const clang::CompoundStmt* body, const std::string& text) {
  SourceBuffer src(ctx);
  unsigned a = src.off(body->getLBracLoc()) + 1, b = src.off(body->getRBracLoc());
  return !rw.ReplaceText(src.at(a), b - a, text);
}

}  // namespace klineage
