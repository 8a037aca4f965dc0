// vector-cast-access: four (or two) consecutive elements read or written one by one through the
// scalar pointer an expert's vector pointer was cast from  ->  one vector access through it.
//   make_float4(x[4 * i], x[4 * i + 1], x[4 * i + 2], x[4 * i + 3])   ->   x4[i]
//   { const float4 kl_v = v; y[4 * i] = kl_v.x; ...; y[4 * i + 3] = kl_v.w; }   ->   y4[i] = v;
// where `const float4* x4 = reinterpret_cast<const float4*>(x);` is a local of the kernel.
// Why it can pay: one 16-byte load or store instead of four 4-byte ones: fewer instructions and
// memory transactions per element on memory-bound code.
// When it is sound: the vector pointer already exists and is the same address (the expert's own
// cast: its alignment is the expert's promise, which the gate checks on the captured launches).
// Inverse (the scalarize de-optimization): every element load `x4[E]` (a value read or copied) and
// every store statement `y4[E] = V;` through such a local becomes the component accesses through
// the scalar pointer, the guard and the tail kept as written.
#include <map>
#include <set>

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"
#include "rewriter/transforms/plain_access.h"

namespace klineage {
namespace {

struct VectorLocal {
  const clang::VarDecl* var;
  std::string base;   // the scalar pointer's text, parenthesized unless a name
  std::string type;   // float4
  unsigned width;     // 4 or 2
};

// The vector type of a pointer type's pointee and its width ("" for others).
std::pair<std::string, unsigned> vectorOf(clang::QualType pointee) {
  static const std::map<std::string, std::pair<std::string, unsigned>> kTypes{
      {"struct float4", {"float4", 4}}, {"struct float2", {"float2", 2}}, {"struct int4", {"int4", 4}},
      {"struct int2", {"int2", 2}},     {"struct uint4", {"uint4", 4}},   {"struct uint2", {"uint2", 2}},
      {"struct double2", {"double2", 2}}};
  auto it = kTypes.find(pointee.getCanonicalType().getUnqualifiedType().getAsString());
  return it == kTypes.end() ? std::pair<std::string, unsigned>{"", 0} : it->second;
}

const char* component(unsigned k) { return k == 0 ? "x" : k == 1 ? "y" : k == 2 ? "z" : "w"; }

struct Finder : clang::RecursiveASTVisitor<Finder> {
  std::vector<const clang::VarDecl*> locals;
  std::vector<const clang::ArraySubscriptExpr*> subscripts;
  struct Assign {
    const clang::Expr* whole;
    const clang::Expr* lhs;
    const clang::Expr* rhs;
  };
  std::vector<Assign> assigns;
  std::vector<const clang::CallExpr*> calls;
  std::vector<const clang::CompoundStmt*> blocks;
  bool VisitVarDecl(clang::VarDecl* v) {
    if (!llvm::isa<clang::ParmVarDecl>(v) && v->getType()->isPointerType() && v->getInit()) locals.push_back(v);
    return true;
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
    subscripts.push_back(e);
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator* b) {
    if (b->getOpcode() == clang::BO_Assign) assigns.push_back({b, b->getLHS(), b->getRHS()});
    return true;
  }
  // a vector type's assignment is its (implicit) operator=
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* c) {
    if (c->getOperator() == clang::OO_Equal && c->getNumArgs() == 2) assigns.push_back({c, c->getArg(0), c->getArg(1)});
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* c) {
    calls.push_back(c);
    return true;
  }
  bool VisitCompoundStmt(clang::CompoundStmt* c) {
    blocks.push_back(c);
    return true;
  }
};

// Whether every variable `e` names is const or only read in `body`.
bool unchanging(clang::ASTContext& ctx, const clang::Stmt* body, const clang::Stmt* e) {
  if (const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(e))
    if (const auto* var = llvm::dyn_cast<clang::VarDecl>(r->getDecl()))
      if (!var->getType().isConstQualified() && !isBuiltinGeometry(var->getNameAsString()) && !onlyReads(ctx, body, var))
        return false;
  for (const clang::Stmt* c : e->children())
    if (c && !unchanging(ctx, body, c)) return false;
  return true;
}

// The kernel's vector pointers cast from a scalar pointer of their element type and never
// assigned again.
std::vector<VectorLocal> vectorLocals(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, const Finder& f) {
  std::vector<VectorLocal> out;
  for (const clang::VarDecl* v : f.locals) {
    const auto [type, width] = vectorOf(v->getType()->getPointeeType());
    if (type.empty()) continue;
    const auto* cast = llvm::dyn_cast<clang::CXXReinterpretCastExpr>(v->getInit()->IgnoreParenImpCasts());
    if (!cast) continue;
    const clang::Expr* from = cast->getSubExpr()->IgnoreParenImpCasts();
    if (!from->getType()->isPointerType() || !from->getType()->getPointeeType()->isArithmeticType()) continue;
    if (!v->getType().isConstQualified() && !onlyReads(ctx, kernel->getBody(), v)) continue;
    // The scalar pointer expression must mean the same address wherever the elements are read:
    // every variable in it is never assigned after (`x += C` would move `x` away from `x4`).
    if (!unchanging(ctx, kernel->getBody(), from)) continue;
    std::string base = sourceText(ctx, from->getSourceRange());
    if (!llvm::isa<clang::DeclRefExpr>(from)) base = "(" + base + ")";
    out.push_back({v, base, type, width});
  }
  return out;
}

const VectorLocal* localOf(const std::vector<VectorLocal>& locals, const clang::Expr* base) {
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(base->IgnoreParenImpCasts());
  if (!ref) return nullptr;
  for (const auto& l : locals)
    if (l.var == ref->getDecl()) return &l;
  return nullptr;
}

// `4 * i` for a name or literal index, `4 * (E)` otherwise.
std::string scaled(const VectorLocal& l, const clang::Expr* idx, const std::string& text) {
  const clang::Expr* e = idx->IgnoreImpCasts();
  const bool simple = llvm::isa<clang::DeclRefExpr, clang::IntegerLiteral>(e);
  return std::to_string(l.width) + " * " + (simple ? text : "(" + text + ")");
}

std::string element(const VectorLocal& l, const std::string& at, unsigned k) {
  return l.base + "[" + at + (k ? " + " + std::to_string(k) : "") + "]";
}

std::string loadText(const VectorLocal& l, const std::string& at) {
  std::string s = "make_" + l.type + "(";
  for (unsigned k = 0; k < l.width; ++k) s += (k ? ", " : "") + element(l, at, k);
  return s + ")";
}

std::string storeText(const VectorLocal& l, const std::string& at, const std::string& value) {
  std::string s = "{ const " + l.type + " kl_v = " + value + ";";
  for (unsigned k = 0; k < l.width; ++k) s += " " + element(l, at, k) + " = kl_v." + component(k) + ";";
  return s + " }";
}

class VectorCastAccess : public Transform {
 public:
  std::string id() const override { return "vector-cast-access"; }
  std::string summary() const override { return "read and write consecutive elements as one vector through the kernel's vector pointer"; }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    if (!req.kernel->hasBody()) return TransformResult::no("the kernel has no body");
    Finder f;
    f.TraverseStmt(req.kernel->getBody());
    const auto locals = vectorLocals(ctx, req.kernel, f);
    if (locals.empty()) return TransformResult::no("the kernel has no vector pointer cast from a scalar pointer (const float4* x4 = reinterpret_cast<const float4*>(x))");
    unsigned loads = 0, stores = 0;
    // make_float4(x[4 * i], ..., x[4 * i + 3]) -> x4[i]
    for (const clang::CallExpr* c : f.calls) {
      const clang::FunctionDecl* fd = c->getDirectCallee();
      if (!fd || !fd->getIdentifier() || fd->getName().find("make_") != 0 || inMacro(c) || c->getNumArgs() < 2) continue;
      const auto* first = llvm::dyn_cast<clang::ArraySubscriptExpr>(c->getArg(0)->IgnoreParenImpCasts());
      const auto* mul = first ? llvm::dyn_cast<clang::BinaryOperator>(first->getIdx()->IgnoreParenImpCasts()) : nullptr;
      if (!mul || mul->getOpcode() != clang::BO_Mul) continue;
      const clang::Expr* e = mul->getRHS()->IgnoreImpCasts();
      const std::string idx =
          sourceText(ctx, (llvm::isa<clang::ParenExpr>(e) ? llvm::cast<clang::ParenExpr>(e)->getSubExpr() : e)->getSourceRange());
      for (const VectorLocal& l : locals) {
        if (fd->getName() != "make_" + l.type || c->getNumArgs() != l.width) continue;
        if (squeeze(sourceText(ctx, c->getSourceRange())) != squeeze(loadText(l, scaled(l, e, idx)))) continue;
        req.rewriter.ReplaceText(fileRange(ctx, c->getSourceRange()), l.var->getNameAsString() + "[" + idx + "]");
        ++loads;
        break;
      }
    }
    // { const float4 kl_v = V; y[4 * i] = kl_v.x; ... } -> y4[i] = V;
    for (const clang::CompoundStmt* b : f.blocks) {
      if (b->size() < 3 || inMacro(b) || !src.inFile(b)) continue;
      const auto* ds = llvm::dyn_cast<clang::DeclStmt>(b->body_front());
      const auto* kv = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
      if (!kv || kv->getName() != "kl_v" || !kv->getInit()) continue;
      const auto* a = llvm::dyn_cast<clang::BinaryOperator>(*(b->body_begin() + 1));
      const auto* first = a ? llvm::dyn_cast<clang::ArraySubscriptExpr>(a->getLHS()->IgnoreParens()) : nullptr;
      const auto* mul = first ? llvm::dyn_cast<clang::BinaryOperator>(first->getIdx()->IgnoreParenImpCasts()) : nullptr;
      if (!mul || mul->getOpcode() != clang::BO_Mul) continue;
      const clang::Expr* e = mul->getRHS()->IgnoreImpCasts();
      const std::string idx =
          sourceText(ctx, (llvm::isa<clang::ParenExpr>(e) ? llvm::cast<clang::ParenExpr>(e)->getSubExpr() : e)->getSourceRange());
      const std::string value = sourceText(ctx, kv->getInit()->IgnoreImplicit()->getSourceRange());
      for (const VectorLocal& l : locals) {
        if (b->size() != l.width + 1) continue;
        if (squeeze(src.slice(src.off(b->getLBracLoc()), src.off(b->getRBracLoc()) + 1)) !=
            squeeze(storeText(l, scaled(l, e, idx), value)))
          continue;
        const unsigned from = src.off(b->getLBracLoc()), to = src.off(b->getRBracLoc()) + 1;
        req.rewriter.ReplaceText(src.at(from), to - from, l.var->getNameAsString() + "[" + idx + "] = " + value + ";");
        ++stores;
        break;
      }
    }
    if (!loads && !stores)
      return TransformResult::no("no consecutive elements read or written one by one where a vector pointer of the kernel could take them");
    return TransformResult::yes("vector accesses: " + std::to_string(loads) + " loads, " + std::to_string(stores) + " stores");
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    if (!req.kernel->hasBody()) return TransformResult::no("the kernel has no body");
    Finder f;
    f.TraverseStmt(req.kernel->getBody());
    const auto locals = vectorLocals(ctx, req.kernel, f);
    if (locals.empty()) return TransformResult::no("the kernel has no vector pointer cast from a scalar pointer (const float4* x4 = reinterpret_cast<const float4*>(x))");
    unsigned loads = 0, stores = 0;
    std::set<const clang::ArraySubscriptExpr*> stored;
    std::vector<std::pair<unsigned, unsigned>> rewritten;  // the store statements' text
    for (const Finder::Assign& as : f.assigns) {
      const clang::Expr* a = as.whole;
      const auto* lhs = llvm::dyn_cast<clang::ArraySubscriptExpr>(as.lhs->IgnoreParenImpCasts());
      const VectorLocal* l = lhs ? localOf(locals, lhs->getBase()) : nullptr;
      const clang::Stmt* parent = l ? parentStmtOf(ctx, *a) : nullptr;
      while (const auto* ewc = llvm::dyn_cast_or_null<clang::ExprWithCleanups>(parent)) parent = parentStmtOf(ctx, *ewc);
      if (!parent || llvm::isa<clang::Expr>(parent) || inMacro(a) || !src.inFile(a)) continue;
      stored.insert(lhs);
      const std::string idx = sourceText(ctx, lhs->getIdx()->getSourceRange());
      const std::string value = sourceText(ctx, as.rhs->IgnoreImplicit()->getSourceRange());
      const unsigned from = src.off(a->getBeginLoc()), to = src.stmtEnd(a);
      req.rewriter.ReplaceText(src.at(from), to - from, storeText(*l, scaled(*l, lhs->getIdx(), idx), value));
      rewritten.emplace_back(from, to);
      ++stores;
    }
    for (const clang::ArraySubscriptExpr* e : f.subscripts) {
      const VectorLocal* l = localOf(locals, e->getBase());
      if (!l || stored.count(e) || inMacro(e) || !isValueRead(ctx, e)) continue;
      // a load inside a store statement keeps its vector form (the statement is rewritten whole)
      const unsigned at = src.off(src.sm.getExpansionLoc(e->getBeginLoc()));
      bool inside = false;
      for (const auto& [from, to] : rewritten) inside = inside || (at >= from && at < to);
      if (inside) continue;
      const std::string idx = sourceText(ctx, e->getIdx()->getSourceRange());
      req.rewriter.ReplaceText(fileRange(ctx, e->getSourceRange()), loadText(*l, scaled(*l, e->getIdx(), idx)));
      ++loads;
    }
    if (!loads && !stores) return TransformResult::no("no element of a vector pointer is read or written as a whole");
    return TransformResult::yes("scalarized: " + std::to_string(loads) + " vector loads, " + std::to_string(stores) + " vector stores");
  }
};

}  // namespace
std::unique_ptr<Transform> makeVectorCastAccess() { return std::make_unique<VectorCastAccess>(); }
}  // namespace klineage
