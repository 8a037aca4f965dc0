// row-registers: a warp's row, read from global memory in several lane-strided loops, is read once
// into registers and every such loop computes from there.
//   float m = x[0];                                            float m = x[0];
//   for (int c = 1 + kl_lane; c < cols; c += 32)               float kl_row[64];
//     m = fmaxf(m, x[c]);                                      const bool kl_in_regs = cols <= 64 * 32;
//   ...                                                        if (kl_in_regs) { for kl_j: kl_row[kl_j] = x[kl_j * 32 + kl_lane] }
//   for (int c = 0 + kl_lane; c < cols; c += 32)         ->    if (kl_in_regs) { for kl_j (unrolled) { const int c = kl_j * 32 + kl_lane;
//     y[c] = expf(x[c] - m) / s;                                 if (c >= 1 && c < cols) m = fmaxf(m, kl_row[kl_j]); } }
//                                                              else for (int c = 1 + kl_lane; ...) m = fmaxf(m, x[c]);   (unchanged)
// Why it pays: warp-per-row's softmax and layernorm read their row from DRAM (or L2) two or three
// times; the register path reads it once. kl_row is indexed only by kl_j of fully unrolled loops
// (compile-time indices), so it stays in registers: max_cols / 32 of them per thread.
// What is rewritten: a kernel in warp-per-row's form (`const int kl_lane = threadIdx.x % 32;`,
// top-level `for (int c = S + kl_lane; c < B; c += 32)` loops, maybe after a `#pragma unroll N`
// line) where one pointer x is read as x[c] in two or more of those loops, all with the same bound
// B (a name the kernel never assigns), and one of them starts at 0. The row is loaded before the
// first of them (element kl_j * 32 + kl_lane in kl_row[kl_j]), and each such loop becomes
// `if (kl_in_regs) <register loop> else <the loop, verbatim>`. Rows longer than max_cols take the
// original loops.
// When it is sound: x is never stored to (the kernel stores through no pointer that x may be derived
// from, nor passes such a pointer to a call; other parameters do not overlap it: the skill's
// no-overlap fact) and never reassigned, so a register holds what the loop would have read. A loop
// starting at a multiple of 32 visits, in every lane, the same c in the same order as before:
// results are bit-identical. A loop starting elsewhere (softmax's max from 1) gives the element c to
// lane c % 32 instead of (c - S) % 32: it is accepted only when its body reads no memory but x[c],
// stores nothing, and assigns outer variables only as sums or min/max that a butterfly (warp-per-row's
// `for (int kl_offset = 16; ...)` with full-mask shuffles, so every lane is there) combines right
// after it: every element still enters exactly once (min/max: the same result; sums: regrouped).
// vector_width 4 (float4 mode, the expert's form in examples/experts/src/expert/rows.cu): the row is
// held as max_cols / 128 vectors per lane, kl_row4[kl_j] = elements (kl_j * 32 + kl_lane) * 4 + 0..3,
// loaded 16 bytes at a time; each register loop handles a vector's four elements in order (x, y, z,
// w), guarded per vector (`kl_c < B`: with B % 4 == 0 a vector is all in or all out, and kl_c is the
// same test in every lane of a warp until the row ends). A loop whose body is just `p[c] = E;` (p of
// x's element type) stores one vector; other arrays read as p[c] (layernorm's gamma, beta) are loaded
// as vectors when they have a vector type, and both only in loops starting at a multiple of 4. The
// register path runs only when B <= max_cols, B % 4 == 0 and x and every array accessed as vectors
// is 16-byte aligned (vector_access.h's check), else the original loops run, as in the scalar form.
// When float4 mode is sound: on top of the above, element c now goes to lane (c / 4) % 32 instead of
// c % 32 in EVERY register loop, not only in those starting off a multiple of 32. So each loop must
// give element c the same treatment in any lane (vectorChecks): all 32 lanes run it (full warps: the
// block's x size is a multiple of 32; lanes leave only through a top-level `if (U) return;` with U
// warp-uniform); it assigns outer variables only as sums or min/max combined by a full-mask xor
// butterfly of the same operation right after it (every element enters once: sums regroup, min/max
// are exact); it reads no memory but p[c], no outer array, and calls only the CUDA headers'
// functions with arguments; everything else it reads is warp-uniform at that point (Uniformity:
// parameters, constants, locals assigned from uniform values or right after a butterfly,
// warp-per-row's row index when the block's x size is a multiple of 32; never kl_lane, threadIdx,
// memory, or a variable the loop itself updates); it stores only as p[c] into an array accessed
// nowhere else in the kernel (no other code sees that another lane wrote it); and the arrays it
// reads at [c] are stored into nowhere in the kernel. Then element c's stored value, and each
// element's contribution to a reduction, are the same as in warp-per-row's kernel: only the sums'
// grouping changes.
// E computed once (planCache): a register loop `v += E(x[c]);` from 0 whose E (pure math of the row
// element and unassigned locals) reappears in the later loops, which read x[c] only inside it, writes
// E back into the register and the later loops read the register for E: bit-exact.
// Inverse: recognizes exactly what forward writes (its text is regenerated from the fallback loops
// and compared) and keeps only the fallback loops. It takes back only the form its vector_width
// param names (1: kl_row, 4: kl_row4), so a mined step records vector_width 4 and the forward with
// the step's params gives the parent back.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/loop_depth.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"
#include "rewriter/vector_access.h"

namespace klineage {
namespace {

using Src = SourceBuffer;

const char* kComment = "// the row, read once: element kl_j * 32 + kl_lane in kl_row[kl_j]";
const std::set<std::string> kMinMax = {"fmaxf", "fminf", "fmax", "fmin", "max", "min"};
const std::set<std::string> kOurNames = {"kl_row", "kl_j", "kl_in_regs", "kl_row4", "kl_c", "kl_v"};
const char* kComment4 = "// the row, read once: elements (kl_j * 32 + kl_lane) * 4 + 0..3 in kl_row4[kl_j]";
const char* kComponents[4] = {"x", "y", "z", "w"};

const clang::Expr* bare(const clang::Expr* e) { return e ? e->IgnoreParenImpCasts() : nullptr; }

bool isLocalArray(const clang::Expr* e) {
  auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(bare(e));
  return ase && bare(ase->getBase())->getType()->isArrayType();
}

bool isMemoryLvalue(const clang::Expr* e) {
  e = bare(e);
  if (llvm::isa<clang::ArraySubscriptExpr>(e)) return !isLocalArray(e);
  if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(e)) return uo->getOpcode() == clang::UO_Deref;
  if (auto* me = llvm::dyn_cast<clang::MemberExpr>(e)) return me->isArrow() || isMemoryLvalue(me->getBase());
  return false;
}

// The variable a pointer expression is based on: p in p[i], *p, p + k, &p[i], (T*)p, s.p; null when
// it is not a variable (a call, a conditional, ...).
const clang::ValueDecl* pointerBase(const clang::Expr* e) {
  if (!e) return nullptr;
  e = e->IgnoreParenCasts();
  if (auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) return pointerBase(ase->getBase());
  if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    if (uo->getOpcode() == clang::UO_Deref || uo->getOpcode() == clang::UO_AddrOf || uo->isIncrementDecrementOp())
      return pointerBase(uo->getSubExpr());
    return nullptr;
  }
  if (auto* me = llvm::dyn_cast<clang::MemberExpr>(e)) return pointerBase(me->getBase());
  if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    if (bo->isAdditiveOp())
      return pointerBase(bo->getLHS()->IgnoreParenCasts()->getType()->isPointerType() ? bo->getLHS() : bo->getRHS());
    if (bo->isAssignmentOp() || bo->getOpcode() == clang::BO_Comma) return pointerBase(bo->getRHS());
    return nullptr;
  }
  if (auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(e)) return dre->getDecl();
  return nullptr;
}

// `for (int c = S + kl_lane; c < B; c += 32)`, as warp-per-row writes it (maybe behind a `#pragma`).
struct Strided {
  const clang::Stmt* stmt = nullptr;  // the statement in the row's code (an AttributedStmt with a pragma)
  const clang::ForStmt* loop = nullptr;
  const clang::VarDecl* counter = nullptr;
  const clang::Expr* start = nullptr;  // S, as written ("1", "(a + b)")
  const clang::ValueDecl* bound = nullptr;  // B when it is a name
  const clang::Expr* bound_expr = nullptr;
  size_t index = 0;  // in the row's statements
};

std::optional<Strided> stridedLoop(const clang::Stmt* s, const clang::VarDecl* lane) {
  Strided st;
  st.stmt = s;
  if (auto* at = llvm::dyn_cast<clang::AttributedStmt>(s)) s = at->getSubStmt();
  st.loop = llvm::dyn_cast<clang::ForStmt>(s);
  if (!st.loop) return std::nullopt;
  auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(st.loop->getInit());
  st.counter = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
  if (!st.counter || !st.counter->getInit() || !st.counter->getType()->isIntegerType()) return std::nullopt;
  auto* add = llvm::dyn_cast<clang::BinaryOperator>(bare(st.counter->getInit()));
  if (!add || add->getOpcode() != clang::BO_Add || referencedDecl(add->getRHS()) != lane) return std::nullopt;
  st.start = add->getLHS()->IgnoreImpCasts();
  auto* cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(bare(st.loop->getCond()));
  if (!cond || cond->getOpcode() != clang::BO_LT || referencedDecl(cond->getLHS()) != st.counter) return std::nullopt;
  st.bound_expr = cond->getRHS()->IgnoreImpCasts();
  st.bound = referencedDecl(cond->getRHS());
  auto* inc = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(st.loop->getInc());
  auto* lit = inc ? llvm::dyn_cast<clang::IntegerLiteral>(bare(inc->getRHS())) : nullptr;
  if (!inc || inc->getOpcode() != clang::BO_AddAssign || referencedDecl(inc->getLHS()) != st.counter || !lit ||
      lit->getValue() != 32)
    return std::nullopt;
  return st;
}

// An index at the counter c: `c` (offset "") or `R + c` / `c + R` (ast_util's counterIndex: R the
// same in every loop and on every lane of the row, as the row's start `row * C` in normal form):
// the offset's text (squeezed), else nullopt.
std::optional<std::string> counterIndex(const clang::Expr* idx, const clang::VarDecl* c, clang::ASTContext* ctx,
                                        const clang::Stmt* body, const clang::Stmt* loop_body,
                                        const clang::Expr** offset = nullptr) {
  const clang::Expr* r = nullptr;
  if (offset) *offset = nullptr;
  if (!ctx || !klineage::counterIndex(*ctx, body, loop_body, idx, c, &r)) return std::nullopt;
  if (offset) *offset = r;
  return r ? squeeze(sourceText(*ctx, r->getSourceRange())) : std::string();
}

// Reads p[c] or p[R + c] (c: the loop's counter) of pointer variables in a strided loop's body, by
// pointer and offset.
using RowKey = std::pair<const clang::ValueDecl*, std::string>;
struct CounterReads : clang::RecursiveASTVisitor<CounterReads> {
  const clang::VarDecl* c;
  clang::ASTContext* ctx;
  const clang::Stmt* body;
  const clang::Stmt* loop_body;
  std::set<const clang::Expr*> written;
  std::map<RowKey, std::vector<const clang::ArraySubscriptExpr*>> reads;
  std::vector<RowKey> order;  // pointers (and offsets) in the order first read
  CounterReads(const clang::VarDecl* counter, clang::ASTContext* c_, const clang::Stmt* b, const clang::Stmt* lb)
      : c(counter), ctx(c_), body(b), loop_body(lb) {}
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    if (bo->isAssignmentOp()) written.insert(bare(bo->getLHS()));
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->isIncrementDecrementOp() || uo->getOpcode() == clang::UO_AddrOf) written.insert(bare(uo->getSubExpr()));
    return true;
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
    if (written.count(e)) return true;
    std::optional<std::string> off = counterIndex(e->getIdx(), c, ctx, body, loop_body);
    if (!off) return true;
    auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(bare(e->getBase()));
    if (!dre || !dre->getDecl()->getType()->isPointerType()) return true;
    const RowKey key{dre->getDecl(), *off};
    if (!reads.count(key)) order.push_back(key);
    reads[key].push_back(e);
    return true;
  }
};

// What a strided loop's body does, for the loops that read x[c].
struct BodyScan : LoopDepthVisitor<BodyScan> {
  const clang::VarDecl* c;
  const clang::ValueDecl* x;
  std::set<const clang::ValueDecl*> inner;
  std::set<const clang::Expr*> written;
  std::vector<const clang::ArraySubscriptExpr*> x_reads;  // x[c], in source order
  unsigned counter_refs = 0, counter_indices = 0;
  bool stores = false, other_reads = false;
  std::vector<std::pair<const clang::VarDecl*, bool>> outer_updates;  // var, is a sum or min/max
  // For float4 mode (every element changes lanes): what else the body touches.
  std::vector<const clang::ArraySubscriptExpr*> at_c;  // p[c] reads of other pointer variables
  std::vector<const clang::Expr*> store_lhs;           // memory stores' targets
  std::vector<const clang::DeclRefExpr*> c_refs;       // every use of the counter (array indices)
  std::vector<const clang::DeclRefExpr*> refs;         // uses of variables declared outside the body
  std::set<const clang::Expr*> self_refs;              // a reduction's own variable in its update
  std::vector<const clang::CallExpr*> calls;
  bool elsewhere = false;     // reads memory other than p[c] of a pointer variable
  bool local_arrays = false;  // uses an array declared outside the body (per-thread state)
  bool atomics = false;
  std::string why;
  std::string xoff;  // x's offset R (x[R + c]), "" for x[c]
  clang::ASTContext* actx = nullptr;
  const clang::Stmt* kbody = nullptr;
  const clang::Stmt* loop_body = nullptr;  // the strided loop's body
  // Every access p[c] or p[R + c]: the row's base as float4 mode writes it (`p`, `(p + R)`), and R.
  std::map<const clang::Expr*, std::string> bases;
  std::vector<const clang::Expr*> offsets;
  BodyScan(const clang::VarDecl* counter, const clang::ValueDecl* xp) : c(counter), x(xp) {}
  bool fail(std::string w) {
    if (why.empty()) why = std::move(w);
    return true;  // keep going: the first reason is the one reported
  }
  // "+" for `v += e`, the function for `v = fmaxf(v, e)` (or e first; fminf, ...), "" otherwise.
  static std::string reductionOp(const clang::VarDecl* v, const clang::Expr* whole) {
    if (auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(whole))
      return ca->getOpcode() == clang::BO_AddAssign && !usesDecl(ca->getRHS(), v) ? "+" : "";
    auto* bo = llvm::dyn_cast<clang::BinaryOperator>(whole);
    if (!bo || bo->getOpcode() != clang::BO_Assign) return "";
    auto* call = llvm::dyn_cast<clang::CallExpr>(bare(bo->getRHS()));
    if (!call || call->getNumArgs() != 2 || !kMinMax.count(calleeName(call))) return "";
    bool a0 = referencedDecl(call->getArg(0)) == v, a1 = referencedDecl(call->getArg(1)) == v;
    return a0 != a1 && !usesDecl(call->getArg(a0 ? 1 : 0), v) ? calleeName(call) : "";
  }
  std::map<const clang::VarDecl*, std::set<std::string>> ops;  // each reduced variable's operations
  void target(const clang::Expr* lhs, const clang::Expr* whole) {
    written.insert(bare(lhs));
    if (isLocalArray(lhs)) {
      auto* ase = llvm::cast<clang::ArraySubscriptExpr>(bare(lhs));
      if (auto* d = referencedDecl(ase->getBase()); !d || !inner.count(d)) outer_array_writes = true;
      return;
    }
    if (isMemoryLvalue(lhs)) {
      stores = true;
      store_lhs.push_back(bare(lhs));
      return;
    }
    auto* vd = llvm::dyn_cast_or_null<clang::VarDecl>(referencedDecl(lhs));
    if (vd == c) fail("a strided loop's body assigns its counter " + c->getNameAsString());
    if (vd && !inner.count(vd)) {
      const std::string op = reductionOp(vd, whole);
      const bool red = !op.empty();
      outer_updates.push_back({vd, red});
      if (red) ops[vd].insert(op);
      if (red) {
        self_refs.insert(bare(lhs));
        if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(whole); bo && bo->getOpcode() == clang::BO_Assign)
          if (auto* call = llvm::dyn_cast<clang::CallExpr>(bare(bo->getRHS())))
            for (const clang::Expr* a : call->arguments())
              if (referencedDecl(a) == vd) self_refs.insert(bare(a));
      }
    }
  }
  bool outer_array_writes = false;  // assigns an element of an array declared outside the body
  bool VisitVarDecl(clang::VarDecl* vd) {
    inner.insert(vd);
    // One variable for all iterations and threads, not a per-iteration local.
    if (vd->isStaticLocal()) fail("a strided loop declares a static or __shared__ variable (" + vd->getNameAsString() + ")");
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    if (bo->isAssignmentOp()) target(bo->getLHS(), bo);
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->isIncrementDecrementOp()) target(uo->getSubExpr(), uo);
    if (uo->getOpcode() == clang::UO_AddrOf) {
      auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(bare(uo->getSubExpr()));
      if (ase && pointerBase(ase) == x) fail("a strided loop takes the address of an element of " + x->getNameAsString());
    }
    if (uo->getOpcode() == clang::UO_Deref && !written.count(uo)) other_reads = elsewhere = true;
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr* me) {
    if (me->isArrow() && !written.count(me)) other_reads = elsewhere = true;
    return true;
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
    const clang::Expr* off_expr = nullptr;
    const std::optional<std::string> off = counterIndex(e->getIdx(), c, actx, kbody, loop_body, &off_expr);
    const bool is_x = referencedDecl(e->getBase()) == x && off && *off == xoff;
    if (off) {
      ++counter_indices;
      if (auto* d = referencedDecl(e->getBase()); d && actx) {
        bases[e] = off_expr ? "(" + d->getNameAsString() + " + " + sourceText(*actx, off_expr->getSourceRange()) + ")"
                            : d->getNameAsString();
        if (off_expr) offsets.push_back(off_expr);
      }
    }
    if (isLocalArray(e)) {
      if (auto* d = referencedDecl(e->getBase()); !d || !inner.count(d)) local_arrays = true;
    }
    if (written.count(e)) return true;
    if (is_x) x_reads.push_back(e);
    else if (!isLocalArray(e)) {
      other_reads = true;
      auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(bare(e->getBase()));
      if (dre && dre->getDecl()->getType()->isPointerType() && off) at_c.push_back(e);
      else elsewhere = true;
    }
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    if (e->getDecl() == c) {
      ++counter_refs;
      c_refs.push_back(e);
    } else if (llvm::isa<clang::VarDecl>(e->getDecl()) && !inner.count(e->getDecl())) {
      refs.push_back(e);
    }
    if (kOurNames.count(e->getDecl()->getNameAsString())) fail("the kernel already uses " + e->getDecl()->getNameAsString());
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* call) {
    std::string n = calleeName(call);
    calls.push_back(call);
    if (auto k = intrinsicKind(n)) {
      if (*k != IntrinsicKind::Atomic) fail("a strided loop calls " + n + " (" + describe(*k) + ")");
      else stores = atomics = true;
    }
    return true;
  }
  bool VisitBreakStmt(clang::BreakStmt*) {
    if (!loops && !switches) fail("a strided loop has a break");
    return true;
  }
  bool VisitContinueStmt(clang::ContinueStmt*) {
    if (!loops) fail("a strided loop has a continue");
    return true;
  }
  bool VisitReturnStmt(clang::ReturnStmt*) { return fail("a strided loop returns"); }
  bool VisitGotoStmt(clang::GotoStmt*) { return fail("a strided loop uses goto"); }
};

// Anything in a statement that leaves it other than at its end.
struct Exits : clang::RecursiveASTVisitor<Exits> {
  bool found = false;
  bool VisitReturnStmt(clang::ReturnStmt*) { return !(found = true); }
  bool VisitGotoStmt(clang::GotoStmt*) { return !(found = true); }
};

// Variables a statement assigns (as a whole variable, not through memory).
struct Assigned : clang::RecursiveASTVisitor<Assigned> {
  std::set<const clang::ValueDecl*> vars;
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    if (bo->isAssignmentOp())
      if (auto* d = referencedDecl(bo->getLHS())) vars.insert(d);
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->isIncrementDecrementOp() || uo->getOpcode() == clang::UO_AddrOf)
      if (auto* d = referencedDecl(uo->getSubExpr())) vars.insert(d);
    return true;
  }
};

// The whole kernel: where pointers come from, and what is stored through which pointer.
struct PointerFlow : clang::RecursiveASTVisitor<PointerFlow> {
  std::map<const clang::ValueDecl*, std::vector<const clang::Expr*>> sources;  // init and `p = e`
  std::vector<std::pair<const clang::Expr*, std::string>> stores;             // the pointer expression, what it is
  std::set<const clang::ValueDecl*> names;                                     // every declared name
  bool references = false;
  bool VisitVarDecl(clang::VarDecl* vd) {
    names.insert(vd);
    if (vd->getType()->isReferenceType() && !vd->getType().getNonReferenceType().isConstQualified()) references = true;
    if (vd->getType()->isPointerType() && vd->getInit()) sources[vd].push_back(vd->getInit());
    return true;
  }
  void store(const clang::Expr* lhs, const clang::Expr* whole) {
    if (isMemoryLvalue(lhs)) stores.push_back({bare(lhs), "a store"});
    auto* d = referencedDecl(lhs);
    if (d && d->getType()->isPointerType()) {
      auto* bo = llvm::dyn_cast<clang::BinaryOperator>(whole);
      if (bo && bo->getOpcode() == clang::BO_Assign) sources[d].push_back(bo->getRHS());
    }
  }
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    if (bo->isAssignmentOp()) store(bo->getLHS(), bo);
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->isIncrementDecrementOp()) store(uo->getSubExpr(), uo);
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* call) {
    for (const clang::Expr* a : call->arguments())
      if (bare(a)->getType()->isPointerType() || bare(a)->getType()->isReferenceType())
        stores.push_back({a, "a call's pointer argument (" + calleeName(call) + ")"});
    return true;
  }
  // Every variable p may be derived from (p itself included); null in the set: something unknown.
  std::set<const clang::ValueDecl*> roots(const clang::ValueDecl* p) const {
    std::set<const clang::ValueDecl*> out;
    std::function<void(const clang::ValueDecl*)> walk = [&](const clang::ValueDecl* d) {
      if (!d) {
        out.insert(nullptr);
        return;
      }
      if (!out.insert(d).second) return;
      auto it = sources.find(d);
      if (it == sources.end()) return;
      for (const clang::Expr* e : it->second) walk(pointerBase(e));
    };
    walk(p);
    return out;
  }
};

// The first character of a loop statement's text: its `#pragma` line when it has one.
std::optional<unsigned> loopTextStart(const Src& src, const Strided& st) {
  unsigned f = src.off(st.loop->getBeginLoc());
  if (!llvm::isa<clang::AttributedStmt>(st.stmt)) return f;
  if (!src.blankBefore(f)) return std::nullopt;
  unsigned line = src.lineStart(f);
  if (line == 0) return std::nullopt;
  unsigned prev = src.lineStart(line - 1);
  std::string text = src.slice(prev, line - 1);
  size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos || text.compare(first, 8, "#pragma ") != 0) return std::nullopt;
  return prev + static_cast<unsigned>(first);
}

// The statements of the row: after kl_lane at the top level, or inside the kernel's last
// `if (r < rows) { ... }`.
std::vector<std::vector<const clang::Stmt*>> rowScopes(const clang::CompoundStmt* body, const clang::VarDecl* lane) {
  std::vector<std::vector<const clang::Stmt*>> scopes(1);
  bool after = false;
  for (const clang::Stmt* s : body->body()) {
    if (after) scopes[0].push_back(s);
    auto* ds = llvm::dyn_cast<clang::DeclStmt>(s);
    if (ds && ds->isSingleDecl() && ds->getSingleDecl() == lane) after = true;
  }
  if (!scopes[0].empty())
    if (auto* is = llvm::dyn_cast<clang::IfStmt>(scopes[0].back()); is && !is->getElse())
      if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(is->getThen()))
        scopes.emplace_back(cs->body_begin(), cs->body_end());
  return scopes;
}

const clang::VarDecl* laneOf(const clang::CompoundStmt* body) {
  for (const clang::Stmt* s : body->body())
    if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(s); ds && ds->isSingleDecl())
      if (auto* vd = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()); vd && vd->getNameAsString() == "kl_lane")
        return vd;
  return nullptr;
}

// The loops of a scope that read x[c], with their scans; and the text forward writes.
// Float4 mode (vector_width 4): per register loop, which arrays it reads as vectors and whether
// its store is written as one vector store.
struct VecLoop {
  long long start = 0;                                      // S
  std::vector<const clang::ValueDecl*> vec_reads;           // p read as p[c] and loaded as vectors
  const clang::BinaryOperator* vec_store = nullptr;         // the body `p[c] = E;`, stored as a vector
};

struct Plan {
  const clang::ValueDecl* x = nullptr;
  std::string xoff;            // the row's offset R when it is read as x[R + c] (normal form), else ""
  const clang::Expr* xoff_expr = nullptr;
  std::string elem;  // T
  std::string bound;  // B's name
  std::vector<Strided> loops;
  std::vector<BodyScan> scans;
  // vector_width 4
  int width = 1;
  std::string vtype;                  // float4, int4, uint4
  std::vector<VecLoop> vec;           // one per loop
  std::vector<std::string> aligned;   // the pointers the runtime check proves 16-byte aligned (x first)
  std::map<const clang::ValueDecl*, std::string> vtypes;  // vector type of each array read as vectors
  std::map<const clang::ValueDecl*, std::string> vbases;  // its row's base (`p`, `(p + R)`)
  // The register path's reuse of a sum loop's E(x[c]) (planCache): the loop `v += E;` (index in
  // loops) writes E back into the row's register, and later loops read the register for E.
  size_t cache_loop = static_cast<size_t>(-1);
  const clang::Expr* cache_expr = nullptr;
  std::map<size_t, std::vector<const clang::Expr*>> cache_uses;  // loop index -> occurrences of E
};

std::string zeroOf(const std::string& t) {
  return t.find(' ') == std::string::npos ? t + "(0)" : "static_cast<" + t + ">(0)";
}

// R as written, parenthesized when it binds looser than + (it is followed by `+ kl_j * 32 + kl_lane`).
std::string offsetText(const Plan& p) {
  const clang::Expr* r = p.xoff_expr->IgnoreImpCasts();
  const std::string t = sourceText(p.x->getASTContext(), p.xoff_expr->getSourceRange());
  auto* b = llvm::dyn_cast<clang::BinaryOperator>(r);
  const bool loose = llvm::isa<clang::ConditionalOperator>(r) ||
                     (b && !b->isMultiplicativeOp() && !b->isAdditiveOp());
  return loose ? "(" + t + ")" : t;
}

// The row's base as float4 mode reads it: x, or (x + R).
std::string xBase(const Plan& p) {
  return p.xoff.empty() ? p.x->getNameAsString() : "(" + p.x->getNameAsString() + " + " + sourceText(p.x->getASTContext(), p.xoff_expr->getSourceRange()) + ")";
}

std::string prefetchText(const Plan& p, long long k, const std::string& indent) {
  const std::string ks = std::to_string(k);
  return std::string(kComment) + " (rows of up to " + std::to_string(k * 32) + ")\n" +  //
         indent + p.elem + " kl_row[" + ks + "];\n" +                                   //
         indent + "const bool kl_in_regs = " + p.bound + " <= " + ks + " * 32;\n" +     //
         indent + "if (kl_in_regs) {\n" +                                               //
         indent + "  #pragma unroll\n" +                                                //
         indent + "  for (int kl_j = 0; kl_j < " + ks + "; ++kl_j) kl_row[kl_j] = kl_j * 32 + kl_lane < " + p.bound +
         " ? " + p.x->getNameAsString() + "[" + (p.xoff.empty() ? "" : offsetText(p) + " + ") +
         "kl_j * 32 + kl_lane] : " + zeroOf(p.elem) + ";\n" +  //
         indent + "}\n" + indent;
}

// `if (kl_in_regs) { <register loop> } else ` (+ a line break before a `#pragma` line), written
// in front of the loop, which stays as it is.
std::string headText(const Src& src, const clang::ASTContext& ctx, const Strided& st, const BodyScan& scan,
                     const Plan& p, long long k, const std::string& indent) {
  const clang::Stmt* body = st.loop->getBody();
  unsigned b0 = src.off(body->getBeginLoc()), b1 = src.stmtEnd(body);
  // x[c] -> kl_row[kl_j]; each expression of `whole` (planCache's E) -> kl_row[kl_j] as a whole.
  auto substituted = [&](unsigned a, unsigned b, const std::vector<const clang::Expr*>& whole) {
    std::vector<std::pair<unsigned, unsigned>> edits;
    for (const clang::Expr* w : whole) edits.push_back({src.off(w->getBeginLoc()), src.tokEnd(w->getEndLoc())});
    for (const clang::ArraySubscriptExpr* e : scan.x_reads) {
      unsigned e0 = src.off(e->getBeginLoc()), e1 = src.off(e->getRBracketLoc()) + 1;
      bool inside = false;
      for (const clang::Expr* w : whole) inside |= e0 >= src.off(w->getBeginLoc()) && e0 < src.tokEnd(w->getEndLoc());
      if (!inside && e0 >= a && e1 <= b) edits.push_back({e0, e1});
    }
    std::sort(edits.begin(), edits.end());
    std::string text;
    unsigned at = a;
    for (const auto& [e0, e1] : edits) {
      text += src.slice(at, e0) + "kl_row[kl_j]";
      at = e1;
    }
    return text + src.slice(at, b);
  };
  const size_t li = static_cast<size_t>(std::find_if(p.loops.begin(), p.loops.end(), [&](const Strided& l) { return l.loop == st.loop; }) -
                                        p.loops.begin());
  auto uses = p.cache_uses.find(li);
  auto deeper = [](const std::string& t, const std::string& more) {  // later lines `more` deeper
    std::string out;
    for (size_t i = 0; i < t.size(); ++i) {
      out += t[i];
      if (t[i] == '\n' && i + 1 < t.size() && t[i + 1] != '\n') out += more;
    }
    return out;
  };
  std::string body_text;
  if (li == p.cache_loop) {  // `v += E;` -> `{ kl_row[kl_j] = E; v += kl_row[kl_j]; }`
    const clang::Expr* e = p.cache_expr;
    body_text = "{\n" + indent + "      kl_row[kl_j] = " +
                deeper(substituted(src.off(e->getBeginLoc()), src.tokEnd(e->getEndLoc()), {}), "      ") + ";\n" + indent +
                "      " + deeper(substituted(b0, b1, {e}), "      ") + "\n" + indent + "    }";
  } else {
    body_text = deeper(substituted(b0, b1, uses != p.cache_uses.end() ? uses->second : std::vector<const clang::Expr*>{}), "    ");
  }
  const std::string c = st.counter->getNameAsString();
  const std::string start = sourceText(ctx, st.start->getSourceRange());
  const std::string ctype = st.counter->getType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
  const bool pragma = llvm::isa<clang::AttributedStmt>(st.stmt);
  return "if (kl_in_regs) {\n" +                                                                       //
         indent + "  #pragma unroll\n" +                                                              //
         indent + "  for (int kl_j = 0; kl_j < " + std::to_string(k) + "; ++kl_j) {\n" +              //
         indent + "    const " + ctype + " " + c + " = kl_j * 32 + kl_lane;\n" +                      //
         indent + "    if (" + c + " >= " + start + " && " + c + " < " + p.bound + ") " + body_text + "\n" +  //
         indent + "  }\n" +                                                                           //
         indent + "} else" + (pragma ? "\n" + indent : " ");
}

// ---- vector_width 4 ------------------------------------------------------------------------

// `for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, kl_offset);`
// (or `v = fmaxf(v, __shfl_xor_sync(...))`, fminf, fmax, fmin, max, min), as warp-per-row writes it:
// the variable v it combines across all 32 lanes, else null. After it every lane holds the same
// value, bit for bit: each step combines a lane's value with its xor partner's by a commutative
// operation, so the two partners compute the same result.
const clang::VarDecl* butterflyVar(const clang::ASTContext& ctx, const clang::Stmt* s, std::string* op = nullptr) {
  auto* fs = llvm::dyn_cast<clang::ForStmt>(s);
  if (!fs || !fs->getBody()) return nullptr;
  const clang::Stmt* b = fs->getBody();
  if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(b)) {
    if (cs->size() != 1) return nullptr;
    b = cs->body_front();
  }
  auto* e = llvm::dyn_cast<clang::Expr>(b);
  auto* bo = e ? llvm::dyn_cast<clang::BinaryOperator>(bare(e)) : nullptr;
  auto* v = bo ? llvm::dyn_cast_or_null<clang::VarDecl>(referencedDecl(bo->getLHS())) : nullptr;
  if (!v) return nullptr;
  const std::string head = squeeze(sourceText(ctx, clang::SourceRange(fs->getBeginLoc(), fs->getRParenLoc())));
  if (head != "for(intkl_offset=16;kl_offset>0;kl_offset/=2)") return nullptr;
  const std::string n = v->getNameAsString();
  std::string body = squeeze(sourceText(ctx, bo->getSourceRange()));
  for (const char* mask : {"0xffffffffu", "0xffffffff", "0xFFFFFFFFu", "0xFFFFFFFF", "~0u"}) {
    const std::string shfl = "__shfl_xor_sync(" + std::string(mask) + "," + n + ",kl_offset)";
    if (body == n + "+=" + shfl) return op && (*op = "+", true), v;
    for (const std::string& f : kMinMax)
      if (body == n + "=" + f + "(" + n + "," + shfl + ")") return op && (*op = f, true), v;
  }
  return nullptr;
}

// Whether each variable a strided loop reduces (scan.ops) is combined right after it (rows[index + 1],
// ...) by a butterfly of the same operation (a sum by a sum, fmaxf by fmaxf: a per-lane sum combined
// by a max would depend on which elements each lane had), and it reduces nothing else: "" or the
// variable that is not.
std::string uncombined(const clang::ASTContext& ctx, const std::vector<const clang::Stmt*>& rows, size_t index,
                       const BodyScan& scan) {
  std::map<const clang::VarDecl*, std::set<std::string>> combined;
  for (size_t j = index + 1; j < rows.size(); ++j) {
    std::string op;
    const clang::VarDecl* v = butterflyVar(ctx, rows[j], &op);
    if (!v) break;
    combined[v].insert(op);
  }
  for (const auto& [v, red] : scan.outer_updates) {
    auto it = scan.ops.find(v);
    if (!red || it == scan.ops.end() || it->second.size() != 1 || combined[v] != it->second) return v->getNameAsString();
  }
  return "";
}

// A function float4 mode trusts to compute from its arguments only: declared in a system header
// (the CUDA math functions), not variadic, no pointer or reference parameter, and at least one
// argument: the headers' functions without arguments read the thread's own state (__lanemask_lt,
// clock, __nvvm_read_ptx_sreg_*), except the getters of threadIdx.x, blockIdx.x, ... whose object
// (threadIdx, blockIdx) Uniformity judges.
bool trustedCall(const clang::ASTContext& ctx, const clang::CallExpr* call) {
  const clang::FunctionDecl* fd = call->getDirectCallee();
  if (!fd || fd->isVariadic() || intrinsicKind(calleeName(call))) return false;
  if (call->getNumArgs() == 0 && fd->getNameAsString().rfind("__fetch_builtin_", 0) != 0) return false;
  if (!fd->getBuiltinID() && !ctx.getSourceManager().isInSystemHeader(fd->getLocation())) return false;
  for (const clang::ParmVarDecl* pv : fd->parameters())
    if (pv->getType()->isPointerType() || pv->getType()->isReferenceType()) return false;
  return true;
}

// Which variables hold the same value in every lane of a warp, statement by statement (top-level
// statements only; anything it cannot follow is not uniform). Kernel parameters are; a variable
// assigned from uniform values is; one combined by a full butterfly is (right after it). Builtins:
// blockIdx, blockDim, gridDim are; threadIdx is not, except `(blockIdx.x * blockDim.x + threadIdx.x) / 32`
// (and `threadIdx.x / 32`) when the block's x size is a multiple of 32 (a warp's lanes then share it:
// warp-per-row's row index). Memory reads are never uniform here.
struct Uniformity {
  const clang::ASTContext& ctx;
  bool warp_rows = false;                     // the block's x size is a multiple of 32
  std::set<const clang::ValueDecl*> vars;     // uniform now
  std::set<const clang::ValueDecl*> never;    // their address is taken
  Uniformity(const clang::ASTContext& c, bool w) : ctx(c), warp_rows(w) {}

  bool warpIndex(const clang::Expr* e) const {
    auto* bo = llvm::dyn_cast<clang::BinaryOperator>(e);
    if (!warp_rows || !bo || bo->getOpcode() != clang::BO_Div) return false;
    auto* lit = llvm::dyn_cast<clang::IntegerLiteral>(bare(bo->getRHS()));
    if (!lit || lit->getValue() != 32) return false;
    const std::string t = squeeze(sourceText(ctx, bo->getLHS()->IgnoreParenImpCasts()->getSourceRange()));
    static const std::set<std::string> forms = {"blockIdx.x*blockDim.x+threadIdx.x", "blockDim.x*blockIdx.x+threadIdx.x",
                                                "threadIdx.x+blockIdx.x*blockDim.x", "threadIdx.x+blockDim.x*blockIdx.x",
                                                "threadIdx.x"};
    return forms.count(t) > 0;
  }
  bool expr(const clang::Stmt* s) const {
    if (!s) return true;
    if (auto* e = llvm::dyn_cast<clang::Expr>(s)) {
      if (warpIndex(e->IgnoreParenImpCasts())) return true;
    }
    // threadIdx.x is a property read whose object (threadIdx) sits behind an OpaqueValueExpr,
    // which has no children: follow its source.
    if (auto* ov = llvm::dyn_cast<clang::OpaqueValueExpr>(s)) return expr(ov->getSourceExpr());
    if (auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
      const clang::ValueDecl* d = dre->getDecl();
      if (!llvm::isa<clang::VarDecl>(d)) return true;  // functions, enumerators
      const std::string n = d->getNameAsString();
      if (n == "threadIdx") return false;
      if (isBuiltinGeometry(n)) return true;
      auto* vd = llvm::cast<clang::VarDecl>(d);
      if (!vd->isLocalVarDeclOrParm() && vd->getType().isConstQualified() &&
          ctx.getSourceManager().isInSystemHeader(vd->getLocation()))
        return true;  // warpSize and other constants of the CUDA headers
      return vars.count(d) > 0 && !never.count(d);
    }
    if (llvm::isa<clang::ArraySubscriptExpr>(s) || llvm::isa<clang::LambdaExpr>(s) || llvm::isa<clang::StmtExpr>(s))
      return false;
    if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(s))
      if (uo->getOpcode() == clang::UO_Deref || uo->getOpcode() == clang::UO_AddrOf || uo->isIncrementDecrementOp())
        return false;
    if (auto* me = llvm::dyn_cast<clang::MemberExpr>(s); me && me->isArrow()) return false;
    if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(s); bo && bo->isAssignmentOp()) return false;
    if (auto* call = llvm::dyn_cast<clang::CallExpr>(s); call && !trustedCall(ctx, call)) return false;
    for (const clang::Stmt* ch : s->children())
      if (!expr(ch)) return false;
    return true;
  }
  // Follows one top-level statement.
  void step(const clang::Stmt* s) {
    const bool was = [&] {
      auto* e = llvm::dyn_cast<clang::Expr>(s);
      auto* bo = e ? llvm::dyn_cast<clang::BinaryOperator>(bare(e)) : nullptr;
      auto* d = bo ? referencedDecl(bo->getLHS()) : nullptr;
      return d && vars.count(d);
    }();
    Assigned a;
    a.TraverseStmt(const_cast<clang::Stmt*>(s));
    for (const auto* d : a.vars) vars.erase(d);
    if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
      for (const clang::Decl* d : ds->decls())
        if (auto* vd = llvm::dyn_cast<clang::VarDecl>(d)) {
          vars.erase(vd);
          if (vd->getInit() && !vd->getType()->isArrayType() && !vd->getType()->isReferenceType() &&
              !vd->isStaticLocal() && !never.count(vd) && expr(vd->getInit()))
            vars.insert(vd);
        }
      return;
    }
    if (const clang::VarDecl* v = butterflyVar(ctx, s)) {
      if (!never.count(v)) vars.insert(v);
      return;
    }
    auto* e = llvm::dyn_cast<clang::Expr>(s);
    auto* bo = e ? llvm::dyn_cast<clang::BinaryOperator>(bare(e)) : nullptr;
    if (!bo || !bo->isAssignmentOp()) return;
    auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(bare(bo->getLHS()));
    auto* v = dre ? llvm::dyn_cast<clang::VarDecl>(dre->getDecl()) : nullptr;
    if (!v || never.count(v) || v->getType()->isReferenceType()) return;
    if ((bo->getOpcode() == clang::BO_Assign || was) && expr(bo->getRHS())) vars.insert(v);
  }
};

// Every memory access of the kernel: reads and writes through pointers, and pointers passed to calls.
struct Accesses : clang::RecursiveASTVisitor<Accesses> {
  std::vector<const clang::Expr*> all;
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
    if (!isLocalArray(e)) all.push_back(e);
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->getOpcode() == clang::UO_Deref) all.push_back(uo);
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr* me) {
    if (me->isArrow()) all.push_back(me);
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* call) {
    for (const clang::Expr* a : call->arguments())
      if (bare(a)->getType()->isPointerType() || bare(a)->getType()->isReferenceType()) all.push_back(a);
    return true;
  }
};

// The decisions of float4 mode for the plan's loops, from the kernel as it is (forward) or from the
// fallback loops (inverse): the same text either way. An array other than x is accessed as vectors
// when it has a 4-wide vector type, it is a parameter or declared before the row is read (`fill`:
// the offset of the first register loop, where the runtime check is written), nothing assigns it,
// the loop starts at a multiple of 4 (so no element before S is touched), and its body is one
// expression statement without ?:, && or || (each p[c] is read for every c). The store is a vector
// store when the loop's body is just `p[c] = E;` with p of x's element type.
void planVectors(const clang::ASTContext& ctx, const Src& src, Plan& p, unsigned fill,
                 const std::set<const clang::ValueDecl*>& assigned) {
  p.vec.clear();
  p.aligned = {xBase(p)};
  p.vtypes.clear();
  p.vbases.clear();
  auto eligible = [&](const clang::ValueDecl* d) -> std::string {
    if (!d->getType()->isPointerType() || assigned.count(d)) return "";
    if (!llvm::isa<clang::ParmVarDecl>(d) && !(src.inFile(d->getLocation()) && src.off(d->getLocation()) < fill)) return "";
    return vectorType(ctx, d->getType()->getPointeeType());
  };
  auto align = [&](const std::string& n) {
    if (std::find(p.aligned.begin(), p.aligned.end(), n) == p.aligned.end()) p.aligned.push_back(n);
  };
  for (size_t i = 0; i < p.loops.size(); ++i) {
    const Strided& st = p.loops[i];
    const BodyScan& scan = p.scans[i];
    VecLoop v;
    clang::Expr::EvalResult r;
    if (st.start->EvaluateAsInt(r, ctx)) v.start = r.Val.getInt().getExtValue();
    if (v.start % 4 == 0) {
      auto* e = llvm::dyn_cast<clang::Expr>(st.loop->getBody());
      auto* bo = e ? llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParens()) : nullptr;
      if (bo && bo->getOpcode() == clang::BO_Assign && scan.store_lhs.size() == 1 && scan.store_lhs[0] == bare(bo->getLHS())) {
        auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(bare(bo->getLHS()));
        auto* dre = ase ? llvm::dyn_cast<clang::DeclRefExpr>(bare(ase->getBase())) : nullptr;
        if (dre && scan.bases.count(ase) && dre->getDecl() != p.x && !eligible(dre->getDecl()).empty() &&
            dre->getDecl()->getType()->getPointeeType().getUnqualifiedType().getCanonicalType() ==
                p.x->getType()->getPointeeType().getUnqualifiedType().getCanonicalType()) {
          v.vec_store = bo;
          align(scan.bases.at(ase));
        }
      }
      // Loaded as vectors only when every p[c] of the body is evaluated: one expression statement
      // without ?:, && or || (a vector then reads no element the loop would not).
      struct Conditional : clang::RecursiveASTVisitor<Conditional> {
        bool found = false;
        bool VisitAbstractConditionalOperator(clang::AbstractConditionalOperator*) { return !(found = true); }
        bool VisitBinaryOperator(clang::BinaryOperator* b) {
          if (b->isLogicalOp()) found = true;
          return !found;
        }
      } cond;
      cond.TraverseStmt(const_cast<clang::Stmt*>(st.loop->getBody()));
      const bool unconditional = llvm::isa<clang::Expr>(st.loop->getBody()) && !cond.found;
      for (const clang::ArraySubscriptExpr* a : unconditional ? scan.at_c : std::vector<const clang::ArraySubscriptExpr*>{}) {
        const clang::ValueDecl* d = referencedDecl(a->getBase());
        if (d == p.x || std::find(v.vec_reads.begin(), v.vec_reads.end(), d) != v.vec_reads.end()) continue;
        const std::string vt = eligible(d);
        if (vt.empty() || !scan.bases.count(a)) continue;
        // one row of d per loop: every read of d at the counter with the same offset
        bool same = true;
        for (const clang::ArraySubscriptExpr* b : scan.at_c)
          if (referencedDecl(b->getBase()) == d) same &= scan.bases.count(b) && scan.bases.at(b) == scan.bases.at(a);
        if (!same || (p.vbases.count(d) && p.vbases.at(d) != scan.bases.at(a))) continue;
        v.vec_reads.push_back(d);
        p.vtypes[d] = vt;
        p.vbases[d] = scan.bases.at(a);
        align(scan.bases.at(a));
      }
    }
    p.vec.push_back(v);
  }
}

std::string vecName(const clang::ValueDecl* d) { return "kl_" + d->getNameAsString() + "_4"; }

std::string deepen(const std::string& text, const std::string& more) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] != '\n') out += more;
  }
  return out;
}

// The text [a, b) with component `comp`'s substitutions: x[c] -> kl_row4[kl_j].x, p[c] of an array
// read as vectors -> kl_p_4.x, any other c -> kl_c + comp. Empty when a piece is written through a macro.
// Each expression of `whole` (planCache's E) -> kl_row4[kl_j].x as a whole.
std::optional<std::string> componentText(const Src& src, const Plan& p, const BodyScan& scan, const VecLoop& v,
                                         unsigned a, unsigned b, int comp,
                                         const std::vector<const clang::Expr*>& whole = {}) {
  std::vector<std::tuple<unsigned, unsigned, std::string>> edits;
  const std::string cs = kComponents[comp];
  for (const clang::Expr* w : whole)
    edits.emplace_back(src.off(w->getBeginLoc()), src.tokEnd(w->getEndLoc()), "kl_row4[kl_j]." + cs);
  const size_t n_whole = edits.size();
  auto inWhole = [&](unsigned o) {
    for (size_t i = 0; i < n_whole; ++i)
      if (o >= std::get<0>(edits[i]) && o < std::get<1>(edits[i])) return true;
    return false;
  };
  for (const auto* e : scan.x_reads)
    if (!inWhole(src.off(e->getBeginLoc())))
      edits.emplace_back(src.off(e->getBeginLoc()), src.off(e->getRBracketLoc()) + 1, "kl_row4[kl_j]." + cs);
  for (const auto* e : scan.at_c)
    if (std::find(v.vec_reads.begin(), v.vec_reads.end(), referencedDecl(e->getBase())) != v.vec_reads.end() &&
        !inWhole(src.off(e->getBeginLoc())))
      edits.emplace_back(src.off(e->getBeginLoc()), src.off(e->getRBracketLoc()) + 1,
                         vecName(referencedDecl(e->getBase())) + "." + cs);
  for (const auto* r : scan.c_refs) {
    if (!src.inFile(r->getLocation())) return std::nullopt;
    const unsigned o = src.off(r->getLocation());
    bool inside = false;
    for (const auto& [e0, e1, t] : edits) inside |= o >= e0 && o < e1;
    if (!inside) edits.emplace_back(o, src.tokEnd(r->getLocation()), "kl_c + " + std::to_string(comp));
  }
  std::sort(edits.begin(), edits.end());
  std::string out;
  unsigned at = a;
  for (const auto& [e0, e1, t] : edits) {
    if (e0 < a || e1 > b) continue;
    if (e0 < at) return std::nullopt;
    out += src.slice(at, e0) + t;
    at = e1;
  }
  return out + src.slice(at, b);
}

std::string prefetchText4(const Plan& p, long long k, const std::string& indent) {
  const std::string ks = std::to_string(k);
  return std::string(kComment4) + " (rows of up to " + std::to_string(k * 128) + ")\n" +  //
         indent + p.vtype + " kl_row4[" + ks + "];\n" +                                  //
         indent + "const bool kl_in_regs = " + p.bound + " <= " + ks + " * 128 && " + p.bound + " % 4 == 0 && " +
         alignmentCheck(p.aligned) + ";\n" +                                              //
         indent + "if (kl_in_regs) {\n" +                                                 //
         indent + "  #pragma unroll\n" +                                                  //
         indent + "  for (int kl_j = 0; kl_j < " + ks + "; ++kl_j) kl_row4[kl_j] = (kl_j * 32 + kl_lane) * 4 < " + p.bound +
         " ? " + vectorLoad(p.vtype, xBase(p), "kl_j * 32 + kl_lane") + " : make_" + p.vtype +
         "(0, 0, 0, 0);\n" +                                                             //
         indent + "}\n" + indent;
}

// Float4 mode's `if (kl_in_regs) { <register loop> } else `, written in front of the loop.
std::optional<std::string> headText4(const Src& src, const clang::ASTContext& ctx, const Strided& st,
                                     const BodyScan& scan, const VecLoop& v, const Plan& p, long long k,
                                     const std::string& indent) {
  const clang::Stmt* body = st.loop->getBody();
  const std::string I = indent + "      ";
  const std::string start = sourceText(ctx, st.start->getSourceRange());
  const std::string ctype = st.counter->getType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
  std::string inner;
  const size_t li = static_cast<size_t>(std::find_if(p.loops.begin(), p.loops.end(), [&](const Strided& l) { return l.loop == st.loop; }) -
                                        p.loops.begin());
  auto found = p.cache_uses.find(li);
  const std::vector<const clang::Expr*> uses = found != p.cache_uses.end() ? found->second : std::vector<const clang::Expr*>{};
  for (const clang::ValueDecl* d : v.vec_reads)
    inner += I + "const " + p.vtypes.at(d) + " " + vecName(d) + " = " +
             vectorLoad(p.vtypes.at(d), p.vbases.at(d), "kl_j * 32 + kl_lane") + ";\n";
  if (v.vec_store) {
    const clang::Expr* rhs = v.vec_store->getRHS();
    const unsigned r0 = src.off(rhs->getBeginLoc()), r1 = src.tokEnd(rhs->getEndLoc());
    inner += I + p.vtype + " kl_v;\n";
    for (int i = 0; i < 4; ++i) {
      auto t = componentText(src, p, scan, v, r0, r1, i, uses);
      if (!t) return std::nullopt;
      inner += I + "kl_v." + kComponents[i] + " = " + deepen(*t, "      ") + ";\n";
    }
    auto* ase = llvm::cast<clang::ArraySubscriptExpr>(bare(v.vec_store->getLHS()));
    inner += I + "reinterpret_cast<" + p.vtype + "*>(" + scan.bases.at(ase) + ")[kl_j * 32 + kl_lane] = kl_v;\n";
  } else {
    const unsigned b0 = src.off(body->getBeginLoc()), b1 = src.stmtEnd(body);
    for (int i = 0; i < 4; ++i) {
      if (li == p.cache_loop) {  // `v += E;` -> `kl_row4[kl_j].x = E; v += kl_row4[kl_j].x;` (the loop starts at 0)
        const clang::Expr* e = p.cache_expr;
        auto te = componentText(src, p, scan, v, src.off(e->getBeginLoc()), src.tokEnd(e->getEndLoc()), i);
        auto t = componentText(src, p, scan, v, b0, b1, i, {e});
        if (!te || !t) return std::nullopt;
        inner += I + "kl_row4[kl_j]." + kComponents[i] + " = " + deepen(*te, "      ") + ";\n";
        inner += I + deepen(*t, "      ") + "\n";
        continue;
      }
      auto t = componentText(src, p, scan, v, b0, b1, i, uses);
      if (!t) return std::nullopt;
      const std::string guard = v.start % 4 != 0 ? "if (kl_c + " + std::to_string(i) + " >= " + start + ") " : "";
      inner += I + guard + deepen(*t, "      ") + "\n";
    }
  }
  const std::string range = v.start % 4 == 0 && v.start != 0 ? "kl_c >= " + start + " && kl_c < " + p.bound
                                                             : "kl_c < " + p.bound;
  const bool pragma = llvm::isa<clang::AttributedStmt>(st.stmt);
  return "if (kl_in_regs) {\n" +                                                           //
         indent + "  #pragma unroll\n" +                                                  //
         indent + "  for (int kl_j = 0; kl_j < " + std::to_string(k) + "; ++kl_j) {\n" +  //
         indent + "    const " + ctype + " kl_c = (kl_j * 32 + kl_lane) * 4;\n" +         //
         indent + "    if (" + range + ") {\n" +                                          //
         inner +                                                                          //
         indent + "    }\n" +                                                             //
         indent + "  }\n" +                                                               //
         indent + "} else" + (pragma ? "\n" + indent : " ");
}

// Which pointer the strided loops read at their counter most often: x (ties: the first read).
// `why` says why there is none worth keeping in registers.
Plan choose(clang::ASTContext& ctx, const clang::Stmt* body, const std::vector<Strided>& strided, std::string& why) {
  Plan p;
  std::map<RowKey, unsigned> loops_reading;
  std::vector<RowKey> order;
  for (const Strided& st : strided) {
    CounterReads cr(st.counter, &ctx, body, st.loop->getBody());
    cr.TraverseStmt(const_cast<clang::Stmt*>(st.loop->getBody()));
    for (const RowKey& d : cr.order) {
      if (!loops_reading.count(d)) order.push_back(d);
      ++loops_reading[d];
    }
  }
  unsigned best = 0;
  for (const RowKey& d : order)
    if (loops_reading[d] > best) {
      best = loops_reading[d];
      p.x = d.first;
      p.xoff = d.second;
    }
  if (!p.x) {
    why = "no strided loop reads a pointer at its counter (p[c])";
    return p;
  }
  if (best < 2) {
    why = p.x->getNameAsString() + " is read at the counter in only one strided loop: a single pass over the row "
                                   "gains nothing from registers";
    p.x = nullptr;
    return p;
  }
  if (!p.xoff.empty()) {
    // R as written in the first loop that reads the row (the same text in every loop)
    for (const Strided& st : strided) {
      CounterReads cr(st.counter, &ctx, body, st.loop->getBody());
      cr.TraverseStmt(const_cast<clang::Stmt*>(st.loop->getBody()));
      auto it = cr.reads.find(RowKey{p.x, p.xoff});
      if (it == cr.reads.end()) continue;
      counterIndex(it->second.front()->getIdx(), st.counter, &ctx, body, st.loop->getBody(), &p.xoff_expr);
      break;
    }
  }
  for (const Strided& st : strided) {
    BodyScan scan(st.counter, p.x);
    scan.xoff = p.xoff;
    scan.actx = &ctx;
    scan.kbody = body;
    scan.loop_body = st.loop->getBody();
    scan.TraverseStmt(const_cast<clang::Stmt*>(st.loop->getBody()));
    if (scan.x_reads.empty()) continue;
    p.loops.push_back(st);
    p.scans.push_back(std::move(scan));
  }
  return p;
}

// ---- reusing E(x[c]) ----------------------------------------------------------------------

// Whether e computes a value from the row element (x[c]: a node of xr), local scalar variables,
// constants and pure math functions only (trustedCall: the CUDA headers' functions with arguments,
// none of them a pointer), with no side effect: no assignment, increment, memory read, comma, or
// any other node. `shape` gets the expression's structure (node kinds, operators, types) and
// `decls` the variables it reads, in order, so that two occurrences compare exactly.
bool pureExpr(const clang::ASTContext& ctx, const clang::Stmt* s, const std::set<const clang::Expr*>& xr,
              const clang::VarDecl* counter, std::string& shape, std::vector<const clang::ValueDecl*>& decls) {
  auto* e = llvm::dyn_cast_or_null<clang::Expr>(s);
  if (!e) return false;
  shape += std::string(e->getStmtClassName()) + ":" + e->getType().getAsString(ctx.getPrintingPolicy()) + "(";
  bool descend = false;
  if (xr.count(e)) {
    shape += "row)";
    return true;
  }
  if (auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    const clang::ValueDecl* d = dre->getDecl();
    if (auto* vd = llvm::dyn_cast<clang::VarDecl>(d)) {
      if (vd == counter || !vd->isLocalVarDeclOrParm() || vd->isStaticLocal() || !vd->getType()->isArithmeticType() ||
          vd->getType().isVolatileQualified())
        return false;
      decls.push_back(vd);
    } else if (!llvm::isa<clang::FunctionDecl>(d) && !llvm::isa<clang::EnumConstantDecl>(d)) {
      return false;
    }
    shape += d->getNameAsString();
  } else if (llvm::isa<clang::IntegerLiteral>(e) || llvm::isa<clang::FloatingLiteral>(e) || llvm::isa<clang::CXXBoolLiteralExpr>(e)) {
    shape += sourceText(ctx, e->getSourceRange());
  } else if (llvm::isa<clang::ParenExpr>(e) || llvm::isa<clang::ImplicitCastExpr>(e) ||
             llvm::isa<clang::ConditionalOperator>(e)) {
    descend = true;
  } else if (auto* ce = llvm::dyn_cast<clang::ExplicitCastExpr>(e)) {
    if (!ce->getType()->isArithmeticType()) return false;
    descend = true;
  } else if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    const auto op = uo->getOpcode();
    if (op != clang::UO_Plus && op != clang::UO_Minus && op != clang::UO_Not && op != clang::UO_LNot) return false;
    shape += clang::UnaryOperator::getOpcodeStr(op).str();
    descend = true;
  } else if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    if (bo->isAssignmentOp() || bo->getOpcode() == clang::BO_Comma) return false;
    shape += bo->getOpcodeStr().str();
    descend = true;
  } else if (auto* call = llvm::dyn_cast<clang::CallExpr>(e)) {
    if (!trustedCall(ctx, call) || !call->getType()->isArithmeticType()) return false;
    shape += calleeName(call);
    descend = true;
  } else {
    return false;
  }
  if (descend)
    for (const clang::Stmt* ch : e->children())
      if (!pureExpr(ctx, ch, xr, counter, shape, decls)) return false;
  shape += ")";
  return true;
}

// Whether a product is what E computes last (through parens, implicit casts, unary +/- and ?:): the
// compiler may contract a product with the sum or difference around it into an fma, differently
// when E is computed once and read twice, so such an E is not reused (results stay bit-exact).
bool endsInProduct(const clang::Expr* e) {
  e = e->IgnoreParenImpCasts();
  if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(e)) return bo->getOpcode() == clang::BO_Mul;
  if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(e))
    return (uo->getOpcode() == clang::UO_Plus || uo->getOpcode() == clang::UO_Minus) && endsInProduct(uo->getSubExpr());
  if (auto* co = llvm::dyn_cast<clang::ConditionalOperator>(e)) return endsInProduct(co->getTrueExpr()) || endsInProduct(co->getFalseExpr());
  return false;
}

// The register path computes E(x[c]) once: when a loop of the plan whose body is just `v += E;`
// (starting at 0, E of x's element type, reading x[c]: softmax's `s += expf(x[c] - m);`) is followed
// by loops containing the same E (same structure, same variables, after the row element's
// substitution), and
//   (a) E has no side effect and calls only pure math functions (pureExpr), and is not a product
//       (endsInProduct);
//   (b) nothing from that loop to the last loop reading x assigns a variable E reads (nor is its
//       address taken anywhere in the kernel), so each occurrence computes the same value;
//   (c) every x[c] of the later loops is inside an occurrence of E (the register then holds E, not
//       the element),
// the sum loop writes E into the register (`kl_row[kl_j] = E; v += kl_row[kl_j];`) and the later
// loops read the register for E. The same operations in the same order: bit-exact. Decided from the
// loops as they are (forward) or from the fallback loops (inverse): `rows` is the row's scope, where
// each plan loop's statement stands at its index (forward) or is the else branch of the `if` there
// (inverse). Leaves the plan without a cache when the conditions fail.
void planCache(const clang::ASTContext& ctx, const Src& src, const clang::CompoundStmt* body,
               const std::vector<const clang::Stmt*>& rows, Plan& p) {
  p.cache_loop = static_cast<size_t>(-1);
  p.cache_expr = nullptr;
  p.cache_uses.clear();
  std::vector<const clang::Stmt*> eff = rows;
  for (const Strided& st : p.loops) eff[st.index] = st.stmt;
  struct AddrTaken : clang::RecursiveASTVisitor<AddrTaken> {
    std::set<const clang::ValueDecl*> vars;
    bool VisitUnaryOperator(clang::UnaryOperator* uo) {
      if (uo->getOpcode() == clang::UO_AddrOf)
        if (auto* d = referencedDecl(uo->getSubExpr())) vars.insert(d);
      return true;
    }
  } taken;
  taken.TraverseStmt(const_cast<clang::CompoundStmt*>(body));
  const clang::QualType elem = p.x->getType()->getPointeeType().getUnqualifiedType().getCanonicalType();
  auto xset = [&](size_t i) {
    return std::set<const clang::Expr*>(p.scans[i].x_reads.begin(), p.scans[i].x_reads.end());
  };
  auto range = [&](const clang::Expr* e) -> std::optional<std::pair<unsigned, unsigned>> {
    if (!src.inFile(e->getBeginLoc()) || !src.inFile(e->getEndLoc())) return std::nullopt;
    return std::make_pair(src.off(e->getBeginLoc()), src.tokEnd(e->getEndLoc()));
  };
  for (size_t i = 0; i + 1 < p.loops.size(); ++i) {
    const Strided& st = p.loops[i];
    clang::Expr::EvalResult r;
    if (!st.start->EvaluateAsInt(r, ctx) || r.Val.getInt() != 0) continue;
    auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(st.loop->getBody());
    if (!ca || ca->getOpcode() != clang::BO_AddAssign || !llvm::isa<clang::DeclRefExpr>(bare(ca->getLHS()))) continue;
    const clang::Expr* e = ca->getRHS()->IgnoreParenImpCasts();
    const std::set<const clang::Expr*> xr = xset(i);
    if (xr.count(e) || !range(e) || endsInProduct(e) ||
        e->getType().getUnqualifiedType().getCanonicalType() != elem)
      continue;
    std::string shape;
    std::vector<const clang::ValueDecl*> decls;
    if (!pureExpr(ctx, e, xr, st.counter, shape, decls)) continue;
    unsigned in_e = 0;
    for (const auto* x : p.scans[i].x_reads) {
      const unsigned o = src.off(x->getBeginLoc());
      in_e += o >= range(e)->first && o < range(e)->second;
    }
    if (in_e == 0 || in_e != p.scans[i].x_reads.size()) continue;
    // (b): nothing from this loop to the last assigns what E reads.
    Assigned assigned;
    for (size_t j = st.index; j <= p.loops.back().index; ++j) assigned.TraverseStmt(const_cast<clang::Stmt*>(eff[j]));
    bool fixed = true;
    for (const auto* d : decls) fixed &= !assigned.vars.count(d) && !taken.vars.count(d);
    if (!fixed) continue;
    // (c): the later loops read x[c] only inside occurrences of E.
    std::map<size_t, std::vector<const clang::Expr*>> uses;
    bool ok = true;
    size_t n = 0;
    for (size_t j = i + 1; j < p.loops.size() && ok; ++j) {
      const std::set<const clang::Expr*> xj = xset(j);
      std::vector<const clang::Expr*> found;
      std::function<void(const clang::Stmt*)> find = [&](const clang::Stmt* s) {
        if (!s) return;
        if (auto* c = llvm::dyn_cast<clang::Expr>(s); c && c == c->IgnoreParenImpCasts() && range(c)) {
          std::string sh;
          std::vector<const clang::ValueDecl*> ds;
          if (pureExpr(ctx, c, xj, p.loops[j].counter, sh, ds) && sh == shape && ds == decls) {
            found.push_back(c);
            return;
          }
        }
        for (const clang::Stmt* ch : s->children()) find(ch);
      };
      find(p.loops[j].loop->getBody());
      for (const auto* x : p.scans[j].x_reads) {
        const unsigned o = src.off(x->getBeginLoc());
        bool inside = false;
        for (const auto* f : found) inside |= o >= range(f)->first && o < range(f)->second;
        ok &= inside;
      }
      n += found.size();
      uses[j] = found;
    }
    if (!ok || n == 0) continue;
    p.cache_loop = i;
    p.cache_expr = e;
    p.cache_uses = uses;
    return;
  }
}

// Float4 mode hands element c to lane (c / 4) % 32 instead of c % 32 in every register loop, so each
// loop must compute the same thing whichever lane runs an element: "" when it does, else why not.
//   - all 32 lanes run every register loop: the block's x size is a multiple of 32 (full warps), and
//     before the last register loop the kernel leaves only through top-level `if (U) return;` with a
//     warp-uniform U (also the condition of an enclosing `if (r < rows) { ... }`);
//   - a loop assigns variables declared outside it only as sums or min/max combined right after it
//     by a full-mask xor butterfly (today's rule for loops starting off a multiple of 32): every
//     element still enters once, sums regroup, min/max are exact;
//   - a loop reads no memory but p[c] of pointer variables, no array declared outside it, and calls
//     no function but the CUDA headers' (math) functions with arguments: p[c] is the same element in
//     any lane (a function without arguments, clock64 or a lane mask, reads the lane's own state);
//   - besides p[c], the counter and a reduction's own variable in its update, it reads only values
//     every lane of the warp holds (Uniformity: parameters, constants, uniform locals; not kl_lane,
//     threadIdx, a partial sum before its butterfly, nor a variable the loop itself updates), so
//     element c's value does not depend on which lane computes it; x and the bound are uniform too;
//   - it stores only as p[c] (no atomics), and the array it stores into is accessed nowhere else in
//     the kernel (no other lane reads or writes it in another order; its pointer's origin is known);
//     the arrays it reads at [c] are stored into nowhere in the kernel (not by another lane before).
std::string vectorChecks(const clang::ASTContext& ctx, const TransformFacts& facts, const clang::FunctionDecl* kernel,
                         const clang::CompoundStmt* body, const std::vector<const clang::Stmt*>& rows, const Plan& p,
                         const PointerFlow& flow) {
  const std::string xn = p.x->getNameAsString();
  const std::string mode = " (float4 mode gives element c to lane (c / 4) % 32 instead of c % 32)";
  auto shape = facts.shape();
  if (!shape || shape->x % 32 != 0)
    return "float4 mode needs every launch's block to have a multiple of 32 threads in x (full warps sharing a row)";
  Uniformity u(ctx, true);
  struct AddrTaken : clang::RecursiveASTVisitor<AddrTaken> {
    std::set<const clang::ValueDecl*> vars;
    bool VisitUnaryOperator(clang::UnaryOperator* uo) {
      if (uo->getOpcode() == clang::UO_AddrOf)
        if (auto* d = referencedDecl(uo->getSubExpr())) vars.insert(d);
      return true;
    }
  } taken;
  taken.TraverseStmt(const_cast<clang::CompoundStmt*>(body));
  u.never = taken.vars;
  for (const clang::ParmVarDecl* pv : kernel->parameters())
    if (!u.never.count(pv) && !pv->getType()->isReferenceType()) u.vars.insert(pv);
  std::map<const clang::Stmt*, size_t> loop_at;
  for (size_t i = 0; i < p.loops.size(); ++i) loop_at[p.loops[i].stmt] = i;

  auto checkLoop = [&](size_t i) -> std::string {
    const Strided& st = p.loops[i];
    const BodyScan& scan = p.scans[i];
    for (const clang::Expr* off : scan.offsets)
      if (!u.expr(off))
        return "the row offset " + sourceText(ctx, off->getSourceRange()) + " may differ between the lanes of a warp" + mode;
    if (i == 0) {
      if (!u.vars.count(p.x)) return xn + " may differ between the lanes of a warp" + mode;
      if (!u.vars.count(p.loops[0].bound)) return "the bound " + p.bound + " may differ between the lanes of a warp" + mode;
    }
    if (scan.atomics) return "a strided loop reading " + xn + " calls an atomic" + mode;
    if (scan.elsewhere) return "a strided loop reading " + xn + " reads memory other than p[c]" + mode;
    if (scan.local_arrays || scan.outer_array_writes)
      return "a strided loop reading " + xn + " uses an array declared outside it (per-lane state)" + mode;
    for (const clang::Expr* l : scan.store_lhs) {
      auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(l);
      auto* dre = ase ? llvm::dyn_cast<clang::DeclRefExpr>(bare(ase->getBase())) : nullptr;
      if (!dre || !scan.bases.count(ase))
        return "a strided loop reading " + xn + " stores other than as p[c] or p[R + c] (`" + sourceText(ctx, l->getSourceRange()) + "`)" + mode;
    }
    std::set<const clang::ValueDecl*> updated;
    for (const auto& [v, red] : scan.outer_updates) updated.insert(v);
    if (std::string v = uncombined(ctx, rows, st.index, scan); !v.empty())
      return "a strided loop reading " + xn + " assigns " + v +
             " other than as a sum or min/max combined by a full-mask xor butterfly of the same operation right after it" + mode;
    for (const clang::DeclRefExpr* r : scan.refs) {
      if (scan.self_refs.count(r)) continue;
      const std::string n = r->getDecl()->getNameAsString();
      if (updated.count(r->getDecl()))
        return "a strided loop reading " + xn + " reads " + n + ", which it updates lane by lane" + mode;
      if (!u.expr(r))
        return "a strided loop reading " + xn + " reads " + n + ", which may differ between the lanes of a warp there" + mode;
    }
    for (const clang::CallExpr* call : scan.calls)
      if (!intrinsicKind(calleeName(call)) && !trustedCall(ctx, call))
        return "a strided loop reading " + xn + " calls " + calleeName(call) +
               " (float4 mode trusts only the CUDA headers' functions without pointer arguments)";
    return "";
  };

  // The kernel's top-level statements in order (into the row's `if (...) { ... }` when it has one).
  const clang::Stmt* last = p.loops.back().stmt;
  bool done = false;
  using Stmts = std::vector<const clang::Stmt*>;
  std::function<std::string(const Stmts&)> walk = [&](const Stmts& ss) -> std::string {
    for (const clang::Stmt* s : ss) {
      if (done) return "";
      if (auto it = loop_at.find(s); it != loop_at.end()) {
        if (std::string w = checkLoop(it->second); !w.empty()) return w;
        if (s == last) done = true;
        u.step(s);
        continue;
      }
      if (auto* is = llvm::dyn_cast<clang::IfStmt>(s); is && !rows.empty() && !is->getElse())
        if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(is->getThen()); cs && cs->size() && cs->body_front() == rows.front()) {
          if (is->getInit() || is->getConditionVariable() || !u.expr(is->getCond()))
            return "the row's code runs under a condition that may differ between the lanes of a warp" + mode;
          return walk(std::vector<const clang::Stmt*>(cs->body_begin(), cs->body_end()));
        }
      Exits ex;
      ex.TraverseStmt(const_cast<clang::Stmt*>(s));
      if (ex.found) {
        auto* is = llvm::dyn_cast<clang::IfStmt>(s);
        const clang::Stmt* then = is ? is->getThen() : nullptr;
        if (auto* cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(then); cs && cs->size() == 1) then = cs->body_front();
        if (!is || is->getElse() || is->getInit() || is->getConditionVariable() || !then ||
            !llvm::isa<clang::ReturnStmt>(then) || !u.expr(is->getCond()))
          return "lanes of a warp may leave the kernel before the row's loops (only `if (U) return;` with a warp-uniform U is followed)" + mode;
      }
      u.step(s);
    }
    return "";
  };
  if (std::string w = walk(std::vector<const clang::Stmt*>(body->body_begin(), body->body_end())); !w.empty()) return w;
  if (!done) return "the row's loops are not where float4 mode looks for them";

  // Arrays read at [c] move between lanes too: nothing in the kernel may store into them (a store by
  // another lane, or by the loop itself in another lane, would be seen in another order).
  for (size_t i = 0; i < p.loops.size(); ++i)
    for (const clang::ArraySubscriptExpr* a : p.scans[i].at_c) {
      const clang::ValueDecl* base = pointerBase(a);
      std::set<const clang::ValueDecl*> r = flow.roots(base);
      if (!base || r.count(nullptr)) return "cannot tell which pointer an array read in a loop reading " + xn + " is derived from" + mode;
      for (const auto& [e, what] : flow.stores) {
        if (e == a) continue;
        std::set<const clang::ValueDecl*> rs = flow.roots(pointerBase(e));
        bool hits = rs.count(nullptr) > 0;
        for (const auto* d : rs) hits |= d && r.count(d);
        if (hits)
          return base->getNameAsString() + ", read in a loop reading " + xn + ", is also written (" + what + ": `" +
                 sourceText(ctx, e->getSourceRange()) + "`)" + mode;
      }
    }

  // Stores move between lanes: nothing else may touch what they write.
  Accesses acc;
  acc.TraverseStmt(const_cast<clang::CompoundStmt*>(body));
  for (size_t i = 0; i < p.loops.size(); ++i)
    for (const clang::Expr* l : p.scans[i].store_lhs) {
      const clang::ValueDecl* base = pointerBase(l);
      std::set<const clang::ValueDecl*> r = flow.roots(base);
      if (!base || r.count(nullptr)) return "cannot tell which pointer a store of a register loop is derived from" + mode;
      for (const clang::Expr* a : acc.all) {
        if (a == l) continue;
        std::set<const clang::ValueDecl*> ra = flow.roots(pointerBase(a));
        bool hits = ra.count(nullptr) > 0;
        for (const auto* d : ra) hits |= d && r.count(d);
        if (hits)
          return base->getNameAsString() + ", stored in a loop reading " + xn + ", is also accessed at `" +
                 sourceText(ctx, a->getSourceRange()) + "` (another lane than before writes its elements)" + mode;
      }
    }
  return "";
}

class RowRegisters : public Transform {
 public:
  std::string id() const override { return "row-registers"; }
  std::string summary() const override {
    return "after warp-per-row: the row a warp reads in several strided loops is loaded once into registers "
           "(rows of up to max_cols; longer rows take the original loops)";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    const long long max_cols = intParam(req.params, "max_cols", 2048);
    if (max_cols < 32 || max_cols > 8192 || max_cols % 32 != 0)
      return TransformResult::no("max_cols (" + std::to_string(max_cols) + ") must be a multiple of 32, 32..8192");
    const long long width = intParam(req.params, "vector_width", 1);
    if (width != 1 && width != 4) return TransformResult::no("vector_width must be 1 or 4 (asked for " + std::to_string(width) + ")");
    if (width == 4 && max_cols % 128 != 0)
      return TransformResult::no("max_cols (" + std::to_string(max_cols) + ") must be a multiple of 128 with vector_width 4 (32 lanes x 4)");
    const long long k = max_cols / (32 * width);  // registers (elements or vectors) per lane
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    const clang::VarDecl* lane = body ? laneOf(body) : nullptr;
    if (!lane) return TransformResult::no("the kernel is not in warp-per-row's form (no `const int kl_lane = threadIdx.x % 32;`)");
    if (squeeze(sourceText(ctx, lane->getInit()->getSourceRange())) != "threadIdx.x%32")
      return TransformResult::no("kl_lane is not `threadIdx.x % 32` (not in warp-per-row's form)");

    // The scope holding the strided loops, and the loops.
    std::vector<const clang::Stmt*> rows;
    std::vector<Strided> strided;
    for (const auto& scope : rowScopes(body, lane)) {
      for (size_t i = 0; i < scope.size(); ++i)
        if (auto st = stridedLoop(scope[i], lane)) {
          st->index = i;
          strided.push_back(*st);
        }
      if (!strided.empty()) {
        rows = scope;
        break;
      }
    }
    if (strided.empty())
      return TransformResult::no("the kernel is not in warp-per-row's form (no top-level `for (int c = S + kl_lane; c < B; c += 32)`)");
    std::string why;
    Plan p = choose(ctx, body, strided, why);
    if (!p.x) return TransformResult::no(why);
    const std::string xn = p.x->getNameAsString();
    clang::QualType pointee = p.x->getType()->getPointeeType();
    if (!pointee->isArithmeticType() || pointee->isAnyComplexType())
      return TransformResult::no(xn + "'s elements are not a built-in arithmetic type");
    p.elem = pointee.getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
    p.width = static_cast<int>(width);
    if (width == 4) {
      p.vtype = vectorType(ctx, pointee);
      if (p.vtype.empty())
        return TransformResult::no(xn + "'s elements (" + p.elem + ") have no 4-wide vector type (float, int and unsigned int have: " +
                                   "float4, int4, uint4); vector_width 4 cannot load them");
    }

    // Every loop that reads x[c]: its form, bound, start and body.
    bool starts_at_zero = false;
    for (size_t i = 0; i < p.loops.size(); ++i) {
      const Strided& st = p.loops[i];
      const BodyScan& scan = p.scans[i];
      if (!src.inFile(st.stmt) || !loopTextStart(src, st))
        return TransformResult::no("a strided loop reading " + xn + " is written through a macro or after an unexpected pragma");
      if (!st.bound) return TransformResult::no("a strided loop reading " + xn + " is not bounded by a name (c < B)");
      if (st.bound != p.loops[0].bound)
        return TransformResult::no("the strided loops reading " + xn + " have different bounds (" +
                                   p.loops[0].bound->getNameAsString() + ", " + st.bound->getNameAsString() + ")");
      if (!scan.why.empty()) return TransformResult::no(scan.why);
      for (const auto* e : scan.x_reads)
        if (!src.inFile(e->getBeginLoc()) || !src.inFile(e->getRBracketLoc()))
          return TransformResult::no("a read of " + xn + " is written through a macro");
      if (scan.counter_refs != scan.counter_indices)
        return TransformResult::no("a strided loop uses its counter " + st.counter->getNameAsString() +
                                   " other than as an array index");
      clang::Expr::EvalResult start;
      if (!st.start->EvaluateAsInt(start, ctx) || start.Val.getInt().isNegative())
        return TransformResult::no("a strided loop's start is not a constant >= 0");
      const long long s = start.Val.getInt().getExtValue();
      if (s == 0) starts_at_zero = true;
      if (width == 4) continue;  // every loop changes lanes in float4 mode: vectorChecks below
      if (s % 32 == 0) continue;
      // A start that is not a multiple of 32 hands element c to lane c % 32, not (c - S) % 32.
      if (scan.stores || scan.other_reads)
        return TransformResult::no("a strided loop starting at " + std::to_string(s) +
                                   " (not a multiple of 32) reads memory other than " + xn + "[c] or stores");
      if (scan.outer_array_writes)
        return TransformResult::no("a strided loop starting at " + std::to_string(s) +
                                   " (not a multiple of 32) assigns an element of an array declared outside it");
      if (std::string v = uncombined(ctx, rows, st.index, scan); !v.empty())
        return TransformResult::no("a strided loop starting at " + std::to_string(s) + " (not a multiple of 32) assigns " +
                                   v + " other than as a sum or min/max combined across the warp right after it");
    }
    if (!starts_at_zero)
      return TransformResult::no("no strided loop reading " + xn + " starts at 0 (the register path would read elements the kernel does not)");
    const clang::ValueDecl* bound = p.loops[0].bound;
    if (!bound->getType()->isIntegerType()) return TransformResult::no("the bound " + bound->getNameAsString() + " is not an integer");
    p.bound = bound->getNameAsString();

    // The whole kernel: B and x never assigned; nothing stored through what x may point into.
    Assigned assigned;
    assigned.TraverseStmt(const_cast<clang::Stmt*>(static_cast<const clang::Stmt*>(body)));
    if (assigned.vars.count(bound)) return TransformResult::no("the bound " + p.bound + " is assigned in the kernel");
    if (assigned.vars.count(p.x)) return TransformResult::no(xn + " is assigned in the kernel");
    PointerFlow flow;
    flow.TraverseStmt(const_cast<clang::Stmt*>(static_cast<const clang::Stmt*>(body)));
    for (const clang::ValueDecl* d : flow.names)
      if (kOurNames.count(d->getNameAsString())) return TransformResult::no("the kernel already declares " + d->getNameAsString());
    if (flow.references) return TransformResult::no("the kernel declares a non-const reference (a store through it could reach " + xn + ")");
    std::set<const clang::ValueDecl*> xroots = flow.roots(p.x);
    if (xroots.count(nullptr)) return TransformResult::no("cannot tell which pointer " + xn + " is derived from");
    for (const auto& [e, what] : flow.stores) {
      std::set<const clang::ValueDecl*> r = flow.roots(pointerBase(e));
      bool hits = r.count(nullptr) > 0;
      for (const auto* d : r) hits |= d && xroots.count(d);
      if (hits)
        return TransformResult::no(what + " through " + (pointerBase(e) ? pointerBase(e)->getNameAsString() : "an unknown pointer") +
                                   " may write into " + xn + "'s row (`" + sourceText(ctx, e->getSourceRange()) + "`)");
    }
    // Between the first and the last loop, nothing leaves the row's code (the register path reads
    // the whole row up front).
    for (size_t j = p.loops.front().index; j <= p.loops.back().index; ++j) {
      Exits ex;
      ex.TraverseStmt(const_cast<clang::Stmt*>(rows[j]));
      if (ex.found) return TransformResult::no("the row's code may return between the loops that read " + xn);
    }

    if (width == 4) {
      if (std::string w = vectorChecks(ctx, req.facts, req.kernel, body, rows, p, flow); !w.empty())
        return TransformResult::no(w);
      planVectors(ctx, src, p, *loopTextStart(src, p.loops.front()), assigned.vars);
      for (const auto& [d, vt] : p.vtypes)
        for (const clang::ValueDecl* n : flow.names)
          if (n->getNameAsString() == vecName(d)) return TransformResult::no("the kernel already declares " + vecName(d));
    }

    planCache(ctx, src, body, rows, p);
    // The edits: the row read before the first loop, each loop behind `if (kl_in_regs) ... else`.
    for (size_t i = 0; i < p.loops.size(); ++i) {
      const Strided& st = p.loops[i];
      unsigned at = *loopTextStart(src, st);
      std::string indent = src.indentOf(at);
      std::string text;
      if (width == 4) {
        auto t = headText4(src, ctx, st, p.scans[i], p.vec[i], p, k, indent);
        if (!t) return TransformResult::no("a strided loop reading " + xn + " is written through a macro");
        text = *t;
        if (i == 0) text = prefetchText4(p, k, indent) + text;
      } else {
        text = headText(src, ctx, st, p.scans[i], p, k, indent);
        if (i == 0) text = prefetchText(p, k, indent) + text;
      }
      if (req.rewriter.InsertTextAfter(src.at(at), text)) return TransformResult::no("the rewriter refused the edit");
    }
    if (width == 4) {
      unsigned stores = 0, loads = 0;
      for (const VecLoop& v : p.vec) stores += v.vec_store != nullptr, loads += static_cast<unsigned>(v.vec_reads.size());
      return TransformResult::yes("the row of " + xn + " read once into " + std::to_string(k) + " " + p.vtype +
                                  " registers per lane (" + std::to_string(p.loops.size()) + " loops read it; " +
                                  std::to_string(stores) + " vector stores, " + std::to_string(loads) +
                                  " other arrays read as vectors; rows longer than " + std::to_string(max_cols) +
                                  ", of a length not a multiple of 4 or misaligned take them as before)");
    }
    return TransformResult::yes("the row of " + xn + " read once into " + std::to_string(k) + " registers per lane (" +
                                std::to_string(p.loops.size()) + " loops read it; rows longer than " +
                                std::to_string(max_cols) + " take them as before)");
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    const clang::VarDecl* lane = body ? laneOf(body) : nullptr;
    if (!lane) return TransformResult::no("no kl_lane: not a kernel row-registers writes");
    // The scope with `T kl_row[K];`, then kl_in_regs, then the fill, then the loops.
    std::vector<const clang::Stmt*> rows;
    size_t at = 0;
    const clang::VarDecl* row = nullptr;
    for (const auto& scope : rowScopes(body, lane)) {
      for (size_t i = 0; i < scope.size() && !row; ++i)
        if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(scope[i]); ds && ds->isSingleDecl())
          if (auto* vd = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
              vd && (vd->getNameAsString() == "kl_row" || vd->getNameAsString() == "kl_row4"))
            row = vd, at = i;
      if (row) {
        rows = scope;
        break;
      }
    }
    if (!row) return TransformResult::no("no kl_row: not a kernel row-registers writes");
    auto* arr = ctx.getAsConstantArrayType(row->getType());
    if (!arr || at + 3 >= rows.size()) return TransformResult::no("kl_row is not followed by what row-registers writes");
    const long long k = static_cast<long long>(arr->getSize().getZExtValue());
    // Each inverse takes back only its own forward's form: vector_width says which (a lineage step
    // records the vector_width that made it, so the mined skill's forward writes the same).
    const bool vec4 = row->getNameAsString() == "kl_row4";
    const long long width = intParam(req.params, "vector_width", 1);
    if (width != 1 && width != 4) return TransformResult::no("vector_width must be 1 or 4 (asked for " + std::to_string(width) + ")");
    if (vec4 && width != 4)
      return TransformResult::no("the row is held as 4-wide vectors (kl_row4): vector_width 4's form (asked for " + std::to_string(width) + ")");
    if (!vec4 && width == 4) return TransformResult::no("the row is held element by element (kl_row), not vector_width 4's form");
    auto* flag_ds = llvm::dyn_cast<clang::DeclStmt>(rows[at + 1]);
    auto* flag = flag_ds && flag_ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(flag_ds->getSingleDecl()) : nullptr;
    if (!flag || flag->getNameAsString() != "kl_in_regs") return TransformResult::no("no kl_in_regs after kl_row");
    // The loops: `if (kl_in_regs) {...} else <loop>`, the first right after the fill.
    std::vector<Strided> fallbacks;
    std::vector<const clang::IfStmt*> ifs;
    for (size_t i = at + 3; i < rows.size(); ++i) {
      auto* is = llvm::dyn_cast<clang::IfStmt>(rows[i]);
      if (!is || referencedDecl(is->getCond()) != flag || !is->getElse()) continue;
      auto st = stridedLoop(is->getElse(), lane);
      if (!st) return TransformResult::no("an `if (kl_in_regs)` has no strided loop as its else branch");
      st->index = i;
      fallbacks.push_back(*st);
      ifs.push_back(is);
    }
    if (ifs.empty() || fallbacks[0].index != at + 3)
      return TransformResult::no("the register loops do not follow kl_row's fill");
    std::string why;
    Plan p = choose(ctx, body, fallbacks, why);
    if (!p.x || p.loops.size() != fallbacks.size() || !fallbacks[0].bound)
      return TransformResult::no("the fallback loops are not what row-registers keeps" + (why.empty() ? "" : ": " + why));
    p.elem = p.x->getType()->getPointeeType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
    p.bound = fallbacks[0].bound->getNameAsString();
    if (vec4) {
      p.width = 4;
      p.vtype = vectorType(ctx, p.x->getType()->getPointeeType());
      if (p.vtype.empty() || arr->getElementType().getAsString(ctx.getPrintingPolicy()) != p.vtype)
        return TransformResult::no("kl_row4 does not hold " + p.x->getNameAsString() + "'s vector type");
      Assigned assigned;
      assigned.TraverseStmt(const_cast<clang::Stmt*>(static_cast<const clang::Stmt*>(body)));
      planVectors(ctx, src, p, src.off(rows[at]->getBeginLoc()), assigned.vars);
    }
    planCache(ctx, src, body, rows, p);
    // Regenerate what forward writes from the fallbacks and compare (formatting aside).
    std::vector<std::pair<unsigned, unsigned>> cuts;
    for (size_t i = 0; i < fallbacks.size(); ++i) {
      auto start = loopTextStart(src, fallbacks[i]);
      if (!start) return TransformResult::no("a fallback loop is written oddly");
      unsigned from = src.off(ifs[i]->getBeginLoc());
      std::string expected;
      if (vec4) {
        auto t = headText4(src, ctx, fallbacks[i], p.scans[i], p.vec[i], p, k, src.indentOf(from));
        if (!t) return TransformResult::no("a fallback loop is written through a macro");
        expected = *t;
      } else {
        expected = headText(src, ctx, fallbacks[i], p.scans[i], p, k, src.indentOf(from));
      }
      const char* comment = vec4 ? kComment4 : kComment;
      if (i == 0) {
        unsigned decl = src.off(rows[at]->getBeginLoc());
        from = decl;
        unsigned line = src.lineStart(decl);
        if (line > 0) {
          unsigned prev = src.lineStart(line - 1);
          std::string text = src.slice(prev, line - 1);
          size_t first = text.find_first_not_of(" \t");
          if (first != std::string::npos && text.compare(first, std::string(comment).size(), comment) == 0)
            from = prev + static_cast<unsigned>(first);
        }
        std::string pre = vec4 ? prefetchText4(p, k, "") : prefetchText(p, k, "");
        if (from == decl) pre = pre.substr(pre.find('\n') + 1);  // without its comment line
        expected = pre + expected;
      }
      if (squeeze(src.slice(from, *start)) != squeeze(expected))
        return TransformResult::no("the register path is not what row-registers writes for its fallback loop");
      cuts.push_back({from, *start});
    }
    for (const auto& [a, b] : cuts)
      if (req.rewriter.RemoveText(src.at(a), b - a)) return TransformResult::no("the rewriter refused the edit");
    return TransformResult::yes("the row read from global memory in each loop again (" + std::to_string(cuts.size()) +
                                " loops)");
  }
};

}  // namespace
std::unique_ptr<Transform> makeRowRegisters() { return std::make_unique<RowRegisters>(); }
}  // namespace klineage
