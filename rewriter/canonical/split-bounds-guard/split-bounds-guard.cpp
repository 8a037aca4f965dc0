// split-bounds-guard: a bounds check joined to another condition becomes the bounds guard around it.
//   int gid = blockIdx.x * blockDim.x + threadIdx.x;        int gid = blockIdx.x * blockDim.x + threadIdx.x;
//   if (gid < n && data[gid] < 0.0f)                 ->     if (gid < n) {
//       data[gid] = 0.0f;                                       if (data[gid] < 0.0f)
//                                                                   data[gid] = 0.0f;
//                                                           }
// Why: the elementwise transforms (grid-stride loops, vectorized accesses, block reductions) start
// from the bounds guard `if (i < n)` on the global thread index; a guard that also tests the element
// is the same guard with a second, inner condition.
// When it is sound: `if (A && B) S` with no else is `if (A) { if (B) S }`: && evaluates B only when A
// holds, and S runs exactly when both do. A is the leftmost conjunct and compares the variable that
// holds the global thread index (blockIdx.x * blockDim.x + threadIdx.x, any integer type) with a
// bound that does not use it (`i < n`, `n > i`). The rest stays one condition, as written.
// A guard whose other conjuncts bound another thread index (`x < W && y < H`) is a 2-D guard and is
// left whole: the 2-D transforms match it so.
// Refuses: no such if; an else branch, an init statement or a condition variable; a 2-D guard; code
// written through a macro.
#include <memory>

#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

// The conjuncts of a && chain, left to right.
void conjuncts(const clang::Expr* e, std::vector<const clang::Expr*>& out) {
  auto* b = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParens());
  if (b && b->getOpcode() == clang::BO_LAnd) {
    conjuncts(b->getLHS(), out);
    conjuncts(b->getRHS(), out);
    return;
  }
  out.push_back(e);
}

// `v < bound` or `bound > v` with v a local integer variable: v, else null.
const clang::VarDecl* boundedVar(const clang::Expr* e) {
  auto* b = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParenImpCasts());
  if (!b) return nullptr;
  const clang::Expr* var = nullptr;
  const clang::Expr* bound = nullptr;
  if (b->getOpcode() == clang::BO_LT) var = b->getLHS(), bound = b->getRHS();
  else if (b->getOpcode() == clang::BO_GT) var = b->getRHS(), bound = b->getLHS();
  else return nullptr;
  auto* d = llvm::dyn_cast<clang::DeclRefExpr>(cuda::stripIndexCasts(var));
  auto* v = d ? llvm::dyn_cast<clang::VarDecl>(d->getDecl()) : nullptr;
  if (!v || !v->getType()->isIntegerType() || usesDecl(bound, v)) return nullptr;
  return v;
}

// A variable initialized with a thread index of any dimension (threadIdx.y, blockIdx.y * blockDim.y +
// threadIdx.y): one that differs between the threads of a block. A row read from blockIdx alone
// (`int row = blockIdx.y;`) is the same for the whole block: a guard on it is not a second
// dimension of threads.
bool threadIndexVar(const clang::VarDecl* v) {
  if (!v || !v->getInit()) return false;
  struct Uses : clang::RecursiveASTVisitor<Uses> {
    bool found = false;
    bool VisitDeclRefExpr(clang::DeclRefExpr* d) {
      found |= d->getDecl()->getNameAsString() == "threadIdx";
      return true;
    }
  } u;
  u.TraverseStmt(const_cast<clang::Expr*>(v->getInit()));
  return u.found;
}

struct Ifs : clang::RecursiveASTVisitor<Ifs> {
  std::vector<const clang::IfStmt*> all;
  bool VisitIfStmt(clang::IfStmt* s) {
    all.push_back(s);
    return true;
  }
};

class SplitBoundsGuard : public Transform {
 public:
  std::string id() const override { return "split-bounds-guard"; }
  std::string summary() const override {
    return "turn `if (i < n && c) S` on the global thread index into `if (i < n) { if (c) S }`";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    Ifs ifs;
    ifs.TraverseStmt(body);
    std::string why;
    for (const clang::IfStmt* s : ifs.all) {
      std::vector<const clang::Expr*> parts;
      conjuncts(s->getCond(), parts);
      if (parts.size() < 2) continue;
      // The bounds check on the global thread index: the first conjunct, or a later one when those
      // before it have no side effects (then evaluating them only when it holds changes nothing).
      size_t at = parts.size();
      for (size_t i = 0; i < parts.size() && at == parts.size(); ++i) {
        const clang::VarDecl* b = boundedVar(parts[i]);
        if (b && b->getInit() && isGlobalThreadIndex(ctx, b->getInit())) at = i;
      }
      if (at == parts.size()) continue;
      const clang::VarDecl* v = boundedVar(parts[at]);
      const unsigned line = src.sm.getSpellingLineNumber(s->getBeginLoc());
      auto refuse = [&](const std::string& w) {
        if (why.empty()) why = "line " + std::to_string(line) + ": " + w;
      };
      bool effects = false;
      for (size_t i = 0; i < at; ++i) effects |= parts[i]->HasSideEffects(ctx);
      if (effects) {
        refuse("a condition before the bounds check has side effects (it cannot be evaluated after it)");
        continue;
      }
      bool two_d = false;
      for (size_t i = 0; i < parts.size(); ++i)
        if (i != at) two_d |= threadIndexVar(boundedVar(parts[i]));
      if (two_d) {
        refuse("the guard bounds two thread indices (a 2-D guard stays whole)");
        continue;
      }
      if (s->getElse() || s->getInit() || s->getConditionVariable() || s->isConstexpr()) {
        refuse("the guard has an else branch, an init statement or a condition variable");
        continue;
      }
      const clang::Expr* rest = parts[at == 0 ? 1 : 0];
      bool macro = !src.inFile(s) || !src.inFile(s->getRParenLoc()) || !src.inFile(s->getThen());
      for (const clang::Expr* c : parts) macro |= !src.inFile(c);
      if (macro) {
        refuse("the guard is written through a macro");
        continue;
      }
      const unsigned from = src.off(s->getBeginLoc()), to = src.stmtEnd(s);
      const std::string in = src.indentOf(from);
      std::string unit = "    ";
      // The inner if: the other conjuncts as written, then the statement as written, one level in.
      const unsigned c0 = src.off(rest->getBeginLoc()), c1 = src.tokEnd(parts.back()->getEndLoc());
      const unsigned t0 = src.off(s->getRParenLoc());  // from the condition's `)` to the end
      std::string tail = src.slice(t0, to);
      std::string shifted;
      for (char ch : tail) {
        shifted += ch;
        if (ch == '\n') shifted += unit;
      }
      // the other conditions: as written after a leading bounds check, else each one's text in order
      std::string others;
      if (at == 0) {
        others = src.slice(c0, c1);
      } else {
        for (size_t i = 0; i < parts.size(); ++i)
          if (i != at) others += (others.empty() ? "" : " && ") + sourceText(ctx, parts[i]->getSourceRange());
      }
      const std::string text = "if (" + sourceText(ctx, parts[at]->getSourceRange()) + ") {\n" + in + unit + "if (" +
                               others + shifted + "\n" + in + "}";
      if (req.rewriter.ReplaceText(src.at(from), to - from, text)) return TransformResult::no("the rewriter refused the edit");
      return TransformResult::yes("line " + std::to_string(line) + ": the bounds check on " + v->getNameAsString() +
                                  " became the guard around the rest of the condition");
    }
    return TransformResult::no(why.empty() ? "no bounds check on the global thread index joined by && to another condition"
                                           : why);
  }

  TransformResult inverse(TransformRequest&) const override {
    return TransformResult::no("split-bounds-guard is a canonicalization: it has no inverse");
  }
};

}  // namespace

std::unique_ptr<Transform> makeSplitBoundsGuard() { return std::make_unique<SplitBoundsGuard>(); }

}  // namespace klineage
