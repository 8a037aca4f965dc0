// Literal tests the transforms share (kept out of ast_util.h, which nearly every file includes).
#pragma once
#include <clang/AST/Expr.h>

namespace klineage {

// `0`, `0.0f`, `(float)0`, `(0)`: an integer or floating literal of value zero under parentheses
// and casts (a cast of zero is zero). A floating literal is never negative (`-0.0f` is a unary
// minus on one), so a zero literal is +0.
inline bool isZeroLiteral(const clang::Expr* e) {
  e = e->IgnoreParenCasts();
  if (auto* i = llvm::dyn_cast<clang::IntegerLiteral>(e)) return i->getValue() == 0;
  if (auto* f = llvm::dyn_cast<clang::FloatingLiteral>(e)) return f->getValue().isZero();
  return false;
}

}  // namespace klineage
