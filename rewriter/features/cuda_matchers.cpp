#include "rewriter/features/cuda_matchers.h"

#include "rewriter/ast_util.h"

#include <clang/AST/Type.h>

namespace klineage {
namespace cuda {

const clang::Expr* stripIndexCasts(const clang::Expr* e) {
  while (e) {
    e = e->IgnoreParenImpCasts();
    auto* ce = llvm::dyn_cast<clang::ExplicitCastExpr>(e);
    if (!ce) return e;
    clang::QualType t = ce->getType();
    if (t.isNull() || t->isDependentType()) return e;
    const auto* bt = t.getCanonicalType()->getAs<clang::BuiltinType>();
    if (!bt) return e;
    switch (bt->getKind()) {
      case clang::BuiltinType::Int:
      case clang::BuiltinType::UInt:
      case clang::BuiltinType::Long:
      case clang::BuiltinType::ULong:
      case clang::BuiltinType::LongLong:
      case clang::BuiltinType::ULongLong:
        e = ce->getSubExpr();
        break;
      default:
        return e;
    }
  }
  return e;
}

bool isIntLiteral(const clang::Expr* e, uint64_t v) {
  auto* il = llvm::dyn_cast<clang::IntegerLiteral>(e->IgnoreParenImpCasts());
  return il && il->getValue() == v;
}

bool isSyncthreads(const clang::Stmt* s) {
  auto* c = llvm::dyn_cast_or_null<clang::CallExpr>(s);
  auto* f = c ? c->getDirectCallee() : nullptr;
  return f && f->getName() == "__syncthreads" && c->getNumArgs() == 0;
}

const clang::VarDecl* varOf(const clang::Expr* e) {
  auto* d = llvm::dyn_cast_or_null<clang::DeclRefExpr>(e ? stripIndexCasts(e) : nullptr);
  return d ? llvm::dyn_cast<clang::VarDecl>(d->getDecl()) : nullptr;
}

bool isThreadIndexX(clang::ASTContext& ctx, const clang::Stmt* body, const clang::Expr* e, std::string* text,
                    const clang::VarDecl** var) {
  const clang::Expr* x = stripIndexCasts(e);
  if (isBuiltinMember(x, "threadIdx", "x")) {
    if (text) *text = "threadIdx.x";
    return true;
  }
  const clang::VarDecl* v = varOf(x);
  if (!v || !v->isLocalVarDecl() || !v->getInit() || !v->getType()->isIntegerType()) return false;
  if (!isBuiltinMember(stripIndexCasts(v->getInit()), "threadIdx", "x")) return false;
  if (!onlyReads(ctx, body, v)) return false;
  if (text) *text = v->getNameAsString();
  if (var) *var = v;
  return true;
}

std::string arrayElementType(clang::ASTContext& ctx, const clang::VarDecl* sh) {
  const clang::ArrayType* at = ctx.getAsArrayType(sh->getType());
  return at ? at->getElementType().getAsString(ctx.getPrintingPolicy()) : "";
}

bool shufflesArrayElement(clang::ASTContext& ctx, const clang::VarDecl* sh) {
  const clang::ArrayType* at = ctx.getAsArrayType(sh->getType());
  if (!at) return false;
  clang::QualType e = at->getElementType();
  if (e->isDependentType()) return true;
  return !e.isVolatileQualified() && shuffleTakes(e);
}

bool isBuiltinMember(const clang::Expr* e, const char* var, const char* field) {
  if (!e) return false;
  e = e->IgnoreParenImpCasts();
  if (auto* po = llvm::dyn_cast<clang::PseudoObjectExpr>(e)) e = po->getSyntacticForm()->IgnoreParens();
  auto* pr = llvm::dyn_cast<clang::MSPropertyRefExpr>(e);
  if (!pr || !pr->getPropertyDecl() || pr->getPropertyDecl()->getName() != field) return false;
  const clang::Expr* base = pr->getBaseExpr() ? pr->getBaseExpr()->IgnoreParenImpCasts() : nullptr;
  if (auto* ove = llvm::dyn_cast_or_null<clang::OpaqueValueExpr>(base))
    base = ove->getSourceExpr() ? ove->getSourceExpr()->IgnoreParenImpCasts() : nullptr;
  auto* dre = llvm::dyn_cast_or_null<clang::DeclRefExpr>(base);
  return dre && dre->getDecl()->getName() == var;
}

}  // namespace cuda

using namespace clang::ast_matchers;

bool isGlobalThreadIndex(clang::ASTContext& ctx, const clang::Expr* e) {
  return e && !match(expr(cuda::globalThreadIndex()), *e, ctx).empty();
}

bool isGridStride(clang::ASTContext& ctx, const clang::Expr* e) {
  return e && !match(expr(cuda::gridStride()), *e, ctx).empty();
}

bool isGridStrideLoop(clang::ASTContext& ctx, const clang::ForStmt* s) {
  return s && !match(cuda::gridStrideLoop(), *s, ctx).empty();
}

namespace {
const clang::Stmt* bodyOf(const clang::FunctionDecl* fd) { return fd && fd->hasBody() ? fd->getBody() : nullptr; }

// A comparison with `var` on one side (var < n, n > var, var != n, ...).
auto comparesVar(const clang::VarDecl* var) {
  return ignoringParenImpCasts(binaryOperator(
      isComparisonOperator(), hasEitherOperand(ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(var))))))));
}
}  // namespace

KernelIndex kernelIndex(clang::ASTContext& ctx, const clang::FunctionDecl* kernel) {
  KernelIndex idx;
  const clang::Stmt* body = bodyOf(kernel);
  if (!body) return idx;
  for (const clang::ForStmt* loop : findAllIn<clang::ForStmt>(ctx, body, cuda::gridStrideLoop(), "loop")) {
    auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit());
    if (!ds || !ds->isSingleDecl()) continue;
    auto* vd = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
    if (!vd || !vd->getInit() || !isGlobalThreadIndex(ctx, vd->getInit())) continue;
    idx.var = vd;
    idx.init = vd->getInit();
    idx.loop = loop;
    if (loop->getCond() && !match(expr(comparesVar(vd)), *loop->getCond(), ctx).empty()) idx.guard = loop->getCond();
    return idx;
  }
  auto decls = findAllIn<clang::VarDecl>(
      ctx, body, varDecl(unless(parmVarDecl()), hasInitializer(cuda::globalThreadIndex())).bind("v"), "v");
  if (decls.empty()) return idx;
  idx.var = decls.front();
  idx.init = idx.var->getInit();
  const auto& sm = ctx.getSourceManager();
  for (const clang::IfStmt* s :
       findAllIn<clang::IfStmt>(ctx, body, ifStmt(hasCondition(comparesVar(idx.var))).bind("if"), "if")) {
    if (sm.isBeforeInTranslationUnit(s->getBeginLoc(), idx.var->getLocation())) continue;
    idx.guard = s->getCond();
    break;
  }
  return idx;
}

std::vector<const clang::Expr*> gridStrideSteps(clang::ASTContext& ctx, const clang::FunctionDecl* kernel) {
  std::vector<const clang::Expr*> steps;
  const clang::Stmt* body = bodyOf(kernel);
  if (!body) return steps;
  return findAllIn<clang::Expr>(ctx, body, cuda::gridStrideLoop(), "step");
}

unsigned loopCount(clang::ASTContext& ctx, const clang::FunctionDecl* kernel) {
  return static_cast<unsigned>(
      findAllIn<clang::Stmt>(ctx, bodyOf(kernel),
                             stmt(anyOf(forStmt(), whileStmt(), doStmt(), cxxForRangeStmt())).bind("loop"), "loop")
          .size());
}

bool callsIntrinsicOf(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, IntrinsicKind kind) {
  return !findAllIn<clang::CallExpr>(ctx, bodyOf(kernel), callExpr(cuda::callsIntrinsic(kind)).bind("call"), "call")
              .empty();
}

unsigned geometryRefs(clang::ASTContext& ctx, const clang::Stmt* s) {
  return static_cast<unsigned>(
      findAllIn<clang::DeclRefExpr>(ctx, s, declRefExpr(cuda::refersToBuiltinGeometry()).bind("g"), "g").size());
}

}  // namespace klineage
