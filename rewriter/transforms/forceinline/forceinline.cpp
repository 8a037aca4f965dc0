// forceinline: __device__ T f(...)  ->  __device__ __forceinline__ T f(...) for every __device__
// function of this file the kernel calls.
// Why it can pay: an inlined helper's arguments stay in registers, its loops unroll with the
// caller's constants (a warp reduction's offsets, a template's block size), and no call frame
// spills to local memory; nvcc inlines small helpers itself, not always larger ones.
// When it is sound: always (inlining changes no result); functions already declared inline (or
// noinline), written through macros or defined in another file are left alone.
// Inverse: drops __forceinline__ from the __device__ functions the kernel calls, wherever the
// expert wrote it among the specifiers.
#include <set>

#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

#include "rewriter/ast_util.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

// The __device__ functions (their definitions; a template's pattern) the kernel calls directly,
// defined in the main file, in the order first called.
std::vector<const clang::FunctionDecl*> helpers(clang::ASTContext& ctx, const clang::FunctionDecl* kernel) {
  struct Calls : clang::RecursiveASTVisitor<Calls> {
    std::vector<const clang::FunctionDecl*> callees;
    bool VisitCallExpr(clang::CallExpr* c) {
      if (const clang::FunctionDecl* f = c->getDirectCallee()) {
        callees.push_back(f);
      } else if (const auto* u = llvm::dyn_cast<clang::UnresolvedLookupExpr>(c->getCallee()->IgnoreParenImpCasts());
                 u && u->getNumDecls() == 1) {
        // in a template kernel's body a call of a function template with dependent arguments
        // (warpTail<kBlock>(...)) names the template itself
        const clang::NamedDecl* d = (*u->decls_begin())->getUnderlyingDecl();
        if (const auto* t = llvm::dyn_cast<clang::FunctionTemplateDecl>(d)) callees.push_back(t->getTemplatedDecl());
        else if (const auto* f = llvm::dyn_cast<clang::FunctionDecl>(d)) callees.push_back(f);
      }
      return true;
    }
  } calls;
  calls.TraverseStmt(kernel->getBody());
  const auto& sm = ctx.getSourceManager();
  std::vector<const clang::FunctionDecl*> out;
  std::set<const clang::FunctionDecl*> seen;
  for (const clang::FunctionDecl* f : calls.callees) {
    if (const clang::FunctionDecl* pattern = f->getTemplateInstantiationPattern()) f = pattern;
    const clang::FunctionDecl* def = nullptr;
    if (!f->hasBody(def) || !def) continue;
    if (!def->hasAttr<clang::CUDADeviceAttr>() || def->hasAttr<clang::CUDAGlobalAttr>() ||
        def->hasAttr<clang::CUDAHostAttr>())
      continue;
    if (!sm.isWrittenInMainFile(sm.getExpansionLoc(def->getLocation())) || def->getLocation().isMacroID()) continue;
    if (seen.insert(def).second) out.push_back(def);
  }
  return out;
}

// The file location of an attribute's spelling (`__device__`, `__forceinline__` are macros).
clang::SourceLocation spelledAt(const clang::SourceManager& sm, const clang::Attr* a) {
  return sm.getExpansionLoc(a->getLocation());
}

class Forceinline : public Transform {
 public:
  std::string id() const override { return "forceinline"; }
  std::string summary() const override { return "force the __device__ functions the kernel calls inline"; }

  TransformResult forward(TransformRequest& req) const override {
    const auto& sm = req.ctx.getSourceManager();
    const auto list = helpers(req.ctx, req.kernel);
    if (list.empty()) return TransformResult::no("the kernel calls no __device__ function defined in this file");
    std::string what;
    for (const clang::FunctionDecl* f : list) {
      if (f->isInlineSpecified() || f->hasAttr<clang::AlwaysInlineAttr>() || f->hasAttr<clang::NoInlineAttr>()) continue;
      const auto* device = f->getAttr<clang::CUDADeviceAttr>();
      if (!device || device->isImplicit()) continue;
      const clang::SourceLocation at = spelledAt(sm, device);
      if (at.isInvalid() || !sm.isWrittenInMainFile(at)) continue;
      req.rewriter.InsertTextAfterToken(at, " __forceinline__");
      what += (what.empty() ? "" : ", ") + f->getNameAsString();
    }
    if (what.empty())
      return TransformResult::no("every __device__ function the kernel calls is already inline, __forceinline__ or __noinline__");
    return TransformResult::yes("__forceinline__ on " + what);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    const auto& sm = ctx.getSourceManager();
    std::string what;
    for (const clang::FunctionDecl* f : helpers(ctx, req.kernel)) {
      const auto* always = f->getAttr<clang::AlwaysInlineAttr>();
      if (!always) continue;
      const clang::SourceLocation at = spelledAt(sm, always);
      llvm::SmallVector<char, 32> buffer;
      const std::string word = clang::Lexer::getSpelling(at, buffer, sm, ctx.getLangOpts()).str();
      if (word != "__forceinline__") continue;  // __attribute__((always_inline)) spelled out: left alone
      // "__device__ __forceinline__ float" -> "__device__ float": the token and the blank after it
      unsigned len = static_cast<unsigned>(word.size());
      const char* after = sm.getCharacterData(at) + len;
      while (after[0] == ' ' || after[0] == '\t') ++after, ++len;
      req.rewriter.RemoveText(at, len);
      what += (what.empty() ? "" : ", ") + f->getNameAsString();
    }
    if (what.empty()) return TransformResult::no("no __device__ function the kernel calls is __forceinline__");
    return TransformResult::yes("__forceinline__ dropped from " + what);
  }
};

}  // namespace
std::unique_ptr<Transform> makeForceinline() { return std::make_unique<Forceinline>(); }
}  // namespace klineage
