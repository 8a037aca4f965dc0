// A RecursiveASTVisitor base that knows how deep the traversal is inside loops and switches, for
// the transforms' scans that decide whether a break, continue or return would leave code they move
// into (or out of) a loop.
#pragma once
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>

namespace klineage {

// The expression an assignment to `lhs` changes as a whole variable: `s.f` and `a[j]` of a local
// struct or array change `s` and `a` themselves (through a pointer, `p->f` and `p[j]`, they change
// memory, not the variable). The scans below ask which variable a statement writes.
inline const clang::Expr* assignedBase(const clang::Expr* lhs) {
  while (true) {
    lhs = lhs->IgnoreParenImpCasts();
    if (auto* me = llvm::dyn_cast<clang::MemberExpr>(lhs); me && !me->isArrow()) {
      lhs = me->getBase();
    } else if (auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(lhs);
               ase && ase->getBase()->IgnoreParenImpCasts()->getType()->isArrayType()) {
      lhs = ase->getBase();
    } else {
      return lhs;
    }
  }
}

template <typename Derived>
struct LoopDepthVisitor : clang::RecursiveASTVisitor<Derived> {
  using Base = clang::RecursiveASTVisitor<Derived>;
  unsigned loops = 0, switches = 0;  // enclosing loops / switches within the scanned code

  bool TraverseForStmt(clang::ForStmt* s) { return nested(loops, [&] { return Base::TraverseForStmt(s); }); }
  bool TraverseWhileStmt(clang::WhileStmt* s) { return nested(loops, [&] { return Base::TraverseWhileStmt(s); }); }
  bool TraverseDoStmt(clang::DoStmt* s) { return nested(loops, [&] { return Base::TraverseDoStmt(s); }); }
  bool TraverseCXXForRangeStmt(clang::CXXForRangeStmt* s) {
    return nested(loops, [&] { return Base::TraverseCXXForRangeStmt(s); });
  }
  bool TraverseSwitchStmt(clang::SwitchStmt* s) { return nested(switches, [&] { return Base::TraverseSwitchStmt(s); }); }

 private:
  template <typename F>
  static bool nested(unsigned& depth, F&& traverse) {
    ++depth;
    bool r = traverse();
    --depth;
    return r;
  }
};

}  // namespace klineage
