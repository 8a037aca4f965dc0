// window-tile: a 1-D sliding-window sum (convolution, correlation, FIR), one output per thread  ->
// the block's input window staged once in shared memory, OUT consecutive outputs per thread that
// walk the taps together through a register window (grid.x / OUT).
//   T i = <global x index>;                     (any name and integer type; effect-free
//   ...                                          declarations before or after it)
//   if (i < N) {
//     ...declarations...; A acc = INIT; ...
//     for (int k = K0; k < K1; ++k) {          (or <=; k++, k += 1)
//       J j = <i + k + U>;                      (through never-written locals: start = i - r)
//       if (C) acc += IN[j] * W;                (or W * IN[j]; C reads only j and uniforms)
//     }
//     ...the rest, using acc...
//   }
// becomes (B the block every launch uses): a shared window kl_win of B * OUT + max_span elements,
// loaded once per block where the original would read it (C(j) and some output of the block that
// passes the guard reads slot j), a barrier, then per thread OUT accumulators and OUT window
// registers shifted one slot per tap (one shared load and OUT fused multiply-adds per tap), and
// per output the user's guarded code with the loop replaced by `acc = kl_acc[o]`. When the span
// K1 - K0 exceeds max_span (the window does not fit), every output runs the user's loop as written.
// Why it pays: the naive kernel reads each input element and each tap once per output (2 x taps
// loads an output, mostly L1 hits); windowed, an output costs one shared-memory load and one tap
// load per OUT outputs. Measured before the transform was written (bench/shape_probe.cu, H100,
// 2^24 floats, 31 taps): 2.64x with B = 128 and OUT = 8; a tile without the register window 1.77x.
// When it is sound: each output's sum adds the same terms in the same order (k ascending, the same
// C per term, the operands of each product in the user's order), from the same initial value, so
// results are bitwise the original's. The tile holds IN[j] for exactly the slots it is read at; the
// taps W are read only for k where some output of the thread passes the guard and C. The facts the
// caller establishes: one 1-D block for every launch (uniform-block-size: the window's size and
// the block's first output use B) and no overlap (IN is read from the tile after other threads may
// have written their outputs). The transform refuses: no 1-D block shape, shared memory, barriers
// or warp collectives already in the kernel, kl_ names, a guard other than `i < N` (monotone in i,
// so the loads know which outputs exist), statements before the guard with effects, geometry or
// non-uniform locals used inside the guarded code, a store through IN, returns, a window loop
// that does more than one guarded accumulation, an unguarded read (no C), and index arithmetic
// other than i + k + a uniform offset.
// Inverse: recognizes exactly the text forward writes and puts the user's guarded code back
// (grid.x * OUT); an expert's own windowed form is mined as an `llm` step with its diff.
#include <set>

#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/loop_depth.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

using Src = SourceBuffer;

const clang::VarDecl* singleVar(const clang::Stmt* s) {
  auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(s);
  if (!ds || !ds->isSingleDecl()) return nullptr;
  auto* vd = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
  if (!vd || vd->isStaticLocal() || vd->hasAttr<clang::CUDASharedAttr>() || vd->getType()->isReferenceType())
    return nullptr;
  return vd;
}

// Whether the kernel writes v anywhere (assignment, ++/--, address taken).
bool written(clang::ASTContext& ctx, const clang::Stmt* body, const clang::VarDecl* v) {
  return !onlyReads(ctx, body, v);
}

// What an expression reads, for the uniformity checks.
struct Reads : clang::RecursiveASTVisitor<Reads> {
  std::set<const clang::ValueDecl*> decls;
  bool geometry = false, effects = false, calls = false, memory = false;
  bool TraversePseudoObjectExpr(clang::PseudoObjectExpr*) {  // threadIdx.x and friends
    geometry = true;
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    if (isBuiltinGeometry(e->getDecl()->getNameAsString())) geometry = true;
    decls.insert(e->getDecl());
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    effects |= bo->isAssignmentOp();
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    effects |= uo->isIncrementDecrementOp();
    memory |= uo->getOpcode() == clang::UO_Deref;
    return true;
  }
  bool VisitCallExpr(clang::CallExpr*) {
    calls = true;
    return true;
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr*) {
    memory = true;
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr* me) {
    memory |= me->isArrow();
    return true;
  }
};

Reads readsOf(const clang::Stmt* s) {
  Reads r;
  if (s) r.TraverseStmt(const_cast<clang::Stmt*>(s));
  return r;
}

// An affine form c_i * i + c_k * k + U, U the text of the uniform rest ("" for 0).
struct Affine {
  long long ci = 0, ck = 0;
  std::string u;
};

class WindowTile : public Transform {
 public:
  std::string id() const override { return "window-tile"; }
  std::string summary() const override {
    return "stage a 1-D sliding window (convolution) in shared memory; OUT outputs per thread share a register window";
  }

  TransformResult forward(TransformRequest& req) const override {
    State st{req.ctx, Src(req.ctx)};
    std::string why;
    if (!match(req, st, why)) return TransformResult::no(why);
    return emit(req, st);
  }

  // Inverse: recognizes the text forward writes (from its `// kl:` line through the `else` branch
  // whose per-output loop holds the user's guarded code as written), puts that code back and
  // reports grid.x * OUT. Only forward's own text is recognized.
  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body || body->body_empty()) return TransformResult::no("the kernel has no body");
    const char* kNone = "no windowed form as window-tile writes it (`if (kl_span ...) { __shared__ T kl_win[...]; ... } "
                        "else { for (int kl_o ...) ... }`)";
    // The last statement: `if (kl_span >= 1 && ...) { ... } else { for (int kl_o ...) { T i = ...; GUARD } }`.
    auto* top_if = llvm::dyn_cast<clang::IfStmt>(body->body_back());
    auto* els = top_if ? llvm::dyn_cast_or_null<clang::CompoundStmt>(top_if->getElse()) : nullptr;
    auto* per = els && els->size() == 1 ? llvm::dyn_cast<clang::ForStmt>(els->body_front()) : nullptr;
    const clang::VarDecl* o = per ? singleVar(per->getInit()) : nullptr;
    auto* pb = per ? llvm::dyn_cast<clang::CompoundStmt>(per->getBody()) : nullptr;
    if (!o || o->getName() != "kl_o" || !pb || pb->size() != 2 || !llvm::isa<clang::IfStmt>(pb->body_back()))
      return TransformResult::no(kNone);
    const clang::Stmt* guard = pb->body_back();
    // forward's text begins with its `// kl:` line, just above `const long long kl_span = ...;`.
    std::vector<const clang::Stmt*> top(body->body_begin(), body->body_end());
    size_t v = 0;
    for (; v < top.size(); ++v)
      if (const clang::VarDecl* vd = singleVar(top[v]); vd && vd->getName() == "kl_span") break;
    if (v >= top.size()) return TransformResult::no(kNone);
    long long out = 0;
    for (size_t s = v; s < top.size(); ++s)
      if (const clang::VarDecl* vd = singleVar(top[s]); vd && vd->getName() == "kl_t" && vd->getInit())
        if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(vd->getInit()->IgnoreParenImpCasts())) {
          clang::Expr::EvalResult ev;
          if (bo->getRHS()->EvaluateAsInt(ev, ctx)) out = ev.Val.getInt().getExtValue();
        }
    if (out < 2) return TransformResult::no(kNone);
    if (!src.inFile(top[v]) || !src.inFile(top_if) || !src.inFile(guard)) return TransformResult::no("the windowed form is written through a macro");
    unsigned w0 = src.lineStart(src.off(top[v]->getBeginLoc()));
    if (w0 == 0) return TransformResult::no(kNone);
    unsigned a = src.lineStart(w0 - 1);
    a += static_cast<unsigned>(src.indentOf(a).size());
    if (src.slice(a, a + 6) != "// kl:") return TransformResult::no(kNone);
    unsigned z = src.stmtEnd(top_if);
    unsigned g0 = src.off(guard->getBeginLoc()), g1 = src.stmtEnd(guard);
    const size_t step = src.indentOf(g0).size() - src.indentOf(a).size();
    const std::string guard_text = src.slice(g0, g1);
    // Every line after the first loses forward's two indentation steps.
    std::string back;
    size_t p = 0;
    while (p < guard_text.size()) {
      size_t nl = guard_text.find('\n', p);
      std::string line = guard_text.substr(p, nl == std::string::npos ? std::string::npos : nl - p + 1);
      if (p > 0) {
        size_t k = 0;
        while (k < step && k < line.size() && (line[k] == ' ' || line[k] == '\t')) ++k;
        line = line.substr(k);
      }
      back += line;
      if (nl == std::string::npos) break;
      p = nl + 1;
    }
    if (req.rewriter.ReplaceText(src.at(a), z - a, back)) return TransformResult::no("the rewriter refused the edit");
    GeometryChange g;
    g.grid_x_multiplier = static_cast<unsigned>(out);
    return TransformResult::yes("one output per thread, the loop reading global memory (grid.x * " + std::to_string(out) + ")", g);
  }

 private:
  struct State {
    clang::ASTContext& ctx;
    Src src;
    const clang::CompoundStmt* body = nullptr;
    const clang::VarDecl* i = nullptr;      // the output index
    const clang::IfStmt* guard = nullptr;   // if (i < N)
    std::vector<const clang::Stmt*> inner;  // the guarded statements
    const clang::ForStmt* loop = nullptr;   // the window loop (one of inner)
    const clang::VarDecl* k = nullptr;      // its counter
    const clang::VarDecl* j = nullptr;      // the input index declared in it
    const clang::VarDecl* acc = nullptr;
    const clang::Expr* in_access = nullptr;  // IN[j]
    const clang::Expr* w = nullptr;          // the tap
    const clang::Expr* cond = nullptr;       // C
    bool in_first = true;                    // IN[j] * W (else W * IN[j])
    bool inclusive = false;                  // k <= K1
    const clang::Expr* k0 = nullptr;
    const clang::Expr* k1 = nullptr;
    std::set<const clang::ValueDecl*> uniform;                        // params and locals every thread agrees on
    std::map<const clang::VarDecl*, const clang::Expr*> inner_locals;  // never-written guarded locals
    Affine off;
  };

  // Uniform: parameters the kernel never writes, and top-level locals initialized from uniform
  // values without geometry, calls or memory, never written.
  static bool isUniform(const State& st, const clang::Expr* e) {
    Reads r = readsOf(e);
    if (r.geometry || r.effects || r.calls || r.memory) return false;
    for (auto* d : r.decls)
      if (!st.uniform.count(d)) return false;
    return true;
  }

  bool affine(const State& st, const clang::Expr* e, Affine& out, int depth = 0) const {
    if (depth > 16) return false;
    e = cuda::stripIndexCasts(e);
    if (!e) return false;
    if (auto* dr = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      if (dr->getDecl() == st.i) return out = {1, 0, ""}, true;
      if (dr->getDecl() == st.k) return out = {0, 1, ""}, true;
      if (auto* vd = llvm::dyn_cast<clang::VarDecl>(dr->getDecl()); vd && st.inner_locals.count(vd))
        return affine(st, st.inner_locals.at(vd), out, depth + 1);
    }
    if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(e);
        bo && (bo->getOpcode() == clang::BO_Add || bo->getOpcode() == clang::BO_Sub)) {
      Affine a, b;
      if (!affine(st, bo->getLHS(), a, depth + 1) || !affine(st, bo->getRHS(), b, depth + 1)) return false;
      const long long s = bo->getOpcode() == clang::BO_Add ? 1 : -1;
      out.ci = a.ci + s * b.ci;
      out.ck = a.ck + s * b.ck;
      if (a.u.empty() && b.u.empty()) out.u = "";
      else if (b.u.empty()) out.u = a.u;
      else if (a.u.empty()) out.u = s > 0 ? b.u : "-" + b.u;
      else out.u = a.u + (s > 0 ? " + " : " - ") + b.u;
      return true;
    }
    if (isUniform(st, e)) return out = {0, 0, "(" + sourceText(st.ctx, e->getSourceRange()) + ")"}, true;  // parenthesized: safe under - and +
    return false;
  }

  bool match(TransformRequest& req, State& st, std::string& why) const {
    auto& ctx = req.ctx;
    auto shape = req.facts.shape();
    if (!shape || shape->y != 1 || shape->z != 1 || shape->x < 32 || shape->x > 1024)
      return (why = "the block every launch uses is not known to be one 1-D block of 32 to 1024 threads"), false;
    st.body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!st.body || st.body->body_empty()) return (why = "the kernel has no body"), false;
    // The kernel: no shared memory, barriers or warp collectives yet, no kl_ names.
    struct Scan : clang::RecursiveASTVisitor<Scan> {
      std::string why;
      bool VisitVarDecl(clang::VarDecl* vd) {
        if (vd->hasAttr<clang::CUDASharedAttr>()) why = "the kernel already uses __shared__ memory";
        if (vd->getName().startswith("kl_")) why = "the kernel already declares kl_ names";
        return why.empty();
      }
      bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
        if (e->getDecl()->hasAttr<clang::CUDASharedAttr>()) why = "the kernel already uses __shared__ memory";
        return why.empty();
      }
      bool VisitCallExpr(clang::CallExpr* c) {
        auto kind = intrinsicKind(calleeName(c));
        if (kind && *kind != IntrinsicKind::Atomic) why = "the kernel calls " + calleeName(c) + " (" + describe(*kind) + ")";
        return why.empty();
      }
      bool VisitReturnStmt(clang::ReturnStmt*) {
        why = "the kernel returns early (bring it to the guard form first)";
        return false;
      }
      bool VisitGotoStmt(clang::GotoStmt*) {
        why = "the kernel uses goto";
        return false;
      }
    } scan;
    scan.TraverseStmt(const_cast<clang::CompoundStmt*>(st.body));
    if (!scan.why.empty()) return (why = scan.why), false;
    for (const clang::ParmVarDecl* p : req.kernel->parameters())
      if (!written(ctx, st.body, p)) st.uniform.insert(p);
    // __constant__ arrays (the taps of many convolutions) are the same for every thread.
    for (auto* d : readsOf(st.body).decls)
      if (auto* vd = llvm::dyn_cast<clang::VarDecl>(d); vd && vd->hasGlobalStorage() && vd->hasAttr<clang::CUDAConstantAttr>())
        st.uniform.insert(vd);

    // Top level: effect-free declarations, the index, the guard last.
    std::vector<const clang::Stmt*> top(st.body->body_begin(), st.body->body_end());
    st.guard = llvm::dyn_cast<clang::IfStmt>(top.back());
    if (!st.guard || st.guard->getElse() || st.guard->getInit() || st.guard->getConditionVariable())
      return (why = "the kernel does not end with a guard `if (i < N) { ... }` without else"), false;
    for (size_t s = 0; s + 1 < top.size(); ++s) {
      auto* ds = llvm::dyn_cast<clang::DeclStmt>(top[s]);
      if (!ds) return (why = "a statement before the guard does more than declare"), false;
      for (auto* d : ds->decls()) {
        auto* vd = llvm::dyn_cast<clang::VarDecl>(d);
        if (!vd || vd->isStaticLocal() || !vd->getInit()) return (why = "a declaration before the guard is not a plain initialized local"), false;
        Reads r = readsOf(vd->getInit());
        if (r.effects || r.calls) return (why = "the initializer of " + vd->getNameAsString() + " has effects or calls"), false;
        if (!st.i && vd->getType()->isIntegerType() && isGlobalThreadIndex(ctx, vd->getInit()) && !written(ctx, st.body, vd)) {
          st.i = vd;
          continue;
        }
        if (!written(ctx, st.body, vd) && isUniform(st, vd->getInit())) st.uniform.insert(vd);
      }
    }
    if (!st.i) return (why = "no top-level `T i = blockIdx.x * blockDim.x + threadIdx.x;` before the guard"), false;
    auto* gc = llvm::dyn_cast<clang::BinaryOperator>(st.guard->getCond()->IgnoreParenImpCasts());
    const clang::Expr* bound = nullptr;
    if (gc && gc->getOpcode() == clang::BO_LT && referencedDecl(cuda::stripIndexCasts(gc->getLHS())) == st.i) bound = gc->getRHS();
    if (gc && gc->getOpcode() == clang::BO_GT && referencedDecl(cuda::stripIndexCasts(gc->getRHS())) == st.i) bound = gc->getLHS();
    if (!bound || !isUniform(st, bound))
      return (why = "the guard is not `" + st.i->getNameAsString() + " < N` with N the same for every thread"), false;

    // The guarded statements: declarations, the one window loop, the rest.
    if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(st.guard->getThen())) st.inner.assign(cs->body_begin(), cs->body_end());
    else st.inner.push_back(st.guard->getThen());
    for (const clang::Stmt* s : st.inner) {
      if (auto* fs = llvm::dyn_cast<clang::ForStmt>(s)) {
        if (st.loop) return (why = "the guarded code has more than one top-level loop"), false;
        st.loop = fs;
        continue;
      }
      if (st.loop) continue;  // after the loop: kept as written for each output
      auto* ds = llvm::dyn_cast<clang::DeclStmt>(s);
      if (!ds) return (why = "a statement before the window loop does more than declare"), false;
      for (auto* d : ds->decls()) {
        auto* vd = llvm::dyn_cast<clang::VarDecl>(d);
        if (!vd || vd->isStaticLocal() || !vd->getInit()) return (why = "a declaration before the window loop is not a plain initialized local"), false;
        Reads r = readsOf(vd->getInit());
        if (r.effects || r.calls) return (why = "the initializer of " + vd->getNameAsString() + " has effects or calls"), false;
        if (!written(ctx, st.body, vd)) st.inner_locals[vd] = vd->getInit();
      }
    }
    if (!st.loop) return (why = "the guarded code has no top-level window loop `for (int k = K0; k < K1; ++k)`"), false;
    // The guarded code reads no geometry and no per-thread top-level local other than i.
    std::set<const clang::Decl*> top_decls;
    for (size_t s2 = 0; s2 + 1 < top.size(); ++s2)
      for (auto* d : llvm::cast<clang::DeclStmt>(top[s2])->decls()) top_decls.insert(d);
    for (const clang::Stmt* s : st.inner) {
      Reads r = readsOf(s);
      if (r.geometry) return (why = "the guarded code reads the thread geometry (it runs for other outputs now)"), false;
      for (auto* d : r.decls)
        if (d != st.i && top_decls.count(d) && !st.uniform.count(d))
          return (why = "the guarded code reads " + d->getNameAsString() + ", a per-thread value declared before the guard"), false;
    }

    // The loop: for (int k = K0; k < K1 | k <= K1; ++k | k++ | k += 1).
    st.k = singleVar(st.loop->getInit());
    if (!st.k || !st.k->getInit() || !st.k->getType()->isIntegerType() || !st.loop->getCond() || !st.loop->getInc())
      return (why = "the window loop is not `for (int k = K0; k < K1; ++k)`"), false;
    st.k0 = st.k->getInit();
    auto* lc = llvm::dyn_cast<clang::BinaryOperator>(st.loop->getCond()->IgnoreParenImpCasts());
    if (!lc || (lc->getOpcode() != clang::BO_LT && lc->getOpcode() != clang::BO_LE) ||
        referencedDecl(cuda::stripIndexCasts(lc->getLHS())) != st.k)
      return (why = "the window loop's condition is not `k < K1` or `k <= K1`"), false;
    st.k1 = lc->getRHS();
    st.inclusive = lc->getOpcode() == clang::BO_LE;
    if (!isUniform(st, st.k0) || !isUniform(st, st.k1))
      return (why = "the window loop's bounds are not the same for every thread (or read memory)"), false;
    bool step1 = false;
    if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(st.loop->getInc()))
      step1 = uo->isIncrementOp() && referencedDecl(uo->getSubExpr()) == st.k;
    if (auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(st.loop->getInc()))
      step1 = ca->getOpcode() == clang::BO_AddAssign && referencedDecl(ca->getLHS()) == st.k && cuda::isIntLiteral(ca->getRHS(), 1);
    if (!step1 || written(ctx, st.loop->getBody(), st.k)) return (why = "the window loop does not step k by one"), false;

    // Its body: [J j = E;] if (C) acc += IN[j] * W;
    std::vector<const clang::Stmt*> lb;
    if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(st.loop->getBody())) lb.assign(cs->body_begin(), cs->body_end());
    else lb.push_back(st.loop->getBody());
    if (lb.size() == 2) {
      st.j = singleVar(lb[0]);
      if (!st.j || !st.j->getInit() || !st.j->getType()->isIntegerType() || written(ctx, st.loop->getBody(), st.j))
        return (why = "the window loop's first statement is not `J j = <input index>;`"), false;
    }
    if (lb.empty() || lb.size() > 2 || (lb.size() == 2 && !st.j))
      return (why = "the window loop's body is not `J j = i + k + D; if (C) acc += IN[j] * W;`"), false;
    auto* cif = llvm::dyn_cast<clang::IfStmt>(lb.back());
    if (!cif || !st.j) return (why = "the window loop's read is not guarded by a condition on its index `if (C(j))`"), false;
    if (cif->getElse() || cif->getInit() || cif->getConditionVariable()) return (why = "the window loop's guard has an else"), false;
    st.cond = cif->getCond();
    const clang::Stmt* upd = cif->getThen();
    if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(upd); cs && cs->size() == 1) upd = cs->body_front();
    const clang::Expr* prod = nullptr;
    if (auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(upd); ca && ca->getOpcode() == clang::BO_AddAssign) {
      if (auto* vd = llvm::dyn_cast_or_null<clang::VarDecl>(referencedDecl(ca->getLHS()))) st.acc = vd;
      prod = ca->getRHS();
    }
    auto* mul = prod ? llvm::dyn_cast<clang::BinaryOperator>(prod->IgnoreParenImpCasts()) : nullptr;
    if (!st.acc || !mul || mul->getOpcode() != clang::BO_Mul)
      return (why = "the window loop does not accumulate `acc += IN[j] * W`"), false;
    for (int side = 0; side < 2 && !st.in_access; ++side) {
      const clang::Expr* a = (side ? mul->getRHS() : mul->getLHS())->IgnoreParenImpCasts();
      auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(a);
      if (!ase || referencedDecl(cuda::stripIndexCasts(ase->getIdx())) != st.j) continue;
      auto* in = llvm::dyn_cast_or_null<clang::ParmVarDecl>(referencedDecl(ase->getBase()));
      if (!in || !in->getType()->isPointerType() || !st.uniform.count(in)) continue;
      st.in_access = ase;
      st.in_first = side == 0;
      st.w = side ? mul->getLHS() : mul->getRHS();
    }
    if (!st.in_access) return (why = "no product `IN[j] * W` with IN a pointer parameter read at the loop's index j"), false;
    const clang::ValueDecl* in = referencedDecl(llvm::cast<clang::ArraySubscriptExpr>(st.in_access)->getBase());
    // IN is never stored to (its reads move ahead of other threads' stores).
    struct Stores : clang::RecursiveASTVisitor<Stores> {
      const clang::ValueDecl* in;
      bool found = false;
      void check(const clang::Expr* lhs) {
        lhs = lhs->IgnoreParenImpCasts();
        if (auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(lhs)) found |= referencedDecl(ase->getBase()) == in;
        if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(lhs); uo && uo->getOpcode() == clang::UO_Deref) found = true;
      }
      bool VisitBinaryOperator(clang::BinaryOperator* bo) {
        if (bo->isAssignmentOp()) check(bo->getLHS());
        return true;
      }
      bool VisitUnaryOperator(clang::UnaryOperator* uo) {
        if (uo->isIncrementDecrementOp()) check(uo->getSubExpr());
        return true;
      }
    } stores;
    stores.in = in;
    stores.TraverseStmt(const_cast<clang::CompoundStmt*>(st.body));
    if (stores.found) return (why = "the kernel stores through " + in->getNameAsString() + " or through a dereference"), false;
    // W: the tap, the same for every thread at a given k.
    Reads wr = readsOf(st.w);
    if (wr.geometry || wr.effects || wr.calls) return (why = "the tap W has effects, calls or reads the geometry"), false;
    for (auto* d : wr.decls)
      if (d != st.k && !st.uniform.count(d))
        return (why = "the tap W reads " + d->getNameAsString() + ", which differs between threads"), false;
    // C: a condition on j alone.
    Reads cr = readsOf(st.cond);
    if (cr.geometry || cr.effects || cr.calls || cr.memory) return (why = "the read's condition reads memory, calls or has effects"), false;
    for (auto* d : cr.decls)
      if (d != st.j && !st.uniform.count(d))
        return (why = "the read's condition reads " + d->getNameAsString() + " (it must depend on the input index alone)"), false;
    // acc: declared before the loop in the guarded code, from a uniform value, untouched until the loop.
    const clang::Stmt* acc_decl = nullptr;
    for (const clang::Stmt* s : st.inner) {
      if (s == st.loop) break;
      if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(s))
        for (auto* d : ds->decls())
          if (d == st.acc) acc_decl = s;
    }
    if (!acc_decl || !st.acc->getInit() || !isUniform(st, st.acc->getInit()))
      return (why = "the accumulator " + st.acc->getNameAsString() + " is not declared before the loop in the guard from a value every thread shares"), false;
    for (const clang::Stmt* s : st.inner) {
      if (s == st.loop) break;
      if (s != acc_decl && usesDecl(s, st.acc)) return (why = "the accumulator is used before the window loop"), false;
    }
    if (usesDecl(st.cond, st.acc) || usesDecl(st.w, st.acc) || usesDecl(st.in_access, st.acc))
      return (why = "the accumulator is read inside its own terms"), false;
    st.inner_locals.erase(st.acc);
    // The input index: i + k + a uniform offset.
    if (!affine(st, st.j->getInit(), st.off) || st.off.ci != 1 || st.off.ck != 1)
      return (why = "the input index " + st.j->getNameAsString() + " is not i + k + D with D the same for every thread"), false;
    // Everything to be re-emitted is written in the main file.
    const clang::Stmt* parts[] = {st.guard, st.loop, st.cond, st.w, st.k0, st.k1};
    for (const clang::Stmt* s : parts)
      if (!st.src.inFile(s)) return (why = "the window loop is written through a macro"), false;
    return true;
  }

  TransformResult emit(TransformRequest& req, State& st) const {
    auto& ctx = req.ctx;
    Src& src = st.src;
    const long long B = req.facts.shape()->x;
    const long long out = intParam(req.params, "outputs", 8), max_span = intParam(req.params, "max_span", 256);
    if (out < 2 || out > 16 || max_span < 2 || max_span > 4096) return TransformResult::no("outputs must be 2 to 16, max_span 2 to 4096");
    auto text = [&](const clang::Stmt* s) { return sourceText(ctx, s->getSourceRange()); };
    auto typeOf = [&](const clang::QualType& t) {
      return t.getUnqualifiedType().getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
    };
    const auto* ase = llvm::cast<clang::ArraySubscriptExpr>(st.in_access);
    const std::string elem = typeOf(ase->getType());
    const std::string in = text(ase->getBase());
    const std::string acc_t = typeOf(st.acc->getType()), j_t = typeOf(st.j->getType());
    const std::string bout = std::to_string(B * out), outs = std::to_string(out), Bs = std::to_string(B);
    const std::string k0 = text(st.k0), k1 = text(st.k1);
    const std::string cond = text(st.cond), w = text(st.w), guard = text(st.guard->getCond());
    const std::string off = st.off.u.empty() ? "" : " + " + st.off.u;
    const std::string kname = st.k->getNameAsString(), jname = st.j->getNameAsString();
    // The index's declaration as written up to its initializer ("int i = ").
    const clang::DeclStmt* idecl = nullptr;
    for (const clang::Stmt* s : st.body->body())
      if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(s))
        for (auto* d : ds->decls())
          if (d == st.i) idecl = ds;
    if (!idecl || !idecl->isSingleDecl() || !src.inFile(idecl))
      return TransformResult::no("the index is declared together with other variables");
    const std::string i_decl = src.slice(src.off(idecl->getBeginLoc()), src.off(st.i->getInit()->getBeginLoc()));
    const std::string i_type = typeOf(st.i->getType());

    unsigned g0 = src.off(st.guard->getBeginLoc()), g1 = src.stmtEnd(st.guard);
    if (!src.blankBefore(g0)) return TransformResult::no("the guard shares its line with other code");
    const std::string ind = src.indentOf(g0);
    const std::string pad = ind.empty() ? "    " : ind;
    const std::string i2 = ind + pad, i3 = i2 + pad, i4 = i3 + pad;
    const std::string prod_fast = st.in_first ? "kl_w[kl_o] * kl_tap" : "kl_tap * kl_w[kl_o]";
    const std::string span_text = "(long long)(" + k1 + ") - (" + k0 + ")" + (st.inclusive ? " + 1" : "");

    const std::string iname = st.i->getNameAsString();
    const std::string i5 = i4 + pad;
    auto outputDecl = [&](const std::string& at) { return i_type + " " + iname + " = (" + i_type + ")(" + at + ");"; };
    std::string t;
    t += "// kl: the block's input window in shared memory; each thread computes " + outs +
         " consecutive outputs, walking the taps once for all of them (a grid " + outs + "x smaller)\n";
    t += ind + "const long long kl_span = " + span_text + ";\n";
    t += ind + "const long long kl_b0 = ((long long)" + iname + " - threadIdx.x) * " + outs + ";  // the block's first output\n";
    t += ind + "const int kl_t = threadIdx.x * " + outs + ";\n";
    t += ind + "if (kl_span >= 1 && kl_span <= " + std::to_string(max_span) + ") {  // the window fits\n";
    t += i2 + "__shared__ " + elem + " kl_win[" + bout + " + " + std::to_string(max_span) + "];\n";
    t += i2 + "const long long kl_first = kl_b0 + (" + k0 + ")" + off + ";  // the input index of slot 0\n";
    t += i2 + "bool kl_full;  // every output of the block passes the guard and reads every slot it spans\n";
    t += i2 + "{\n";
    t += i3 + outputDecl("kl_b0 + " + std::to_string(B * out - 1)) + "\n";
    t += i3 + "kl_full = " + guard + ";\n";
    t += i2 + "}\n";
    t += i2 + "for (int kl_x = threadIdx.x; kl_x < " + bout + " + kl_span; kl_x += " + Bs + ") {\n";
    t += i3 + "// loaded where the original reads it: the first output reading the slot passes the guard, and C holds\n";
    t += i3 + outputDecl("kl_b0 + (kl_x >= kl_span ? kl_x - kl_span + 1 : 0)") + "\n";
    t += i3 + j_t + " " + jname + " = (" + j_t + ")(kl_first + kl_x);\n";
    t += i3 + "const bool kl_read = (" + guard + ") && (" + cond + ");\n";
    t += i3 + "kl_win[kl_x] = kl_read ? " + in + "[" + jname + "] : (" + elem + ")0;\n";
    t += i3 + "kl_full = kl_full && (kl_read || kl_x == " + bout + " + kl_span - 1);  // (the last slot only fills the window)\n";
    t += i2 + "}\n";
    t += i2 + "kl_full = __syncthreads_and(kl_full);\n";
    t += i2 + acc_t + " kl_acc[" + outs + "];\n";
    t += i2 + elem + " kl_w[" + outs + "];\n";
    t += "#pragma unroll\n";
    t += i2 + "for (int kl_o = 0; kl_o < " + outs + "; ++kl_o) {\n";
    t += i3 + "kl_acc[kl_o] = " + text(st.acc->getInit()) + ";\n";
    t += i3 + "kl_w[kl_o] = kl_win[kl_t + kl_o];\n";
    t += i2 + "}\n";
    t += i2 + "int kl_next = kl_t + " + outs + ";\n";
    const std::string header = "for (" + squeezeSpaces(src.slice(src.off(st.loop->getInit()->getBeginLoc()), src.off(st.loop->getRParenLoc()))) + ")";
    const std::string shift = "#pragma unroll\n" + i4 + "for (int kl_o = 0; kl_o + 1 < " + outs +
                              "; ++kl_o) kl_w[kl_o] = kl_w[kl_o + 1];\n" + i4 + "kl_w[" + std::to_string(out - 1) +
                              "] = kl_win[kl_next++];\n";
    t += i2 + "if (kl_full) {  // every term of every output is the original's: no test per term\n";
    t += i3 + header + " {\n";
    t += i4 + "const auto kl_tap = " + w + ";  // W's own type, so each product is the user's\n";
    t += "#pragma unroll\n";
    t += i4 + "for (int kl_o = 0; kl_o < " + outs + "; ++kl_o) kl_acc[kl_o] += " + prod_fast + ";\n";
    t += shift;
    t += i3 + "}\n";
    t += i2 + "} else {  // the block's edges: each term under the original's conditions\n";
    t += i3 + header + " {\n";
    t += i4 + "bool kl_in[" + outs + "];\n";
    t += i4 + "bool kl_any = false;\n";
    t += "#pragma unroll\n";
    t += i4 + "for (int kl_o = 0; kl_o < " + outs + "; ++kl_o) {\n";
    t += i5 + outputDecl("kl_b0 + kl_t + kl_o") + "\n";
    t += i5 + j_t + " " + jname + " = (" + j_t + ")(kl_first + kl_t + kl_o + (" + kname + " - (" + k0 + ")));\n";
    t += i5 + "kl_in[kl_o] = (" + guard + ") && (" + cond + ");\n";
    t += i5 + "kl_any = kl_any || kl_in[kl_o];\n";
    t += i4 + "}\n";
    t += i4 + "if (kl_any) {  // the tap is read only where an output reads it\n";
    t += i5 + "const auto kl_tap = " + w + ";\n";
    t += "#pragma unroll\n";
    t += i5 + "for (int kl_o = 0; kl_o < " + outs + "; ++kl_o)\n";
    t += i5 + pad + "if (kl_in[kl_o]) kl_acc[kl_o] += " + prod_fast + ";\n";
    t += i4 + "}\n";
    t += shift;
    t += i3 + "}\n";
    t += i2 + "}\n";
    // Per output: the user's guarded code, the loop replaced by its result.
    unsigned l0 = src.off(st.loop->getBeginLoc()), l1 = src.stmtEnd(st.loop);
    const std::string acc_name = st.acc->getNameAsString();
    const std::string with_result = src.slice(g0, l0) + acc_name + " = kl_acc[kl_o];" + src.slice(l1, g1);
    t += "#pragma unroll\n";
    t += i2 + "for (int kl_o = 0; kl_o < " + outs + "; ++kl_o) {\n";
    t += i3 + i_decl + "(" + i_type + ")(kl_b0 + kl_t + kl_o);\n";
    t += i3 + reindent(with_result, pad + pad) + "\n";
    t += i2 + "}\n";
    t += ind + "} else {  // each output runs the loop as written\n";
    t += i2 + "for (int kl_o = 0; kl_o < " + outs + "; ++kl_o) {\n";
    t += i3 + i_decl + "(" + i_type + ")(kl_b0 + kl_t + kl_o);\n";
    t += i3 + reindent(src.slice(g0, g1), pad + pad) + "\n";
    t += i2 + "}\n";
    t += ind + "}";
    if (req.rewriter.ReplaceText(src.at(g0), g1 - g0, t)) return TransformResult::no("the rewriter refused the edit");
    GeometryChange g;
    g.grid_x_divisor = static_cast<unsigned>(out);
    return TransformResult::yes("the input window of " + in + " in shared memory, " + outs +
                                    " outputs per thread (grid.x / " + outs + ")",
                                g);
  }

  // Every line after the first gets `pad` more indentation.
  static std::string reindent(const std::string& s, const std::string& pad) {
    std::string out;
    for (char c : s) {
      out += c;
      if (c == '\n') out += pad;
    }
    return out;
  }

  static std::string squeezeSpaces(const std::string& s) {
    std::string out;
    bool space = false;
    for (char c : s) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        space = true;
        continue;
      }
      if (space && !out.empty()) out += ' ';
      space = false;
      out += c;
    }
    return out;
  }
};

}  // namespace
std::unique_ptr<Transform> makeWindowTile() { return std::make_unique<WindowTile>(); }
}  // namespace klineage
