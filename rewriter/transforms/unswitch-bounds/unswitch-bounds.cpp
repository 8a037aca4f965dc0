// unswitch-bounds: a window of taps, each under a bounds guard, gets an interior fast path: where
// every tap of the window is provably inside the bounds, the same statements run with those guards
// dropped; elsewhere the statements as written.
//
//   int sum = 0, count = 0;                       if (row - 1 >= 0 && row + 1 < h && ...) {
//   for (int dy = -1; dy <= 1; ++dy)                int sum = 0, count = 0;
//     for (int dx = -1; dx <= 1; ++dx) {            for (...) for (...) { ... sum += in[...]; count++; }
//       int yy = row + dy, xx = col + dx;     ->    out[...] = sum / count;
//       if (yy >= 0 && yy < h && ...) {...}       } else {
//     }                                             (the statements as written)
//   out[...] = sum / count;                       }
//
// Why it can pay: the guarded window costs four comparisons and a predicated load a tap, and its
// count is only known at run time; without the guards the compiler unrolls the taps, folds the
// count to a constant (a division becomes a multiply) and issues the loads together. Most threads of
// a large grid are interior, so the border path runs on a thin frame only.
// When it is sound: a guard is dropped only when each of its conjuncts is a comparison `e OP X`
// (either side, < <= > >=) where e is `base +/- k` for a counted loop variable k of an enclosing
// loop (`for (int k = A; k < B; ++k)`, k only read in the body), base and X and A and B are
// invariant over the duplicated statements (variables declared before them and never written in
// them, literals, the thread geometry, no memory reads), every operation signed (an unsigned
// index wraps, so its extremes do not bound it), or a conjunct invariant itself. The fast path's
// condition is each conjunct at the extreme k (base + A for a lower bound, base + B - 1 for an
// upper one), so under it every dropped guard holds for every k the loop takes. The duplicated
// statements run the same operations in the same order, so results are bit-identical; they must hold
// no barrier or warp-collective (the two paths diverge).
// Inverse: an `if (c) { F } else { S }` whose F is S with its provable guards dropped becomes S.
#include <algorithm>
#include <set>

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

using Src = SourceBuffer;

const clang::Expr* bare(const clang::Expr* e) { return e ? e->IgnoreParenImpCasts() : nullptr; }

bool isSignedInt(clang::QualType t) { return t->isIntegerType() && t->isSignedIntegerType() && !t->isBooleanType(); }

// A counted loop `for (<int> k = A; k < B | k <= B | B > k | B >= k; ++k | k++ | k += 1)`.
struct TapLoop {
  const clang::ForStmt* loop = nullptr;
  const clang::VarDecl* var = nullptr;
  const clang::Expr* lo = nullptr;  // A
  const clang::Expr* bound = nullptr;
  bool inclusive = false;  // k <= B: the last k is B, else B - 1
};

std::optional<TapLoop> tapLoop(clang::ASTContext& ctx, const clang::ForStmt* fs) {
  const auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(fs->getInit());
  if (!ds || !ds->isSingleDecl()) return std::nullopt;
  const auto* k = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
  if (!k || !k->getInit() || !isSignedInt(k->getType())) return std::nullopt;
  TapLoop t{fs, k, k->getInit(), nullptr, false};
  const auto* cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(bare(fs->getCond()));
  if (!cond) return std::nullopt;
  auto isK = [&](const clang::Expr* e) { return referencedDecl(bare(e)) == k && llvm::isa<clang::DeclRefExpr>(bare(e)); };
  const auto op = cond->getOpcode();
  if (isK(cond->getLHS()) && (op == clang::BO_LT || op == clang::BO_LE)) {
    t.bound = cond->getRHS();
    t.inclusive = op == clang::BO_LE;
  } else if (isK(cond->getRHS()) && (op == clang::BO_GT || op == clang::BO_GE)) {
    t.bound = cond->getLHS();
    t.inclusive = op == clang::BO_GE;
  } else {
    return std::nullopt;
  }
  const clang::Expr* inc = bare(llvm::dyn_cast_or_null<clang::Expr>(fs->getInc()));
  bool step1 = false;
  if (const auto* u = llvm::dyn_cast_or_null<clang::UnaryOperator>(inc))
    step1 = u->isIncrementOp() && isK(u->getSubExpr());
  if (const auto* c = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(inc)) {
    clang::Expr::EvalResult ev;
    step1 = c->getOpcode() == clang::BO_AddAssign && isK(c->getLHS()) && c->getRHS()->EvaluateAsInt(ev, ctx) &&
            ev.Val.getInt() == 1;
  }
  if (!step1 || !fs->getBody() || !onlyReads(ctx, fs->getBody(), k) || !onlyReads(ctx, fs->getCond(), k))
    return std::nullopt;
  return t;
}

// The statements duplicated: stmts [first, end) of one compound statement, text [r0, r1).
struct Region {
  const clang::CompoundStmt* block = nullptr;
  size_t first = 0;
  unsigned r0 = 0, r1 = 0;
  bool contains(const Src& src, const clang::Decl* d) const {
    unsigned o = src.off(d->getBeginLoc());
    return o >= r0 && o < r1;
  }
  // v is only read by the region's statements (never assigned, incremented or taken the address of).
  bool onlyReadIn(clang::ASTContext& ctx, const clang::VarDecl* v) const {
    for (size_t i = first; i < block->size(); ++i)
      if (!onlyReads(ctx, block->body_begin()[i], v)) return false;
    return true;
  }
};

// One text edit of the fast copy: [from, to) of the file and its replacement.
using Edit = std::pair<std::pair<unsigned, unsigned>, std::string>;

class Analysis {
 public:
  Analysis(clang::ASTContext& ctx, const Src& src, const Region& reg) : ctx_(ctx), src_(src), reg_(reg) {}

  // Invariant over the region: literals, the thread geometry, variables declared outside it and
  // never written in it (parameters, template parameters, constants), arithmetic on those.
  bool invariant(const clang::Expr* e) const {
    e = e->IgnoreParens();
    clang::Expr::EvalResult ev;
    if (!e->isValueDependent() && e->EvaluateAsInt(ev, ctx_)) return true;
    if (const auto* c = llvm::dyn_cast<clang::CastExpr>(e)) return invariant(c->getSubExpr());
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e))
      return !b->isAssignmentOp() && !b->isCompoundAssignmentOp() && b->getOpcode() != clang::BO_Comma &&
             invariant(b->getLHS()) && invariant(b->getRHS());
    if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e))
      return (u->getOpcode() == clang::UO_Minus || u->getOpcode() == clang::UO_Plus || u->getOpcode() == clang::UO_Not ||
              u->getOpcode() == clang::UO_LNot) &&
             invariant(u->getSubExpr());
    if (llvm::isa<clang::IntegerLiteral, clang::CharacterLiteral, clang::CXXBoolLiteralExpr>(e)) return true;
    if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(e)) {
      const auto* base = llvm::dyn_cast<clang::DeclRefExpr>(bare(m->getBase()));
      return base && isBuiltinGeometry(base->getDecl()->getNameAsString());
    }
    if (const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      const clang::ValueDecl* d = r->getDecl();
      if (llvm::isa<clang::NonTypeTemplateParmDecl, clang::EnumConstantDecl>(d)) return true;
      const auto* v = llvm::dyn_cast<clang::VarDecl>(d);
      if (!v || v->getType()->isReferenceType() || v->getType().isVolatileQualified()) return false;
      if (v->hasGlobalStorage()) return v->getType().isConstQualified();
      return !reg_.contains(src_, v) && reg_.onlyReadIn(ctx_, v);
    }
    return false;
  }

  // e as base +/- k: the tap loop of k, its sign, and base's terms (text with its sign), when e is
  // signed arithmetic of that shape (a read-only local declared in the region stands for its init).
  struct Linear {
    const TapLoop* loop = nullptr;
    int sign = 1;
    std::vector<std::pair<int, const clang::Expr*>> terms;
  };
  bool linear(const clang::Expr* e, int sign, Linear& out, const std::vector<TapLoop>& loops, int depth = 0) const {
    if (depth > 6) return false;
    const clang::Expr* p = e->IgnoreParens();
    if (invariant(p)) {
      out.terms.push_back({sign, p});
      return true;
    }
    if (const auto* ice = llvm::dyn_cast<clang::ImplicitCastExpr>(p)) {
      if (ice->getCastKind() != clang::CK_IntegralCast && ice->getCastKind() != clang::CK_LValueToRValue &&
          ice->getCastKind() != clang::CK_NoOp)
        return false;
      if (ice->getCastKind() == clang::CK_IntegralCast && !isSignedInt(ice->getSubExpr()->getType()) &&
          !invariant(ice->getSubExpr()))
        return false;
      return linear(ice->getSubExpr(), sign, out, loops, depth + 1);
    }
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(p);
        b && (b->getOpcode() == clang::BO_Add || b->getOpcode() == clang::BO_Sub)) {
      if (!isSignedInt(b->getType())) return false;
      return linear(b->getLHS(), sign, out, loops, depth + 1) &&
             linear(b->getRHS(), b->getOpcode() == clang::BO_Sub ? -sign : sign, out, loops, depth + 1);
    }
    if (const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(p)) {
      for (const TapLoop& t : loops)
        if (r->getDecl() == t.var) {
          if (out.loop) return false;  // two loop variables: not one tap offset
          out.loop = &t;
          out.sign = sign;
          return true;
        }
      const auto* v = llvm::dyn_cast<clang::VarDecl>(r->getDecl());
      if (v && reg_.contains(src_, v) && v->getInit() && !v->getType()->isReferenceType() && isSignedInt(v->getType()))
        return reg_.onlyReadIn(ctx_, v) && linear(v->getInit(), sign, out, loops, depth + 1);
    }
    return false;
  }

  std::string text(const clang::Expr* e) const { return sourceText(ctx_, e->getSourceRange()); }

  // "base + c" with the constant folded where it is one.
  std::string at(const Linear& l, const clang::Expr* k_expr, long long adjust) const {
    std::string s;
    for (const auto& [sg, t] : l.terms) {
      std::string tt = text(t);
      if (!llvm::isa<clang::DeclRefExpr, clang::IntegerLiteral, clang::MemberExpr, clang::ParenExpr>(t->IgnoreImpCasts()))
        tt = "(" + tt + ")";
      s += s.empty() ? (sg < 0 ? "-" + tt : tt) : (sg < 0 ? " - " : " + ") + tt;
    }
    clang::Expr::EvalResult ev;
    const int ks = l.sign;
    if (k_expr->EvaluateAsInt(ev, ctx_)) {
      long long v = ks * (ev.Val.getInt().getExtValue() - adjust);
      if (s.empty()) return std::to_string(v);
      if (v > 0) s += " + " + std::to_string(v);
      if (v < 0) s += " - " + std::to_string(-v);
      return s;
    }
    std::string kt = "(" + text(k_expr) + (adjust ? " - 1" : "") + ")";
    if (s.empty()) return ks < 0 ? "-" + kt : kt;
    return s + (ks < 0 ? " - " : " + ") + kt;
  }

  // One conjunct, `e OP X` (or a negated one from a `continue` guard), as the fast path's
  // condition at the extreme tap; empty when it cannot be proved for every tap.
  std::string bound(const clang::BinaryOperator* cmp, bool negate, const std::vector<TapLoop>& loops) const {
    if (!cmp || !cmp->isRelationalOp()) return "";
    if (!isSignedInt(cmp->getLHS()->getType()) || !isSignedInt(cmp->getRHS()->getType())) return "";
    auto op = cmp->getOpcode();
    if (negate) op = clang::BinaryOperator::negateComparisonOp(op);
    Linear l;
    const clang::Expr* x = nullptr;
    if (linear(cmp->getLHS(), 1, l, loops) && l.loop && invariant(cmp->getRHS())) {
      x = cmp->getRHS();
    } else {
      l = Linear{};
      if (!linear(cmp->getRHS(), 1, l, loops) || !l.loop || !invariant(cmp->getLHS())) return "";
      x = cmp->getLHS();
      op = clang::BinaryOperator::reverseComparisonOp(op);
    }
    // e >= X / e > X need the smallest e, e < X / e <= X the largest.
    const bool lower = op == clang::BO_GE || op == clang::BO_GT;
    const bool want_min_k = lower == (l.sign > 0);
    const TapLoop& t = *l.loop;
    if (!invariant(want_min_k ? t.lo : t.bound)) return "";
    std::string e = want_min_k ? at(l, t.lo, 0) : at(l, t.bound, t.inclusive ? 0 : 1);
    std::string xt = text(x);
    if (!llvm::isa<clang::DeclRefExpr, clang::IntegerLiteral, clang::MemberExpr, clang::ParenExpr>(x->IgnoreImpCasts()))
      xt = "(" + xt + ")";
    return e + " " + clang::BinaryOperator::getOpcodeStr(op).str() + " " + xt;
  }

  // A guard's condition split into conjuncts (|| for a continue guard), each proved; empty on failure.
  bool prove(const clang::Expr* cond, bool is_continue, const std::vector<TapLoop>& loops,
             std::vector<std::string>& conds) const {
    const auto* b = llvm::dyn_cast<clang::BinaryOperator>(cond->IgnoreParens());
    const auto join = is_continue ? clang::BO_LOr : clang::BO_LAnd;
    if (b && b->getOpcode() == join)
      return prove(b->getLHS(), is_continue, loops, conds) && prove(b->getRHS(), is_continue, loops, conds);
    std::string c = bound(llvm::dyn_cast<clang::BinaryOperator>(bare(cond)), is_continue, loops);
    if (c.empty() && invariant(cond)) c = std::string(is_continue ? "!" : "") + "(" + text(cond) + ")";
    if (c.empty()) return false;
    conds.push_back(c);
    return true;
  }

 private:
  clang::ASTContext& ctx_;
  const Src& src_;
  const Region& reg_;
};

// Calls the two paths may not diverge over.
bool collective(const clang::Stmt* s, int depth = 0) {
  struct V : clang::RecursiveASTVisitor<V> {
    bool found = false;
    int depth = 0;
    bool VisitCallExpr(clang::CallExpr* c) {
      const auto* fd = c->getDirectCallee();
      // A device function of the user's: what it calls counts too.
      if (fd && fd->hasBody() && depth < 4 &&
          !fd->getASTContext().getSourceManager().isInSystemHeader(fd->getLocation()))
        found = found || collective(fd->getBody(), depth + 1);
      // The one list of barriers and warp collectives (atomics are per thread: they may diverge).
      if (auto kind = intrinsicKind(calleeName(c)); kind && *kind != IntrinsicKind::Atomic) found = true;
      if (!fd && calleeName(c).empty()) found = true;  // a call through a pointer: unknown
      return true;
    }
    bool VisitLabelStmt(clang::LabelStmt*) { return !(found = true); }
    bool VisitGotoStmt(clang::GotoStmt*) { return !(found = true); }
  } v;
  v.depth = depth;
  v.TraverseStmt(const_cast<clang::Stmt*>(s));
  return v.found;
}

// A candidate guard: an if without else, an `if (...) continue;`, or a conditional operator.
struct Guard {
  const clang::Stmt* node = nullptr;
  const clang::Expr* cond = nullptr;
  enum Kind { If, Continue, Select } kind = If;
  std::vector<TapLoop> loops;  // enclosing counted loops, innermost first
};

bool isContinue(const clang::Stmt* s) {
  if (const auto* cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(s)) return cs->size() == 1 && isContinue(cs->body_front());
  return s && llvm::isa<clang::ContinueStmt>(s);
}

std::vector<Guard> guardsIn(clang::ASTContext& ctx, const clang::Stmt* root) {
  struct V : clang::RecursiveASTVisitor<V> {
    std::vector<Guard> out;
    bool VisitIfStmt(clang::IfStmt* s) {
      if (s->getElse() || s->getInit() || s->getConditionVariable() || s->isConstexpr()) return true;
      out.push_back({s, s->getCond(), isContinue(s->getThen()) ? Guard::Continue : Guard::If, {}});
      return true;
    }
    bool VisitConditionalOperator(clang::ConditionalOperator* c) {
      out.push_back({c, c->getCond(), Guard::Select, {}});
      return true;
    }
  } v;
  v.TraverseStmt(const_cast<clang::Stmt*>(root));
  for (Guard& g : v.out) {
    for (const clang::Stmt* p = parentStmtOf(ctx, *g.node); p && p != root; p = parentStmtOf(ctx, *p))
      if (const auto* fs = llvm::dyn_cast<clang::ForStmt>(p)) {
        if (auto t = tapLoop(ctx, fs)) g.loops.push_back(*t);
      }
  }
  return v.out;
}

// The region a guard's outermost loop sits in: from after the last statement of its block that
// declares or writes what the fast condition reads, to the block's end.
std::optional<Region> regionFor(clang::ASTContext& ctx, const Src& src, const clang::ForStmt* outer) {
  const clang::Stmt* stmt = outer;  // with its `#pragma unroll`, an AttributedStmt
  const clang::Stmt* parent = parentStmtOf(ctx, *outer);
  if (llvm::isa_and_nonnull<clang::AttributedStmt>(parent)) stmt = parent, parent = parentStmtOf(ctx, *parent);
  const auto* block = llvm::dyn_cast_or_null<clang::CompoundStmt>(parent);
  if (!block) return std::nullopt;
  size_t idx = 0;
  while (idx < block->size() && block->body_begin()[idx] != stmt) ++idx;
  if (idx == block->size()) return std::nullopt;
  Region r;
  r.block = block;
  r.first = idx;
  // Start as early as the statements before the loop allow (they declare what the loop reads).
  r.r0 = src.off(stmt->getBeginLoc());
  r.r1 = src.stmtEnd(block->body_back());
  return r;
}

struct Plan {
  Region region;
  std::vector<std::string> conds;
  std::vector<Edit> edits;
  std::string why;
};

// The fast copy of [l0, l1): each proved guard dropped.
std::string applyEdits(const Src& src, unsigned l0, unsigned l1, std::vector<Edit> edits) {
  std::sort(edits.begin(), edits.end());
  std::string out;
  unsigned p = l0;
  for (const auto& [span, rep] : edits) {
    if (span.first < p) continue;  // nested in an edit already made (cannot happen: guards do not overlap)
    out += src.slice(p, span.first) + rep;
    p = span.second;
  }
  return out + src.slice(p, l1);
}

// Plans the fast path of the statements in `block` from `outer` on; the guards proved and edits.
Plan plan(clang::ASTContext& ctx, const Src& src, const std::vector<Guard>& guards, const clang::ForStmt* outer) {
  Plan pl;
  auto reg = regionFor(ctx, src, outer);
  if (!reg) {
    pl.why = "the outermost tap loop is not a statement of a { } block";
    return pl;
  }
  // The region starts at the outermost loop or earlier in its block: a statement before the loop
  // may declare what a guard needs (then its initializer stands for it). Every region holds the
  // statements after the loop, and moving its start earlier only adds statements: the first barrier
  // or macro met ends the search (and is the reason).
  const clang::CompoundStmt* block = reg->block;
  auto stopper = [&](const clang::Stmt* st) -> std::string {
    if (collective(st)) return "the statements hold a barrier, a warp-collective or a jump the two paths may not diverge over";
    if (!src.inFile(st)) return "the statements are written through a macro";
    return "";
  };
  std::string stop;
  for (size_t i = reg->first + 1; i < block->size() && stop.empty(); ++i) stop = stopper(block->body_begin()[i]);
  Plan best;
  for (size_t start = reg->first + 1; stop.empty() && start-- > 0;) {
    const clang::Stmt* st = block->body_begin()[start];
    if (!(stop = stopper(st)).empty()) break;
    Region r = *reg;
    r.first = start;
    r.r0 = src.off(st->getBeginLoc());
    Analysis an(ctx, src, r);
    std::vector<std::string> conds;
    std::vector<Edit> edits;
    for (const Guard& g : guards) {
      unsigned o = src.off(g.node->getBeginLoc());
      if (o < r.r0 || o >= r.r1 || g.loops.empty() || !src.inFile(g.node)) continue;
      std::vector<std::string> c;
      if (!an.prove(g.cond, g.kind == Guard::Continue, g.loops, c)) continue;
      if (g.kind == Guard::If) {
        const auto* is = llvm::cast<clang::IfStmt>(g.node);
        edits.push_back({{o, src.off(is->getThen()->getBeginLoc())}, ""});
      } else if (g.kind == Guard::Continue) {
        unsigned e = src.stmtEnd(g.node), b = o;
        if (src.blankBefore(o)) {
          size_t eol = src.restOfLineBlank(e);
          if (eol != std::string::npos) b = src.lineStart(o), e = static_cast<unsigned>(eol);
        }
        edits.push_back({{b, e}, ""});
      } else {
        // c ? a : b -> (a); no parentheses of its own where it already has them.
        const auto* co = llvm::cast<clang::ConditionalOperator>(g.node);
        const bool paren = llvm::isa_and_nonnull<clang::ParenExpr>(parentStmtOf(ctx, *co));
        edits.push_back({{o, src.off(co->getTrueExpr()->getBeginLoc())}, paren ? "" : "("});
        edits.push_back({{src.tokEnd(co->getTrueExpr()->getEndLoc()), src.tokEnd(co->getEndLoc())}, paren ? "" : ")"});
      }
      for (auto& s : c)
        if (std::find(conds.begin(), conds.end(), s) == conds.end()) conds.push_back(s);
    }
    if (conds.empty()) continue;
    // The most guards dropped wins; the latest start among those (the condition then reads the
    // user's own locals, declared before the loop, rather than their initializers).
    if (edits.size() > best.edits.size()) {
      best.region = r;
      best.conds = conds;
      best.edits = edits;
    }
  }
  if (best.conds.empty())
    best.why = !stop.empty() ? stop : "no bounds guard on a tap `base + k` of a counted loop could be proved from the loop's range";
  return best;
}

// The plan dropping the most guards over every region a counted loop around a guard may start
// (the outermost loop whose variable a guard tests is the one that proves; an enclosing loop of
// other work, coarsen-rows' row loop, does not). Outermost first; `why` when none proves.
Plan bestPlan(clang::ASTContext& ctx, const Src& src, const std::vector<Guard>& guards, std::string& why) {
  std::vector<const clang::ForStmt*> outers;
  for (const Guard& g : guards)
    for (const TapLoop& t : g.loops)
      if (std::find(outers.begin(), outers.end(), t.loop) == outers.end()) outers.push_back(t.loop);
  if (outers.empty()) why = "no guard (if, if-continue or ?:) inside a counted loop `for (int k = A; k < B; ++k)`";
  std::sort(outers.begin(), outers.end(), [&](const clang::ForStmt* a, const clang::ForStmt* b) {
    return src.off(a->getBeginLoc()) < src.off(b->getBeginLoc());
  });
  Plan best;
  for (const clang::ForStmt* outer : outers) {
    Plan pl = plan(ctx, src, guards, outer);
    if (pl.conds.empty()) {
      if (why.empty()) why = pl.why;  // the outermost loop's reason says most
      continue;
    }
    if (pl.edits.size() > best.edits.size()) best = pl;
  }
  return best;
}

class UnswitchBounds : public Transform {
 public:
  std::string id() const override { return "unswitch-bounds"; }
  std::string summary() const override {
    return "an interior fast path: where every tap of a window is inside the bounds, the tap guards dropped";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    const auto* fd = req.kernel;
    if (!fd->hasBody()) return TransformResult::no("the kernel has no body");
    Src src(ctx);
    std::vector<Guard> guards = guardsIn(ctx, fd->getBody());
    std::string why;
    Plan best = bestPlan(ctx, src, guards, why);
    if (!best.conds.empty()) {
      const Plan& pl = best;
      const Region& r = pl.region;
      const unsigned first = src.off(r.block->body_begin()[r.first]->getBeginLoc());
      if (!src.blankBefore(first)) return TransformResult::no("the statements to duplicate do not start their own line");
      const unsigned l0 = src.lineStart(first);
      size_t eol = src.restOfLineBlank(r.r1);
      if (eol == std::string::npos) return TransformResult::no("the last statement to duplicate shares its line with the block's end");
      const unsigned l1 = static_cast<unsigned>(eol);
      const std::string indent = src.indentOf(first);
      const std::string outer_indent = src.indentOf(src.off(r.block->getLBracLoc()));
      std::string pad = indent.size() > outer_indent.size() && indent.compare(0, outer_indent.size(), outer_indent) == 0
                            ? indent.substr(outer_indent.size())
                            : std::string("    ");
      std::string cond;
      for (const auto& c : pl.conds) cond += (cond.empty() ? "" : " && ") + c;
      const std::string text = src.slice(l0, l1);
      const std::string fast = applyEdits(src, l0, l1, pl.edits);
      std::string out = indent + "if (" + cond + ") {  // kl: every tap inside the bounds, the guards dropped\n" +
                        indentLines(fast, pad) + indent + "} else {\n" + indentLines(text, pad) + indent + "}\n";
      if (req.rewriter.ReplaceText(src.at(l0), l1 - l0, out)) return TransformResult::no("the rewriter refused the edit");
      return TransformResult::yes("interior fast path under " + cond + " (" + std::to_string(pl.edits.size()) +
                                  " guard edit" + (pl.edits.size() == 1 ? "" : "s") + ")");
    }
    return TransformResult::no(why);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    const auto* fd = req.kernel;
    if (!fd->hasBody()) return TransformResult::no("the kernel has no body");
    Src src(ctx);
    struct V : clang::RecursiveASTVisitor<V> {
      std::vector<const clang::IfStmt*> ifs;
      bool VisitIfStmt(clang::IfStmt* s) {
        if (s->getElse() && llvm::isa<clang::CompoundStmt>(s->getThen()) && llvm::isa<clang::CompoundStmt>(s->getElse()))
          ifs.push_back(s);
        return true;
      }
    } v;
    v.TraverseStmt(fd->getBody());
    for (const clang::IfStmt* is : v.ifs) {
      const auto* slow = llvm::cast<clang::CompoundStmt>(is->getElse());
      const auto* fast = llvm::cast<clang::CompoundStmt>(is->getThen());
      if (slow->body_empty() || fast->body_empty() || !src.inFile(is)) continue;
      // The else branch's statements, with its provable guards dropped, must be the then branch's.
      std::string why;
      Plan pl = bestPlan(ctx, src, guardsIn(ctx, slow), why);
      if (pl.conds.empty() || pl.region.block != slow || pl.region.first != 0) continue;
      const unsigned s0 = src.off(slow->body_front()->getBeginLoc()), s1 = src.stmtEnd(slow->body_back());
      const unsigned f0 = src.off(fast->body_front()->getBeginLoc()), f1 = src.stmtEnd(fast->body_back());
      if (squeeze(applyEdits(src, s0, s1, pl.edits)) != squeeze(src.slice(f0, f1))) continue;
      const unsigned i0 = src.off(is->getBeginLoc());
      size_t eol_if = src.restOfLineBlank(src.stmtEnd(is));
      size_t eol_s = src.restOfLineBlank(s1);
      if (!src.blankBefore(i0) || !src.blankBefore(s0) || eol_if == std::string::npos || eol_s == std::string::npos)
        continue;
      const size_t step = src.indentOf(s0).size() > src.indentOf(i0).size() ? src.indentOf(s0).size() - src.indentOf(i0).size() : 0;
      std::string back = dedentLines(src.slice(src.lineStart(s0), static_cast<unsigned>(eol_s)), step);
      const unsigned a = src.lineStart(i0);
      if (req.rewriter.ReplaceText(src.at(a), static_cast<unsigned>(eol_if) - a, back))
        return TransformResult::no("the rewriter refused the edit");
      return TransformResult::yes("the interior fast path folded back into the guarded statements");
    }
    return TransformResult::no("no `if (c) { F } else { S }` whose F is S with its provable bounds guards dropped");
  }
};

}  // namespace
std::unique_ptr<Transform> makeUnswitchBounds() { return std::make_unique<UnswitchBounds>(); }
}  // namespace klineage
