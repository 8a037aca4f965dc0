// block-size: launch the kernel with B threads per block instead of the B0 every launch uses, the
// grid scaled to keep the same number of threads (grid.x -> ceil(grid.x * B0 / B)), and declare
// __launch_bounds__(B) so the compiler budgets registers for it.
//   __global__ void k(...)   ->   __global__ void __launch_bounds__(B) k(...)   +  block.x = B
// Why it can pay: the block size decides occupancy (registers and shared memory per SM), the tail
// of the last wave and how many blocks are scheduled; what a Kernel-Tuner-style tuner searches.
// When it is sound: the kernel's work must not depend on how threads are grouped into blocks: a
// 1-D block (TransformFacts), the geometry used only in the global index blockIdx.x * blockDim.x +
// threadIdx.x (and a grid-stride step), a bounds guard or a grid-stride loop over that index (the
// new grid may have up to B - 1 more threads), no __shared__ memory, barriers or warp collectives,
// and no __launch_bounds__ already. The transform refuses otherwise.
// Inverse: removes the __launch_bounds__(B) it added and launches B0 threads per block again
// (param from_threads, default 256; B is param threads, else the block every launch uses, which
// must be B when both are known): block.x = B0, grid.x * B / B0.
#include "rewriter/ast_util.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/feature.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

bool hasFeature(clang::ASTContext& ctx, const clang::FunctionDecl* k, const char* id) {
  const Feature* f = findFeature(id);
  return f && f->check(FeatureInput{ctx, k, nullptr});
}

class BlockSize : public Transform {
 public:
  std::string id() const override { return "block-size"; }
  std::string summary() const override {
    return "launch with B threads per block (grid scaled to the same threads) and __launch_bounds__(B)";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    long long b = intParam(req.params, "threads", 0);
    if (b < 32 || b > 1024 || b % 32 != 0) return TransformResult::no("threads must be a multiple of 32 from 32 to 1024");
    auto shape = req.facts.shape();
    if (!shape) return TransformResult::no("no single block shape is known for every launch of the kernel");
    if (shape->y != 1 || shape->z != 1) return TransformResult::no("the block is not 1-D (" + dimText(*shape) + ")");
    if (shape->x == b) return TransformResult::no("every launch already uses " + std::to_string(b) + " threads");
    KernelIndex idx = kernelIndex(ctx, req.kernel);
    if (!idx.var) return TransformResult::no("no global thread index blockIdx.x * blockDim.x + threadIdx.x");
    if (!idx.guard) return TransformResult::no("the index has no bounds guard or grid-stride loop (extra threads would run)");
    for (const char* f : {"uses_block_geometry_outside_index", "shared_memory", "barriers", "shuffles", "launch_bounds"})
      if (hasFeature(ctx, req.kernel, f))
        return TransformResult::no(std::string("the kernel has ") + f + ": its work may depend on the block size");
    clang::SourceLocation name = req.kernel->getLocation();
    if (name.isMacroID()) return TransformResult::no("the kernel's name is produced by a macro");
    req.rewriter.InsertTextBefore(name, "__launch_bounds__(" + std::to_string(b) + ") ");
    GeometryChange g;
    g.block_x = b;
    g.grid_x_multiplier = static_cast<unsigned>(shape->x);
    g.grid_x_divisor = static_cast<unsigned>(b);
    return TransformResult::yes(std::to_string(b) + " threads per block (was " + std::to_string(shape->x) +
                                    "), grid.x * " + std::to_string(shape->x) + " / " + std::to_string(b),
                                g);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto shape = req.facts.shape();
    long long b = intParam(req.params, "threads", shape ? shape->x : 0);
    const long long b0 = intParam(req.params, "from_threads", 256);
    if (b < 32 || b > 1024 || b % 32 != 0) return TransformResult::no("threads must be a multiple of 32 from 32 to 1024");
    if (b0 < 32 || b0 > 1024 || b0 % 32 != 0)
      return TransformResult::no("from_threads must be a multiple of 32 from 32 to 1024");
    if (shape && (shape->y != 1 || shape->z != 1)) return TransformResult::no("the block is not 1-D (" + dimText(*shape) + ")");
    if (shape && shape->x != b)
      return TransformResult::no("the launches use " + std::to_string(shape->x) + " threads per block, not " + std::to_string(b));
    if (b == b0) return TransformResult::no("the launches already use " + std::to_string(b0) + " threads");
    // The text edit is launch-bounds' own inverse; the launch goes back to B0 threads per block.
    TransformResult r = findTransform("launch-bounds")->inverse(req);
    if (!r.applied) return r;
    r.geometry.block_x = b0;
    r.geometry.grid_x_multiplier = static_cast<unsigned>(b);
    r.geometry.grid_x_divisor = static_cast<unsigned>(b0);
    r.reason += "; " + std::to_string(b0) + " threads per block, grid.x * " + std::to_string(b) + " / " + std::to_string(b0);
    return r;
  }
};

}  // namespace
std::unique_ptr<Transform> makeBlockSize() { return std::make_unique<BlockSize>(); }
}  // namespace klineage
