// warp-per-row: one thread per row  ->  one warp per row, its 32 lanes striding the row's loops.
//   int r = blockIdx.x * blockDim.x + threadIdx.x;         int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
//   if (r >= rows) return;                                 const int kl_lane = threadIdx.x % 32;
//   float s = 0.0f;                                        if (r >= rows) return;
//   for (int c = 0; c < cols; ++c) s += x[c];        ->    float s = 0.0f;
//   out[r] = s;                                            for (int c = 0 + kl_lane; c < cols; c += 32) s += x[c];
//                                                          for (int kl_offset = 16; ...) s += __shfl_xor_sync(~0u, s, kl_offset);
//                                                          if (kl_lane == 0) out[r] = s;
// Why it pays: neighbouring threads of the naive kernel read addresses a row apart (no load is
// coalesced, one row per thread is also too little parallelism for short row counts); a warp's
// lanes read 32 consecutive elements of one row.
// What is rewritten: the row index becomes the warp index; each top-level `for (int c = A; c < B;
// ++c)` of the row's code is strided over the lanes; a scalar the loop accumulates into (`s += e`,
// `m = fmaxf(m, e)`, fminf, max, min, fmax, fmin) is combined across the lanes after the loop
// with a butterfly of __shfl_xor_sync, so every lane holds the row's value (a first maximum and its
// column, `if (v > best) { best = v; at = c; }`, as a pair: larger value, then smaller column); a loop that stores is
// followed by __syncwarp() when code follows it (a later loop may read what another lane wrote);
// top-level statements that store outside loops run on lane 0 only.
// When it is sound: the loops' iterations are independent except for those accumulations (the
// transform refuses other assignments to variables declared outside a loop, break, goto and
// returns inside loops, barriers and warp collectives, a loop that reads the pointer it writes
// through other than at its counter (`y[c] = e; s += y[c];` reads the lane's own element; so does
// `y[R + c]` with R the same on every lane: `out[row * C + c]`),
// any other use of threadIdx/blockIdx/blockDim/gridDim, and `s +=` accumulators not
// declared with the initializer 0 or used before the loop), pointers do not overlap (the skill's
// no-overlap fact), and the block is 1-D with a multiple of 32 threads (TransformFacts: a warp never
// straddles two rows, so a warp leaves at the row guard together). Sums are reordered: floating-
// point results round differently, within the gate's tolerance. grid.x is multiplied by 32.
// Inverse: undoes exactly these edits (index / 32, kl_lane, the strided loops back to `++c`, the
// butterflies, __syncwarp and the lane-0 guards).
#include <functional>
#include <optional>
#include <map>
#include <set>

#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/literals.h"
#include "rewriter/element_guard.h"
#include "rewriter/loop_depth.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

using Src = SourceBuffer;

const char* kButterfly = "for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) ";

// The base variable a store or load goes through: x in x[c], *x, x->f (null when not a variable).
const clang::ValueDecl* baseOf(const clang::Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) return baseOf(ase->getBase());
  if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(e); uo && uo->getOpcode() == clang::UO_Deref)
    return baseOf(uo->getSubExpr());
  if (auto* me = llvm::dyn_cast<clang::MemberExpr>(e)) return baseOf(me->getBase());
  if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(e); bo && bo->isAdditiveOp())
    return baseOf(bo->getLHS()->getType()->isPointerType() ? bo->getLHS() : bo->getRHS());
  return referencedDecl(e);
}

bool isLocalArray(const clang::Expr* e) {
  auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts());
  return ase && ase->getBase()->IgnoreParenImpCasts()->getType()->isArrayType();
}

bool isMemoryLvalue(const clang::Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (llvm::isa<clang::ArraySubscriptExpr>(e)) return !isLocalArray(e);
  if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(e)) return uo->getOpcode() == clang::UO_Deref;
  if (auto* me = llvm::dyn_cast<clang::MemberExpr>(e)) return me->isArrow() || isMemoryLvalue(me->getBase());
  return false;
}

struct Accumulator {
  const clang::VarDecl* var;
  std::string combine;  // "+" or the function name (fmaxf, max, ...)
};

const std::set<std::string> kMinMax = {"fmaxf", "fminf", "fmax", "fmin", "max", "min"};

// What a statement list does: stores (and their bases), loads' bases, assignments to variables
// declared outside `inner` (with the accumulator form, if any), and what cannot be strided.
struct Scan : LoopDepthVisitor<Scan> {
  std::set<const clang::ValueDecl*> inner;  // declared inside the scanned code
  std::set<const clang::ValueDecl*> stored_bases, loaded_bases;
  // The strided loop's counter (null outside one), and the bases accessed at any other index than
  // the lane's own element (*p, p[c - 1], p[2 * c]): only those can reach another lane's element.
  const clang::VarDecl* counter = nullptr;
  clang::ASTContext* actx = nullptr;
  const clang::Stmt* kernel_body = nullptr;
  std::set<const clang::ValueDecl*> off_counter_bases;
  const clang::Stmt* loop_stmt = nullptr;  // the strided loop's body (null outside one)
  // `c`, or `R + c` with R the same on every lane of the row (ast_util's counterIndex).
  bool ownElement(const clang::Expr* idx) const {
    const clang::Expr* r = nullptr;
    return actx && counterIndex(*actx, kernel_body, loop_stmt, idx, counter, &r);
  }
  // Per base, the index texts of its accesses: one lane's element only while they are all the same
  // (y[R + c] stored and y[R + c + 1] read is another lane's).
  std::map<const clang::ValueDecl*, std::set<std::string>> index_texts;
  void access(const clang::Expr* e) {
    auto* b = baseOf(e);
    if (!b) return;
    auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts());
    if (!counter || !ase || !ownElement(ase->getIdx())) off_counter_bases.insert(b);
    else if (actx && index_texts[b].insert(squeeze(sourceText(*actx, ase->getIdx()->getSourceRange()))).second &&
             index_texts[b].size() > 1)
      off_counter_bases.insert(b);
  }
  std::set<const clang::Expr*> store_lhs;   // not loads
  bool loop_body = false;                   // scanning the body of the loop being strided
  std::vector<std::pair<const clang::VarDecl*, std::string>> outer_updates;  // var, combine ("" = not a reduction)
  bool stores = false;
  std::string why;
  bool fail(std::string w) {
    if (why.empty()) why = std::move(w);
    return false;
  }
  bool VisitVarDecl(clang::VarDecl* vd) {
    inner.insert(vd);
    if (vd->hasAttr<clang::CUDASharedAttr>() || vd->isStaticLocal()) return fail("the row's code declares shared or static variables");
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* c) {
    std::string n = calleeName(c);
    if (auto k = intrinsicKind(n); k && *k != IntrinsicKind::Atomic)
      return fail("the row's code calls " + n + " (" + describe(*k) + ")");
    if (auto k = intrinsicKind(n); k && *k == IntrinsicKind::Atomic) stores = true;
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    if (isBuiltinGeometry(e->getDecl()->getNameAsString()))
      return fail("the row's code uses " + e->getDecl()->getNameAsString() + " besides the row index");
    if (e->getDecl()->getNameAsString().rfind("kl_", 0) == 0) return fail("the row's code already uses kl_ names");
    return true;
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
    if (store_lhs.count(e)) return true;
    if (auto* b = baseOf(e)) loaded_bases.insert(b);
    access(e);
    return true;
  }
  void target(const clang::Expr* lhs, const clang::Expr* whole) {
    if (isLocalArray(lhs)) {
      auto* arr = baseOf(lhs);
      if (!arr || !inner.count(arr)) fail("the row's code fills the local array " + (arr ? arr->getNameAsString() : "") +
                                          " element by element (each lane would fill only its part)");
      return;
    }
    if (isMemoryLvalue(lhs)) {
      store_lhs.insert(lhs->IgnoreParenImpCasts());
      stores = true;
      if (auto* b = baseOf(lhs)) stored_bases.insert(b);
      access(lhs);
      return;
    }
    auto* vd = llvm::dyn_cast_or_null<clang::VarDecl>(referencedDecl(lhs));
    if (!vd || inner.count(vd)) return;
    outer_updates.push_back({vd, reductionForm(vd, whole)});
  }
  // "+" for v += e, the function for v = f(v, e) / f(e, v) with f a min/max; "" otherwise.
  static std::string reductionForm(const clang::VarDecl* v, const clang::Expr* whole) {
    if (auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(whole))
      return ca->getOpcode() == clang::BO_AddAssign && !usesDecl(ca->getRHS(), v) ? "+" : "";
    auto* bo = llvm::dyn_cast<clang::BinaryOperator>(whole);
    if (!bo || bo->getOpcode() != clang::BO_Assign) return "";
    auto* call = llvm::dyn_cast<clang::CallExpr>(bo->getRHS()->IgnoreParenImpCasts());
    if (!call || call->getNumArgs() != 2 || !kMinMax.count(calleeName(call))) return "";
    bool a0 = referencedDecl(call->getArg(0)) == v, a1 = referencedDecl(call->getArg(1)) == v;
    if (a0 == a1) return "";
    if (usesDecl(call->getArg(a0 ? 1 : 0), v)) return "";
    return calleeName(call);
  }
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    if (bo->isAssignmentOp()) target(bo->getLHS(), bo);
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->isIncrementDecrementOp()) target(uo->getSubExpr(), uo);
    if (uo->getOpcode() == clang::UO_AddrOf && !isMemoryLvalue(uo->getSubExpr()))
      return fail("the row's code takes the address of a variable");
    return true;
  }
  bool VisitBreakStmt(clang::BreakStmt*) {
    return loops || switches || !loop_body ? true : fail("a row loop has a break");
  }
  bool VisitReturnStmt(clang::ReturnStmt*) { return loops || loop_body ? fail("a row loop returns") : true; }
  bool VisitGotoStmt(clang::GotoStmt*) { return fail("the row's code uses goto"); }
};

// A declaration of constants only: each variable non-static, not shared, not volatile, with an
// initializer the compiler folds and that has no side effects.
bool constantDecl(clang::ASTContext& ctx, const clang::Stmt* s) {
  auto* d = llvm::dyn_cast<clang::DeclStmt>(s);
  if (!d) return false;
  for (const clang::Decl* x : d->decls()) {
    auto* v = llvm::dyn_cast<clang::VarDecl>(x);
    if (!v || !v->isLocalVarDecl() || v->isStaticLocal() || v->hasAttr<clang::CUDASharedAttr>() ||
        v->getType().isVolatileQualified() || !v->getInit() || v->getInit()->isValueDependent() ||
        v->getInit()->HasSideEffects(ctx))
      return false;
    clang::Expr::EvalResult r;
    if (!v->getInit()->EvaluateAsRValue(r, ctx)) return false;
  }
  return true;
}

// The first-maximum update of a row loop, `if (v > best) { best = v; at = c; }` (or `best < v`; the
// two assignments in either order; v an expression without side effects): best and at, combined
// across lanes by value, then by the smaller column (strict `>` keeps the first maximum).
struct ArgMax {
  const clang::VarDecl* best = nullptr;
  const clang::VarDecl* at = nullptr;
};

std::optional<ArgMax> argMaxUpdate(clang::ASTContext& ctx, const clang::Stmt* body, const clang::VarDecl* counter) {
  std::vector<const clang::Stmt*> st;
  if (auto* cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(body)) st.assign(cs->body_begin(), cs->body_end());
  else if (body) st.push_back(body);
  for (const clang::Stmt* x : st) {
    auto* g = llvm::dyn_cast<clang::IfStmt>(x);
    auto* c = g ? llvm::dyn_cast<clang::BinaryOperator>(g->getCond()->IgnoreParenImpCasts()) : nullptr;
    if (!c || g->getElse() || g->getInit() || g->getConditionVariable()) continue;
    const clang::Expr* v = nullptr;
    const clang::VarDecl* best = nullptr;
    if (c->getOpcode() == clang::BO_GT) {
      v = c->getLHS();
      best = llvm::dyn_cast_or_null<clang::VarDecl>(referencedDecl(c->getRHS()));
    } else if (c->getOpcode() == clang::BO_LT) {
      v = c->getRHS();
      best = llvm::dyn_cast_or_null<clang::VarDecl>(referencedDecl(c->getLHS()));
    }
    if (!best || !llvm::isa<clang::DeclRefExpr>((c->getOpcode() == clang::BO_GT ? c->getRHS() : c->getLHS())->IgnoreParenImpCasts()) ||
        v->HasSideEffects(ctx) || usesDecl(v, best) || !best->getType()->isArithmeticType())
      continue;
    auto* then = llvm::dyn_cast<clang::CompoundStmt>(g->getThen());
    if (!then || then->size() != 2) continue;
    ArgMax m;
    bool value_set = false;
    for (const clang::Stmt* a : then->body()) {
      auto* b = llvm::dyn_cast<clang::BinaryOperator>(a);
      if (!b || b->getOpcode() != clang::BO_Assign) break;
      auto* lhs = llvm::dyn_cast_or_null<clang::VarDecl>(referencedDecl(b->getLHS()));
      if (!lhs || !llvm::isa<clang::DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts())) break;
      if (lhs == best && squeeze(sourceText(ctx, b->getRHS()->getSourceRange())) == squeeze(sourceText(ctx, v->getSourceRange()))) {
        value_set = true;
      } else if (lhs != best && lhs->getType()->isIntegerType() && referencedDecl(b->getRHS()) == counter &&
                 llvm::isa<clang::DeclRefExpr>(b->getRHS()->IgnoreParenImpCasts())) {
        m.at = lhs;
      }
    }
    if (!value_set || !m.at) continue;
    m.best = best;
    return m;
  }
  return std::nullopt;
}

// `for (int c = A; c < B; ++c)`: the counter, or null.
const clang::VarDecl* columnLoop(const clang::ForStmt* fs) {
  auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(fs->getInit());
  auto* vd = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
  if (!vd || !vd->getInit() || !vd->getType()->isIntegerType() || !fs->getCond() || !fs->getInc()) return nullptr;
  auto* cond = llvm::dyn_cast<clang::BinaryOperator>(fs->getCond()->IgnoreParenImpCasts());
  if (!cond || cond->getOpcode() != clang::BO_LT || referencedDecl(cond->getLHS()) != vd ||
      usesDecl(cond->getRHS(), vd))
    return nullptr;
  const clang::Expr* inc = fs->getInc()->IgnoreParens();
  if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(inc))
    return uo->isIncrementOp() && referencedDecl(uo->getSubExpr()) == vd ? vd : nullptr;
  if (auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(inc)) {
    auto* lit = llvm::dyn_cast<clang::IntegerLiteral>(ca->getRHS()->IgnoreParenImpCasts());
    return ca->getOpcode() == clang::BO_AddAssign && referencedDecl(ca->getLHS()) == vd && lit && lit->getValue() == 1
               ? vd
               : nullptr;
  }
  return nullptr;
}

class WarpPerRow : public Transform {
 public:
  std::string id() const override { return "warp-per-row"; }
  std::string summary() const override {
    return "one thread per row -> one warp per row: row loops strided over the lanes, accumulators combined with shuffles";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body || body->size() < 2) return TransformResult::no("the kernel is not `T r = <global index>; <row guard>; ...`");
    std::vector<const clang::Stmt*> all(body->body_begin(), body->body_end());
    // Constants declared before the row index or between it and the guard (`const float eps =
    // 1e-5f;`) are the same on every lane: they stay where they are.
    size_t lead = 0;
    while (lead < all.size() && constantDecl(ctx, all[lead])) ++lead;
    std::vector<const clang::Stmt*> top(all.begin() + static_cast<long>(lead), all.end());
    if (top.size() >= 2 && constantDecl(ctx, top[1])) {
      size_t g = 1;
      while (g < top.size() && constantDecl(ctx, top[g])) ++g;
      top.erase(top.begin() + 1, top.begin() + static_cast<long>(g));
    }
    if (top.size() < 2) return TransformResult::no("the kernel is not `T r = <global index>; <row guard>; ...`");
    auto* ds = llvm::dyn_cast<clang::DeclStmt>(top[0]);
    auto* rv = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
    if (!rv || !rv->getInit() || !rv->getType()->isIntegerType() || !isGlobalThreadIndex(ctx, rv->getInit()))
      return TransformResult::no("the body does not start with `T r = blockIdx.x * blockDim.x + threadIdx.x;`");
    auto* guard = llvm::dyn_cast<clang::IfStmt>(top[1]);
    auto* cond = guard ? llvm::dyn_cast<clang::BinaryOperator>(guard->getCond()->IgnoreParenImpCasts()) : nullptr;
    if (!guard || !cond || guard->getElse() || referencedDecl(cond->getLHS()) != rv ||
        usesDecl(cond->getRHS(), rv))
      return TransformResult::no("the row index is not followed by a row guard `if (r >= rows) return;` or `if (r < rows) {...}`");
    std::vector<const clang::Stmt*> rows;
    if (cond->getOpcode() == clang::BO_GE) {
      const clang::Stmt* then = guard->getThen();
      if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(then); cs && cs->size() == 1) then = cs->body_front();
      auto* ret = llvm::dyn_cast<clang::ReturnStmt>(then);
      if (!ret || ret->getRetValue()) return TransformResult::no("the row guard `r >= rows` is not followed by a plain return");
      rows.assign(top.begin() + 2, top.end());
    } else if (cond->getOpcode() == clang::BO_LT && top.size() == 2) {
      auto* cs = llvm::dyn_cast<clang::CompoundStmt>(guard->getThen());
      if (!cs) return TransformResult::no("the row guard's body is not a block");
      rows.assign(cs->body_begin(), cs->body_end());
    } else {
      return TransformResult::no("the row guard is not `if (r >= rows) return;` or a last `if (r < rows) {...}`");
    }
    if (rows.empty()) return TransformResult::no("nothing is done per row");
    auto shape = req.facts.shape();
    if (!shape) return TransformResult::no("no single block shape is known for every launch of the kernel");
    if (shape->y != 1 || shape->z != 1 || shape->x % 32 != 0)
      return TransformResult::no("the block (" + dimText(*shape) + ") is not 1-D with a multiple of 32 threads");
    if (!src.inFile(ds) || !src.inFile(guard)) return TransformResult::no("the row index or guard is written through a macro");

    const long long unroll = intParam(req.params, "unroll", 1);
    if (unroll < 1 || unroll > 16) return TransformResult::no("unroll must be 1..16");
    // Plan the edits first; nothing is written unless every statement can be handled.
    struct Edit {
      unsigned at, len;
      std::string text;
    };
    std::vector<Edit> edits;
    std::set<const clang::ValueDecl*> declared_before;  // top-level variables seen so far
    for (const clang::Stmt* st : all)
      if (constantDecl(ctx, st) && st != guard)
        for (auto* x : llvm::cast<clang::DeclStmt>(st)->decls()) declared_before.insert(llvm::cast<clang::VarDecl>(x));
    std::set<const clang::ValueDecl*> used_since_decl;  // referenced after their declaration, before a loop
    unsigned strided = 0;
    for (size_t k = 0; k < rows.size(); ++k) {
      const clang::Stmt* s = rows[k];
      if (!src.inFile(s)) return TransformResult::no("the row's code is written through a macro");
      auto* fs = llvm::dyn_cast<clang::ForStmt>(s);
      Scan scan;
      scan.actx = &ctx;
      scan.kernel_body = body;
      scan.loop_body = fs != nullptr;
      scan.loop_stmt = fs ? fs->getBody() : nullptr;
      scan.counter = fs ? columnLoop(fs) : nullptr;
      scan.TraverseStmt(const_cast<clang::Stmt*>(fs ? fs->getBody() : s));
      if (!scan.why.empty()) return TransformResult::no(scan.why);
      if (auto* d = llvm::dyn_cast<clang::DeclStmt>(s)) {
        for (auto* x : d->decls())
          if (auto* vd = llvm::dyn_cast<clang::VarDecl>(x)) declared_before.insert(vd);
        if (scan.stores) return TransformResult::no("a declaration in the row's code stores to memory");
        continue;
      }
      if (!fs) {
        for (const auto* v : declared_before)
          if (usesDecl(s, v)) used_since_decl.insert(v);
        if (!scan.stores) continue;
        if (!scan.outer_updates.empty())
          return TransformResult::no("a statement both stores to memory and assigns " +
                                     scan.outer_updates[0].first->getNameAsString());
        unsigned a = src.off(s->getBeginLoc());
        edits.push_back({a, 0, "if (kl_lane == 0) "});
        continue;
      }
      const clang::VarDecl* c = columnLoop(fs);
      if (!c) return TransformResult::no("a top-level loop is not `for (int c = A; c < B; ++c)`");
      if (!src.inFile(fs->getInit()) || !src.inFile(fs->getInc()))
        return TransformResult::no("a row loop is written through a macro");
      // A loop that reads what it stores through could read another lane's element (y[c - 1]).
      // Read back at exactly the counter (y[c] = ...; s += y[c]), an element is the lane's own.
      for (const auto* b : scan.stored_bases)
        if (scan.loaded_bases.count(b) && scan.off_counter_bases.count(b))
          return TransformResult::no("a row loop reads " + b->getNameAsString() + ", which it stores to");
      std::vector<Accumulator> accs;
      const std::optional<ArgMax> argmax = argMaxUpdate(ctx, fs->getBody(), c);
      for (auto [v, form] : scan.outer_updates) {
        if (v == c) return TransformResult::no("a row loop's body changes its counter " + c->getNameAsString());
        if (argmax && v == argmax->at) continue;  // combined with its value
        if (argmax && v == argmax->best) form = "argmax";
        if (form.empty())
          return TransformResult::no("a row loop assigns " + v->getNameAsString() +
                                     ", declared outside it, other than as a sum or a min/max (or a first maximum and its column)");
        bool seen = false;
        for (const auto& a : accs) seen |= a.var == v && a.combine == form;
        if (!seen) accs.push_back({v, form});
      }
      for (const auto& a : accs) {
        if (a.combine != "+") continue;
        if (!declared_before.count(a.var) || !a.var->getInit() || !isZeroLiteral(a.var->getInit()) ||
            used_since_decl.count(a.var))
          return TransformResult::no("the sum " + a.var->getNameAsString() +
                                     " does not start from 0 right before its loop (each lane's part must start at 0)");
      }
      for (const auto& a : accs) used_since_decl.insert(a.var);
      // counter start + kl_lane, step 32
      const clang::Expr* start = c->getInit();
      const clang::Expr* plain = start->IgnoreParenImpCasts();
      bool simple = llvm::isa<clang::IntegerLiteral>(plain) || llvm::isa<clang::DeclRefExpr>(plain);
      unsigned s0 = src.off(start->getBeginLoc()), s1 = src.tokEnd(start->getEndLoc());
      if (simple) {
        edits.push_back({s1, 0, " + kl_lane"});
      } else {
        edits.push_back({s0, 0, "("});
        edits.push_back({s1, 0, ") + kl_lane"});
      }
      unsigned i0 = src.off(fs->getInc()->getBeginLoc()), i1 = src.tokEnd(fs->getInc()->getEndLoc());
      edits.push_back({i0, i1 - i0, c->getNameAsString() + " += 32"});
      ++strided;
      std::string after;
      std::string indent = src.indentOf(src.off(fs->getBeginLoc()));
      // Unrolled, a lane issues `unroll` independent loads of its row before their use: one load
      // in flight per lane leaves DRAM bandwidth unused (the order of the updates is unchanged).
      if (unroll > 1 && src.blankBefore(src.off(fs->getBeginLoc())))
        edits.push_back({src.off(fs->getBeginLoc()), 0, "#pragma unroll " + std::to_string(unroll) + "\n" + indent});
      for (const auto& a : accs) {
        std::string v = a.var->getNameAsString();
        std::string shfl = "__shfl_xor_sync(0xffffffffu, " + v + ", kl_offset)";
        if (a.combine == "argmax") {
          // The larger value, on a tie the smaller column: every lane ends with the row's first maximum.
          const std::string i = argmax->at->getNameAsString();
          const std::string T = a.var->getType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
          const std::string I = argmax->at->getType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
          after += "\n" + indent + kButterfly + "{ const " + T + " kl_v = " + shfl + "; const " + I +
                   " kl_i = __shfl_xor_sync(0xffffffffu, " + i + ", kl_offset); if (kl_v > " + v + " || (kl_v == " + v +
                   " && kl_i < " + i + ")) { " + v + " = kl_v; " + i + " = kl_i; } }";
          continue;
        }
        after += "\n" + indent + kButterfly +
                 (a.combine == "+" ? v + " += " + shfl : v + " = " + a.combine + "(" + v + ", " + shfl + ")") + ";";
      }
      if (scan.stores && k + 1 < rows.size()) after += "\n" + indent + "__syncwarp();";
      if (!after.empty()) edits.push_back({src.stmtEnd(fs), 0, after});
    }
    if (!strided) return TransformResult::no("the row's code has no `for (int c = A; c < B; ++c)` loop to stride");

    unsigned r0 = src.off(rv->getInit()->getBeginLoc()), r1 = src.tokEnd(rv->getInit()->getEndLoc());
    edits.push_back({r0, 0, "("});
    edits.push_back({r1, 0, ") / 32"});
    edits.push_back({src.stmtEnd(ds), 0, "\n" + src.indentOf(src.off(ds->getBeginLoc())) + "const int kl_lane = threadIdx.x % 32;"});
    for (const Edit& e : edits) {
      bool bad = e.len ? req.rewriter.ReplaceText(src.at(e.at), e.len, e.text)
                       : req.rewriter.InsertTextAfter(src.at(e.at), e.text);
      if (bad) return TransformResult::no("the rewriter refused the edit");
    }
    GeometryChange geo;
    geo.grid_x_multiplier = 32;
    return TransformResult::yes("one warp per row: " + std::to_string(strided) + " row loop(s) strided over 32 lanes, grid.x * 32",
                                geo);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body || body->size() < 3) return TransformResult::no("the kernel is not a warp-per-row kernel this transform emits");
    auto* ds = llvm::dyn_cast<clang::DeclStmt>(body->body_front());
    auto* rv = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
    auto* div = rv && rv->getInit() ? llvm::dyn_cast<clang::BinaryOperator>(rv->getInit()->IgnoreImpCasts()) : nullptr;
    auto* paren = div ? llvm::dyn_cast<clang::ParenExpr>(div->getLHS()->IgnoreImpCasts()) : nullptr;
    if (!div || div->getOpcode() != clang::BO_Div || !paren || !isGlobalThreadIndex(ctx, paren->getSubExpr()))
      return TransformResult::no("the row index is not `(<global index>) / 32`");
    auto* lane_ds = llvm::dyn_cast<clang::DeclStmt>(*(body->body_begin() + 1));
    auto* lane = lane_ds && lane_ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(lane_ds->getSingleDecl()) : nullptr;
    if (!lane || lane->getNameAsString() != "kl_lane") return TransformResult::no("no `kl_lane` after the row index");
    auto& rw = req.rewriter;
    auto removeLine = [&](const clang::Stmt* s) {
      unsigned a = src.lineStart(src.off(s->getBeginLoc()));
      unsigned e = src.stmtEnd(s);
      size_t eol = src.restOfLineBlank(e);
      rw.RemoveText(src.at(a), (eol == std::string::npos ? e : static_cast<unsigned>(eol)) - a);
    };
    // the index: drop "(" and ") / 32"
    unsigned p0 = src.off(paren->getBeginLoc()), p1 = src.off(paren->getRParen());
    rw.RemoveText(src.at(p0), 1);
    rw.RemoveText(src.at(p1), src.tokEnd(rv->getInit()->getEndLoc()) - p1);
    removeLine(lane_ds);
    unsigned loops = 0;
    std::function<void(const clang::Stmt*)> walk = [&](const clang::Stmt* s) {
      if (!s) return;
      if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(s)) {
        for (const clang::Stmt* x : cs->body()) walk(x);
        return;
      }
      if (auto* is = llvm::dyn_cast<clang::IfStmt>(s)) {
        auto* c = llvm::dyn_cast<clang::BinaryOperator>(is->getCond()->IgnoreParenImpCasts());
        if (c && c->getOpcode() == clang::BO_EQ && referencedDecl(c->getLHS()) == lane) {
          unsigned a = src.off(is->getBeginLoc()), b = src.off(is->getThen()->getBeginLoc());
          rw.RemoveText(src.at(a), b - a);
          return;
        }
        walk(is->getThen());
        return;
      }
      if (auto* ce = llvm::dyn_cast<clang::CallExpr>(s); ce && calleeName(ce) == "__syncwarp") {
        removeLine(s);
        return;
      }
      // A strided loop written with `#pragma unroll N` (the unroll param) is an AttributedStmt.
      if (auto* attributed = llvm::dyn_cast<clang::AttributedStmt>(s)) s = attributed->getSubStmt();
      auto* fs = llvm::dyn_cast<clang::ForStmt>(s);
      if (!fs) return;
      auto* ids = llvm::dyn_cast_or_null<clang::DeclStmt>(fs->getInit());
      auto* c = ids && ids->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ids->getSingleDecl()) : nullptr;
      if (c && c->getNameAsString() == "kl_offset") {
        removeLine(fs);
        return;
      }
      auto* add = c && c->getInit() ? llvm::dyn_cast<clang::BinaryOperator>(c->getInit()->IgnoreImpCasts()) : nullptr;
      if (!add || add->getOpcode() != clang::BO_Add || referencedDecl(add->getRHS()) != lane) return;
      const clang::Expr* start = add->getLHS()->IgnoreImpCasts();
      unsigned a0 = src.off(add->getBeginLoc()), a1 = src.tokEnd(add->getEndLoc());
      std::string st = sourceText(ctx, start->getSourceRange());
      if (auto* pe = llvm::dyn_cast<clang::ParenExpr>(start)) st = sourceText(ctx, pe->getSubExpr()->getSourceRange());
      rw.ReplaceText(src.at(a0), a1 - a0, st);
      unsigned i0 = src.off(fs->getInc()->getBeginLoc()), i1 = src.tokEnd(fs->getInc()->getEndLoc());
      rw.ReplaceText(src.at(i0), i1 - i0, "++" + c->getNameAsString());
      // the `#pragma unroll N` line forward wrote right before the loop
      const unsigned line = src.lineStart(src.off(fs->getBeginLoc()));
      if (line > 0) {
        const unsigned prev = src.lineStart(line - 1);
        const std::string text = src.slice(prev, line - 1);
        const size_t first = text.find_first_not_of(" \t");
        if (first != std::string::npos && text.compare(first, 15, "#pragma unroll ") == 0)
          rw.RemoveText(src.at(prev), line - prev);
      }
      ++loops;
    };
    for (auto it = body->body_begin() + 2; it != body->body_end(); ++it) walk(*it);
    if (!loops) return TransformResult::no("no row loop strided over kl_lane");
    GeometryChange geo;
    geo.grid_x_divisor = 32;  // forward's grid.x * 32 undone: a thread per row again
    return TransformResult::yes("one thread per row again, grid.x / 32", geo);
  }
};

}  // namespace
std::unique_ptr<Transform> makeWarpPerRow() { return std::make_unique<WarpPerRow>(); }
}  // namespace klineage
