// reciprocal-multiply: divisions by a value a loop does not change  ->  one reciprocal and
// multiplications, under a guard that keeps the division where the reciprocal would not be exact
// enough:
//   for (...) y[c] = e / s;     ->   if (fabsf(s) >= 1.17549435e-38f && fabsf(s) <= 8.50705917e+37f) {
//                                      const float kl_rcp_s = 1.0f / s;
//                                      for (...) y[c] = e * kl_rcp_s;
//                                    } else {
//                                      for (...) y[c] = e / s;
//                                    }
// Why it pays: an IEEE float division is a reciprocal, two refinement FMAs, a range check and a
// slow-path call (~10 instructions); a multiplication is one. A row softmax divides every element
// by the row's sum: 64 divisions per lane for a 2048-column row held in registers, against one.
// When it is sound: the divisor is a float or double scalar (a parameter or a local declared before
// the statement) that nothing in the statement writes and whose address no one takes, and every
// quotient replaced only feeds floating-point arithmetic (+, -, *, /, float casts) that ends in a
// store to a floating-point variable or element. x * rn(1 / s) is then within 1.5 ulp of
// rn(x / s) while 1 / s is a normal number, which the guard checks (|s| in [2^-126, 2^126] for
// float, [2^-1022, 2^1022] for double; 0, infinities, NaN and subnormal divisors take the
// division): the results are not bit-exact, and the gate's tolerance decides. A quotient that is converted to an integer, compared, or passed to a
// function is left a division (x * rn(1/s) may land just below an integer x / s is exactly).
// The statement rewritten is the innermost one in a block that holds a loop around the division,
// so the reciprocal is computed once per execution of that loop. One divisor per statement (the one
// with the most divisions); the others stay divisions.
// Inverse: the emitted if/else (guard, `const T kl_rcp_V = 1 / V;`, the statement with its
// multiplications, and the statement as it was) back to the statement as it was; it checks that the
// first branch is what forward would write from the second.
#include <algorithm>
#include <cctype>

#include <clang/AST/ParentMapContext.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

using Src = SourceBuffer;

// The statement above s; for a variable's initializer, the declaration statement.
const clang::Stmt* parentStmt(clang::ASTContext& ctx, const clang::Stmt* s) {
  if (const clang::Stmt* st = parentStmtOf(ctx, *s)) return st;
  auto parents = ctx.getParents(*s);
  if (parents.empty()) return nullptr;
  if (const auto* vd = parents[0].get<clang::VarDecl>()) {
    auto up = ctx.getParents(*vd);
    return up.empty() ? nullptr : up[0].get<clang::DeclStmt>();
  }
  return nullptr;
}

// float or double: the types whose reciprocal the guard knows the range of.
std::optional<clang::BuiltinType::Kind> floatKind(clang::QualType t) {
  if (t.isNull() || t->isDependentType()) return std::nullopt;
  const auto* bt = t.getCanonicalType()->getAs<clang::BuiltinType>();
  if (bt && (bt->getKind() == clang::BuiltinType::Float || bt->getKind() == clang::BuiltinType::Double))
    return bt->getKind();
  return std::nullopt;
}

struct Division {
  const clang::Expr* op;       // BinaryOperator (/) or CompoundAssignOperator (/=)
  const clang::Expr* rhs;      // the divisor as written (parens included)
  const clang::VarDecl* var;   // what it names
  clang::BuiltinType::Kind kind;
};

// e / V or x /= V with V a float or double parameter or local variable, of the division's own type.
std::optional<Division> asDivision(const clang::Expr* e) {
  const auto* bo = llvm::dyn_cast<clang::BinaryOperator>(e);
  if (!bo || (bo->getOpcode() != clang::BO_Div && bo->getOpcode() != clang::BO_DivAssign)) return std::nullopt;
  if (bo->isTypeDependent() || bo->isValueDependent()) return std::nullopt;
  clang::QualType t = bo->getType();
  if (auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(bo)) t = ca->getComputationResultType();
  auto kind = floatKind(t);
  if (!kind) return std::nullopt;
  const auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(bo->getRHS()->IgnoreParenImpCasts());
  const auto* v = dre ? llvm::dyn_cast<clang::VarDecl>(dre->getDecl()) : nullptr;
  // Of the division's own type: the divisor reaches it without a conversion.
  if (!v || floatKind(v->getType()) != kind || v->getType()->isReferenceType()) return std::nullopt;
  if (v->getType().isVolatileQualified() || v->hasAttr<clang::CUDASharedAttr>() || v->hasAttr<clang::CUDAConstantAttr>() ||
      v->hasAttr<clang::CUDADeviceAttr>() || !(v->hasLocalStorage() || llvm::isa<clang::ParmVarDecl>(v)))
    return std::nullopt;
  return Division{bo, bo->getRHS(), v, *kind};
}

// Whether a quotient only feeds floating-point arithmetic that ends in a store to a floating-point
// lvalue or a floating-point variable's initializer (so a rounding difference stays one).
bool feedsOnlyFloatStores(clang::ASTContext& ctx, const clang::Expr* e) {
  const clang::Stmt* cur = e;
  while (true) {
    {  // a variable's initializer: the parent is the VarDecl
      auto parents = ctx.getParents(*cur);
      if (const auto* vd = parents.empty() ? nullptr : parents[0].get<clang::VarDecl>())
        return vd->getInit() == cur && floatKind(vd->getType()).has_value();
    }
    const clang::Stmt* p = parentStmt(ctx, cur);
    if (!p) return false;
    if (llvm::isa<clang::ParenExpr>(p)) {
      cur = p;
      continue;
    }
    if (auto* c = llvm::dyn_cast<clang::ImplicitCastExpr>(p)) {
      if (c->getCastKind() != clang::CK_FloatingCast) return false;
      cur = p;
      continue;
    }
    if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(p)) {
      switch (bo->getOpcode()) {
        case clang::BO_Add: case clang::BO_Sub: case clang::BO_Mul: case clang::BO_Div:
          if (!floatKind(bo->getType())) return false;
          cur = p;
          continue;
        case clang::BO_Assign: case clang::BO_AddAssign: case clang::BO_SubAssign: case clang::BO_MulAssign:
        case clang::BO_DivAssign:
          // the stored value (not the lvalue), into a floating-point lvalue; the assignment is a
          // statement of its own (its value is not used further)
          if (bo->getRHS() != cur) return false;
          if (!floatKind(bo->getLHS()->getType())) return false;
          {
            const clang::Stmt* up = parentStmt(ctx, p);
            return !up || !llvm::isa<clang::Expr>(up);
          }
        default: return false;
      }
    }
    if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(p)) {
      if (uo->getOpcode() != clang::UO_Minus && uo->getOpcode() != clang::UO_Plus) return false;
      cur = p;
      continue;
    }
    return false;
  }
}

bool isLoop(const clang::Stmt* s) {
  return llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) || llvm::isa<clang::DoStmt>(s) ||
         llvm::isa<clang::CXXForRangeStmt>(s);
}

// Whether v may change behind its name: its address is taken or a reference bound to it anywhere in
// the kernel (a write through the pointer would not show as a write of v). Reads, assignments to it
// and ++/-- are its only allowed uses.
bool escapes(clang::ASTContext& ctx, const clang::Stmt* body, const clang::VarDecl* v) {
  for (const clang::DeclRefExpr* ref : refsTo(body, v)) {
    const clang::Stmt* cur = ref;
    const clang::Stmt* p = parentStmt(ctx, cur);
    while (p && llvm::isa<clang::ParenExpr>(p)) {
      cur = p;
      p = parentStmt(ctx, p);
    }
    if (auto* ice = llvm::dyn_cast_or_null<clang::ImplicitCastExpr>(p); ice && ice->getCastKind() == clang::CK_LValueToRValue)
      continue;
    if (auto* bo = llvm::dyn_cast_or_null<clang::BinaryOperator>(p); bo && bo->isAssignmentOp() && bo->getLHS() == cur)
      continue;
    if (auto* uo = llvm::dyn_cast_or_null<clang::UnaryOperator>(p); uo && uo->isIncrementDecrementOp()) continue;
    return true;
  }
  return false;
}

// Whether v is declared inside s (then it is not the same value on every execution of s).
bool declaredIn(const clang::Stmt* s, const clang::VarDecl* v) {
  const auto r = s->getSourceRange();
  return !llvm::isa<clang::ParmVarDecl>(v) && !(v->getLocation() < r.getBegin()) && !(r.getEnd() < v->getLocation());
}

// The statement to rewrite for a division: the innermost statement in a block ({...}) that holds a
// loop around the division, where the divisor is declared before it and not written in it. An
// attributed loop (#pragma unroll) counts with its pragma. Null (and why) when there is none.
const clang::Stmt* enclosingStatement(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, const Division& d,
                                      std::string* why) {
  bool loop_seen = false;
  for (const clang::Stmt* cur = d.op; cur && cur != kernel->getBody();) {
    if (isLoop(cur)) loop_seen = true;
    const clang::Stmt* p = parentStmt(ctx, cur);
    const clang::Stmt* s = cur;
    if (p && llvm::isa<clang::AttributedStmt>(p)) {  // the pragma goes with its loop
      s = p;
      p = parentStmt(ctx, p);
    }
    if (!p) break;
    if (loop_seen && llvm::isa<clang::CompoundStmt>(p)) {
      if (llvm::isa<clang::DeclStmt>(s)) {
        *why = "the loop is in a declaration";
        return nullptr;
      }
      if (declaredIn(s, d.var) || !onlyReads(ctx, s, d.var)) {
        *why = "the loop around it changes " + d.var->getNameAsString();
        return nullptr;
      }
      if (escapes(ctx, kernel->getBody(), d.var)) {
        *why = "the address of " + d.var->getNameAsString() + " is taken or a reference bound to it";
        return nullptr;
      }
      return s;
    }
    cur = p;
  }
  *why = loop_seen ? "no statement in a block holds the loop" : "not inside a loop";
  return nullptr;
}

std::string rcpName(const clang::VarDecl* v) { return "kl_rcp_" + v->getNameAsString(); }

std::string guardText(const std::string& var, clang::BuiltinType::Kind k) {
  if (k == clang::BuiltinType::Float)
    return "fabsf(" + var + ") >= 1.17549435e-38f && fabsf(" + var + ") <= 8.50705917e+37f";
  return "fabs(" + var + ") >= 2.2250738585072014e-308 && fabs(" + var + ") <= 4.4942328371557898e+307";
}

std::string typeText(clang::BuiltinType::Kind k) { return k == clang::BuiltinType::Float ? "float" : "double"; }
std::string oneText(clang::BuiltinType::Kind k) { return k == clang::BuiltinType::Float ? "1.0f" : "1.0"; }

// Where a statement's text begins: its first token, or the first `#pragma` line of an attributed
// loop. npos when something else precedes it on its line.
size_t statementBegin(const Src& src, const clang::Stmt* s) {
  unsigned b = src.off(s->getBeginLoc());
  if (auto* as = llvm::dyn_cast<clang::AttributedStmt>(s)) {
    b = src.off(as->getSubStmt()->getBeginLoc());
    if (!src.blankBefore(b)) return std::string::npos;
    unsigned line = src.lineStart(b);
    while (line > 0) {
      unsigned prev = src.lineStart(line - 1);
      if (squeeze(src.slice(prev, line)).rfind("#pragma", 0) != 0) break;
      line = prev;
    }
    b = line + static_cast<unsigned>(src.indentOf(line).size());
  }
  return src.blankBefore(b) ? b : std::string::npos;
}

// Every float or double division by a variable under s (asDivision), in no particular order.
std::vector<Division> divisionsIn(clang::ASTContext& ctx, const clang::Stmt* s) {
  using namespace clang::ast_matchers;
  std::vector<Division> out;
  for (const clang::Expr* e : findAllIn<clang::Expr>(ctx, s, binaryOperator(hasAnyOperatorName("/", "/=")).bind("d"), "d"))
    if (auto d = asDivision(e)) out.push_back(*d);
  return out;
}

// The divisions by v under s that forward replaces (all those whose quotient feeds only stores).
std::vector<Division> divisionsBy(clang::ASTContext& ctx, const clang::Stmt* s, const clang::VarDecl* v) {
  std::vector<Division> out;
  for (const Division& d : divisionsIn(ctx, s)) {
    if (d.var != v) continue;
    if (llvm::isa<clang::CompoundAssignOperator>(d.op)) {
      const clang::Stmt* up = parentStmt(ctx, d.op);
      if (up && llvm::isa<clang::Expr>(up)) continue;  // x /= s used as a value
      if (!floatKind(llvm::cast<clang::BinaryOperator>(d.op)->getLHS()->getType())) continue;
    } else if (!feedsOnlyFloatStores(ctx, d.op)) {
      continue;
    }
    out.push_back(d);
  }
  std::sort(out.begin(), out.end(), [](const Division& a, const Division& b) { return a.op->getBeginLoc() < b.op->getBeginLoc(); });
  return out;
}

// Text [from, to) with each division's operator made a multiplication and its divisor the reciprocal.
std::optional<std::string> substituted(const Src& src, unsigned from, unsigned to, const std::vector<Division>& ds,
                                       const std::string& rcp) {
  struct Cut {
    unsigned a, b;
    std::string with;
  };
  std::vector<Cut> cuts;
  for (const Division& d : ds) {
    const auto* bo = llvm::cast<clang::BinaryOperator>(d.op);
    if (!src.inFile(bo->getOperatorLoc()) || !src.inFile(d.rhs)) return std::nullopt;
    const unsigned o = src.off(bo->getOperatorLoc());
    cuts.push_back({o, o + 1, "*"});  // `/` or the `/` of `/=`
    cuts.push_back({src.off(d.rhs->getBeginLoc()), src.tokEnd(d.rhs->getEndLoc()), rcp});
  }
  std::sort(cuts.begin(), cuts.end(), [](const Cut& x, const Cut& y) { return x.a < y.a; });
  std::string out;
  unsigned at = from;
  for (const Cut& c : cuts) {
    if (c.a < at || c.b > to) return std::nullopt;
    out += src.slice(at, c.a) + c.with;
    at = c.b;
  }
  return out + src.slice(at, to);
}

// Every line but the first (which starts at the statement) gets `add` in front; empty lines stay.
std::string indented(const std::string& text, const std::string& add) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] != '\n') out += add;
  }
  return out;
}

std::optional<std::string> dedented(const std::string& text, const std::string& drop) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] != '\n') {
      if (text.compare(i + 1, drop.size(), drop) != 0) return std::nullopt;
      i += drop.size();
    }
  }
  return out;
}

bool hasMultiLineString(clang::ASTContext& ctx, const Src& src, const clang::Stmt* s) {
  using namespace clang::ast_matchers;
  for (const auto* sl : findAllIn<clang::StringLiteral>(ctx, s, stringLiteral().bind("s"), "s"))
    if (src.sm.getSpellingLineNumber(sl->getBeginLoc()) != src.sm.getSpellingLineNumber(sl->getEndLoc())) return true;
  return false;
}

bool nameTaken(const Src& src, const clang::FunctionDecl* kernel, const std::string& name) {
  const unsigned a = src.off(kernel->getBeginLoc()), b = src.tokEnd(kernel->getEndLoc());
  const std::string body = src.slice(a, b);
  for (size_t p = body.find(name); p != std::string::npos; p = body.find(name, p + 1)) {
    const size_t e = p + name.size();
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    if ((p == 0 || !ident(body[p - 1])) && (e >= body.size() || !ident(body[e]))) return true;
  }
  return false;
}

class ReciprocalMultiply : public Transform {
 public:
  std::string id() const override { return "reciprocal-multiply"; }
  std::string summary() const override {
    return "divisions by a value a loop does not change become multiplications by its reciprocal, computed once before "
           "the loop (guarded: the division where 1 / s is not a normal number)";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    if (!req.kernel->hasBody()) return TransformResult::no("the kernel has no body");
    struct Site {
      const clang::Stmt* stmt;
      const clang::VarDecl* var;
      clang::BuiltinType::Kind kind;
      std::vector<Division> divs;
    };
    std::vector<Site> sites;
    std::string why;
    auto note = [&](const clang::Stmt* s, const std::string& w) {
      const std::string line = "line " + std::to_string(src.sm.getSpellingLineNumber(s->getBeginLoc())) + ": " + w;
      if (why.find(line) == std::string::npos) why += (why.empty() ? "" : "; ") + line;
    };
    for (const Division& d : divisionsIn(ctx, req.kernel->getBody())) {
      std::string w;
      const clang::Stmt* s = enclosingStatement(ctx, req.kernel, d, &w);
      if (!s) {
        note(d.op, "division by " + d.var->getNameAsString() + ": " + w);
        continue;
      }
      bool known = false;
      for (const Site& x : sites) known = known || (x.stmt == s && x.var == d.var);
      if (known) continue;
      std::vector<Division> divs = divisionsBy(ctx, s, d.var);
      if (divs.empty()) {
        note(d.op, "the quotient by " + d.var->getNameAsString() +
                    " is not only stored as a float (converted, compared or passed on: a rounding difference could matter)");
        continue;
      }
      sites.push_back({s, d.var, d.kind, std::move(divs)});
    }
    if (sites.empty())
      return TransformResult::no("no float or double division by a variable that a loop does not change" +
                                 (why.empty() ? std::string() : " (" + why + ")"));
    // The divisor with the most divisions first; a statement overlapping one already taken is left.
    std::stable_sort(sites.begin(), sites.end(), [](const Site& a, const Site& b) { return a.divs.size() > b.divs.size(); });
    std::vector<std::pair<unsigned, unsigned>> taken;
    std::string what;
    for (const Site& site : sites) {
      const size_t b = statementBegin(src, site.stmt);
      if (!src.inFile(site.stmt) || b == std::string::npos) {
        note(site.stmt, "the statement is written through a macro or does not start its line");
        continue;
      }
      const unsigned e = src.stmtEnd(site.stmt);
      bool overlaps = false;
      for (auto& [x, y] : taken) overlaps = overlaps || (b < y && x < e);
      if (overlaps) {
        note(site.stmt, "divisions by " + site.var->getNameAsString() + " left: the statement overlaps one rewritten for another divisor");
        continue;
      }
      if (hasMultiLineString(ctx, src, site.stmt)) {
        note(site.stmt, "a string literal spans lines");
        continue;
      }
      const std::string rcp = rcpName(site.var);
      if (nameTaken(src, req.kernel, rcp)) {
        note(site.stmt, "the kernel already has a name " + rcp);
        continue;
      }
      auto fast = substituted(src, static_cast<unsigned>(b), e, site.divs, rcp);
      if (!fast) {
        note(site.stmt, "a division is written through a macro");
        continue;
      }
      const std::string ind = src.indentOf(static_cast<unsigned>(b)), in2 = ind + "  ";
      const std::string v = site.var->getNameAsString();
      const std::string text = "if (" + guardText(v, site.kind) + ") {\n" + in2 + "const " + typeText(site.kind) + " " + rcp +
                               " = " + oneText(site.kind) + " / " + v + ";\n" + in2 + indented(*fast, "  ") + "\n" + ind +
                               "} else {\n" + in2 + indented(src.slice(static_cast<unsigned>(b), e), "  ") + "\n" + ind + "}";
      if (req.rewriter.ReplaceText(src.at(static_cast<unsigned>(b)), e - static_cast<unsigned>(b), text))
        return TransformResult::no("the rewriter refused the edit");
      taken.push_back({static_cast<unsigned>(b), e});
      what += (what.empty() ? "" : ", ") + std::to_string(site.divs.size()) + " division" + (site.divs.size() > 1 ? "s" : "") +
              " by " + v + " (line " + std::to_string(src.sm.getSpellingLineNumber(site.stmt->getBeginLoc())) + ")";
    }
    if (what.empty()) return TransformResult::no("no division could be rewritten: " + why);
    return TransformResult::yes("multiplied by the reciprocal: " + what);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    if (!req.kernel->hasBody()) return TransformResult::no("the kernel has no body");
    using namespace clang::ast_matchers;
    unsigned undone = 0;
    std::vector<std::pair<unsigned, unsigned>> done;  // replaced ranges (a nested match is left)
    for (const clang::IfStmt* is : findAllIn<clang::IfStmt>(ctx, req.kernel->getBody(), ifStmt().bind("if"), "if")) {
      const auto* then = llvm::dyn_cast_or_null<clang::CompoundStmt>(is->getThen());
      const auto* els = llvm::dyn_cast_or_null<clang::CompoundStmt>(is->getElse());
      if (!then || !els || then->size() != 2 || els->size() != 1 || is->getInit() || is->getConditionVariable()) continue;
      // const T kl_rcp_V = 1 / V;
      const auto* ds = llvm::dyn_cast<clang::DeclStmt>(then->body_front());
      const auto* rv = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
      if (!rv || rv->getNameAsString().rfind("kl_rcp_", 0) != 0 || !rv->getInit()) continue;
      const auto* init = llvm::dyn_cast<clang::BinaryOperator>(rv->getInit()->IgnoreParenImpCasts());
      const auto* vref = init ? llvm::dyn_cast<clang::DeclRefExpr>(init->getRHS()->IgnoreParenImpCasts()) : nullptr;
      const auto* v = vref ? llvm::dyn_cast<clang::VarDecl>(vref->getDecl()) : nullptr;
      auto kind = v ? floatKind(v->getType()) : std::nullopt;
      if (!v || !kind || rv->getNameAsString() != rcpName(v)) continue;
      if (!src.inFile(is) || !src.blankBefore(src.off(is->getBeginLoc()))) continue;
      const std::string v_name = v->getNameAsString();
      if (squeeze(sourceText(ctx, is->getCond()->getSourceRange())) != squeeze(guardText(v_name, *kind))) continue;
      if (squeeze(sourceText(ctx, ds->getSourceRange())) !=
          squeeze("const " + typeText(*kind) + " " + rv->getNameAsString() + " = " + oneText(*kind) + " / " + v_name + ";"))
        continue;
      // The first branch must be what forward writes from the second.
      const clang::Stmt* orig = els->body_front();
      const clang::Stmt* fast = *std::next(then->body_begin());
      const size_t ob = statementBegin(src, orig), fb = statementBegin(src, fast);
      if (ob == std::string::npos || fb == std::string::npos) continue;
      const unsigned oe = src.stmtEnd(orig), fe = src.stmtEnd(fast);
      auto expect = substituted(src, static_cast<unsigned>(ob), oe, divisionsBy(ctx, orig, v), rv->getNameAsString());
      if (!expect || squeeze(*expect) != squeeze(src.slice(static_cast<unsigned>(fb), fe))) continue;
      const std::string ind = src.indentOf(src.off(is->getBeginLoc()));
      auto text = dedented(src.slice(static_cast<unsigned>(ob), oe), "  ");
      if (!text) continue;
      const unsigned b = src.off(is->getBeginLoc()), e = src.stmtEnd(is);
      bool overlaps = false;
      for (auto& [x, y] : done) overlaps = overlaps || (b < y && x < e);
      if (overlaps) continue;
      done.push_back({b, e});
      if (req.rewriter.ReplaceText(src.at(b), e - b, *text)) return TransformResult::no("the rewriter refused the edit");
      ++undone;
    }
    if (!undone)
      return TransformResult::no("no `if (<range of V>) { const T kl_rcp_V = 1 / V; ... } else { ... }` as forward writes it");
    return TransformResult::yes("divisions restored in " + std::to_string(undone) + " statement" + (undone > 1 ? "s" : ""));
  }
};

}  // namespace
std::unique_ptr<Transform> makeReciprocalMultiply() { return std::make_unique<ReciprocalMultiply>(); }
}  // namespace klineage
