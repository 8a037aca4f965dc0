// block-reduce-atomic: one atomicAdd per element into one address  ->  a grid-stride sum in a
// register, a warp-shuffle tree, a shared-memory step across the block's warps, and one atomicAdd
// per block.
//   T i = blockIdx.x * blockDim.x + threadIdx.x;      Acc kl_sum = 0;
//   if (i < n) atomicAdd(P, E);                   ->   for (T i = <index>; i < n; i += <grid stride>) kl_sum += E;
//                                                      <warp tree>; kl_warp_sums[warp] = ...; __syncthreads();
//                                                      <first warp: tree over the warp sums>; atomicAdd(P, kl_sum)
// Why it pays: every atomic of the naive kernel serializes on one address (2^24 of them take ~30 ms
// on an H200, a coalesced read of the same data ~0.03 ms); here each block does one.
// When it is sound: P does not depend on the element (one accumulator) and E has no side effects.
// Addition is reordered, so floating-point sums round differently (bounded by ~u sqrt(n) max|E|
// per order, not bit-exact): the skill says so in its risks and the gate's tolerance decides. The
// block must be 1-D with a multiple of 32 threads (full warps for the shuffles, one element index
// per thread as in the original): the transform needs the block shape every launch uses
// (TransformFacts) and refuses otherwise. grid.x is divided by `coarsen` (default 16): the loop
// covers any grid, fewer blocks mean fewer atomics. `vector_width` 4 loads the elements E reads as
// float4/int4/uint4 where every such pointer is 16-byte aligned (a runtime check; the n % 4 tail
// and the misaligned case run the scalar loop: accumulationLoop in element_guard.h), when E reads
// memory only as p[i] at the index (refused otherwise).
// Inverse: the emitted shape (scalar or 4-wide, exactly as forward writes it) back to one
// atomicAdd per element (correct only when the grid covers n again: the caller restores the launch).
#include "rewriter/ast_util.h"
#include "rewriter/element_guard.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

const char* kTree = "for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);";

class BlockReduceAtomic : public Transform {
 public:
  std::string id() const override { return "block-reduce-atomic"; }
  std::string summary() const override {
    return "one atomicAdd per element into one address -> register sum, warp shuffles, one atomicAdd per block";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    GuardedAtomic g;
    std::string why;
    if (!matchGuardedAtomic(ctx, req.kernel, g, why)) return TransformResult::no(why);
    if (g.callee != "atomicAdd")
      return TransformResult::no("the accumulation is " + g.callee + ", only atomicAdd sums are reduced");
    const clang::Expr* addr = g.atomic->getArg(0);
    const clang::Expr* value = g.atomic->getArg(1);
    if (usesDecl(addr, g.index))
      return TransformResult::no("the atomic's address depends on the index " + g.index->getNameAsString() +
                                 ": not one accumulator");
    if (std::string e = sideEffectOf(addr); !e.empty())
      return TransformResult::no("the atomic's address has " + e);
    if (std::string e = sideEffectOf(value); !e.empty()) return TransformResult::no("the added value has " + e);
    clang::QualType pt = addr->IgnoreParenImpCasts()->getType();
    if (!pt->isPointerType() || !shuffleTakes(pt->getPointeeType()))
      return TransformResult::no("the accumulator is not float, double, int or an unsigned/long long integer");
    auto shape = req.facts.shape();
    if (!shape) return TransformResult::no("no single block shape is known for every launch of the kernel");
    if (shape->y != 1 || shape->z != 1) return TransformResult::no("the block is not 1-D (" + dimText(*shape) + ")");
    if (shape->x % 32 != 0 || shape->x > 1024)
      return TransformResult::no("the block size " + std::to_string(shape->x) + " is not a multiple of 32 up to 1024");
    long long coarsen = intParam(req.params, "coarsen", 16);
    if (coarsen < 1 || coarsen > 4096) return TransformResult::no("coarsen must be 1..4096");
    const long long unroll = intParam(req.params, "unroll", 1);
    if (unroll < 1 || unroll > 16) return TransformResult::no("unroll must be 1..16");
    const long long width = intParam(req.params, "vector_width", 1);
    if (width != 1 && width != 4)
      return TransformResult::no("vector_width must be 1 or 4 (asked for " + std::to_string(width) + ")");

    // Unrolling the accumulation issues that many independent loads per thread before their adds
    // (a single load in flight per thread leaves DRAM bandwidth unused); vector_width 4 loads 16
    // bytes per thread and iteration where every pointer read is aligned (element_guard.h).
    Accumulation a;
    a.values = {value};
    a.stmt = [](const std::vector<std::string>& v) { return "kl_sum += " + v[0] + ";"; };
    a.width = width;
    a.unroll = unroll;
    a.updates = {addr};
    std::string loop;
    if (!accumulationLoop(ctx, g, a, loop, why)) return TransformResult::no(why);

    std::string acc = pt->getPointeeType().getUnqualifiedType().getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
    std::string p = sourceText(ctx, addr->getSourceRange()), e = sourceText(ctx, value->getSourceRange());
    std::string text = "\n  " + acc + " kl_sum = 0;\n  " + loop +
                       "  // one sum per warp, then per block, then one atomic per block\n  " + kTree + "\n" +
                       "  __shared__ " + acc + " kl_warp_sums[32];\n" +
                       "  if (threadIdx.x % 32 == 0) kl_warp_sums[threadIdx.x / 32] = kl_sum;\n" +
                       "  __syncthreads();\n" +
                       "  if (threadIdx.x < 32) {\n" +
                       "    kl_sum = threadIdx.x < blockDim.x / 32 ? kl_warp_sums[threadIdx.x] : 0;\n    " + kTree +
                       "\n    if (threadIdx.x == 0) atomicAdd(" + p + ", kl_sum);\n  }\n";
    if (!replaceBody(ctx, req.rewriter, g.body, text)) return TransformResult::no("the rewriter refused the edit");
    GeometryChange geo;
    geo.grid_x_divisor = static_cast<unsigned>(coarsen);
    std::string vec;
    for (const std::string& l : a.loaded) vec += (vec.empty() ? "" : ", ") + l;
    return TransformResult::yes("block reduction of " + e + " into " + p + ", one atomicAdd per block, grid.x / " +
                                    std::to_string(coarsen) + (unroll > 1 ? ", loads unrolled " + std::to_string(unroll) : "") +
                                    (width == 4 ? ", 4-wide loads of " + vec + " when 16-byte aligned" : ""),
                                geo);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body || body->size() < 3) return TransformResult::no("the kernel is not a block reduction this transform emits");
    auto it = body->body_begin();
    auto* ds = llvm::dyn_cast<clang::DeclStmt>(*it++);
    auto* sum = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
    if (!sum || sum->getNameAsString() != "kl_sum") return TransformResult::no("no `kl_sum` accumulator first in the body");
    // The scalar loop (under `#pragma unroll N`, the unroll param), or vector_width 4's form around it.
    const clang::IfStmt* vector = nullptr;
    const clang::ForStmt* loop = accumulationScalarLoop(*it, &vector);
    if (!loop || !isGridStrideLoop(ctx, loop) || !loop->getInit() || !loop->getCond())
      return TransformResult::no("kl_sum is not followed by a grid-stride loop");
    if (std::string why = vectorWidthMatches(req.params, vector != nullptr); !why.empty()) return TransformResult::no(why);
    auto* add = llvm::dyn_cast<clang::CompoundAssignOperator>(loop->getBody());
    if (!add || add->getOpcode() != clang::BO_AddAssign || referencedDecl(add->getLHS()) != sum)
      return TransformResult::no("the grid-stride loop is not `kl_sum += E;`");
    if (vector) {
      Accumulation a;
      a.values = {add->getRHS()};
      a.stmt = [](const std::vector<std::string>& v) { return "kl_sum += " + v[0] + ";"; };
      std::string why;
      if (!isVectorAccumulation(ctx, vector, loop, a, why)) return TransformResult::no(why);
    }
    // The final atomicAdd(P, kl_sum): its address is the user's accumulator.
    const clang::CallExpr* atomic = nullptr;
    for (const clang::CallExpr* c : findAllIn<clang::CallExpr>(ctx, body, clang::ast_matchers::callExpr().bind("c"), "c"))
      if (calleeName(c) == "atomicAdd" && c->getNumArgs() == 2 && referencedDecl(c->getArg(1)) == sum) atomic = c;
    if (!atomic) return TransformResult::no("no `atomicAdd(P, kl_sum)` at the end of the block reduction");
    std::string decl = sourceText(ctx, loop->getInit()->getSourceRange());
    if (!decl.empty() && decl.back() == ';') decl.pop_back();
    std::string text = "\n  " + decl + ";\n  if (" + sourceText(ctx, loop->getCond()->getSourceRange()) + ") atomicAdd(" +
                       sourceText(ctx, atomic->getArg(0)->getSourceRange()) + ", " +
                       sourceText(ctx, add->getRHS()->getSourceRange()) + ");\n";
    if (!src.inFile(body->getLBracLoc()) || !replaceBody(ctx, req.rewriter, body, text))
      return TransformResult::no("the rewriter refused the edit");
    // forward's grid.x / coarsen undone (the coarsen the skill gave; the kernel does not say it)
    const long long coarsen = intParam(req.params, "coarsen", 16);
    if (coarsen < 1 || coarsen > 4096) return TransformResult::no("coarsen must be 1..4096");
    GeometryChange geo;
    geo.grid_x_multiplier = static_cast<unsigned>(coarsen);
    return TransformResult::yes("one atomicAdd per element, grid.x * " + std::to_string(coarsen), geo);
  }
};

}  // namespace
std::unique_ptr<Transform> makeBlockReduceAtomic() { return std::make_unique<BlockReduceAtomic>(); }
}  // namespace klineage
