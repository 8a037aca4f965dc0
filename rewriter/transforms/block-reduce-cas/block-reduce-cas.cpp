// block-reduce-cas: the float atomic-max (or min) compare-and-swap loop, run once per element on
// one address  ->  a grid-stride maximum in a register, a warp-shuffle tree, a shared-memory step
// across the block's warps, and the same compare-and-swap loop once per block.
//   T i = blockIdx.x * blockDim.x + threadIdx.x;     F kl_best = -INFINITY;
//   if (i < n) {                                 ->   for (T i = <index>; i < n; i += <grid stride>) kl_best = fmaxf(kl_best, E);
//     F v = E;                                        <warp tree>; kl_warp_best[warp] = ...; __syncthreads();
//     <rest: while (v > old) ... atomicCAS(addr,      <first warp: tree over the warp maxima>
//            assumed, __float_as_int(v)) ...>         if (threadIdx.x == 0) { F v = kl_best; <rest, verbatim> }
//   }
// Why it pays: every element's compare-and-swap of the naive kernel contends for one address (and
// a lost race retries); here each block makes one update.
// When it is sound: <rest> implements out = max(out, v) atomically (the CAS loop of the idiom: it
// stores only through atomicCAS, its loop runs while `v > <current value>`, and it does not use the
// element's index or the thread's position). max is associative, commutative and idempotent, so
// applying the update once per block with the block's maximum leaves the same final value as once
// per element; fmaxf ignores a NaN element exactly as `v > old` (false for NaN) never writes one,
// and the identity -INFINITY never passes `v > old`, so a block without elements writes nothing.
// Max and min are exact: no rounding changes, unlike block-reduce-atomic's sums. E has no side
// effects. The block must be 1-D with a multiple of 32 threads, at most 1024 (full warps for the
// shuffles, one element index per thread as in the original): the transform needs the block shape
// every launch uses (TransformFacts) and refuses otherwise. grid.x is divided by `coarsen`
// (default 16): the loop covers any grid, fewer blocks mean fewer compare-and-swaps. `vector_width`
// 4 loads the elements as float4 where x is 16-byte aligned (block-reduce-atomic's form, from
// accumulationLoop in element_guard.h; the tail and the misaligned case scan scalar).
// Inverse: the emitted shape back to the per-element guard around `F v = E; <rest>`, and grid.x *
// coarsen (the caller restores the launch).
#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/element_guard.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

// float or double (the value's type, which names the functions emitted for it).
std::optional<bool> isDoubleValue(const clang::QualType& t) {
  const auto* bt = t.getCanonicalType()->getAs<clang::BuiltinType>();
  if (bt && bt->getKind() == clang::BuiltinType::Float) return false;
  if (bt && bt->getKind() == clang::BuiltinType::Double) return true;
  return std::nullopt;
}

struct Reduction {
  std::string type;      // "float" / "double"
  std::string combine;   // fmaxf, fminf, fmax, fmin
  std::string identity;  // -INFINITY (max), INFINITY (min)
  bool max = true;
};

Reduction reductionOf(bool dbl, bool max) {
  Reduction r;
  r.type = dbl ? "double" : "float";
  r.combine = std::string(max ? "fmax" : "fmin") + (dbl ? "" : "f");
  r.identity = max ? "-INFINITY" : "INFINITY";
  r.max = max;
  return r;
}

std::string treeText(const Reduction& r) {
  return "for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_best = " + r.combine +
         "(kl_best, __shfl_down_sync(0xffffffffu, kl_best, kl_offset));";
}

// The statements between the grid-stride loop and the update, as forward writes them (the inverse
// compares them, whitespace aside, to recognize exactly what forward emitted).
std::string middleText(const Reduction& r) {
  return std::string("  // one ") + (r.max ? "maximum" : "minimum") +
         " per warp, then per block, then one atomic update per block\n  " + treeText(r) + "\n" +
         "  __shared__ " + r.type + " kl_warp_best[32];\n" +
         "  if (threadIdx.x % 32 == 0) kl_warp_best[threadIdx.x / 32] = kl_best;\n" +
         "  __syncthreads();\n" +
         "  if (threadIdx.x < 32) {\n" +
         "    kl_best = threadIdx.x < blockDim.x / 32 ? kl_warp_best[threadIdx.x] : " + r.identity + ";\n    " +
         treeText(r) + "\n  }\n";
}

// What the update (the guarded statements after `F v = E;`) does, for the checks in forward.
struct UpdateScan : clang::RecursiveASTVisitor<UpdateScan> {
  const clang::VarDecl* v = nullptr;
  std::vector<const clang::DeclRefExpr*> v_refs;
  std::vector<const clang::CallExpr*> cas;         // atomicCAS calls
  std::vector<const clang::WhileStmt*> cas_loop;   // the innermost while around each (or null)
  std::vector<const clang::WhileStmt*> loops;      // the while loops being traversed
  std::string store;      // the first store that is not to a local variable
  std::string intrinsic;  // the first barrier, collective or atomic other than atomicCAS

  bool TraverseWhileStmt(clang::WhileStmt* w) {
    loops.push_back(w);
    bool ok = clang::RecursiveASTVisitor<UpdateScan>::TraverseWhileStmt(w);
    loops.pop_back();
    return ok;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    if (e->getDecl() == v) v_refs.push_back(e);
    return true;
  }
  void target(const clang::Expr* e, const char* what) {
    if (!store.empty()) return;
    auto* vd = llvm::dyn_cast_or_null<clang::VarDecl>(referencedDecl(e));
    if (vd && vd->hasLocalStorage() && !vd->getType()->isReferenceType()) return;
    store = std::string(what) + " to `" + exprText(e) + "`";
  }
  std::string exprText(const clang::Expr* e) const { return ctx ? sourceText(*ctx, e->getSourceRange()) : ""; }
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    if (bo->isAssignmentOp()) target(bo->getLHS(), "an assignment");
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->isIncrementDecrementOp()) target(uo->getSubExpr(), "an increment or decrement");
    return true;
  }
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* c) {
    if (c->isAssignmentOp() && store.empty()) store = "an assignment to `" + exprText(c->getArg(0)) + "`";
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* c) {
    std::string n = calleeName(c);
    if (n == "atomicCAS") {
      cas.push_back(c);
      cas_loop.push_back(loops.empty() ? nullptr : loops.back());
    } else if (auto kind = intrinsicKind(n); kind && intrinsic.empty()) {
      intrinsic = n + " (" + describe(*kind) + ")";
    }
    return true;
  }
  const clang::ASTContext* ctx = nullptr;
};

class BlockReduceCas : public Transform {
 public:
  std::string id() const override { return "block-reduce-cas"; }
  std::string summary() const override {
    return "the float atomic max/min compare-and-swap loop per element on one address -> register max, warp "
           "shuffles, one compare-and-swap loop per block";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    ElementGuard g;
    std::string why;
    if (!matchElementGuard(ctx, req.kernel, g, why, "T i = <global thread index>; if (i < n) { F v = E; <atomic max update> }"))
      return TransformResult::no(why);
    auto* then = llvm::dyn_cast<clang::CompoundStmt>(g.guard->getThen());
    if (!then || then->size() < 2)
      return TransformResult::no("the guarded code is not `{ F v = E; <atomic max or min update of one address by v> }`");
    auto* vds = llvm::dyn_cast<clang::DeclStmt>(then->body_front());
    auto* v = vds && vds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(vds->getSingleDecl()) : nullptr;
    if (!v || !v->getInit() || v->getInitStyle() != clang::VarDecl::CInit || !v->hasLocalStorage())
      return TransformResult::no("the guarded code does not start with the value `F v = E;`");
    const std::string vn = v->getNameAsString();
    auto dbl = isDoubleValue(v->getType());
    if (!dbl)
      return TransformResult::no("the value " + vn + " is " + v->getType().getAsString() +
                                 ", not float or double (an integer max has atomicMax)");
    const clang::Expr* value = v->getInit();
    if (std::string e = sideEffectOf(value); !e.empty()) return TransformResult::no("the value " + vn + " has " + e);
    if (!src.inFile(then->getLBracLoc()) || !src.inFile(then->getRBracLoc()) || !src.inFile(vds) ||
        !src.inFile(value->getBeginLoc()) || !src.inFile(value->getEndLoc()))
      return TransformResult::no("the guarded code is written through a macro");

    // The update: every statement after the value's declaration.
    UpdateScan scan;
    scan.v = v;
    scan.ctx = &ctx;
    for (auto it = then->body_begin() + 1; it != then->body_end(); ++it) {
      if (usesDecl(*it, g.index))
        return TransformResult::no("the update uses the index " + g.index->getNameAsString() +
                                   ": it must depend on the element only through " + vn);
      if (geometryRefs(ctx, *it) > 0)
        return TransformResult::no("the update uses threadIdx, blockIdx, blockDim or gridDim: it runs once per block");
      scan.TraverseStmt(const_cast<clang::Stmt*>(*it));
    }
    if (!scan.store.empty())
      return TransformResult::no("the update stores other than through atomicCAS: " + scan.store);
    if (!scan.intrinsic.empty()) return TransformResult::no("the update calls " + scan.intrinsic + ", not only atomicCAS");
    if (scan.cas.empty()) return TransformResult::no("the update has no atomicCAS");
    if (scan.cas.size() > 1) return TransformResult::no("the update has more than one atomicCAS");
    const clang::CallExpr* cas = scan.cas.front();
    const clang::WhileStmt* loop = scan.cas_loop.front();
    if (!loop) return TransformResult::no("the atomicCAS is not inside a while loop");
    const std::string bits = *dbl ? "__double_as_longlong" : "__float_as_int";
    auto* newval = cas->getNumArgs() == 3 ? llvm::dyn_cast<clang::CallExpr>(cas->getArg(2)->IgnoreParenImpCasts()) : nullptr;
    std::string nv = newval ? calleeName(newval) : "";
    if (!newval || !(nv == bits || (!*dbl && nv == "__float_as_uint")) || newval->getNumArgs() != 1 ||
        referencedDecl(newval->getArg(0)) != v)
      return TransformResult::no("the atomicCAS's new value is not `" + bits + "(" + vn + ")`");
    auto* cond = llvm::dyn_cast<clang::BinaryOperator>(loop->getCond()->IgnoreParens());
    auto isV = [&](const clang::Expr* e) { return referencedDecl(e) == v; };
    bool max = false;
    if (cond && (cond->getOpcode() == clang::BO_GT || cond->getOpcode() == clang::BO_LT) &&
        isV(cond->getLHS()) != isV(cond->getRHS()) && !usesDecl(isV(cond->getLHS()) ? cond->getRHS() : cond->getLHS(), v)) {
      max = (cond->getOpcode() == clang::BO_GT) == isV(cond->getLHS());
    } else {
      return TransformResult::no("the loop condition around the atomicCAS is not a comparison `" + vn + " > <expr>` or `" +
                                 vn + " < <expr>`");
    }
    if (scan.v_refs.size() != 2)
      return TransformResult::no(vn + " is used outside the loop condition and the atomicCAS's new value");

    auto shape = req.facts.shape();
    if (!shape) return TransformResult::no("no single block shape is known for every launch of the kernel");
    if (shape->y != 1 || shape->z != 1) return TransformResult::no("the block is not 1-D (" + dimText(*shape) + ")");
    if (shape->x % 32 != 0 || shape->x > 1024)
      return TransformResult::no("the block size " + std::to_string(shape->x) + " is not a multiple of 32 up to 1024");
    const long long coarsen = intParam(req.params, "coarsen", 16);
    if (coarsen < 1 || coarsen > 4096) return TransformResult::no("coarsen must be 1..4096");
    const long long unroll = intParam(req.params, "unroll", 4);
    if (unroll < 1 || unroll > 16) return TransformResult::no("unroll must be 1..16");
    const long long width = intParam(req.params, "vector_width", 1);
    if (width != 1 && width != 4)
      return TransformResult::no("vector_width must be 1 or 4 (asked for " + std::to_string(width) + ")");

    const Reduction r = reductionOf(*dbl, max);
    const std::string e = sourceText(ctx, value->getSourceRange());
    // Unrolling the scan issues that many independent loads per thread before their fmaxf;
    // vector_width 4 loads 16 bytes per thread and iteration where every pointer read is aligned.
    Accumulation a;
    a.values = {value};
    a.stmt = [&r](const std::vector<std::string>& x) { return "kl_best = " + r.combine + "(kl_best, " + x[0] + ");"; };
    a.width = width;
    a.unroll = unroll;
    for (auto it = then->body_begin() + 1; it != then->body_end(); ++it) a.updates.push_back(*it);
    std::string scan_loop;
    if (!accumulationLoop(ctx, g, a, scan_loop, why)) return TransformResult::no(why);
    // `{` .. `F v = ` .. E .. `;` .. <rest> .. `}` of the guarded block: all but E kept as written.
    const unsigned lbrac = src.off(then->getLBracLoc()) + 1, decl = src.off(vds->getBeginLoc());
    const unsigned init = src.off(value->getBeginLoc()), init_end = src.tokEnd(value->getEndLoc());
    const unsigned decl_end = src.stmtEnd(vds), rbrac = src.off(then->getRBracLoc());
    std::string text = "\n  " + r.type + " kl_best = " + r.identity + ";\n  " + scan_loop + middleText(r) +
                       "  if (threadIdx.x == 0) {" + src.slice(lbrac, decl) + src.slice(decl, init) + "kl_best" +
                       src.slice(init_end, decl_end) + src.slice(decl_end, rbrac) + "}\n";
    if (!replaceBody(ctx, req.rewriter, g.body, text)) return TransformResult::no("the rewriter refused the edit");
    GeometryChange geo;
    geo.grid_x_divisor = static_cast<unsigned>(coarsen);
    std::string vec;
    for (const std::string& l : a.loaded) vec += (vec.empty() ? ", 4-wide loads of " : ", ") + l;
    if (!vec.empty()) vec += " when 16-byte aligned";
    return TransformResult::yes(std::string("block ") + (max ? "maximum" : "minimum") + " of " + e +
                                    ", one compare-and-swap update per block, grid.x / " + std::to_string(coarsen) +
                                    (unroll > 1 ? ", loads unrolled " + std::to_string(unroll) : "") + vec, geo);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    const auto notOurs = [](const std::string& what) {
      return TransformResult::no("the kernel is not a block reduction this transform emits: " + what);
    };
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body || body->size() != 8) return notOurs("not the 8 statements forward writes");
    if (!src.inFile(body->getLBracLoc()) || !src.inFile(body->getRBracLoc()))
      return TransformResult::no("the kernel body is written through a macro");
    std::vector<const clang::Stmt*> s(body->body_begin(), body->body_end());
    // (kl_best's initializer ends in the INFINITY macro, and `#pragma unroll` attributes the loop from
    // outside the file: only the statements sliced below must be in the file, checked there)
    if (!src.inFile(s[0]->getBeginLoc())) return TransformResult::no("the kernel body is written through a macro");
    auto* ds = llvm::dyn_cast<clang::DeclStmt>(s[0]);
    auto* best = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
    if (!best || best->getNameAsString() != "kl_best" || !best->getInit())
      return notOurs("no `kl_best` first in the body");
    auto dbl = isDoubleValue(best->getType());
    if (!dbl) return notOurs("kl_best is not float or double");
    // The scalar loop (under `#pragma unroll N`, the unroll param), or vector_width 4's form around it.
    const clang::IfStmt* vector = nullptr;
    const clang::ForStmt* loop = accumulationScalarLoop(s[1], &vector);
    const clang::Stmt* next = vector ? static_cast<const clang::Stmt*>(vector) : loop;
    if (!loop || !isGridStrideLoop(ctx, loop) || !loop->getInit() || !loop->getCond() || !src.inFile(loop) ||
        !src.inFile(s[2]->getBeginLoc()) || !src.inFile(s[6]) || !src.inFile(s[7]))
      return notOurs("kl_best is not followed by a grid-stride loop");
    if (std::string why = vectorWidthMatches(req.params, vector != nullptr); !why.empty()) return TransformResult::no(why);
    auto* assign = llvm::dyn_cast<clang::BinaryOperator>(loop->getBody());
    auto* call = assign && assign->getOpcode() == clang::BO_Assign && referencedDecl(assign->getLHS()) == best
                     ? llvm::dyn_cast<clang::CallExpr>(assign->getRHS()->IgnoreParenImpCasts())
                     : nullptr;
    if (!call || call->getNumArgs() != 2 || referencedDecl(call->getArg(0)) != best)
      return notOurs("the grid-stride loop is not `kl_best = fmaxf(kl_best, E);`");
    const std::string fn = calleeName(call);
    std::optional<Reduction> r;
    for (bool max : {true, false})
      if (fn == reductionOf(*dbl, max).combine) r = reductionOf(*dbl, max);
    if (!r) return notOurs("the grid-stride loop combines with " + fn + ", not " + reductionOf(*dbl, true).combine +
                           " or " + reductionOf(*dbl, false).combine);
    if (squeeze(sourceText(ctx, best->getInit()->getSourceRange())) != squeeze(r->identity))
      return notOurs("kl_best does not start at " + r->identity);
    if (vector) {
      Accumulation a;
      a.values = {call->getArg(1)};
      a.stmt = [&r](const std::vector<std::string>& x) { return "kl_best = " + r->combine + "(kl_best, " + x[0] + ");"; };
      std::string why;
      if (!isVectorAccumulation(ctx, vector, loop, a, why)) return notOurs(why);
    }
    // The warp tree, the shared step, the barrier and the first warp's tree, as forward writes them.
    const std::string middle = src.slice(src.off(s[2]->getBeginLoc()), src.stmtEnd(s[6]));
    std::string comment = src.slice(src.stmtEnd(next), src.off(s[2]->getBeginLoc()));
    if (squeeze(comment + middle) != squeeze(middleText(*r)))
      return notOurs("the statements between the grid-stride loop and the update are not the block reduction forward writes");
    // if (threadIdx.x == 0) { F v = kl_best; <rest> }
    auto* last = llvm::dyn_cast<clang::IfStmt>(s[7]);
    auto* then = last && !last->getElse() ? llvm::dyn_cast<clang::CompoundStmt>(last->getThen()) : nullptr;
    if (!then || then->size() < 2 || squeeze(sourceText(ctx, last->getCond()->getSourceRange())) != "threadIdx.x==0")
      return notOurs("the body does not end with `if (threadIdx.x == 0) { F v = kl_best; <update> }`");
    auto* vds = llvm::dyn_cast<clang::DeclStmt>(then->body_front());
    auto* v = vds && vds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(vds->getSingleDecl()) : nullptr;
    if (!v || !v->getInit() || v->getInitStyle() != clang::VarDecl::CInit || referencedDecl(v->getInit()) != best ||
        !src.inFile(v->getInit()->getBeginLoc()))
      return notOurs("the update does not start with `F v = kl_best;`");
    const long long coarsen = intParam(req.params, "coarsen", 16);
    if (coarsen < 1 || coarsen > 4096) return TransformResult::no("coarsen must be 1..4096");

    std::string decl = sourceText(ctx, loop->getInit()->getSourceRange());
    if (!decl.empty() && decl.back() == ';') decl.pop_back();
    const unsigned lbrac = src.off(then->getLBracLoc()) + 1, dbeg = src.off(vds->getBeginLoc());
    const unsigned init = src.off(v->getInit()->getBeginLoc()), init_end = src.tokEnd(v->getInit()->getEndLoc());
    const unsigned decl_end = src.stmtEnd(vds), rbrac = src.off(then->getRBracLoc());
    const std::string e = sourceText(ctx, call->getArg(1)->getSourceRange());
    std::string text = "\n  " + decl + ";\n  if (" + sourceText(ctx, loop->getCond()->getSourceRange()) + ") {" +
                       src.slice(lbrac, dbeg) + src.slice(dbeg, init) + e + src.slice(init_end, decl_end) +
                       src.slice(decl_end, rbrac) + "}\n";
    if (!replaceBody(ctx, req.rewriter, body, text)) return TransformResult::no("the rewriter refused the edit");
    // The launch goes back to one thread per element: grid.x * coarsen (forward's divisor, a param).
    GeometryChange geo;
    geo.grid_x_multiplier = static_cast<unsigned>(coarsen);
    return TransformResult::yes(std::string("one compare-and-swap ") + (r->max ? "max" : "min") +
                                    " update per element, grid.x * " + std::to_string(coarsen),
                                geo);
  }
};

}  // namespace
std::unique_ptr<Transform> makeBlockReduceCas() { return std::make_unique<BlockReduceCas>(); }
}  // namespace klineage
