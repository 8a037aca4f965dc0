// cache-hints: out[i] = v;  ->  __stcs(&out[i], v);  for every store to an output parameter the
// kernel only writes (streaming, evict-first stores).
// Why it can pay: results the kernel never reads again go to memory marked evict-first, so they do
// not push out of L2 the inputs this kernel (or the next one) still reads; a kernel streaming a large
// output next to inputs that fit in L2 keeps more of them cached.
// When it is sound: always (a cache operator changes where a value is cached, not the value); only
// parameters every use of which is such a store are touched, so nothing the kernel reads is
// affected, and only element types __stcs is declared for.
// Inverse: every cache-operator load (__ldcs, __ldcg, __ldca, __ldlu, __ldcv) becomes a plain load
// and every cache-operator store (__stcs, __stcg, __stwb, __stwt) an assignment, whatever the
// expert's spelling (__ldg is ldg-loads').
#include <map>
#include <set>

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

#include "rewriter/ast_util.h"
#include "rewriter/transform.h"
#include "rewriter/transforms/plain_access.h"

namespace klineage {
namespace {

bool named(const clang::CallExpr* c, std::initializer_list<const char*> names) {
  const auto* fd = c->getDirectCallee();
  if (!fd || !fd->getIdentifier()) return false;
  for (const char* n : names)
    if (fd->getName() == n) return true;
  return false;
}

struct Finder : clang::RecursiveASTVisitor<Finder> {
  std::vector<const clang::CallExpr*> loads, stores;
  std::vector<const clang::BinaryOperator*> assigns;
  std::vector<const clang::DeclRefExpr*> refs;
  bool VisitCallExpr(clang::CallExpr* c) {
    if (c->getNumArgs() == 1 && named(c, {"__ldcs", "__ldcg", "__ldca", "__ldlu", "__ldcv"})) loads.push_back(c);
    if (c->getNumArgs() == 2 && named(c, {"__stcs", "__stcg", "__stwb", "__stwt"})) stores.push_back(c);
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator* b) {
    if (b->getOpcode() == clang::BO_Assign) assigns.push_back(b);
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    refs.push_back(e);
    return true;
  }
};

// The parameter `out` of a statement `out[k] = v;` (its value unused), else nullptr.
const clang::ParmVarDecl* storedParam(clang::ASTContext& ctx, const clang::BinaryOperator* b) {
  const auto* lhs = llvm::dyn_cast<clang::ArraySubscriptExpr>(b->getLHS()->IgnoreParens());
  const auto* ref = lhs ? llvm::dyn_cast<clang::DeclRefExpr>(lhs->getBase()->IgnoreParenImpCasts()) : nullptr;
  const auto* pv = ref ? llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()) : nullptr;
  if (!pv || !pv->getType()->isPointerType()) return nullptr;
  const clang::Stmt* parent = parentStmtOf(ctx, *b);
  if (!parent || llvm::isa<clang::Expr>(parent)) return nullptr;  // a chained or used assignment
  return pv;
}

class CacheHints : public Transform {
 public:
  std::string id() const override { return "cache-hints"; }
  std::string summary() const override { return "store results the kernel never reads with __stcs (evict-first)"; }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    const auto* fd = req.kernel;
    if (!fd->hasBody()) return TransformResult::no("the kernel has no body");
    Finder f;
    f.TraverseStmt(fd->getBody());
    std::map<const clang::ParmVarDecl*, std::vector<const clang::BinaryOperator*>> stores;
    for (const auto* b : f.assigns)
      if (const auto* pv = storedParam(ctx, b)) stores[pv].push_back(b);
    if (stores.empty()) return TransformResult::no("the kernel stores through no pointer parameter as a statement (out[i] = v;)");
    std::string what, why;
    unsigned edits = 0;
    for (const auto& [pv, list] : stores) {
      const std::string name = pv->getNameAsString();
      unsigned uses = 0;
      for (const auto* r : f.refs) uses += r->getDecl() == pv ? 1 : 0;
      if (uses != list.size()) {
        why += name + " is read or used otherwise; ";
        continue;
      }
      unsigned n = 0;
      for (const auto* b : list) {
        const clang::Expr* lhs = b->getLHS()->IgnoreParens();
        if (!cacheOperatorType(lhs->getType(), false) || inMacro(b)) continue;
        const auto range = fileRange(ctx, b->getSourceRange());
        if (range.isInvalid()) continue;
        // out[i] = v  ->  __stcs(&out[i], v)
        req.rewriter.InsertTextBefore(range.getBegin(), "__stcs(&");
        req.rewriter.ReplaceText(clang::CharSourceRange::getCharRange(
                                     clang::Lexer::getLocForEndOfToken(lhs->getEndLoc(), 0, ctx.getSourceManager(),
                                                                       ctx.getLangOpts()),
                                     b->getRHS()->getBeginLoc()),
                                 ", ");
        req.rewriter.InsertTextAfter(range.getEnd(), ")");
        ++n;
      }
      if (!n) {
        why += name + "'s stores are of a type __stcs does not take; ";
        continue;
      }
      edits += n;
      what += (what.empty() ? "" : ", ") + name;
    }
    if (!edits) {
      while (!why.empty() && (why.back() == ' ' || why.back() == ';')) why.pop_back();
      return TransformResult::no("no output parameter the kernel only writes: " + why);
    }
    return TransformResult::yes("streaming stores to " + what + " (" + std::to_string(edits) + ")");
  }

  TransformResult inverse(TransformRequest& req) const override {
    const auto* fd = req.kernel;
    if (!fd->hasBody()) return TransformResult::no("the kernel has no body");
    Finder f;
    f.TraverseStmt(fd->getBody());
    unsigned loads = 0, stores = 0;
    for (const auto* c : f.loads) loads += plainLoad(req, c) ? 1 : 0;
    for (const auto* c : f.stores) stores += plainStore(req, c) ? 1 : 0;
    if (!loads && !stores) return TransformResult::no("the kernel uses no cache-operator load or store (__ldcs, __stcs, ...)");
    return TransformResult::yes("cache hints dropped: " + std::to_string(loads) + " loads, " + std::to_string(stores) + " stores");
  }
};

}  // namespace
std::unique_ptr<Transform> makeCacheHints() { return std::make_unique<CacheHints>(); }
}  // namespace klineage
