// restrict-pointers: T* p  ->  T* __restrict__ p, and const T* for pointees the kernel only reads.
// Why it can pay: the compiler may keep loads in registers and use the read-only data path.
// When it is sound: the pointers never overlap (a workload/capture fact the skill requires); const
// is only added when the kernel has a single declaration, because it changes the signature.
// Inverse: drops __restrict__ (and the pointee const of restrict-qualified pointers, unless a launch
// in the unit passes a pointer to const there).
#include <algorithm>
#include <set>

#include <clang/AST/TypeLoc.h>
#include <clang/Lex/Lexer.h>

#include "rewriter/ast_util.h"
#include "rewriter/extract.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

// Reads/writes through each pointer parameter, from the same analysis the manifest uses.
KernelInfo usage(clang::ASTContext& ctx, const clang::FunctionDecl* fd) { return describeKernel(ctx, fd); }

class RestrictPointers : public Transform {
 public:
  std::string id() const override { return "restrict-pointers"; }
  std::string summary() const override { return "add __restrict__ (and const on read-only pointees) to pointer parameters"; }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    const auto* fd = req.kernel;
    bool add_const = boolParam(req.params, "add_const", true);
    bool single_decl = std::distance(fd->redecls_begin(), fd->redecls_end()) == 1;
    KernelInfo info = usage(ctx, fd);
    if (std::none_of(info.params.begin(), info.params.end(), [](const ParamInfo& p) { return p.is_pointer; }))
      return TransformResult::no("the kernel has no pointer parameters");
    unsigned edits = 0;
    std::string what;
    for (unsigned i = 0; i < fd->getNumParams(); ++i) {
      const clang::ParmVarDecl* pv = fd->getParamDecl(i);
      clang::QualType t = pv->getType();
      if (!t->isPointerType()) continue;
      if (pv->getTypeSourceInfo() == nullptr) continue;
      auto ptl = pv->getTypeSourceInfo()->getTypeLoc().getAs<clang::PointerTypeLoc>();
      if (ptl.isNull() || ptl.getStarLoc().isMacroID()) continue;
      const ParamInfo& pi = info.params[i];
      bool make_const = add_const && single_decl && !pi.pointee_const && pi.read && !pi.written &&
                        !t->getPointeeType()->isPointerType();
      bool make_restrict = !t.isRestrictQualified();
      if (!make_const && !make_restrict) continue;
      if (make_restrict) {
        // "float* x" -> "float* __restrict__ x"; "float *x" -> "float * __restrict__ x"
        const char* after = ctx.getSourceManager().getCharacterData(ptl.getStarLoc().getLocWithOffset(1));
        bool glued = after && (std::isalnum(static_cast<unsigned char>(*after)) || *after == '_');
        req.rewriter.InsertTextAfterToken(ptl.getStarLoc(), glued ? " __restrict__ " : " __restrict__");
        what += (what.empty() ? "" : ", ") + std::string("__restrict__ ") + pv->getNameAsString();
      }
      if (make_const) {
        auto begin = pv->getTypeSourceInfo()->getTypeLoc().getBeginLoc();
        if (begin.isMacroID()) continue;
        req.rewriter.InsertTextBefore(begin, "const ");
        what += ", const *" + pv->getNameAsString();
      }
      ++edits;
    }
    if (!edits) return TransformResult::no("every pointer parameter is already __restrict__ (and const where only read)");
    return TransformResult::yes(what);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    const auto& sm = ctx.getSourceManager();
    const auto* fd = req.kernel;
    bool single_decl = std::distance(fd->redecls_begin(), fd->redecls_end()) == 1;
    // Parameters a launch in this unit passes a pointer to const (an expert's own launcher taking
    // `const float*`): dropping their const would break that launch, so it stays.
    std::set<unsigned> const_args;
    for (const clang::CUDAKernelCallExpr* call : kernelCalls(ctx)) {
      const clang::FunctionDecl* launched = launchedKernel(call);
      if (!launched || launched->getCanonicalDecl() != fd->getCanonicalDecl()) continue;
      for (unsigned i = 0; i < call->getNumArgs() && i < fd->getNumParams(); ++i) {
        const clang::QualType t = call->getArg(i)->IgnoreParenImpCasts()->getType();
        if (t->isPointerType() && t->getPointeeType().isConstQualified()) const_args.insert(i);
      }
    }
    unsigned edits = 0;
    for (const clang::ParmVarDecl* pv : fd->parameters()) {
      clang::QualType t = pv->getType();
      if (!t->isPointerType() || !t.isRestrictQualified()) continue;
      auto range = fileRange(ctx, pv->getSourceRange());
      if (range.isInvalid()) continue;
      // Find the restrict spelling and the leading const among the parameter's tokens.
      std::string text = sourceText(ctx, pv->getSourceRange());
      auto begin = range.getBegin();
      for (const char* kw : {"__restrict__", "__restrict"}) {
        size_t pos = text.find(kw);
        if (pos == std::string::npos) continue;
        size_t len = std::char_traits<char>::length(kw);
        // remove one space before it if present ("float* __restrict__ x" -> "float* x")
        size_t from = pos > 0 && text[pos - 1] == ' ' ? pos - 1 : pos;
        req.rewriter.RemoveText(begin.getLocWithOffset(static_cast<int>(from)), static_cast<unsigned>(pos + len - from));
        ++edits;
        break;
      }
      if (single_decl && !const_args.count(pv->getFunctionScopeIndex()) && t->getPointeeType().isConstQualified() &&
          text.rfind("const ", 0) == 0) {
        req.rewriter.RemoveText(begin, 6);
      }
    }
    (void)sm;
    if (!edits) return TransformResult::no("no __restrict__ pointer parameter");
    return TransformResult::yes("removed __restrict__");
  }
};

}  // namespace
std::unique_ptr<Transform> makeRestrictPointers() { return std::make_unique<RestrictPointers>(); }
}  // namespace klineage
