// inline-pointer-offset: a local pointer that only names an offset into another pointer is
// substituted into its uses.
//   const float* x = inp + idx * C;                  (the declaration is removed)
//   for (int i = 0; i < C; i++)               ->     for (int i = 0; i < C; i++)
//     maxval = fmaxf(maxval, x[i]);                    maxval = fmaxf(maxval, inp[idx * C + i]);
// Why: the transforms read a kernel's accesses as `P[index]` on its pointer parameters (row-major
// indices, strides, which parameter a load reads); a row pointer is the same access spelled in two
// statements. Also `&P[e]` and a plain alias `T* x = P;`; `*x` becomes `P[e]`.
// When it is sound: x is never written, its address never taken, and every use is `x[i]` or `*x`,
// so each use addresses P + e + i. P is never written either, and every variable e reads holds the
// same value wherever x is used: it is never written, or it is the counter of a `for` whose body
// declares x and is written only by that loop's increment. e reads no memory and calls nothing. No
// name e or P uses is declared again anywhere in the kernel (the text of e is reused where x was
// used). x's element type is P's (const aside). The sum e + i is computed in the usual arithmetic
// conversions of the two index types instead of as two pointer steps: it is the same element
// whenever the element lies at or after P and within that type's range (a 32-bit signed index
// reaches 2^31 - 1 elements past P either way); the gate checks the variant on the captured calls.
// One pointer per step; canonicalize() runs the pass again for the next (a pointer offset from
// another local pointer is inlined first, then that one).
// Refuses: no such pointer; x or P written or its address taken; x used other than x[i] or *x,
// or inside its own index; e reading memory, calling, or using a variable that changes; a name of
// e or P declared again; element types that differ; a declaration of several variables; code
// written through a macro.
#include <memory>
#include <set>

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

struct Decls : clang::RecursiveASTVisitor<Decls> {
  std::vector<const clang::DeclStmt*> stmts;
  std::multiset<std::string> names;  // every variable (and parameter) name the kernel declares
  bool VisitDeclStmt(clang::DeclStmt* s) {
    stmts.push_back(s);
    return true;
  }
  bool VisitVarDecl(clang::VarDecl* v) {
    if (v->getIdentifier()) names.insert(v->getName().str());
    return true;
  }
};

// The offset's parts: x = P + e (either order), &P[e], or P (no e).
struct Offset {
  const clang::DeclRefExpr* base = nullptr;  // P
  const clang::Expr* index = nullptr;        // e, or null
};

std::optional<Offset> offsetOf(const clang::Expr* init) {
  const clang::Expr* e = init->IgnoreParenImpCasts();
  auto pointerRef = [](const clang::Expr* x) -> const clang::DeclRefExpr* {
    auto* d = llvm::dyn_cast<clang::DeclRefExpr>(x->IgnoreParenImpCasts());
    auto* v = d ? llvm::dyn_cast<clang::VarDecl>(d->getDecl()) : nullptr;
    return v && v->getType()->isPointerType() ? d : nullptr;
  };
  if (auto* d = pointerRef(e)) return Offset{d, nullptr};
  if (auto* b = llvm::dyn_cast<clang::BinaryOperator>(e); b && b->getOpcode() == clang::BO_Add) {
    if (auto* d = pointerRef(b->getLHS()); d && b->getRHS()->getType()->isIntegerType()) return Offset{d, b->getRHS()};
    if (auto* d = pointerRef(b->getRHS()); d && b->getLHS()->getType()->isIntegerType()) return Offset{d, b->getLHS()};
  }
  if (auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf)
    if (auto* a = llvm::dyn_cast<clang::ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens()))
      if (auto* d = pointerRef(a->getBase()); d && a->getIdx()->getType()->isIntegerType())
        return Offset{d, a->getIdx()};
  return std::nullopt;
}

// Whether e, written as the left (or right) operand of `+`, needs parentheses: anything that binds
// looser than + (shifts, comparisons, bitwise and logical operators, ?:, assignments, commas);
// a right operand also when it is itself a sum or difference, so the two index parts are added
// as the two pointer steps were.
bool needsParens(const clang::Expr* e, bool right) {
  e = e->IgnoreImpCasts();
  if (llvm::isa<clang::ConditionalOperator, clang::BinaryConditionalOperator>(e)) return true;
  auto* b = llvm::dyn_cast<clang::BinaryOperator>(e);
  if (!b) return false;
  if (b->isMultiplicativeOp() || b->getOpcode() == clang::BO_PtrMemD || b->getOpcode() == clang::BO_PtrMemI)
    return false;
  if (b->isAdditiveOp()) return right;
  return true;
}

// Every variable e reads keeps its value wherever x is used (see the header comment).
bool stableOperands(clang::ASTContext& ctx, const clang::Stmt* body, const clang::Expr* e,
                    const clang::DeclStmt* decl, std::string* why) {
  struct V : clang::RecursiveASTVisitor<V> {
    std::vector<const clang::VarDecl*> vars;
    bool memory = false;
    bool VisitDeclRefExpr(clang::DeclRefExpr* d) {
      if (auto* v = llvm::dyn_cast<clang::VarDecl>(d->getDecl())) vars.push_back(v);
      return true;
    }
    bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr*) { return !(memory = true); }
    bool VisitUnaryOperator(clang::UnaryOperator* u) {
      if (u->getOpcode() == clang::UO_Deref) memory = true;
      return !memory;
    }
    bool VisitCallExpr(clang::CallExpr*) { return !(memory = true); }
    bool VisitMemberExpr(clang::MemberExpr* m) {
      if (m->isArrow()) memory = true;
      return !memory;
    }
  } v;
  v.TraverseStmt(const_cast<clang::Expr*>(e));
  if (v.memory || e->HasSideEffects(ctx)) {
    *why = "its offset reads memory, calls or has side effects";
    return false;
  }
  for (const clang::VarDecl* w : v.vars) {
    if (isBuiltinGeometry(w->getNameAsString())) continue;
    if (w->getType().isConstQualified() || onlyReads(ctx, body, w)) continue;
    // the counter of a loop whose body declares x, written only by that loop's increment
    bool ok = false;
    for (const clang::Stmt* p = parentStmtOf(ctx, *decl); p && !ok; p = parentStmtOf(ctx, *p)) {
      auto* f = llvm::dyn_cast<clang::ForStmt>(p);
      auto* init = f ? llvm::dyn_cast_or_null<clang::DeclStmt>(f->getInit()) : nullptr;
      if (!init || !init->isSingleDecl() || init->getSingleDecl() != w) continue;  // declared by the loop
      ok = onlyReads(ctx, f->getBody(), w) && (!f->getCond() || onlyReads(ctx, f->getCond(), w));
    }
    if (!ok) {
      *why = "its offset uses " + w->getNameAsString() + ", which the kernel changes";
      return false;
    }
  }
  return true;
}

class InlinePointerOffset : public Transform {
 public:
  std::string id() const override { return "inline-pointer-offset"; }
  std::string summary() const override {
    return "substitute a local pointer `T* x = P + e;` into its uses: `x[i]` is `P[e + i]`";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    Decls decls;
    decls.TraverseStmt(body);
    for (const clang::ParmVarDecl* p : req.kernel->parameters())
      if (p->getIdentifier()) decls.names.insert(p->getName().str());
    std::string why;
    for (const clang::DeclStmt* ds : decls.stmts) {
      auto* x = ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
      if (!x || !x->getType()->isPointerType() || !x->getInit() || x->isStaticLocal() ||
          x->getInitStyle() != clang::VarDecl::CInit || llvm::isa<clang::ParmVarDecl>(x))
        continue;
      std::optional<Offset> off = offsetOf(x->getInit());
      if (!off) continue;
      const unsigned line = src.sm.getSpellingLineNumber(ds->getBeginLoc());
      auto refuse = [&](const std::string& w) {
        if (why.empty()) why = "line " + std::to_string(line) + ": " + x->getNameAsString() + ": " + w;
      };
      auto* p = llvm::cast<clang::VarDecl>(off->base->getDecl());
      if (p == x) continue;
      clang::QualType xe = x->getType()->getPointeeType(), pe = p->getType()->getPointeeType();
      if (!ctx.hasSameUnqualifiedType(xe.getCanonicalType(), pe.getCanonicalType())) {
        refuse("its element type differs from " + p->getNameAsString() + "'s");
        continue;
      }
      if (!onlyReads(ctx, body, x)) {
        refuse("it is written or its address is taken");
        continue;
      }
      if (!p->getType().isConstQualified() && !onlyReads(ctx, body, p)) {
        refuse(p->getNameAsString() + " is written or its address is taken");
        continue;
      }
      std::string w;
      if (off->index && !stableOperands(ctx, body, off->index, ds, &w)) {
        refuse(w);
        continue;
      }
      // No name of e or P is declared twice (its text is reused where x is used).
      bool shadowed = decls.names.count(p->getNameAsString()) > 1;
      if (off->index)
        for (const clang::DeclRefExpr* d : [&] {
               struct R : clang::RecursiveASTVisitor<R> {
                 std::vector<const clang::DeclRefExpr*> refs;
                 bool VisitDeclRefExpr(clang::DeclRefExpr* d) {
                   refs.push_back(d);
                   return true;
                 }
               } r;
               r.TraverseStmt(const_cast<clang::Expr*>(off->index));
               return r.refs;
             }())
          shadowed |= llvm::isa<clang::VarDecl>(d->getDecl()) && decls.names.count(d->getDecl()->getNameAsString()) > 1;
      if (shadowed) {
        refuse("a name its offset uses is declared again in the kernel");
        continue;
      }
      if (!src.inFile(ds) || !src.inFile(x->getInit())) {
        refuse("it is declared through a macro");
        continue;
      }
      // Every use: x[i] (or i[x]) or *x.
      struct Use {
        const clang::Expr* whole;  // the subscript or the dereference
        const clang::Expr* index;  // i, or null for *x
      };
      std::vector<Use> uses;
      bool bad = false;
      for (const clang::DeclRefExpr* ref : refsTo(body, x)) {
        if (ref == nullptr) continue;
        const clang::Stmt* cur = ref;
        const clang::Stmt* par = parentStmtOf(ctx, *cur);
        while (par && (llvm::isa<clang::ParenExpr>(par) || llvm::isa<clang::ImplicitCastExpr>(par))) {
          cur = par;
          par = parentStmtOf(ctx, *cur);
        }
        if (auto* a = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(par);
            a && a->getBase()->IgnoreParenImpCasts() == ref && !usesDecl(a->getIdx(), x)) {
          uses.push_back({a, a->getIdx()});
        } else if (auto* u = llvm::dyn_cast_or_null<clang::UnaryOperator>(par); u && u->getOpcode() == clang::UO_Deref) {
          uses.push_back({u, nullptr});
        } else {
          bad = true;
        }
      }
      if (bad) {
        refuse("it is used other than as " + x->getNameAsString() + "[i] or *" + x->getNameAsString());
        continue;
      }
      bool macro = false;
      for (const Use& u : uses) macro |= !src.inFile(u.whole) || (u.index && !src.inFile(u.index));
      if (macro) {
        refuse("a use is written through a macro");
        continue;
      }

      const std::string pn = p->getNameAsString();
      const std::string e = off->index ? sourceText(ctx, off->index->getSourceRange()) : std::string();
      const std::string el = off->index && needsParens(off->index, false) ? "(" + e + ")" : e;
      for (const Use& u : uses) {
        std::string idx;
        if (!u.index) {
          idx = off->index ? e : "0";
        } else {
          std::string i = sourceText(ctx, u.index->getSourceRange());
          if (!off->index) idx = i;
          else idx = el + " + " + (needsParens(u.index, true) ? "(" + i + ")" : i);
        }
        const unsigned a = src.off(u.whole->getBeginLoc()), b = src.tokEnd(u.whole->getEndLoc());
        if (req.rewriter.ReplaceText(src.at(a), b - a, pn + "[" + idx + "]"))
          return TransformResult::no("the rewriter refused the edit");
      }
      // The declaration goes, with its line (and a `//` comment ending it, which was about x) when
      // nothing else is on it.
      unsigned from = src.off(ds->getBeginLoc()), to = src.stmtEnd(ds);
      size_t eol = src.restOfLineBlank(to);
      if (eol == std::string::npos) {
        size_t p = to;
        while (p < src.text.size() && (src.text[p] == ' ' || src.text[p] == '\t')) ++p;
        const size_t nl = src.text.find('\n', p);
        if (src.text.substr(p, 2) == "//" && nl != llvm::StringRef::npos) eol = nl + 1;
      }
      if (eol != std::string::npos && src.blankBefore(from)) {
        from = src.lineStart(from);
        to = static_cast<unsigned>(eol);
      }
      if (req.rewriter.RemoveText(src.at(from), to - from)) return TransformResult::no("the rewriter refused the edit");
      return TransformResult::yes("line " + std::to_string(line) + ": the pointer " + x->getNameAsString() + " = " +
                                  sourceText(ctx, x->getInit()->getSourceRange()) + " was substituted into its " +
                                  std::to_string(uses.size()) + " use(s)");
    }
    return TransformResult::no(why.empty() ? "no local pointer declared as an offset into another pointer" : why);
  }

  TransformResult inverse(TransformRequest&) const override {
    return TransformResult::no("inline-pointer-offset is a canonicalization: it has no inverse");
  }
};

}  // namespace

std::unique_ptr<Transform> makeInlinePointerOffset() { return std::make_unique<InlinePointerOffset>(); }

}  // namespace klineage
