#include "plain_access.h"

#include "rewriter/ast_util.h"

#include <set>
#include <string>

#include <clang/AST/ExprCXX.h>
#include <clang/Lex/Lexer.h>

namespace klineage {
namespace {

struct Cutter {
  TransformRequest& req;
  clang::SourceLocation endOf(clang::SourceLocation l) const {
    return clang::Lexer::getLocForEndOfToken(l, 0, req.ctx.getSourceManager(), req.ctx.getLangOpts());
  }
  void cut(clang::SourceLocation a, clang::SourceLocation b, const std::string& with) const {
    req.rewriter.ReplaceText(clang::CharSourceRange::getCharRange(a, b), with);
  }
};

const clang::UnaryOperator* addressOf(const clang::Expr* e) {
  const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e->IgnoreImpCasts()->IgnoreParens());
  return u && u->getOpcode() == clang::UO_AddrOf ? u : nullptr;
}

const clang::BinaryOperator* pointerPlus(const clang::Expr* e) {
  const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreImpCasts()->IgnoreParens());
  return b && b->getOpcode() == clang::BO_Add && b->getLHS()->getType()->isPointerType() ? b : nullptr;
}

// `p + a + b` parses as `(p + a) + b`: the pointer p and the first offset a, so that it reads p[a + b].
struct Offset {
  const clang::Expr* base;
  const clang::Expr* first;  // the first integer operand after the base
};
Offset flatten(const clang::BinaryOperator* b) {
  while (const auto* inner = pointerPlus(b->getLHS())) {
    if (b->getLHS()->IgnoreImpCasts() != inner) break;  // (p + a) + b written with parentheses: kept
    b = inner;
  }
  return {b->getLHS(), b->getRHS()};
}

}  // namespace

bool cacheOperatorType(clang::QualType t, bool half_types) {
  static const std::set<std::string> kTypes{
      "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "long",
      "unsigned long", "long long", "unsigned long long", "float", "double", "struct char2", "struct char4",
      "struct uchar2", "struct uchar4", "struct short2", "struct short4", "struct ushort2", "struct ushort4",
      "struct int2", "struct int4", "struct uint2", "struct uint4", "struct longlong2", "struct ulonglong2",
      "struct float2", "struct float4", "struct double2"};
  static const std::set<std::string> kHalf{"struct __half", "struct __half2", "struct __nv_bfloat16", "struct __nv_bfloat162"};
  const std::string name = t.getCanonicalType().getUnqualifiedType().getAsString();
  return kTypes.count(name) > 0 || (half_types && kHalf.count(name) > 0);
}

bool isValueRead(clang::ASTContext& ctx, const clang::Expr* e) {
  const clang::Stmt* parent = parentStmtOf(ctx, *e);
  while (const auto* pe = llvm::dyn_cast_or_null<clang::ParenExpr>(parent)) parent = parentStmtOf(ctx, *pe);
  if (const auto* ice = llvm::dyn_cast_or_null<clang::ImplicitCastExpr>(parent)) {
    if (ice->getCastKind() == clang::CK_LValueToRValue) return true;
    if (ice->getCastKind() != clang::CK_NoOp) return false;
    parent = parentStmtOf(ctx, *ice);
  }
  const auto* ctor = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(parent);
  return ctor && ctor->getNumArgs() == 1 && ctor->getConstructor()->isCopyOrMoveConstructor();
}

bool plainLoad(TransformRequest& req, const clang::CallExpr* c) {
  if (inMacro(c) || c->getNumArgs() != 1) return false;
  const Cutter x{req};
  auto& rw = req.rewriter;
  const clang::SourceLocation begin = c->getBeginLoc(), rparen = c->getRParenLoc();
  const clang::Expr* arg = c->getArg(0)->IgnoreImpCasts();
  if (const auto* u = addressOf(arg)) {
    // f(&E) -> E; (E) where E is not a postfix expression
    const clang::Expr* e = u->getSubExpr()->IgnoreParens();
    const bool postfix = llvm::isa<clang::ArraySubscriptExpr, clang::DeclRefExpr, clang::MemberExpr>(e);
    x.cut(begin, u->getSubExpr()->getBeginLoc(), postfix ? "" : "(");
    rw.ReplaceText(rparen, 1, postfix ? "" : ")");
  } else if (const auto* b = pointerPlus(arg)) {
    // f(p + k) -> p[k], f(p + a + b) -> p[a + b]; (q)[k] for a base that is not a postfix expression
    const auto [lhs, first] = flatten(b);
    const bool postfix =
        llvm::isa<clang::DeclRefExpr, clang::ArraySubscriptExpr, clang::MemberExpr, clang::ParenExpr>(lhs->IgnoreImpCasts());
    x.cut(begin, lhs->getBeginLoc(), postfix ? "" : "(");
    x.cut(x.endOf(lhs->getEndLoc()), first->getBeginLoc(), postfix ? "[" : ")[");
    rw.ReplaceText(rparen, 1, "]");
  } else if (llvm::isa<clang::DeclRefExpr>(arg)) {
    x.cut(begin, arg->getBeginLoc(), "");  // f(p) -> p[0]
    rw.ReplaceText(rparen, 1, "[0]");
  } else {
    x.cut(begin, x.endOf(c->getCallee()->getEndLoc()), "");  // f(P) -> (P)[0]
    rw.InsertTextAfterToken(rparen, "[0]");
  }
  return true;
}

bool plainStore(TransformRequest& req, const clang::CallExpr* c) {
  if (inMacro(c) || c->getNumArgs() != 2) return false;
  const Cutter x{req};
  auto& rw = req.rewriter;
  const clang::SourceLocation begin = c->getBeginLoc(), rparen = c->getRParenLoc();
  const clang::Expr* ptr = c->getArg(0)->IgnoreImpCasts();
  const clang::Expr* value = c->getArg(1);
  if (const auto* u = addressOf(ptr)) {
    const clang::Expr* e = u->getSubExpr()->IgnoreParens();
    if (!llvm::isa<clang::ArraySubscriptExpr, clang::DeclRefExpr, clang::MemberExpr>(e)) return false;
    x.cut(begin, u->getSubExpr()->getBeginLoc(), "");  // f(&E, V) -> E = V
    x.cut(x.endOf(u->getSubExpr()->getEndLoc()), value->getBeginLoc(), " = ");
  } else if (const auto* b = pointerPlus(ptr)) {
    const auto [lhs, first] = flatten(b);
    if (!llvm::isa<clang::DeclRefExpr, clang::MemberExpr>(lhs->IgnoreImpCasts())) return false;
    x.cut(begin, lhs->getBeginLoc(), "");  // f(p + k, V) -> p[k] = V, f(p + a + b, V) -> p[a + b] = V
    x.cut(x.endOf(lhs->getEndLoc()), first->getBeginLoc(), "[");
    x.cut(x.endOf(b->getRHS()->getEndLoc()), value->getBeginLoc(), "] = ");
  } else if (llvm::isa<clang::DeclRefExpr>(ptr)) {
    x.cut(begin, ptr->getBeginLoc(), "");  // f(p, V) -> p[0] = V
    x.cut(x.endOf(ptr->getEndLoc()), value->getBeginLoc(), "[0] = ");
  } else {
    return false;
  }
  rw.RemoveText(rparen, 1);
  return true;
}

}  // namespace klineage
