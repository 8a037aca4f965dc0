// select-to-minmax: a running maximum or minimum written as a comparison becomes the min/max call.
//   float maxval = -INFINITY;                 float maxval = -INFINITY;
//   for (...)                                 for (...)
//     if (x[j] > maxval) { maxval = x[j]; } ->   maxval = fmaxf(maxval, x[j]);
// Why: transforms that split a loop over lanes (warp-per-row) combine accumulators they recognize,
// sums and min/max calls; the comparison is the same reduction in another spelling.
// When it is sound: `if (A > M) M = A;` (also `M < A`, `>=`, `<=`, and `<` / `>` for a minimum)
// keeps M when A does not exceed it, else takes A: that is max(M, A) when neither is NaN. A NaN A
// fails the comparison and is skipped, as fmaxf(M, NaN) == M does. M itself is never NaN: it is a
// local whose initializer is a constant that is not NaN (-INFINITY, -FLT_MAX, 0, INT_MIN, ...), and
// every other write to it is such a comparison or a min/max call, which return a NaN only when both
// operands are. A is evaluated once instead of twice: it must have no side effects. M and A have the
// same type: float uses fmaxf/fminf, double fmax/fmin, integers max/min. The only difference: when A
// and M are zeros of opposite sign, the call may return the other zero (equal values).
// One comparison per step; canonicalize() runs the pass again for the next.
// Refuses: no such comparison; A with side effects; types that differ or are not arithmetic;
// M not a local, volatile, initialized by other than a non-NaN constant, or written otherwise;
// an else branch or more than the one assignment in the branch; code written through a macro.
#include <memory>

#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

const clang::VarDecl* localOf(const clang::Expr* e) {
  auto* d = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  auto* v = d ? llvm::dyn_cast<clang::VarDecl>(d->getDecl()) : nullptr;
  return v && v->isLocalVarDecl() ? v : nullptr;
}

const clang::BinaryOperator* onlyAssignment(const clang::Stmt* s) {
  if (auto* cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(s)) {
    if (cs->size() != 1) return nullptr;
    s = cs->body_front();
  }
  auto* b = llvm::dyn_cast_or_null<clang::BinaryOperator>(s);
  return b && b->getOpcode() == clang::BO_Assign ? b : nullptr;
}

struct Candidate {
  const clang::IfStmt* stmt = nullptr;
  const clang::VarDecl* m = nullptr;
  const clang::Expr* a = nullptr;
  bool max = true;
};

// `if (A > M) M = A;` and its spellings, or nothing.
std::optional<Candidate> match(clang::ASTContext& ctx, const clang::IfStmt* s) {
  if (s->getElse() || s->getInit() || s->getConditionVariable() || s->isConstexpr()) return std::nullopt;
  auto* cmp = llvm::dyn_cast<clang::BinaryOperator>(s->getCond()->IgnoreParenImpCasts());
  const clang::BinaryOperator* as = onlyAssignment(s->getThen());
  if (!cmp || !cmp->isRelationalOp() || !as) return std::nullopt;
  const clang::VarDecl* m = localOf(as->getLHS());
  if (!m) return std::nullopt;
  const clang::Expr* a = as->getRHS();
  auto same = [&](const clang::Expr* x, const clang::Expr* y) {
    llvm::FoldingSetNodeID ix, iy;
    x->IgnoreParenImpCasts()->Profile(ix, ctx, true);
    y->IgnoreParenImpCasts()->Profile(iy, ctx, true);
    return ix == iy;
  };
  const bool greater = cmp->getOpcode() == clang::BO_GT || cmp->getOpcode() == clang::BO_GE;
  // A > M (max) or M < A (max); A < M (min) or M > A (min).
  if (localOf(cmp->getRHS()) == m && same(cmp->getLHS(), a)) return Candidate{s, m, a, greater};
  if (localOf(cmp->getLHS()) == m && same(cmp->getRHS(), a)) return Candidate{s, m, a, !greater};
  return std::nullopt;
}

struct Find : clang::RecursiveASTVisitor<Find> {
  clang::ASTContext& ctx;
  std::vector<Candidate> found;
  explicit Find(clang::ASTContext& c) : ctx(c) {}
  bool VisitIfStmt(clang::IfStmt* s) {
    if (auto c = match(ctx, s)) found.push_back(*c);
    return true;
  }
};

// Every write to m: only inside `ifs` (the comparisons) or as m = f(m, e) with f a min/max call.
struct Writes : clang::RecursiveASTVisitor<Writes> {
  const clang::VarDecl* m;
  std::vector<const clang::IfStmt*> ifs;
  std::string why;
  int depth_in_if = 0;
  bool TraverseIfStmt(clang::IfStmt* s) {
    bool ours = false;
    for (auto* i : ifs) ours |= i == s;
    if (!ours) return clang::RecursiveASTVisitor<Writes>::TraverseIfStmt(s);
    return TraverseStmt(s->getCond());  // the branch is the comparison's own write
  }
  bool VisitBinaryOperator(clang::BinaryOperator* b) {
    if (!b->isAssignmentOp() || localOf(b->getLHS()) != m) return true;
    if (b->getOpcode() == clang::BO_Assign)
      if (auto* c = llvm::dyn_cast<clang::CallExpr>(b->getRHS()->IgnoreParenImpCasts()); c && c->getDirectCallee()) {
        const std::string f = c->getDirectCallee()->getNameAsString();
        if (f == "fmaxf" || f == "fminf" || f == "fmax" || f == "fmin" || f == "max" || f == "min") return true;
      }
    why = m->getNameAsString() + " is also written otherwise (a NaN could reach it)";
    return false;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* u) {
    if (u->isIncrementDecrementOp() && localOf(u->getSubExpr()) == m) {
      why = m->getNameAsString() + " is also incremented or decremented";
      return false;
    }
    if (u->getOpcode() == clang::UO_AddrOf && localOf(u->getSubExpr()) == m) {
      why = "the address of " + m->getNameAsString() + " is taken";
      return false;
    }
    return true;
  }
};

std::string callFor(clang::QualType t, bool max) {
  auto* b = t.getCanonicalType()->getAs<clang::BuiltinType>();
  if (!b) return "";
  if (b->getKind() == clang::BuiltinType::Float) return max ? "fmaxf" : "fminf";
  if (b->getKind() == clang::BuiltinType::Double) return max ? "fmax" : "fmin";
  if (b->isInteger() && !b->isBooleanType() && t->isIntegerType()) {
    auto k = b->getKind();
    if (k == clang::BuiltinType::Int || k == clang::BuiltinType::UInt || k == clang::BuiltinType::Long ||
        k == clang::BuiltinType::ULong || k == clang::BuiltinType::LongLong || k == clang::BuiltinType::ULongLong)
      return max ? "max" : "min";
  }
  return "";
}

class SelectToMinMax : public Transform {
 public:
  std::string id() const override { return "select-to-minmax"; }
  std::string summary() const override {
    return "turn a running max/min written as `if (a > m) m = a;` into `m = fmaxf(m, a);` (fminf, fmax, max, ...)";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    Find f(ctx);
    f.TraverseStmt(body);
    if (f.found.empty()) return TransformResult::no("no running max or min written as `if (a > m) m = a;`");
    std::string first_why;
    for (const Candidate& c : f.found) {
      const unsigned line = src.sm.getSpellingLineNumber(c.stmt->getBeginLoc());
      auto refuse = [&](const std::string& w) {
        if (first_why.empty()) first_why = "line " + std::to_string(line) + ": " + w;
      };
      if (c.a->HasSideEffects(ctx)) {
        refuse("the compared value has side effects");
        continue;
      }
      const clang::QualType mt = c.m->getType();
      if (mt.isVolatileQualified()) {
        refuse(c.m->getNameAsString() + " is volatile");
        continue;
      }
      if (mt.getCanonicalType().getUnqualifiedType() != c.a->IgnoreParenImpCasts()->getType().getCanonicalType().getUnqualifiedType()) {
        refuse(c.m->getNameAsString() + " and the compared value have different types");
        continue;
      }
      const std::string call = callFor(mt, c.max);
      if (call.empty()) {
        refuse(c.m->getNameAsString() + " is not a float, double or int/long type");
        continue;
      }
      const clang::Expr* init = c.m->getInit();
      clang::Expr::EvalResult ev;
      if (!init || init->isValueDependent() || !init->EvaluateAsRValue(ev, ctx) ||
          (ev.Val.isFloat() && ev.Val.getFloat().isNaN()) || !(ev.Val.isFloat() || ev.Val.isInt())) {
        refuse(c.m->getNameAsString() + " does not start from a constant that is not NaN");
        continue;
      }
      Writes w;
      w.m = c.m;
      for (const Candidate& o : f.found)
        if (o.m == c.m) w.ifs.push_back(o.stmt);
      w.TraverseStmt(body);
      if (!w.why.empty()) {
        refuse(w.why);
        continue;
      }
      if (!src.inFile(c.stmt)) {
        refuse("the comparison is written through a macro");
        continue;
      }
      const unsigned from = src.off(c.stmt->getBeginLoc()), to = src.stmtEnd(c.stmt);
      const std::string name = c.m->getNameAsString();
      const std::string text =
          name + " = " + call + "(" + name + ", " + sourceText(ctx, c.a->getSourceRange()) + ");";
      if (req.rewriter.ReplaceText(src.at(from), to - from, text)) return TransformResult::no("the rewriter refused the edit");
      return TransformResult::yes("line " + std::to_string(line) + ": the running " + (c.max ? "max " : "min ") + name +
                                  " became " + call);
    }
    return TransformResult::no(first_why);
  }

  TransformResult inverse(TransformRequest&) const override {
    return TransformResult::no("select-to-minmax is a canonicalization: it has no inverse");
  }
};

}  // namespace

std::unique_ptr<Transform> makeSelectToMinMax() { return std::make_unique<SelectToMinMax>(); }

}  // namespace klineage
