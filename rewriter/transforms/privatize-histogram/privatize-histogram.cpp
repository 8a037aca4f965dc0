// privatize-histogram: one global atomicAdd per element into a data-dependent bin  ->  per-block
// bins in shared memory, a grid-stride loop of shared atomics, and one global atomicAdd per
// non-empty bin per block.
//   T i = blockIdx.x * blockDim.x + threadIdx.x;    __shared__ U kl_bins[NB];  zero them; __syncthreads();
//   if (i < n) atomicAdd(&B[IDX], V);           ->   for (T i = <index>; i < n; i += <grid stride>) atomicAdd(&kl_bins[IDX], V);
//                                                    __syncthreads();  for each bin: if (kl_bins[b]) atomicAdd(&B[b], kl_bins[b]);
// Why it pays: global atomics on a few hundred addresses serialize across the whole GPU (2^26 bytes
// into 256 bins: ~12 ms on an H200); shared-memory atomics contend only within a block.
// When it is sound: atomicAdd is commutative on integers, so the counts are exact in any order.
// NB, the number of bins, must be known from the index itself: an 8-bit unsigned value (256), or
// `e % C` / `e & C` on an unsigned e with a constant C (C / C + 1), at most 4096 bins. B must be a
// pointer parameter of an integer type shared atomics support (int, unsigned, unsigned long long).
// The per-block loops walk threadIdx.x, so the block must be 1-D (TransformFacts); grid.x is
// divided by `coarsen` (default 64): fewer blocks, fewer global atomics.
// A body that is already one grid-stride loop of the atomic keeps its grid (its launcher sized it).
// Inverse: the emitted shape back to one global atomic per element (correct only when the grid
// covers n again: the caller restores the launch).
#include <algorithm>

#include "rewriter/ast_util.h"
#include "rewriter/element_guard.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

// How many distinct values `idx` can take, from its type or a constant mask/modulus (0: unknown).
long long binsOf(clang::ASTContext& ctx, const clang::Expr* idx) {
  const clang::Expr* e = idx->IgnoreParens();
  while (auto* ic = llvm::dyn_cast<clang::ImplicitCastExpr>(e)) {
    const clang::Expr* sub = ic->getSubExpr()->IgnoreParens();
    clang::QualType t = sub->getType();
    if (t->isUnsignedIntegerType() && ctx.getTypeSize(t) <= 16) return 1LL << ctx.getTypeSize(t);
    e = sub;
  }
  if (e->getType()->isUnsignedIntegerType() && ctx.getTypeSize(e->getType()) <= 16)
    return 1LL << ctx.getTypeSize(e->getType());
  if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    clang::Expr::EvalResult r;
    if ((bo->getOpcode() == clang::BO_Rem || bo->getOpcode() == clang::BO_And) &&
        bo->getLHS()->getType()->isUnsignedIntegerType() && !bo->getRHS()->isValueDependent() &&
        bo->getRHS()->EvaluateAsInt(r, ctx)) {
      long long c = r.Val.getInt().getExtValue();
      if (c > 0) return bo->getOpcode() == clang::BO_Rem ? c : c + 1;
    }
  }
  return 0;
}

bool sharedAtomicType(const clang::QualType& t) {
  const auto* bt = t.getCanonicalType()->getAs<clang::BuiltinType>();
  return bt && (bt->getKind() == clang::BuiltinType::Int || bt->getKind() == clang::BuiltinType::UInt ||
                bt->getKind() == clang::BuiltinType::ULongLong);
}

// &B[IDX] or B + IDX with B a pointer parameter: B and IDX, else false.
bool binAddress(const clang::Expr* addr, const clang::ParmVarDecl*& base, const clang::Expr*& idx) {
  const clang::Expr* a = addr->IgnoreParenImpCasts();
  if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(a); uo && uo->getOpcode() == clang::UO_AddrOf) {
    if (auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(uo->getSubExpr()->IgnoreParens())) {
      base = llvm::dyn_cast_or_null<clang::ParmVarDecl>(referencedDecl(ase->getBase()));
      idx = ase->getIdx();
    }
  } else if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(a); bo && bo->getOpcode() == clang::BO_Add) {
    base = llvm::dyn_cast_or_null<clang::ParmVarDecl>(referencedDecl(bo->getLHS()));
    idx = bo->getRHS();
  }
  return base && idx && base->getType()->isPointerType();
}

// The body is one grid-stride loop `for (T i = <index>; i < n; i += <stride>) atomic(P, E);`
// (braces allowed): g as matchGuardedAtomic fills it, the loop's header as the user wrote it.
bool matchStridedAtomic(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, GuardedAtomic& g) {
  auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(kernel->getBody());
  if (!body || body->size() != 1) return false;
  auto* loop = llvm::dyn_cast<clang::ForStmt>(body->body_front());
  std::string why;
  if (!loop || !isGridStrideLoop(ctx, loop) || !loopGuard(ctx, loop, g, why)) return false;
  const clang::Stmt* s = loop->getBody();
  if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(s)) s = cs->size() == 1 ? cs->body_front() : nullptr;
  auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(s);
  if (!call || call->getNumArgs() != 2) return false;
  g.body = body;
  g.atomic = call;
  g.callee = calleeName(call);
  return true;
}

// The per-element update of the private bins: {IDX, V} -> `atomicAdd(&kl_bins[IDX], V);`.
std::string binUpdate(const std::vector<std::string>& v) { return "atomicAdd(&kl_bins[" + v[0] + "], " + v[1] + ");"; }

class PrivatizeHistogram : public Transform {
 public:
  std::string id() const override { return "privatize-histogram"; }
  std::string summary() const override {
    return "global atomicAdd into data-dependent bins -> per-block shared-memory bins, merged once per block";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    GuardedAtomic g;
    std::string why;
    // Either one element per thread (the grid shrinks by `coarsen`), or already a grid-stride loop
    // whose grid the launcher sized itself (kept as it is).
    const bool strided = matchStridedAtomic(ctx, req.kernel, g);
    if (!strided && !matchGuardedAtomic(ctx, req.kernel, g, why)) return TransformResult::no(why);
    if (g.callee != "atomicAdd") return TransformResult::no("the update is " + g.callee + ", only atomicAdd counts are privatized");
    const clang::ParmVarDecl* base = nullptr;
    const clang::Expr* idx = nullptr;
    if (!binAddress(g.atomic->getArg(0), base, idx))
      return TransformResult::no("the atomic's address is not `&B[idx]` or `B + idx` with B a pointer parameter");
    if (std::string e = sideEffectOf(idx); !e.empty()) return TransformResult::no("the bin index has " + e);
    if (std::string e = sideEffectOf(g.atomic->getArg(1)); !e.empty())
      return TransformResult::no("the added value has " + e);
    clang::QualType elem = base->getType()->getPointeeType();
    if (!sharedAtomicType(elem)) return TransformResult::no("the bins are not int, unsigned int or unsigned long long");
    long long nb = binsOf(ctx, idx);
    if (nb <= 0)
      return TransformResult::no("the number of bins is not known from the index (an 8-bit unsigned value, or % / & a "
                                 "constant on an unsigned value)");
    if (nb > 4096) return TransformResult::no(std::to_string(nb) + " bins do not fit the 4096 kept in shared memory");
    auto shape = req.facts.shape();
    if (!shape) return TransformResult::no("no single block shape is known for every launch of the kernel");
    if (shape->y != 1 || shape->z != 1) return TransformResult::no("the block is not 1-D (" + dimText(*shape) + ")");
    long long coarsen = intParam(req.params, "coarsen", 64);
    if (coarsen < 1 || coarsen > 4096) return TransformResult::no("coarsen must be 1..4096");

    std::string u = elem.getUnqualifiedType().getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
    std::string b = base->getNameAsString(), nbs = std::to_string(nb);
    // The loop of shared atomics; vector_width 16 (bytes) / 8 / 4 loads that many elements a thread
    // and iteration where every pointer read is 16-byte aligned: one byte a load leaves the loop
    // latency-bound (a few hundred bytes in flight per SM), and atomic adds commute, so the order of
    // the elements within a thread does not matter (element_guard.h writes the loop).
    Accumulation a;
    a.values = {idx, g.atomic->getArg(1)};
    a.stmt = binUpdate;
    a.width = intParam(req.params, "vector_width", 1);
    std::string loop;
    if (!accumulationLoop(ctx, g, a, loop, why)) return TransformResult::no(why);
    if (std::find(a.loaded.begin(), a.loaded.end(), b) != a.loaded.end())
      return TransformResult::no(b + " is both the bins and read as vectors");
    std::string each = "for (int kl_b = threadIdx.x; kl_b < " + nbs + "; kl_b += blockDim.x)";
    std::string text = "\n  __shared__ " + u + " kl_bins[" + nbs + "];\n  " + each + " kl_bins[kl_b] = 0;\n" +
                       "  __syncthreads();\n  " + loop + "  __syncthreads();\n  " + each +
                       "\n    if (kl_bins[kl_b] != 0) atomicAdd(&" + b + "[kl_b], kl_bins[kl_b]);\n";
    if (!replaceBody(ctx, req.rewriter, g.body, text)) return TransformResult::no("the rewriter refused the edit");
    std::string vec;
    for (const std::string& l : a.loaded) vec += (vec.empty() ? "" : ", ") + l;
    if (a.width > 1) vec = ", " + std::to_string(a.width) + " elements of " + vec + " a load when 16-byte aligned";
    if (strided)
      return TransformResult::yes(nbs + " bins of " + b + " privatized per block (already a grid-stride loop: the grid is kept)" + vec);
    GeometryChange geo;
    geo.grid_x_divisor = static_cast<unsigned>(coarsen);
    return TransformResult::yes(nbs + " bins of " + b + " privatized per block, grid.x / " + std::to_string(coarsen) + vec, geo);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    // The loop of shared atomics, or vector_width's form around it (its else branch).
    const clang::ForStmt* loop = nullptr;
    const clang::IfStmt* vector = nullptr;
    for (const clang::Stmt* s : body->body()) {
      const clang::IfStmt* v = nullptr;
      if (auto* fs = accumulationScalarLoop(s, &v); fs && isGridStrideLoop(ctx, fs)) loop = fs, vector = v;
    }
    auto* call = loop ? llvm::dyn_cast<clang::CallExpr>(loop->getBody()) : nullptr;
    const clang::Expr* idx = nullptr;
    if (call && calleeName(call) == "atomicAdd" && call->getNumArgs() == 2)
      if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(call->getArg(0)->IgnoreParenImpCasts()))
        if (auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(uo->getSubExpr()->IgnoreParens()))
          if (auto* d = referencedDecl(ase->getBase()); d && d->getNameAsString() == "kl_bins") idx = ase->getIdx();
    if (!idx) return TransformResult::no("no grid-stride loop of `atomicAdd(&kl_bins[idx], v)`");
    if (std::string why = vectorWidthMatches(req.params, vector != nullptr); !why.empty()) return TransformResult::no(why);
    if (vector) {
      Accumulation a;
      a.values = {idx, call->getArg(1)};
      a.stmt = binUpdate;
      a.width = intParam(req.params, "vector_width", 1);
      std::string why;
      if (!isVectorAccumulation(ctx, vector, loop, a, why)) return TransformResult::no(why);
    }
    // The merge `atomicAdd(&B[kl_b], kl_bins[kl_b])` names the user's bins.
    std::string bins;
    for (const clang::CallExpr* c : findAllIn<clang::CallExpr>(ctx, body, clang::ast_matchers::callExpr().bind("c"), "c")) {
      if (calleeName(c) != "atomicAdd" || c == call || c->getNumArgs() != 2) continue;
      if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(c->getArg(0)->IgnoreParenImpCasts()))
        if (auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(uo->getSubExpr()->IgnoreParens()))
          if (auto* d = referencedDecl(ase->getBase())) bins = d->getNameAsString();
    }
    if (bins.empty() || bins == "kl_bins") return TransformResult::no("no merge `atomicAdd(&B[kl_b], kl_bins[kl_b])`");
    std::string decl = sourceText(ctx, loop->getInit()->getSourceRange());
    if (!decl.empty() && decl.back() == ';') decl.pop_back();
    std::string text = "\n  " + decl + ";\n  if (" + sourceText(ctx, loop->getCond()->getSourceRange()) + ") atomicAdd(&" +
                       bins + "[" + sourceText(ctx, idx->getSourceRange()) + "], " +
                       sourceText(ctx, call->getArg(1)->getSourceRange()) + ");\n";
    if (!src.inFile(body->getLBracLoc()) || !replaceBody(ctx, req.rewriter, body, text))
      return TransformResult::no("the rewriter refused the edit");
    // The launch goes back to one thread per element: grid.x * coarsen (forward's divisor, a param).
    long long coarsen = intParam(req.params, "coarsen", 64);
    if (coarsen < 1 || coarsen > 4096) return TransformResult::no("coarsen must be 1..4096");
    GeometryChange geo;
    geo.grid_x_multiplier = static_cast<unsigned>(coarsen);
    return TransformResult::yes("one global atomicAdd per element, grid.x * " + std::to_string(coarsen), geo);
  }
};

}  // namespace
std::unique_ptr<Transform> makePrivatizeHistogram() { return std::make_unique<PrivatizeHistogram>(); }
}  // namespace klineage
