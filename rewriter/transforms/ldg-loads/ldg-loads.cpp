// ldg-loads: x[i]  ->  __ldg(&x[i]) for every element load through a const pointer parameter.
// Why it can pay: __ldg loads through the read-only (texture) data path, cached in L1 without
// coherence traffic; the compiler uses that path on its own only when it can prove the data is
// read-only for the whole kernel (const __restrict__), so a kernel with plain `const T*`
// parameters gets it only when written out.
// When it is sound: the data must not change while the kernel runs: no other parameter may point
// into it and be written (the skill requires the no-overlap fact, as restrict-pointers does), and
// the kernel cannot write through a const pointer without casting const away (refused below).
// Only element types __ldg has an overload for are loaded this way.
// Inverse: __ldg(&E) -> E and __ldg(p + k) -> p[k] (__ldg(p) -> p[0]), for any __ldg the kernel
// calls: an expert's read-only loads become plain loads.
#include <set>

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

#include "rewriter/ast_util.h"
#include "rewriter/transform.h"
#include "rewriter/transforms/plain_access.h"

namespace klineage {
namespace {

const clang::Expr* bare(const clang::Expr* e) { return e->IgnoreParenImpCasts(); }

struct Finder : clang::RecursiveASTVisitor<Finder> {
  std::vector<const clang::ArraySubscriptExpr*> subscripts;
  std::vector<const clang::CallExpr*> ldgs;
  std::vector<const clang::CXXConstCastExpr*> const_casts;
  std::vector<const clang::CStyleCastExpr*> c_casts;
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
    subscripts.push_back(e);
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* c) {
    if (const auto* fd = c->getDirectCallee(); fd && fd->getName() == "__ldg" && c->getNumArgs() == 1) ldgs.push_back(c);
    return true;
  }
  bool VisitCXXConstCastExpr(clang::CXXConstCastExpr* c) {
    const_casts.push_back(c);
    return true;
  }
  bool VisitCStyleCastExpr(clang::CStyleCastExpr* c) {
    c_casts.push_back(c);
    return true;
  }
};

// The pointer a subscript's base names when it is one of `readonly` (const pointer parameters,
// and local const pointers made from them), else nullptr.
const clang::VarDecl* readOnlyBase(const clang::ArraySubscriptExpr* e, const std::set<const clang::VarDecl*>& readonly) {
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(bare(e->getBase()));
  const auto* v = ref ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  return v && readonly.count(v) ? v : nullptr;
}

// The variable a pointer expression points into: through casts, parentheses, `p + k`, `k + p`,
// `p - k` and `&p[k]`; nullptr for anything else (a conditional may point into either operand).
const clang::VarDecl* pointerBase(const clang::Expr* e) {
  while (e) {
    e = e->IgnoreParenCasts();
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) return llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
      if (b->getOpcode() != clang::BO_Add && b->getOpcode() != clang::BO_Sub) return nullptr;
      const bool lhs = b->getLHS()->getType()->isPointerType();
      if (!lhs && (b->getOpcode() == clang::BO_Sub || !b->getRHS()->getType()->isPointerType())) return nullptr;
      e = lhs ? b->getLHS() : b->getRHS();
      continue;
    }
    if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf)
      if (const auto* a = llvm::dyn_cast<clang::ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens())) {
        e = a->getBase();
        continue;
      }
    return nullptr;
  }
  return nullptr;
}

// Local pointers to const initialized from one of `params` (`const float4* x4 =
// reinterpret_cast<const float4*>(x)`, `const float* row = in + r * C`) and never assigned again:
// they point into the same read-only data.
void addDerived(clang::ASTContext& ctx, const clang::Stmt* body, std::set<const clang::VarDecl*>& readonly) {
  struct Locals : clang::RecursiveASTVisitor<Locals> {
    std::vector<const clang::VarDecl*> vars;
    bool VisitVarDecl(clang::VarDecl* v) {
      if (!llvm::isa<clang::ParmVarDecl>(v) && v->getType()->isPointerType() && v->getInit()) vars.push_back(v);
      return true;
    }
  } locals;
  locals.TraverseStmt(const_cast<clang::Stmt*>(body));
  for (const clang::VarDecl* v : locals.vars) {  // in order: a local made from an earlier local counts
    if (!v->getType()->getPointeeType().isConstQualified()) continue;
    const clang::VarDecl* from = pointerBase(v->getInit());
    if (from && readonly.count(from) && (v->getType().isConstQualified() || onlyReads(ctx, body, v))) readonly.insert(v);
  }
}

class LdgLoads : public Transform {
 public:
  std::string id() const override { return "ldg-loads"; }
  std::string summary() const override { return "load through const pointer parameters with __ldg (the read-only data path)"; }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    const auto* fd = req.kernel;
    if (!fd->hasBody()) return TransformResult::no("the kernel has no body");
    Finder f;
    f.TraverseStmt(fd->getBody());
    std::set<const clang::VarDecl*> consts;
    for (const clang::ParmVarDecl* pv : fd->parameters())
      if (pv->getType()->isPointerType() && pv->getType()->getPointeeType().isConstQualified()) consts.insert(pv);
    if (consts.empty()) return TransformResult::no("no const pointer parameter (only data the kernel cannot write is loaded with __ldg)");
    std::set<const clang::VarDecl*> readonly = consts;
    addDerived(ctx, fd->getBody(), readonly);
    // A cast that may take const away from one of them: the kernel might write the data after all.
    auto castsAway = [&](const clang::Expr* operand) -> const clang::VarDecl* {
      for (const clang::VarDecl* pv : readonly)
        if (usesDecl(operand, pv)) return pv;
      return nullptr;
    };
    for (const auto* c : f.const_casts)
      if (const auto* pv = castsAway(c->getSubExpr()))
        return TransformResult::no("const_cast on '" + pv->getNameAsString() + "': the kernel may write through it");
    for (const auto* c : f.c_casts)
      if (c->getType()->isPointerType() && !c->getType()->getPointeeType().isConstQualified())
        if (const auto* pv = castsAway(c->getSubExpr()))
          return TransformResult::no("a cast takes const away from '" + pv->getNameAsString() + "': the kernel may write through it");
    unsigned edits = 0;
    std::set<std::string> names;
    for (const auto* e : f.subscripts) {
      const clang::VarDecl* pv = readOnlyBase(e, readonly);
      if (!pv || inMacro(e) || !cacheOperatorType(e->getType(), true)) continue;  // (one under __ldg(&...) is no load: isValueRead)
      if (!isValueRead(ctx, e)) continue;
      const auto range = fileRange(ctx, e->getSourceRange());
      if (range.isInvalid()) continue;
      req.rewriter.InsertTextBefore(range.getBegin(), "__ldg(&");
      req.rewriter.InsertTextAfter(range.getEnd(), ")");
      names.insert(pv->getNameAsString());
      ++edits;
    }
    if (!edits) return TransformResult::no("no element load through a const pointer parameter left to read with __ldg");
    std::string what;
    for (const auto& n : names) what += (what.empty() ? "" : ", ") + n;
    return TransformResult::yes("__ldg loads of " + what + " (" + std::to_string(edits) + ")");
  }

  TransformResult inverse(TransformRequest& req) const override {
    const auto* fd = req.kernel;
    if (!fd->hasBody()) return TransformResult::no("the kernel has no body");
    Finder f;
    f.TraverseStmt(fd->getBody());
    unsigned edits = 0;
    for (const auto* c : f.ldgs) edits += plainLoad(req, c) ? 1 : 0;
    if (!edits) return TransformResult::no("the kernel calls no __ldg");
    return TransformResult::yes("__ldg loads made plain loads (" + std::to_string(edits) + ")");
  }
};

}  // namespace
std::unique_ptr<Transform> makeLdgLoads() { return std::make_unique<LdgLoads>(); }
}  // namespace klineage
