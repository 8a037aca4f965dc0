// block-scan-shuffle: a block's Hillis-Steele inclusive scan in shared memory becomes warp shuffles.
//   SH[U + tid] = E;                                 T kl_v = E;  // the block's inclusive scan: ...
//   __syncthreads();                                 {  each warp scans its 32 values with __shfl_up_sync,
//   for (int off = 1; off < L; off *= 2) {     ->       the warps' totals go through kl_warp[32], warp 0
//     ... SH[.. + tid] += SH[.. + tid - off] ...        scans them, every warp adds the ones before it
//     __syncthreads();                               }
//   }                                                ... SH[W + tid] after the loop reads kl_v ...
//   ... = SH[W + tid];
// Why it pays: Hillis-Steele takes log2(block) steps, each one or two barriers and a shared-memory
// round trip for every thread (a 1024-thread block: 10 steps, 10 to 20 barriers). A shuffle scan
// keeps each warp's scan in registers (5 shuffles, no barrier) and needs two barriers per block.
// Recognized steps (off any integer variable from 1, doubled by `*= 2`, `<<= 1`, `off = off * 2`,
// `+= off`; `off < L` or `off <= L`, L anything without tid or off): the double buffer of the
// textbook (GPU Gems' pout/pin: `if (tid >= off) SH[P + tid] = SH[Q + tid] + SH[Q + tid - off]; else
// SH[P + tid] = SH[Q + tid]; __syncthreads();`, P and Q different block-uniform offsets, any integer
// bookkeeping before), and any single-buffer step that computes SH[tid] + SH[tid - off] without a
// race, judged by running it symbolically (singleBuffer: temporaries, the `tid >= off` test as `if`
// or `?:`, barriers first or last). The store before the loop is `SH[X + tid] = E;` or an if/else of
// two such stores. tid is threadIdx.x or a local initialized from it and never written.
// When it is sound: every thread reaches the load, the barrier and the loop (statements of the
// kernel's body); the block is 1-D with a multiple of 32 threads up to 1024 (TransformFacts::shape();
// the skill requires uniform-block-size: full warps for the full shuffle mask); after the loop the
// kernel only reads SH at its own thread's slot (`SH[W + tid]`), which becomes the scanned value, and
// the loop's bookkeeping variables only inside those reads. The scan the rewrite computes covers the
// block's threads: a loop bound L other than the block size, or a double buffer whose roles do not
// alternate, computes something else, which the gate's comparison with the original rejects. A
// floating-point sum is reassociated (the gate's numerics judge it); integer scans are exact.
// Inverse: recognizes exactly the text forward writes (rebuilt from its parts and compared) and
// writes the single-buffer Hillis-Steele scan over a `__shared__ T kl_scan[block]` of its own; the
// later reads of kl_v read kl_scan[tid] again.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/literals.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

using cuda::isBuiltinMember;
using cuda::isIntLiteral;
using cuda::isSyncthreads;
using cuda::stripIndexCasts;
using cuda::varOf;

// Names the rewrite introduces; a kernel that declares one outside the scan it replaces is refused.
const char* const kNames[] = {"kl_v", "kl_o", "kl_t", "kl_w", "kl_warp", "kl_off", "kl_items", "kl_j", "kl_x"};
const char* const kScanArray = "kl_scan";  // the inverse's array, removed again by forward

bool fail(std::string& why, const std::string& w) {
  if (why.empty()) why = w;
  return false;
}

const clang::Stmt* single(const clang::Stmt* s) {
  if (auto* cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(s); cs && cs->size() == 1) return cs->body_front();
  return s;
}

// A subscript of SH as `rest + tid` or `rest + tid - off` (terms in any order); rest, the other
// terms' squeezed text, tells the buffers of a double buffer apart.
struct Index {
  std::string rest;
  bool minus_off = false;
  std::string tid;  // tid as written: threadIdx.x or the local's name
};

struct Mentions : clang::RecursiveASTVisitor<Mentions> {
  const clang::VarDecl* a = nullptr;
  const clang::VarDecl* b = nullptr;
  bool thread_idx = false, found = false;
  bool VisitDeclRefExpr(clang::DeclRefExpr* d) {
    if (d->getDecl() == a || d->getDecl() == b || (thread_idx && d->getDecl()->getName() == "threadIdx")) found = true;
    return !found;
  }
};

class ScanMatcher {
 public:
  ScanMatcher(clang::ASTContext& ctx, const clang::CompoundStmt* body) : ctx_(ctx), body_(body) {}

  // tid: threadIdx.x, or a local initialized from it that the kernel never writes.
  bool isTid(const clang::Expr* e, std::string* text = nullptr) const {
    const clang::VarDecl* v = nullptr;
    if (!cuda::isThreadIndexX(ctx_, body_, e, text, &v)) return false;
    if (v) tid_var_ = v;
    return true;
  }

  std::optional<Index> index(const clang::Expr* e, const clang::VarDecl* off) const {
    std::vector<std::pair<bool, const clang::Expr*>> ts;
    terms(e, false, ts);
    int ntid = 0;
    Index ix;
    std::vector<std::string> rest;
    for (auto [neg, t] : ts) {
      if (isTid(t, &ix.tid)) {
        if (neg) return std::nullopt;
        ++ntid;
        continue;
      }
      if (off && varOf(t) == off) {
        if (!neg || ix.minus_off) return std::nullopt;
        ix.minus_off = true;
        continue;
      }
      Mentions m;
      m.a = off;
      m.b = tid_var_;
      m.thread_idx = true;
      m.TraverseStmt(const_cast<clang::Expr*>(t));
      if (m.found) return std::nullopt;
      rest.push_back((neg ? "-" : "+") + squeeze(sourceText(ctx_, t->getSourceRange())));
    }
    if (ntid != 1) return std::nullopt;
    std::sort(rest.begin(), rest.end());
    for (const auto& r : rest) ix.rest += r;
    return ix;
  }

  // SH[index] (SH set on first use).
  std::optional<Index> access(const clang::Expr* e, const clang::VarDecl*& sh, const clang::VarDecl* off) const {
    auto* a = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(e ? e->IgnoreParenImpCasts() : nullptr);
    if (!a) return std::nullopt;
    const clang::VarDecl* base = varOf(a->getBase());
    if (!base || (sh && base != sh)) return std::nullopt;
    auto ix = index(a->getIdx(), off);
    if (ix) sh = base;
    return ix;
  }

  // `tid >= off` or `off <= tid` (want_ge) / `tid < off` or `off > tid` (!want_ge).
  bool isActive(const clang::Expr* c, const clang::VarDecl* off, bool want_ge) const {
    auto* b = llvm::dyn_cast<clang::BinaryOperator>(c->IgnoreParenImpCasts());
    if (!b) return false;
    const auto op = b->getOpcode();
    if (isTid(b->getLHS()) && varOf(b->getRHS()) == off) return op == (want_ge ? clang::BO_GE : clang::BO_LT);
    if (varOf(b->getLHS()) == off && isTid(b->getRHS())) return op == (want_ge ? clang::BO_LE : clang::BO_GT);
    return false;
  }

  const clang::VarDecl* tidVar() const { return tid_var_; }

 private:
  void terms(const clang::Expr* e, bool neg, std::vector<std::pair<bool, const clang::Expr*>>& out) const {
    const clang::Expr* x = stripIndexCasts(e);
    if (auto* b = llvm::dyn_cast<clang::BinaryOperator>(x); b && (b->getOpcode() == clang::BO_Add || b->getOpcode() == clang::BO_Sub)) {
      terms(b->getLHS(), neg, out);
      terms(b->getRHS(), b->getOpcode() == clang::BO_Sub ? !neg : neg, out);
      return;
    }
    out.push_back({neg, x});
  }

  clang::ASTContext& ctx_;
  const clang::CompoundStmt* body_;
  mutable const clang::VarDecl* tid_var_ = nullptr;
};

struct Scan {
  size_t load = 0;     // statement index of the store before the loop (`SH[X] = E;`)
  size_t loop_at = 0;  // the loop's (after the store, or after the store's barrier)
  std::string value_text;  // E as the variant writes it
  const clang::VarDecl* sh = nullptr;
  const clang::VarDecl* off = nullptr;
  const clang::Expr* value = nullptr;  // E, or the condition of a store written as if/else
  std::vector<const clang::VarDecl*> bookkeeping;  // integer locals the loop assigns (pout, pin)
  std::string tid;
};

// `for (int off = 1; off < L; <doubling>)`.
bool loopHeader(const clang::ForStmt* f, Scan& s, std::string& why) {
  auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(f->getInit());
  auto* off = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
  if (!off || !off->getType()->isIntegerType() || !off->getInit() || !isIntLiteral(off->getInit(), 1))
    return fail(why, "the loop does not start its offset at 1 (`for (int off = 1; ...)`)");
  auto* c = llvm::dyn_cast_or_null<clang::BinaryOperator>(f->getCond() ? f->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!c || (c->getOpcode() != clang::BO_LT && c->getOpcode() != clang::BO_LE) || varOf(c->getLHS()) != off)
    return fail(why, "the loop's condition is not `off < L` (or `off <= L`)");
  Mentions mt;
  mt.a = off;
  mt.thread_idx = true;
  mt.TraverseStmt(c->getRHS());
  if (mt.found || c->getRHS()->HasSideEffects(off->getASTContext(), /*IncludePossibleEffects=*/false))
    return fail(why, "the loop's bound depends on the thread or the offset");
  const clang::Expr* inc = llvm::dyn_cast_or_null<clang::Expr>(f->getInc());
  bool doubles = false;
  if (auto* ca = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(inc); ca && varOf(ca->getLHS()) == off) {
    doubles = (ca->getOpcode() == clang::BO_MulAssign && isIntLiteral(ca->getRHS(), 2)) ||
              (ca->getOpcode() == clang::BO_ShlAssign && isIntLiteral(ca->getRHS(), 1)) ||
              (ca->getOpcode() == clang::BO_AddAssign && varOf(ca->getRHS()) == off);
  } else if (auto* as = llvm::dyn_cast_or_null<clang::BinaryOperator>(inc);
             as && as->getOpcode() == clang::BO_Assign && varOf(as->getLHS()) == off) {
    auto* r = llvm::dyn_cast<clang::BinaryOperator>(stripIndexCasts(as->getRHS()));
    if (r && r->getOpcode() == clang::BO_Mul)
      doubles = (varOf(r->getLHS()) == off && isIntLiteral(r->getRHS(), 2)) || (varOf(r->getRHS()) == off && isIntLiteral(r->getLHS(), 2));
    else if (r && r->getOpcode() == clang::BO_Shl)
      doubles = varOf(r->getLHS()) == off && isIntLiteral(r->getRHS(), 1);
  }
  if (!doubles) return fail(why, "the loop does not double its offset");
  s.off = off;
  return true;
}

// `SH[P] = SH[Q] + SH[Q - off]` (the sum's operands in either order).
bool isAddStep(const ScanMatcher& m, const clang::Stmt* st, Scan& s, Index& p, Index& q) {
  auto* b = llvm::dyn_cast_or_null<clang::BinaryOperator>(single(st));
  if (!b || b->getOpcode() != clang::BO_Assign) return false;
  auto w = m.access(b->getLHS(), s.sh, s.off);
  auto* add = llvm::dyn_cast<clang::BinaryOperator>(b->getRHS()->IgnoreParenImpCasts());
  if (!w || w->minus_off || !add || add->getOpcode() != clang::BO_Add) return false;
  auto l = m.access(add->getLHS(), s.sh, s.off), r = m.access(add->getRHS(), s.sh, s.off);
  if (!l || !r || l->minus_off == r->minus_off || l->rest != r->rest) return false;
  p = *w;
  q = *l;
  return true;
}

// `SH[P] = SH[Q]`.
bool isCopyStep(const ScanMatcher& m, const clang::Stmt* st, Scan& s, const Index& p, const Index& q) {
  auto* b = llvm::dyn_cast_or_null<clang::BinaryOperator>(single(st));
  if (!b || b->getOpcode() != clang::BO_Assign) return false;
  auto w = m.access(b->getLHS(), s.sh, s.off), r = m.access(b->getRHS(), s.sh, s.off);
  return w && r && !w->minus_off && !r->minus_off && w->rest == p.rest && r->rest == q.rest;
}

// The double buffer: integer bookkeeping, `if (tid >= off) SH[P] = SH[Q] + SH[Q - off]; else SH[P] =
// SH[Q];`, `__syncthreads();`.
bool doubleBuffer(const ScanMatcher& m, const std::vector<const clang::Stmt*>& st, Scan& s, std::string& why) {
  if (st.size() < 2 || !isSyncthreads(st.back())) return false;
  auto* guard = llvm::dyn_cast<clang::IfStmt>(st[st.size() - 2]);
  if (!guard || !guard->getElse() || guard->getInit() || guard->getConditionVariable()) return false;
  const clang::Stmt* add = guard->getThen();
  const clang::Stmt* copy = guard->getElse();
  if (m.isActive(guard->getCond(), s.off, false)) std::swap(add, copy);
  else if (!m.isActive(guard->getCond(), s.off, true)) return false;
  Index p, q;
  if (!isAddStep(m, add, s, p, q)) return false;
  if (!isCopyStep(m, copy, s, p, q)) return fail(why, "the step's other branch does not copy SH[Q + tid] to SH[P + tid]");
  if (p.rest == q.rest) return fail(why, "the step reads and writes one buffer without a barrier between (a race)");
  for (size_t i = 0; i + 2 < st.size(); ++i) {
    const clang::Expr* lhs = nullptr;
    if (auto* b = llvm::dyn_cast<clang::BinaryOperator>(st[i]); b && b->isAssignmentOp()) lhs = b->getLHS();
    const clang::VarDecl* v = lhs ? varOf(lhs) : nullptr;
    if (!v || !v->isLocalVarDecl() || !v->getType()->isIntegerType() || v == s.off || v == m.tidVar() || usesDecl(st[i], s.sh))
      return fail(why, "the loop's step does more than swap integer buffer indices before the double-buffered step");
    s.bookkeeping.push_back(v);
  }
  return true;
}

// A value of the single buffer's step: own * SH[tid] + look * SH[tid - off], both as they were when
// the step began; unknown for anything else (an uninitialized temporary, a product, a call).
struct Sum {
  int own = 0, look = 0;
  bool known = true;
  Sum operator+(const Sum& o) const { return {own + o.own, look + o.look, known && o.known}; }
  bool is(int o, int l) const { return known && own == o && look == l; }
};

// One thread's run of one step of the single buffer: a thread with tid >= off (active) or one with
// tid < off. Conditions must be that test (either way round); locals are the step's temporaries.
class StepRun {
 public:
  StepRun(const ScanMatcher& m, Scan& s, const std::string& buffer, bool active) : m_(m), s_(s), buffer_(buffer), active_(active) {}

  Sum slot{1, 0};          // SH[tid] as this thread sees it
  bool wrote = false;      // wrote SH[tid] in the statement just run
  bool read_look = false;  // read SH[tid - off] in the statement just run
  bool wrote_before = false;  // wrote SH[tid] earlier in the step
  bool late_look = false;     // read SH[tid - off] after writing SH[tid] in the same step

  bool run(const clang::Stmt* st, std::string& why) {
    if (!st) return true;
    if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(st)) {
      for (const clang::Stmt* x : cs->body())
        if (!run(x, why)) return false;
      return true;
    }
    if (isSyncthreads(st)) return fail(why, "the step has a barrier under a condition");
    if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(st)) {
      for (const clang::Decl* d : ds->decls()) {
        auto* v = llvm::dyn_cast<clang::VarDecl>(d);
        if (!v) return fail(why, "the step declares something other than a temporary");
        locals_[v] = v->getInit() ? eval(v->getInit()) : Sum{0, 0, false};
      }
      return true;
    }
    if (auto* g = llvm::dyn_cast<clang::IfStmt>(st)) {
      bool c;
      if (g->getInit() || g->getConditionVariable() || !cond(g->getCond(), c))
        return fail(why, "the step tests something other than tid >= off");
      return run(c ? g->getThen() : g->getElse(), why);
    }
    auto* b = llvm::dyn_cast<clang::BinaryOperator>(st);
    if (!b || (b->getOpcode() != clang::BO_Assign && b->getOpcode() != clang::BO_AddAssign))
      return fail(why, "the step does something other than assign and add");
    const Sum v = eval(b->getRHS());
    const bool add = b->getOpcode() == clang::BO_AddAssign;
    if (const clang::VarDecl* t = varOf(b->getLHS()); t && locals_.count(t)) {
      locals_[t] = add ? locals_[t] + v : v;
      return true;
    }
    const clang::VarDecl* sh = s_.sh;
    auto ix = m_.access(b->getLHS(), sh, s_.off);
    if (!ix || ix->minus_off || ix->rest != buffer_)
      return fail(why, "the step writes something other than its temporaries and SH[tid]");
    slot = add ? slot + v : v;
    wrote = wrote_before = true;
    return true;
  }

 private:
  bool cond(const clang::Expr* c, bool& v) const {
    if (m_.isActive(c, s_.off, true)) v = active_;
    else if (m_.isActive(c, s_.off, false)) v = !active_;
    else return false;
    return true;
  }

  Sum eval(const clang::Expr* e) {
    e = e->IgnoreParenCasts();
    if (isZeroLiteral(e)) return {0, 0};
    if (llvm::isa<clang::ArraySubscriptExpr>(e)) {
      const clang::VarDecl* sh = s_.sh;
      auto ix = m_.access(e, sh, s_.off);
      if (!ix || ix->rest != buffer_) return {0, 0, false};
      if (!ix->minus_off) return slot;
      read_look = true;
      // Another thread's slot after this thread wrote its own: that thread may have written too.
      if (wrote_before) late_look = true;
      return wrote_before ? Sum{0, 0, false} : Sum{0, 1};
    }
    if (const clang::VarDecl* t = varOf(e); t && locals_.count(t)) return locals_[t];
    if (auto* b = llvm::dyn_cast<clang::BinaryOperator>(e); b && b->getOpcode() == clang::BO_Add) return eval(b->getLHS()) + eval(b->getRHS());
    if (auto* c = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
      bool v;
      if (cond(c->getCond(), v)) return eval(v ? c->getTrueExpr() : c->getFalseExpr());
    }
    return {0, 0, false};
  }

  const ScanMatcher& m_;
  Scan& s_;
  std::string buffer_;
  bool active_;
  std::map<const clang::VarDecl*, Sum> locals_;
};

// The single buffer, judged by what it computes rather than how it is spelled: run one step for a
// thread with tid >= off and one with tid < off; at the end the first must hold SH[tid] + SH[tid -
// off] and the second SH[tid] (as the step found them); and no stretch between barriers may both
// write the buffer and read another thread's slot, counting the stretch around the loop's back
// edge (and the store before the loop when no barrier follows it). Spellings this accepts: a
// temporary set from SH[tid - off] under `tid >= off` (or with `?:`), a barrier, `SH[tid] += t` (or
// under the guard, or `SH[tid] = SH[tid] + t`), a barrier; `T t = SH[tid]; if (tid >= off) t +=
// SH[tid - off]; __syncthreads(); SH[tid] = t; __syncthreads();`; the textbook's Kogge-Stone with
// the barrier first, `__syncthreads(); if (tid >= off) t = SH[tid] + SH[tid - off]; __syncthreads();
// if (tid >= off) SH[tid] = t;`.
bool singleBuffer(const ScanMatcher& m, const std::vector<const clang::Stmt*>& st, Scan& s, const std::string& buffer,
                  bool load_barrier, std::string& why) {
  StepRun on(m, s, buffer, true), off(m, s, buffer, false);
  struct Phase {
    bool writes = false, reads_look = false;
  };
  std::vector<Phase> phases(1);
  bool any_look = false;
  for (const clang::Stmt* x : st) {
    if (isSyncthreads(x)) {
      phases.emplace_back();
      continue;
    }
    for (StepRun* r : {&on, &off}) {
      r->wrote = r->read_look = false;
      if (!r->run(x, why)) return false;
      phases.back().writes |= r->wrote;
      phases.back().reads_look |= r->read_look;
      any_look |= r->read_look;
    }
  }
  if (!any_look) return false;
  if (on.late_look || off.late_look)
    return fail(why, "the step reads SH[tid - off] after writing SH[tid]: the other thread may have written it too (a race)");
  if (!on.slot.is(1, 1) || !off.slot.is(1, 0))
    return fail(why, "the step does not leave SH[tid] + SH[tid - off] (for tid >= off) and SH[tid] (below) in the thread's slot");
  // The stretch across the back edge: the last phase runs on into the next step's first.
  if (phases.size() > 1 && !isSyncthreads(st.front()) && !isSyncthreads(st.back())) {
    phases.front().writes |= phases.back().writes;
    phases.front().reads_look |= phases.back().reads_look;
    phases.back() = phases.front();
  }
  if (!load_barrier && !isSyncthreads(st.front())) phases.front().writes = true;  // the store before the loop
  for (const Phase& p : phases)
    if (p.writes && p.reads_look)
      return fail(why, "the step reads SH[tid - off] where another thread may be writing it (no barrier between): a race");
  return true;
}

// The store before the loop: `SH[X] = E;`, or `if (c) SH[X] = A; else SH[X] = B;` (the value
// `(c) ? A : B`). The value's text is written into the variant.
bool loadOf(const ScanMatcher& m, clang::ASTContext& ctx, const clang::Stmt* st, Scan& s, Index& x, std::string& value) {
  SourceBuffer src(ctx);
  auto text = [&](const clang::Expr* e) { return src.slice(src.off(e->getBeginLoc()), src.tokEnd(e->getEndLoc())); };
  auto operand = [&](const clang::Expr* e) {
    const clang::Expr* b = e->IgnoreImpCasts();
    const bool plain = llvm::isa<clang::DeclRefExpr, clang::ArraySubscriptExpr, clang::IntegerLiteral, clang::FloatingLiteral,
                                 clang::ParenExpr, clang::CallExpr>(b);
    return plain ? text(e) : "(" + text(e) + ")";
  };
  auto store = [&](const clang::Stmt* a, const clang::Expr*& rhs) -> std::optional<Index> {
    auto* b = llvm::dyn_cast_or_null<clang::BinaryOperator>(single(a));
    if (!b || b->getOpcode() != clang::BO_Assign) return std::nullopt;
    auto ix = m.access(b->getLHS(), s.sh, nullptr);
    if (!ix) return std::nullopt;
    rhs = b->getRHS();
    return ix;
  };
  const clang::Expr* e = nullptr;
  if (auto ix = store(st, e)) {
    x = *ix;
    value = text(e);
    s.value = e;
    return true;
  }
  auto* g = llvm::dyn_cast<clang::IfStmt>(st);
  if (!g || !g->getElse() || g->getInit() || g->getConditionVariable()) return false;
  const clang::Expr *a = nullptr, *b = nullptr;
  auto ia = store(g->getThen(), a), ib = store(g->getElse(), b);
  if (!ia || !ib || ia->rest != ib->rest || ia->tid != ib->tid || !src.inFile(g)) return false;
  x = *ia;
  value = "(" + text(g->getCond()) + ") ? " + operand(a) + " : " + operand(b);
  s.value = g->getCond();
  return true;
}

bool scanAt(const ScanMatcher& m, clang::ASTContext& ctx, const clang::CompoundStmt* body, size_t i, Scan& s, std::string& why) {
  if (i + 1 >= body->size()) return false;
  s = Scan{};
  Index x;
  std::string value;
  if (!loadOf(m, ctx, body->body_begin()[i], s, x, value)) return false;
  const bool load_barrier = isSyncthreads(body->body_begin()[i + 1]);
  const size_t at = load_barrier ? i + 2 : i + 1;
  auto* loop = at < body->size() ? llvm::dyn_cast<clang::ForStmt>(body->body_begin()[at]) : nullptr;
  if (!loop) return false;
  if (s.value && usesDecl(s.value, s.sh)) return fail(why, "the value stored before the scan reads the array itself");
  if (!loopHeader(loop, s, why)) return false;
  std::vector<const clang::Stmt*> st;
  if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(loop->getBody()))
    st.assign(cs->body_begin(), cs->body_end());
  else
    st.push_back(loop->getBody());
  const bool dbl = load_barrier && doubleBuffer(m, st, s, why);
  if (!dbl && !singleBuffer(m, st, s, x.rest, load_barrier, why))
    return fail(why, "the loop's body is not a Hillis-Steele step (`SH[tid] += SH[tid - off]` with the barriers a "
                     "double or a single buffer needs)");
  s.load = i;
  s.loop_at = at;
  s.value_text = value;
  s.tid = x.tid;
  return true;
}

// The reads of SH after the loop: each `SH[W + tid]` as an rvalue (collected for the rewrite).
struct AfterUses : clang::RecursiveASTVisitor<AfterUses> {
  clang::ASTContext& ctx;
  const ScanMatcher& m;
  const Scan& s;
  std::vector<const clang::ArraySubscriptExpr*> reads;
  std::string why;
  AfterUses(clang::ASTContext& c, const ScanMatcher& mm, const Scan& ss) : ctx(c), m(mm), s(ss) {}
  bool VisitDeclRefExpr(clang::DeclRefExpr* d) {
    if (d->getDecl() != s.sh) return true;
    const clang::Stmt* p = parentStmtOf(ctx, *d);
    while (p && llvm::isa<clang::ImplicitCastExpr>(p)) p = parentStmtOf(ctx, *p);
    auto* a = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(p);
    const clang::VarDecl* sh = s.sh;
    auto ix = a ? m.access(a, sh, nullptr) : std::nullopt;
    if (!ix) {
      why = "the kernel reads " + s.sh->getNameAsString() + " after the scan at another thread's slot";
      return false;
    }
    const clang::Stmt* up = parentStmtOf(ctx, *a);
    while (up && llvm::isa<clang::ParenExpr>(up)) up = parentStmtOf(ctx, *up);
    auto* impl = llvm::dyn_cast_or_null<clang::ImplicitCastExpr>(up);
    if (!impl || impl->getCastKind() != clang::CK_LValueToRValue) {
      why = "the kernel writes or takes the address of " + s.sh->getNameAsString() + " after the scan";
      return false;
    }
    reads.push_back(a);
    return true;
  }
};

std::string elementType(clang::ASTContext& ctx, const clang::VarDecl* sh) { return cuda::arrayElementType(ctx, sh); }
bool shuffleable(clang::ASTContext& ctx, const clang::VarDecl* sh) { return cuda::shufflesArrayElement(ctx, sh); }

// The pieces both forms write, one indentation step inside their block: each warp's inclusive scan
// of kl_v in registers; the warps' totals through kl_warp[32], scanned by warp 0.
std::string laneScanText(const std::string& T, const std::string& tid, const std::string& in) {
  std::string s;
  s += in + "    for (int kl_o = 1; kl_o < 32; kl_o <<= 1) {\n";
  s += in + "        " + T + " kl_t = __shfl_up_sync(0xffffffffu, kl_v, kl_o);\n";
  s += in + "        if ((" + tid + " & 31) >= kl_o) kl_v += kl_t;\n";
  s += in + "    }\n";
  return s;
}

std::string warpTotalsText(const std::string& T, const std::string& tid, const std::string& in) {
  std::string s;
  s += in + "    __shared__ " + T + " kl_warp[32];\n";
  s += in + "    if ((" + tid + " & 31) == 31) kl_warp[" + tid + " >> 5] = kl_v;\n";
  s += in + "    __syncthreads();\n";
  s += in + "    if (" + tid + " < 32) {\n";
  s += in + "        " + T + " kl_w = " + tid + " < (blockDim.x >> 5) ? kl_warp[" + tid + "] : (" + T + ")0;\n";
  s += in + "        for (int kl_o = 1; kl_o < 32; kl_o <<= 1) {\n";
  s += in + "            " + T + " kl_t = __shfl_up_sync(0xffffffffu, kl_w, kl_o);\n";
  s += in + "            if (" + tid + " >= kl_o) kl_w += kl_t;\n";
  s += in + "        }\n";
  s += in + "        kl_warp[" + tid + "] = kl_w;\n";
  s += in + "    }\n";
  s += in + "    __syncthreads();\n";
  return s;
}

// What forward writes in place of the store, the barrier and the loop.
std::string shuffleText(const std::string& T, const std::string& value, const std::string& tid, const std::string& in) {
  std::string s;
  s += T + " kl_v = " + value + ";  // the block's inclusive scan: warp shuffles, then one shared slot per warp\n";
  s += in + "{\n";
  s += laneScanText(T, tid, in);
  s += warpTotalsText(T, tid, in);
  s += in + "    if (" + tid + " >= 32) kl_v += kl_warp[(" + tid + " >> 5) - 1];\n";
  s += in + "}";
  return s;
}

// With `items` > 1 (param): each thread scans `items` consecutive elements in registers, the block
// scans the threads' totals with the same shuffles, and each thread adds the exclusive prefix of
// the threads before it (computed as such, not as an inclusive sum minus the own total). `values`
// is the value expression for element kl_j of the thread (tid replaced by `(items * tid + kl_j)`).
std::string itemsText(const std::string& T, const std::string& values, const std::string& tid, long long items,
                      const std::string& in) {
  const std::string n = std::to_string(items);
  std::string s;
  s += T + " kl_items[" + n + "];  // " + n + " consecutive elements a thread, scanned in registers, then across the block\n";
  s += in + "#pragma unroll\n";
  s += in + "for (int kl_j = 0; kl_j < " + n + "; ++kl_j) kl_items[kl_j] = " + values + ";\n";
  s += in + "#pragma unroll\n";
  s += in + "for (int kl_j = 1; kl_j < " + n + "; ++kl_j) kl_items[kl_j] += kl_items[kl_j - 1];\n";
  s += in + "{\n";
  s += in + "    " + T + " kl_v = kl_items[" + std::to_string(items - 1) + "];\n";
  s += laneScanText(T, tid, in);
  s += in + "    " + T + " kl_x = __shfl_up_sync(0xffffffffu, kl_v, 1);  // the totals of the warp's threads before this one\n";
  s += in + "    if ((" + tid + " & 31) == 0) kl_x = (" + T + ")0;\n";
  s += warpTotalsText(T, tid, in);
  s += in + "    if (" + tid + " >= 32) kl_x += kl_warp[(" + tid + " >> 5) - 1];\n";
  s += in + "    if (" + tid + " > 0) {\n";
  s += in + "        #pragma unroll\n";
  s += in + "        for (int kl_j = 0; kl_j < " + n + "; ++kl_j) kl_items[kl_j] += kl_x;\n";
  s += in + "    }\n";
  s += in + "}";
  return s;
}

// Thread-index reads of the kernel (tid's local, threadIdx, blockDim) for the items form.
struct ThreadRefs : clang::RecursiveASTVisitor<ThreadRefs> {
  const clang::VarDecl* tid = nullptr;
  std::vector<const clang::Expr*> tids;  // tid's local, or threadIdx.x where tid is that
  std::vector<const clang::DeclRefExpr*> thread_idx, block_dim;
  bool VisitDeclRefExpr(clang::DeclRefExpr* d) {
    if (tid && d->getDecl() == tid) tids.push_back(d);
    if (d->getDecl()->getName() == "threadIdx") thread_idx.push_back(d);
    if (d->getDecl()->getName() == "blockDim") block_dim.push_back(d);
    return true;
  }
};

// What the inverse writes: the single-buffer Hillis-Steele scan.
std::string scanText(const std::string& T, const std::string& value, const std::string& tid, long long block,
                     const std::string& in) {
  const std::string slot = std::string(kScanArray) + "[" + tid + "]";
  std::string s;
  s += "__shared__ " + T + " " + kScanArray + "[" + std::to_string(block) + "];\n";
  s += in + slot + " = " + value + ";\n";
  s += in + "__syncthreads();\n";
  s += in + "for (unsigned int kl_off = 1; kl_off < blockDim.x; kl_off <<= 1) {\n";
  s += in + "    " + T + " kl_t = " + tid + " >= kl_off ? " + kScanArray + "[" + tid + " - kl_off] : (" + T + ")0;\n";
  s += in + "    __syncthreads();\n";
  s += in + "    " + slot + " += kl_t;\n";
  s += in + "    __syncthreads();\n";
  s += in + "}";
  return s;
}

struct KlDecls : clang::RecursiveASTVisitor<KlDecls> {
  std::vector<const clang::NamedDecl*> found;
  bool VisitNamedDecl(clang::NamedDecl* d) {
    for (const char* n : kNames)
      if (d->getName() == n) found.push_back(d);
    return true;
  }
};

std::optional<std::string> blockRefusal(const TransformFacts& facts) {
  const auto shape = facts.shape();
  if (!shape) return "the block shape is unknown (shuffles need full warps)";
  if (shape->y != 1 || shape->z != 1)
    return "the block is " + std::to_string(shape->x) + " x " + std::to_string(shape->y) + " x " + std::to_string(shape->z) +
           ", not 1-D";
  if (shape->x < 32 || shape->x > 1024 || shape->x % 32 != 0)
    return "the block has " + std::to_string(shape->x) + " threads, not a multiple of 32 up to 1024";
  return std::nullopt;
}

class BlockScanShuffle : public Transform {
 public:
  std::string id() const override { return "block-scan-shuffle"; }
  std::string summary() const override {
    return "replace a block's Hillis-Steele inclusive scan in shared memory by warp shuffles and one shared slot per warp";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    ScanMatcher m(ctx, body);
    Scan s;
    std::string why;
    bool found = false;
    for (size_t i = 0; i < body->size() && !found; ++i) found = scanAt(m, ctx, body, i, s, why);
    if (!found)
      return TransformResult::no(why.empty() ? "no Hillis-Steele scan in the kernel's body (`SH[tid] = v; __syncthreads(); "
                                               "for (int off = 1; off < n; off *= 2) { ... SH[tid - off] ... __syncthreads(); }`)"
                                             : why);
    if (!s.sh->hasAttr<clang::CUDASharedAttr>()) return TransformResult::no(s.sh->getNameAsString() + " is not __shared__ memory");
    if (!shuffleable(ctx, s.sh))
      return TransformResult::no("__shfl_up_sync does not take " + s.sh->getNameAsString() + "'s element type " + elementType(ctx, s.sh));
    if (auto r = blockRefusal(req.facts)) return TransformResult::no(*r);
    AfterUses after(ctx, m, s);
    for (size_t j = s.loop_at + 1; j < body->size() && after.why.empty(); ++j)
      after.TraverseStmt(const_cast<clang::Stmt*>(body->body_begin()[j]));
    if (!after.why.empty()) return TransformResult::no(after.why);
    for (const clang::VarDecl* v : s.bookkeeping)
      for (size_t j = s.loop_at + 1; j < body->size(); ++j)
        for (const clang::DeclRefExpr* r : refsTo(body->body_begin()[j], v)) {
          bool inside = false;
          for (const auto* a : after.reads)
            inside |= src.off(a->getBeginLoc()) <= src.off(r->getBeginLoc()) && src.off(r->getBeginLoc()) <= src.off(a->getEndLoc());
          if (!inside)
            return TransformResult::no("the kernel uses the scan's buffer index " + v->getNameAsString() + " after the scan");
        }

    const clang::Stmt* first = body->body_begin()[s.load];
    const clang::Stmt* last = body->body_begin()[s.loop_at];
    if (!src.inFile(first) || !src.inFile(last) || !src.inFile(s.value)) return TransformResult::no("the scan is written through a macro");
    for (const auto* a : after.reads)
      if (!src.inFile(a)) return TransformResult::no("a read after the scan is written through a macro");
    unsigned from = src.off(first->getBeginLoc());
    const unsigned to = src.stmtEnd(last);
    KlDecls kl;
    kl.TraverseDecl(const_cast<clang::FunctionDecl*>(req.kernel));
    for (const clang::NamedDecl* d : kl.found) {
      const unsigned at = src.inFile(d->getLocation()) ? src.off(d->getLocation()) : 0;
      if (at < from || at >= to) return TransformResult::no("the kernel already declares " + d->getNameAsString() + " (kl_ names are the transform's)");
    }
    // The inverse's own array goes with the scan it served.
    unsigned edit_from = from;
    if (s.sh->getName() == kScanArray && s.load > 0) {
      auto* ds = llvm::dyn_cast<clang::DeclStmt>(body->body_begin()[s.load - 1]);
      // `__shared__` is a macro: the declaration begins where it is expanded.
      const clang::SourceLocation b = ds ? src.sm.getExpansionLoc(ds->getBeginLoc()) : clang::SourceLocation();
      if (ds && ds->isSingleDecl() && ds->getSingleDecl() == s.sh && src.inFile(b)) edit_from = src.off(b);
    }
    const std::string in = src.indentOf(from);
    const long long items = intParam(req.params, "items", 1);
    if (items > 1) return forwardItems(req, src, body, m, s, after.reads, edit_from, to, items);
    const std::string text = shuffleText(elementType(ctx, s.sh), s.value_text, s.tid, in);
    if (req.rewriter.ReplaceText(src.at(edit_from), to - edit_from, text)) return TransformResult::no("the rewriter refused the edit");
    for (const auto* a : after.reads) {
      const unsigned b = src.off(a->getBeginLoc()), e = src.tokEnd(a->getEndLoc());
      if (req.rewriter.ReplaceText(src.at(b), e - b, "kl_v")) return TransformResult::no("the rewriter refused the edit");
    }
    return TransformResult::yes("the Hillis-Steele scan over " + s.sh->getNameAsString() + " became warp shuffles");
  }

  // items > 1: the value read for `items` consecutive elements a thread (block.x / items). The
  // thread index may appear only in the value stored before the scan and in the statements after
  // it (each runs once per element: tid there means the element), the kernel may not read blockDim
  // (its value changes) nor threadIdx other than as tid.
  TransformResult forwardItems(TransformRequest& req, const SourceBuffer& src, const clang::CompoundStmt* body,
                               const ScanMatcher& m, const Scan& s, const std::vector<const clang::ArraySubscriptExpr*>& reads,
                               unsigned edit_from, unsigned to, long long items) const {
    auto& ctx = req.ctx;
    const auto shape = req.facts.shape();
    if (items > 32 || shape->x % (32 * items) != 0)
      return TransformResult::no("the block's " + std::to_string(shape->x) + " threads are not a multiple of 32 x " +
                                 std::to_string(items) + " (items a thread)");
    if (llvm::isa<clang::IfStmt>(body->body_begin()[s.load]))
      return TransformResult::no("the value stored before the scan is an if/else, not one expression (items a thread)");
    ThreadRefs refs;
    refs.tid = m.tidVar();
    refs.TraverseStmt(const_cast<clang::CompoundStmt*>(body));
    if (!refs.block_dim.empty())
      return TransformResult::no("the kernel reads blockDim, which " + std::to_string(items) + " items a thread would change");
    auto within = [&](const clang::Stmt* x, unsigned a, unsigned b) {
      return src.inFile(x) && src.off(x->getBeginLoc()) >= a && src.off(x->getBeginLoc()) < b;
    };
    const unsigned v0 = src.off(s.value->getBeginLoc()), v1 = src.tokEnd(s.value->getEndLoc());
    const unsigned after0 = src.stmtEnd(body->body_begin()[s.loop_at]);
    // Each thread-index read: tid's own declaration, the value, the scan replaced, or after it.
    std::vector<const clang::Expr*> tid_reads;  // the ones that become `(items * tid + kl_j)`
    const clang::Stmt* tid_decl = nullptr;
    if (refs.tid) {
      for (size_t j = 0; j < body->size(); ++j)
        if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(body->body_begin()[j]))
          for (const clang::Decl* d : ds->decls())
            if (d == refs.tid) tid_decl = ds;
      for (const auto* r : refs.thread_idx)
        if (!tid_decl || !within(r, src.off(tid_decl->getBeginLoc()), src.stmtEnd(tid_decl)))
          return TransformResult::no("the kernel reads threadIdx other than through " + refs.tid->getNameAsString());
    }
    std::vector<const clang::Expr*> all;
    if (refs.tid) all.assign(refs.tids.begin(), refs.tids.end());
    else
      for (const auto* r : refs.thread_idx) {
        const clang::Stmt* p = parentStmtOf(ctx, *r);
        while (p && llvm::isa<clang::ImplicitCastExpr, clang::ParenExpr>(p)) p = parentStmtOf(ctx, *p);
        auto* me = llvm::dyn_cast_or_null<clang::MemberExpr>(p);
        if (!me || me->getMemberDecl()->getName() != "x") return TransformResult::no("the kernel reads threadIdx other than .x");
        all.push_back(me);
      }
    const unsigned scan0 = src.off(body->body_begin()[s.load]->getBeginLoc());
    for (const clang::Expr* r : all) {
      if (!src.inFile(r)) return TransformResult::no("the thread index is read through a macro");
      const unsigned o = src.off(r->getBeginLoc());
      if (o >= v0 && o < v1) {
        tid_reads.push_back(r);
        continue;
      }
      if (o >= scan0 && o < after0) continue;  // replaced with the scan
      bool in_read = false;
      for (const auto* a : reads) in_read |= within(r, src.off(a->getBeginLoc()), src.tokEnd(a->getEndLoc()));
      if (in_read) continue;
      if (o >= after0) {
        tid_reads.push_back(r);
        continue;
      }
      return TransformResult::no("the thread index is used before the scan's value (items a thread change what it counts)");
    }
    auto substituted = [&](unsigned a, unsigned b) {
      std::vector<std::pair<unsigned, std::pair<unsigned, std::string>>> ed;
      for (const clang::Expr* r : tid_reads) {
        const unsigned o = src.off(r->getBeginLoc());
        if (o >= a && o < b)
          ed.push_back({o, {src.tokEnd(r->getEndLoc()), "(" + std::to_string(items) + " * " + s.tid + " + kl_j)"}});
      }
      for (const auto* x : reads) {
        const unsigned o = src.off(x->getBeginLoc());
        if (o >= a && o < b) ed.push_back({o, {src.tokEnd(x->getEndLoc()), "kl_items[kl_j]"}});
      }
      std::sort(ed.begin(), ed.end());
      std::string out;
      unsigned p = a;
      for (const auto& [o, e] : ed) {
        out += src.slice(p, o) + e.second;
        p = e.first;
      }
      return out + src.slice(p, b);
    };
    const std::string in = src.indentOf(src.off(body->body_begin()[s.load]->getBeginLoc()));
    // The statements after the scan that read the result or the thread index run once per element.
    std::vector<std::pair<std::pair<unsigned, unsigned>, std::string>> wraps;
    for (size_t j = s.loop_at + 1; j < body->size(); ++j) {
      const clang::Stmt* st = body->body_begin()[j];
      const unsigned a = src.off(st->getBeginLoc()), b = src.stmtEnd(st);
      bool uses = false;
      for (const clang::Expr* r : tid_reads) uses |= within(r, a, b);
      for (const auto* x : reads) uses |= within(x, a, b);
      if (!uses) continue;
      if (llvm::isa<clang::DeclStmt>(st) || !src.inFile(st))
        return TransformResult::no("a declaration after the scan reads its result or the thread index (items a thread)");
      const std::string sin = src.indentOf(a);
      wraps.push_back({{a, b}, "#pragma unroll\n" + sin + "for (int kl_j = 0; kl_j < " + std::to_string(items) +
                                   "; ++kl_j) {\n" + sin + "    " + substituted(a, b) + "\n" + sin + "}"});
    }
    const std::string text = itemsText(elementType(ctx, s.sh), substituted(v0, v1), s.tid, items, in);
    if (req.rewriter.ReplaceText(src.at(edit_from), to - edit_from, text)) return TransformResult::no("the rewriter refused the edit");
    for (const auto& [span, t] : wraps)
      if (req.rewriter.ReplaceText(src.at(span.first), span.second - span.first, t))
        return TransformResult::no("the rewriter refused the edit");
    GeometryChange g;
    g.block_x = shape->x / items;
    return TransformResult::yes("the Hillis-Steele scan over " + s.sh->getNameAsString() + " became " + std::to_string(items) +
                                    " elements a thread in registers and warp shuffles (block.x " + std::to_string(shape->x) +
                                    " -> " + std::to_string(shape->x / items) + ")",
                                g);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    const std::string not_ours = "no shuffle scan in the form forward writes";
    for (size_t i = 0; i + 1 < body->size(); ++i) {
      auto* ds = llvm::dyn_cast<clang::DeclStmt>(body->body_begin()[i]);
      auto* v = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
      auto* cs = llvm::dyn_cast<clang::CompoundStmt>(body->body_begin()[i + 1]);
      if (!v || v->getName() != "kl_v" || !v->getInit() || !cs || cs->size() < 3 || !src.inFile(ds) || !src.inFile(cs)) continue;
      // tid, from `if ((tid & 31) == 31) ...`, the block's third statement.
      auto* g = llvm::dyn_cast<clang::IfStmt>(cs->body_begin()[2]);
      auto* eq = g ? llvm::dyn_cast<clang::BinaryOperator>(g->getCond()->IgnoreParenImpCasts()) : nullptr;
      auto* band = eq ? llvm::dyn_cast<clang::BinaryOperator>(eq->getLHS()->IgnoreParenImpCasts()) : nullptr;
      if (!band || band->getOpcode() != clang::BO_And) return TransformResult::no(not_ours);
      const std::string tid = sourceText(ctx, band->getLHS()->getSourceRange());
      const std::string T = v->getType().getAsString(ctx.getPrintingPolicy());
      const clang::Expr* init = v->getInit();
      const std::string value = src.slice(src.off(init->getBeginLoc()), src.tokEnd(init->getEndLoc()));
      const unsigned from = src.off(ds->getBeginLoc()), to = src.stmtEnd(cs);
      const std::string in = src.indentOf(from);
      if (src.slice(from, to) != shuffleText(T, value, tid, in)) return TransformResult::no(not_ours);
      if (auto r = blockRefusal(req.facts)) return TransformResult::no(*r);
      std::vector<const clang::DeclRefExpr*> uses;
      for (size_t j = i + 2; j < body->size(); ++j)
        for (const clang::DeclRefExpr* r : refsTo(body->body_begin()[j], v)) uses.push_back(r);
      for (size_t j = i + 2; j < body->size(); ++j)
        if (!onlyReads(ctx, body->body_begin()[j], v)) return TransformResult::no("the kernel writes kl_v after the scan");
      for (const auto* r : uses)
        if (!src.inFile(r->getBeginLoc())) return TransformResult::no("a read of kl_v is written through a macro");
      if (req.rewriter.ReplaceText(src.at(from), to - from, scanText(T, value, tid, req.facts.shape()->x, in)))
        return TransformResult::no("the rewriter refused the edit");
      for (const auto* r : uses)
        if (req.rewriter.ReplaceText(src.at(src.off(r->getBeginLoc())), 4, std::string(kScanArray) + "[" + tid + "]"))
          return TransformResult::no("the rewriter refused the edit");
      return TransformResult::yes("the shuffle scan became a shared-memory Hillis-Steele scan over " + std::string(kScanArray));
    }
    return TransformResult::no(not_ours);
  }
};

}  // namespace

std::unique_ptr<Transform> makeBlockScanShuffle() { return std::make_unique<BlockScanShuffle>(); }

}  // namespace klineage
