// early-return-guard: an early exit becomes the guard around the rest of the kernel.
//   unsigned x = ...;                          unsigned x = ...;
//   if (x >= w || y >= h) return;      ->      if (x < w && y < h) {
//   out[x * h + y] = in[y * w + x];                out[x * h + y] = in[y * w + x];
//                                              }
// Why: transforms match the guarded form (`if (i < n) { ... }`), the one most kernels are written
// in; without this pass each would need a second matcher for the early-return spelling.
// When it is sound: the `if (c) return;` stands in a tail position of the kernel (its body, or the
// branch of an if that is the last statement of a tail position), so nothing runs after the
// statements that follow it but the end of the kernel: skipping them when c holds is what the
// return did. The condition is evaluated once, as before. The negation is pushed inward (De Morgan;
// `>=` -> `<` and the like) only where that is exact: ordered comparisons of integers, enums and
// pointers flip; a floating-point ordered comparison is kept as `!(a < b)`, since a NaN makes both
// `a < b` and `a >= b` false; `==` and `!=` flip for every type.
// One early return per step; canonicalize() runs the pass again for the next one (which then sits
// inside the guard this step wrote).
// Refuses: no `if (c) return;` followed by code in a tail position; an else branch, an init
// statement, a condition variable or `if constexpr`; a label among the statements moved into the
// guard; code written through a macro.
#include <memory>

#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>

#include "rewriter/ast_util.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

bool isBareReturn(const clang::Stmt* s) {
  if (auto* cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(s)) {
    if (cs->size() != 1) return false;
    s = cs->body_front();
  }
  auto* r = llvm::dyn_cast_or_null<clang::ReturnStmt>(s);
  return r && !r->getRetValue();
}

bool isEarlyReturn(const clang::Stmt* s) {
  auto* is = llvm::dyn_cast<clang::IfStmt>(s);
  return is && isBareReturn(is->getThen());
}

// A condition's text with the precedence class that decides where it needs parentheses.
enum class Prec { Or, And, Operand };  // Operand: binds tighter than && (safe as its operand)
struct Cond {
  std::string text;
  Prec prec;
};

class Negation {
 public:
  explicit Negation(const clang::ASTContext& ctx) : ctx_(ctx) {}

  Cond negate(const clang::Expr* e) const {
    e = e->IgnoreParens();
    if (auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u && u->getOpcode() == clang::UO_LNot)
      return asWritten(u->getSubExpr());
    if (auto* b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
      const clang::Expr *l = b->getLHS(), *r = b->getRHS();
      switch (b->getOpcode()) {
        case clang::BO_LOr:  // !(a || b) == !a && !b
          return {operandOf(negate(l), Prec::And) + " && " + operandOf(negate(r), Prec::And), Prec::And};
        case clang::BO_LAnd:  // !(a && b) == !a || !b
          return {operandOf(negate(l), Prec::Or) + " || " + operandOf(negate(r), Prec::Or), Prec::Or};
        case clang::BO_EQ:
          return {text(l) + " != " + text(r), Prec::Operand};
        case clang::BO_NE:
          return {text(l) + " == " + text(r), Prec::Operand};
        case clang::BO_LT:
        case clang::BO_GT:
        case clang::BO_LE:
        case clang::BO_GE:
          if (ordered(l) && ordered(r)) return {text(l) + " " + flipped(b->getOpcode()) + " " + text(r), Prec::Operand};
          break;
        default:
          break;
      }
    }
    return {"!" + primary(e), Prec::Operand};
  }

 private:
  const clang::ASTContext& ctx_;

  std::string text(const clang::Expr* e) const { return sourceText(ctx_, e->getSourceRange()); }

  // Operands after the usual conversions: a NaN-free type, so `!(a < b)` is `a >= b`.
  static bool ordered(const clang::Expr* e) {
    clang::QualType t = e->getType().getCanonicalType();
    return t->isIntegralOrEnumerationType() || t->isPointerType();
  }

  static const char* flipped(clang::BinaryOperatorKind k) {
    switch (k) {
      case clang::BO_LT: return ">=";
      case clang::BO_GT: return "<=";
      case clang::BO_LE: return ">";
      default: return "<";  // BO_GE
    }
  }

  // The expression as written, classified by the operator at its top.
  Cond asWritten(const clang::Expr* e) const {
    const clang::Expr* bare = e->IgnoreParens();
    if (auto* b = llvm::dyn_cast<clang::BinaryOperator>(bare)) {
      if (b->getOpcode() == clang::BO_LOr) return {text(bare), Prec::Or};
      if (b->getOpcode() == clang::BO_LAnd) return {text(bare), Prec::And};
      if (!b->isAssignmentOp() && !b->isCommaOp()) return {text(bare), Prec::Operand};
    } else if (!llvm::isa<clang::ConditionalOperator>(bare) && !llvm::isa<clang::BinaryConditionalOperator>(bare)) {
      return {text(bare), Prec::Operand};
    }
    return {"(" + text(bare) + ")", Prec::Operand};
  }

  // The text as an operand of a unary `!`.
  std::string primary(const clang::Expr* e) const {
    const clang::Expr* bare = e->IgnoreParens();
    if (llvm::isa<clang::DeclRefExpr>(bare) || llvm::isa<clang::CallExpr>(bare) || llvm::isa<clang::MemberExpr>(bare) ||
        llvm::isa<clang::ArraySubscriptExpr>(bare) || llvm::isa<clang::IntegerLiteral>(bare))
      return text(bare);
    return "(" + text(bare) + ")";
  }

  // `c` as an operand of && (Prec::And) or || (Prec::Or): an || under && needs parentheses; an &&
  // under || gets them too, as compilers' -Wparentheses asks.
  static std::string operandOf(const Cond& c, Prec parent) {
    if (c.prec == Prec::Operand || c.prec == parent) return c.text;
    return "(" + c.text + ")";
  }
};

struct Site {
  const clang::CompoundStmt* block = nullptr;
  size_t index = 0;  // of the `if (c) return;` in block
};

// The first early return followed by code in a tail position: the body, or recursively the
// branches of an if that is a tail position's last statement.
bool findSite(const clang::CompoundStmt* cs, Site& out) {
  for (size_t i = 0; i + 1 < cs->size(); ++i)
    if (isEarlyReturn(cs->body_begin()[i])) {
      out = {cs, i};
      return true;
    }
  if (cs->body_empty()) return false;
  if (auto* last = llvm::dyn_cast<clang::IfStmt>(cs->body_back()))
    for (const clang::Stmt* branch : {last->getThen(), last->getElse()})
      if (auto* inner = llvm::dyn_cast_or_null<clang::CompoundStmt>(branch))
        if (findSite(inner, out)) return true;
  return false;
}

struct HasLabel : clang::RecursiveASTVisitor<HasLabel> {
  bool found = false;
  bool VisitLabelStmt(clang::LabelStmt*) {
    found = true;
    return false;
  }
};

class EarlyReturnGuard : public Transform {
 public:
  std::string id() const override { return "early-return-guard"; }
  std::string summary() const override {
    return "turn `if (c) return;` followed by the rest of the kernel into a guard `if (!c) { rest }`";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    Site site;
    if (!findSite(body, site))
      return TransformResult::no("no early return (`if (...) return;` followed by more code) in the kernel's tail");
    auto* guard = llvm::cast<clang::IfStmt>(site.block->body_begin()[site.index]);
    const unsigned line = src.sm.getSpellingLineNumber(guard->getBeginLoc());
    if (guard->getElse() || guard->getInit() || guard->getConditionVariable() || guard->isConstexpr())
      return TransformResult::no("the early return at line " + std::to_string(line) +
                                 " has an else branch, an init statement, a condition variable or is `if constexpr`");
    const clang::Stmt* first = site.block->body_begin()[site.index + 1];
    const clang::Stmt* last = site.block->body_back();
    if (!src.inFile(guard) || !src.inFile(first) || !src.inFile(last) || !src.inFile(site.block->getRBracLoc()))
      return TransformResult::no("the early return at line " + std::to_string(line) + " or the code after it is written through a macro");
    for (size_t i = site.index + 1; i < site.block->size(); ++i) {
      HasLabel h;
      h.TraverseStmt(const_cast<clang::Stmt*>(site.block->body_begin()[i]));
      if (h.found) return TransformResult::no("a label follows the early return at line " + std::to_string(line));
    }
    const Cond neg = Negation(ctx).negate(guard->getCond());

    // The guard replaces the early return; the statements after it move one indent level in, up
    // to the line of the block's closing brace, where the guard closes.
    const unsigned g0 = src.off(guard->getBeginLoc()), g1 = src.stmtEnd(guard);
    const unsigned rbrace = src.off(site.block->getRBracLoc());
    const std::string outer = src.indentOf(g0);
    std::string unit = src.indentOf(src.off(site.block->getLBracLoc()));
    unit = outer.size() > unit.size() && outer.compare(0, unit.size(), unit) == 0 ? outer.substr(unit.size()) : "    ";
    auto& rw = req.rewriter;
    if (rw.ReplaceText(src.at(g0), g1 - g0, "if (" + neg.text + ") {"))
      return TransformResult::no("the rewriter refused the edit");
    if (src.blankBefore(rbrace)) {
      const unsigned close = src.lineStart(rbrace);
      // Blank lines between the early return and the code it guarded are dropped.
      if (size_t after = src.restOfLineBlank(g1); after != std::string::npos) {
        unsigned q = static_cast<unsigned>(after);
        while (q < close) {
          size_t nl = src.text.find('\n', q);
          if (nl == llvm::StringRef::npos || !src.text.substr(q, nl - q).trim().empty()) break;
          q = static_cast<unsigned>(nl) + 1;
        }
        if (q > after) rw.RemoveText(src.at(static_cast<unsigned>(after)), q - static_cast<unsigned>(after));
      }
      for (unsigned p = src.lineStart(g1); p < close;) {
        size_t nl = src.text.find('\n', p);
        if (nl == llvm::StringRef::npos) nl = src.text.size();
        const bool blank = src.text.substr(p, nl - p).trim().empty();
        if (p >= g1 && !blank) rw.InsertText(src.at(p), unit, /*InsertAfter=*/true, /*indentNewLines=*/false);
        p = static_cast<unsigned>(nl) + 1;
      }
      rw.InsertText(src.at(close), outer + "}\n", /*InsertAfter=*/false, false);
    } else {
      rw.InsertText(src.at(rbrace), "} ", /*InsertAfter=*/false, false);
    }
    return TransformResult::yes("the early return at line " + std::to_string(line) + " became the guard `if (" +
                                neg.text + ")`");
  }

  TransformResult inverse(TransformRequest&) const override {
    return TransformResult::no("early-return-guard is a canonicalization: it has no inverse");
  }
};

}  // namespace

std::unique_ptr<Transform> makeEarlyReturnGuard() { return std::make_unique<EarlyReturnGuard>(); }

}  // namespace klineage
