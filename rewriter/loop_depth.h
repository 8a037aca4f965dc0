// A RecursiveASTVisitor base that knows how deep the traversal is inside loops and switches, for
// the transforms' scans that decide whether a break, continue or return would leave code they move
// into (or out of) a loop.
#pragma once
#include <clang/AST/RecursiveASTVisitor.h>

namespace klineage {

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
