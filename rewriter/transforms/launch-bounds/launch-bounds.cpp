// launch-bounds: __global__ void k(...)  ->  __global__ void __launch_bounds__(B) k(...)
// B is the block size every launch uses (a fact from the workload and the launch sites). The
// compiler may then budget registers for exactly B threads. A launch with more than B threads
// would fail, so the transform refuses without a known, single block size.
// Inverse: removes an existing __launch_bounds__(...).
#include <clang/AST/Attr.h>
#include <clang/Lex/Lexer.h>

#include "rewriter/ast_util.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

class LaunchBounds : public Transform {
 public:
  std::string id() const override { return "launch-bounds"; }
  std::string summary() const override { return "add __launch_bounds__(B) for the block size every launch uses"; }

  TransformResult forward(TransformRequest& req) const override {
    const auto* fd = req.kernel;
    if (fd->hasAttr<clang::CUDALaunchBoundsAttr>()) return TransformResult::no("the kernel already has __launch_bounds__");
    long long b = intParam(req.params, "block", 0);
    if (b <= 0 && req.facts.block_size) b = *req.facts.block_size;
    if (b <= 0) return TransformResult::no("no single block size is known for every launch of the kernel");
    if (b > 1024) return TransformResult::no("block size " + std::to_string(b) + " exceeds 1024 threads");
    // Insert right before the kernel's name, after "__global__ void".
    clang::SourceLocation name = fd->getLocation();
    if (name.isMacroID()) return TransformResult::no("the kernel's name is produced by a macro");
    req.rewriter.InsertTextBefore(name, "__launch_bounds__(" + std::to_string(b) + ") ");
    return TransformResult::yes("__launch_bounds__(" + std::to_string(b) + ")");
  }

  TransformResult inverse(TransformRequest& req) const override {
    const auto* fd = req.kernel;
    const auto* attr = fd->getAttr<clang::CUDALaunchBoundsAttr>();
    if (!attr) return TransformResult::no("the kernel has no __launch_bounds__");
    auto& ctx = req.ctx;
    const auto& sm = ctx.getSourceManager();
    // The attribute usually comes from the __launch_bounds__ macro: remove the macro use as written.
    clang::SourceLocation loc = attr->getLocation();
    clang::SourceLocation at = sm.getExpansionLoc(loc);
    clang::SourceRange expansion = loc.isMacroID() ? sm.getExpansionRange(loc).getAsRange() : attr->getRange();
    std::string text = sourceText(ctx, expansion);
    if (text.rfind("__launch_bounds__", 0) != 0 && text.rfind("launch_bounds", 0) != 0) {
      // __attribute__((launch_bounds(...))) written out: remove through the closing parentheses
      return TransformResult::no("__launch_bounds__ is not written in the usual form; left as is");
    }
    auto cr = fileRange(ctx, expansion);
    unsigned len = sm.getFileOffset(cr.getEnd()) - sm.getFileOffset(cr.getBegin());
    // and one following space
    const char* after = sm.getCharacterData(cr.getEnd());
    if (after && *after == ' ') ++len;
    req.rewriter.RemoveText(cr.getBegin(), len);
    (void)at;
    return TransformResult::yes("removed __launch_bounds__");
  }
};

}  // namespace
std::unique_ptr<Transform> makeLaunchBounds() { return std::make_unique<LaunchBounds>(); }
}  // namespace klineage
