// vectorize-access: a grid-stride loop over p[i] elements  ->  the same loop over float4/int4/uint4
// vectors (4 elements per thread and iteration), behind a runtime alignment check:
//   if (((reinterpret_cast<unsigned long long>(x) | ...) & 15) == 0) {
//     for (T kl_v = <index>; kl_v < n / 4; kl_v += <stride>) {
//       float4 kl_x = reinterpret_cast<const float4*>(x)[kl_v];   // every array the body reads
//       float4 kl_y;                                              // write-only arrays
//       { body, p[i] -> kl_p.x } { ... .y } { ... .z } { ... .w }  // each lane in its own scope
//       reinterpret_cast<float4*>(y)[kl_v] = kl_y;                // every array the body writes
//     }
//     for (T i = (n / 4) * 4 + <index>; i < n; i += <stride>) <body>   // the n % 4 tail
//   } else {
//     <the original loop, unchanged>
//   }
// A bound that is not a plain name is hoisted first: `const <type> kl_n = <bound>;`.
// A row-periodic operand `p[i % m]` (bias[i % cols], see "Row-periodic operands" below) is read
// once per vector too, `float4 kl_p = reinterpret_cast<const float4*>(p)[(kl_v * 4 % m) / 4];`,
// with p in the alignment check and ` && m % 4 == 0` after it.
// Why it can pay: one 16-byte load/store instead of four 4-byte ones (fewer memory
// instructions, full sectors per request), and a 4x smaller grid (GeometryChange
// grid_x_divisor = 4: the gate and the launch-site rewriter shrink grid.x; every loop here is a
// grid-stride loop, so any grid stays correct).
// When it is sound: the loop is `for (T i = <global index>; i < n; i += <grid stride>)` and its
// body touches memory only as p[i] (p a kernel pointer parameter to float, int or unsigned int,
// the index exactly the loop variable) or as reads of other pointer parameters at any index
// (gathers such as bias[i % cols], read per lane, from arrays the loop never stores to; i is then
// the lane's element, `const T i = kl_v * 4 + L` in each lane's scope), calls only pure math functions, has
// no barriers/atomics/shuffles/__shared__/nested loops/return/break/continue, and assigns no
// variable declared outside it. Element i is then owned by one thread, so reordering the
// elements a thread handles is invisible. It also relies on the accessed arrays not overlapping
// one another (the no-overlap capture fact the skill requires, as for restrict-pointers). An
// array written only on some paths is loaded too, so the unwritten lanes are stored back as read.
// Row-periodic operands: a read `p[i % m]` exactly (p a pointer parameter to float/int/unsigned
// int not read as p[i] and never stored to in the loop, i the loop variable, m the plain name of an
// integer parameter or of a local declared before the loop, which the kernel only reads: every
// reference to it is a read, no assignment, ++/--, address or reference) that the body evaluates on
// every path (not under an if, ?:, && or ||, nor unevaluated in sizeof, decltype or noexcept), all
// of p's with the same m. When m % 4 == 0, for the
// lane L element i = 4 * kl_v + L (0 <= L < 4): (4 * kl_v + L) % m == (4 * kl_v % m) + L, since
// 4 * kl_v % m is a multiple of 4 (both 4 * kl_v and m are) and adding L < 4 does not reach the
// next multiple of m; so the four lanes read the four consecutive elements of one aligned vector,
// number (4 * kl_v % m) / 4, of p (16-byte aligned: p joins the alignment check). That vector holds
// exactly the elements the original loop reads for these four i, so it reads nothing the original
// does not (hence "on every path": a conditional read may never happen, with p null or short).
// Integer types: the remainder is computed in the type of the original `i % m` (the common type
// of the loop variable's T and m's type; kl_v * 4 is computed in T and is at most a value i takes in
// the original loop, so it does not overflow where the original does not). It relies on i >= 0
// (a global thread index plus grid strides) and m != 0 (the original computes i % m for every
// element, so m == 0 is undefined there already). A negative m is still correct: with a
// non-negative dividend C's % is the remainder by |m| in a signed type, and in an unsigned common
// type m becomes m + 2^w, still a multiple of 4 when m % 4 == 0 (tested in m's own type).
// The extra conditions go into the vector branch's condition rather than a second branch: when
// m % 4 != 0 or p is misaligned the else branch runs, the original loop unchanged (what the
// float4 bias_gelu expert does too: its cols % 4 != 0 path is the scalar kernel), and the inverse
// recognizes one shape with optional `&& m % 4 == 0` terms. The cost: such a run loses the in/out
// vectors that a per-lane gather would have kept, on a grid 4x smaller (see the skill's risks).
// Parameters: "width" (default 4; only 4 is supported); "grid_divisor" (default 4; 1, 2, 4): grid.x is
// divided by it (1 keeps the grid: a grid-stride kernel whose launcher capped its grid would run on a
// quarter of the threads it chose, too few loads in flight).
// Inverse: recognizes exactly the shape above (alignment check, each `&& m % 4 == 0` with its
// `[(kl_v * 4 % m) / 4]` vector read, kl_v loop, else branch holding the scalar loop, optional kl_n)
// and puts the else-branch loop back, so inverse(forward(x)) == x.
// GeometryChange grid_x_divisor 1: the inverse needs the original grid again (x4), which the
// caller restores.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"
#include "rewriter/vector_access.h"

namespace klineage {
namespace {

using Src = SourceBuffer;

// Adds `pad` to every non-empty line after the first (the first continues a line already indented).
std::string indentRest(const std::string& s, const std::string& pad) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) {
    out += s[k];
    if (s[k] == '\n' && k + 1 < s.size() && s[k + 1] != '\n') out += pad;
  }
  return out;
}

// Undoes indentRest: removes `pad` from every line after the first that starts with it.
std::string dedentRest(const std::string& s, const std::string& pad) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) {
    out += s[k];
    if (s[k] == '\n' && s.compare(k + 1, pad.size(), pad) == 0) k += pad.size();
  }
  return out;
}

// Statement lines re-indented to `indent`, keeping their relative indentation; blank lines at
// either end dropped.
std::string reindentBlock(const std::string& s, const std::string& indent) {
  std::vector<std::string> lines;
  size_t p = 0;
  while (p <= s.size()) {
    size_t q = s.find('\n', p);
    if (q == std::string::npos) q = s.size();
    lines.push_back(s.substr(p, q - p));
    p = q + 1;
  }
  auto blank = [](const std::string& l) { return l.find_first_not_of(" \t\r") == std::string::npos; };
  bool first_on_brace_line = !lines.empty() && !blank(lines.front());
  while (!lines.empty() && blank(lines.front())) lines.erase(lines.begin());
  while (!lines.empty() && blank(lines.back())) lines.pop_back();
  size_t common = std::string::npos;
  for (size_t k = first_on_brace_line ? 1 : 0; k < lines.size(); ++k)
    if (!blank(lines[k])) common = std::min(common, lines[k].find_first_not_of(" \t"));
  if (common == std::string::npos) common = 0;
  std::string out;
  for (size_t k = 0; k < lines.size(); ++k) {
    std::string l = lines[k];
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t' || l.back() == '\r')) l.pop_back();
    if (l.empty()) {
      out += "\n";
      continue;
    }
    size_t cut = k == 0 && first_on_brace_line ? l.find_first_not_of(" \t") : std::min(common, l.find_first_not_of(" \t"));
    out += indent + l.substr(cut) + "\n";
  }
  return out;
}

bool refersTo(const clang::Expr* e, const clang::ValueDecl* d) { return e && referencedDecl(e) == d; }

const std::set<std::string>& pureMath() {
  static const std::set<std::string> names = {
      "fmaxf", "fminf", "fmax", "fmin", "max", "min", "abs", "fabsf", "fabs", "sqrtf", "sqrt", "rsqrtf", "cbrtf",
      "expf", "exp", "exp2f", "expm1f", "__expf", "logf", "log", "log2f", "log10f", "log1pf", "__logf", "__log2f",
      "powf", "__powf", "sinf", "cosf", "tanf", "__sinf", "__cosf", "tanhf", "sinhf", "coshf", "asinf", "acosf",
      "atanf", "atan2f", "erff", "erfcf", "floorf", "ceilf", "roundf", "rintf", "truncf", "fmaf", "__fmaf_rn",
      "copysignf", "fmodf", "__fdividef", "__frcp_rn", "__saturatef", "__fadd_rn", "__fmul_rn", "isnan", "isinf",
      "isfinite", "signbit", "__float2int_rn", "__int2float_rn", "__uint2float_rn", "__float2uint_rn", "llabs",
      "umin", "umax", "__popc", "__clz", "__brev", "__mul24", "__umul24", "__mulhi", "__umulhi", "__sad", "__usad"};
  return names;
}

struct Access {
  const clang::ParmVarDecl* param;
  unsigned begin, end;  // text range of p[i] in the file
};

struct ArrayUse {
  bool read = false, written = false, written_always = false;
};

// Checks the loop body and collects its p[i] accesses.
struct BodyScan : clang::RecursiveASTVisitor<BodyScan> {
  const clang::ASTContext& ctx;
  const Src& src;
  const clang::VarDecl* index;
  const clang::CompoundStmt* top;  // the loop body, when it is a compound statement
  std::set<const clang::ValueDecl*> local;
  std::set<const clang::ArraySubscriptExpr*> accepted;
  std::vector<const clang::ArraySubscriptExpr*> gathers;  // p[<not exactly i>]: read per lane
  std::vector<Access> accesses;
  std::map<const clang::ParmVarDecl*, ArrayUse> arrays;
  std::string why;
  BodyScan(const clang::ASTContext& c, const Src& s, const clang::VarDecl* i, const clang::CompoundStmt* t)
      : ctx(c), src(s), index(i), top(t) {}
  bool fail(const std::string& w) {
    if (why.empty()) why = w;
    return false;
  }
  bool VisitForStmt(clang::ForStmt*) { return fail("the loop body has a nested loop"); }
  bool VisitWhileStmt(clang::WhileStmt*) { return fail("the loop body has a nested loop"); }
  bool VisitDoStmt(clang::DoStmt*) { return fail("the loop body has a nested loop"); }
  bool VisitCXXForRangeStmt(clang::CXXForRangeStmt*) { return fail("the loop body has a nested loop"); }
  bool VisitReturnStmt(clang::ReturnStmt*) { return fail("the loop body returns"); }
  bool VisitBreakStmt(clang::BreakStmt*) { return fail("the loop body has a break"); }
  bool VisitContinueStmt(clang::ContinueStmt*) { return fail("the loop body has a continue"); }
  bool VisitGotoStmt(clang::GotoStmt*) { return fail("the loop body uses goto"); }
  bool VisitGCCAsmStmt(clang::GCCAsmStmt*) { return fail("the loop body has inline asm"); }
  bool VisitLambdaExpr(clang::LambdaExpr*) { return fail("the loop body has a lambda"); }
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr*) { return fail("the loop body calls an overloaded operator"); }
  bool VisitVarDecl(clang::VarDecl* vd) {
    if (vd->hasAttr<clang::CUDASharedAttr>()) return fail("the loop body declares __shared__ memory");
    if (vd->isStaticLocal()) return fail("the loop body declares a static local");
    if (vd->getName().startswith("kl_")) return fail("the loop body declares " + vd->getNameAsString() + " (kl_ names are the transform's)");
    local.insert(vd);
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* c) {
    if (llvm::isa<clang::CXXOperatorCallExpr>(c)) return true;
    std::string name;
    if (auto* fd = c->getDirectCallee()) name = fd->getNameAsString();
    if (llvm::isa<clang::CXXMemberCallExpr>(c) || !pureMath().count(name))
      return fail("the loop body calls " + (name.empty() ? std::string("a function") : name) +
                  " (only pure math functions are allowed)");
    return true;
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
    auto* pv = llvm::dyn_cast_or_null<clang::ParmVarDecl>(referencedDecl(e->getBase()));
    if (!pv || !pv->getType()->isPointerType())
      return fail("the loop body indexes something other than a pointer parameter");
    if (!refersTo(e->getIdx(), index) || e->getIdx()->IgnoreImpCasts() != e->getIdx()->IgnoreParenImpCasts() ||
        !llvm::isa<clang::DeclRefExpr>(e->getIdx()->IgnoreImpCasts())) {
      // Any other index is a gather, kept scalar in each lane (bias[i % cols]); sound only when
      // nothing stores through that pointer in the loop (checked once every store is known).
      if (!src.inFile(e)) return fail("an access is written through a macro");
      gathers.push_back(e);
      return true;
    }
    if (vectorType(ctx, elementType(pv)).empty())
      return fail(pv->getNameAsString() + " has element type " + pv->getType()->getPointeeType().getAsString() +
                  " (only float, int and unsigned int are vectorized)");
    if (!src.inFile(e)) return fail("an access is written through a macro");
    accepted.insert(e);
    accesses.push_back({pv, src.off(e->getBeginLoc()), src.tokEnd(e->getEndLoc())});
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    const clang::ValueDecl* d = e->getDecl();
    if (isBuiltinGeometry(d->getNameAsString())) return fail("the loop body uses " + d->getNameAsString());
    if (d == index || (llvm::isa<clang::ParmVarDecl>(d) && d->getType()->isPointerType())) {
      // only as the base or the index of an accepted p[i]; checked in the parents below
      used_refs.push_back(e);
    }
    if (auto* vd = llvm::dyn_cast<clang::VarDecl>(d); vd && !local.count(vd) && vd->getType()->isPointerType() &&
                                                      !llvm::isa<clang::ParmVarDecl>(vd))
      return fail("the loop body uses the pointer " + vd->getNameAsString());
    return true;
  }
  std::vector<const clang::DeclRefExpr*> used_refs;
  bool modifies(const clang::Expr* lhs, const char* how) {
    lhs = lhs->IgnoreParenImpCasts();
    if (auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(lhs)) {
      (void)ase;
      return true;  // p[i] (checked by VisitArraySubscriptExpr) or a failure already
    }
    const clang::ValueDecl* d = referencedDecl(lhs);
    if (d && local.count(d)) return true;
    return fail(std::string("the loop body ") + how + " " +
                (d ? d->getNameAsString() + ", declared outside it" : sourceText(ctx, lhs->getSourceRange())));
  }
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    if (bo->getOpcode() == clang::BO_Comma) return fail("the loop body uses the comma operator");
    return bo->isAssignmentOp() ? modifies(bo->getLHS(), "assigns") : true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->isIncrementDecrementOp()) return modifies(uo->getSubExpr(), "modifies");
    if (uo->getOpcode() == clang::UO_AddrOf) return fail("the loop body takes an address");
    if (uo->getOpcode() == clang::UO_Deref) return fail("the loop body dereferences a pointer");
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr* me) {
    if (me->isArrow()) return fail("the loop body reads through ->");
    return true;
  }
};

// Every array access the body evaluates only on some paths, or never: under an if's branches, a
// switch, the arms of ?:, the right side of && and ||, and in sizeof/alignof, decltype, noexcept.
std::set<const clang::ArraySubscriptExpr*> conditionalAccesses(const clang::Stmt* body) {
  struct Collect : clang::RecursiveASTVisitor<Collect> {
    std::set<const clang::ArraySubscriptExpr*>* out;
    bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
      out->insert(e);
      return true;
    }
  };
  struct Walk : clang::RecursiveASTVisitor<Walk> {
    std::set<const clang::ArraySubscriptExpr*> out;
    void under(const clang::Stmt* s) {
      Collect c;
      c.out = &out;
      if (s) c.TraverseStmt(const_cast<clang::Stmt*>(s));
    }
    bool VisitIfStmt(clang::IfStmt* s) {
      under(s->getThen());
      under(s->getElse());
      return true;
    }
    bool VisitSwitchStmt(clang::SwitchStmt* s) {
      under(s->getBody());
      return true;
    }
    bool VisitConditionalOperator(clang::ConditionalOperator* c) {
      under(c->getTrueExpr());
      under(c->getFalseExpr());
      return true;
    }
    bool VisitBinaryConditionalOperator(clang::BinaryConditionalOperator* c) {
      under(c->getFalseExpr());
      return true;
    }
    bool VisitBinaryOperator(clang::BinaryOperator* b) {
      if (b->isLogicalOp()) under(b->getRHS());
      return true;
    }
    bool VisitUnaryExprOrTypeTraitExpr(clang::UnaryExprOrTypeTraitExpr* e) {
      if (!e->isArgumentType()) under(e->getArgumentExpr());
      return true;
    }
    bool VisitDecltypeTypeLoc(clang::DecltypeTypeLoc tl) {
      under(tl.getUnderlyingExpr());
      return true;
    }
    bool VisitCXXNoexceptExpr(clang::CXXNoexceptExpr* e) {
      under(e->getOperand());
      return true;
    }
  } w;
  w.TraverseStmt(const_cast<clang::Stmt*>(body));
  return w.out;
}

// Whether the kernel only reads d: every reference to it is an lvalue-to-rvalue conversion (no
// assignment, ++/--, address or reference taken, no unevaluated use either).
bool onlyRead(const clang::Stmt* kernel_body, const clang::ValueDecl* d) {
  struct V : clang::RecursiveASTVisitor<V> {
    const clang::ValueDecl* d;
    unsigned refs = 0, reads = 0;
    bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
      if (e->getDecl() == d) ++refs;
      return true;
    }
    bool VisitImplicitCastExpr(clang::ImplicitCastExpr* c) {
      if (c->getCastKind() == clang::CK_LValueToRValue)
        if (auto* r = llvm::dyn_cast<clang::DeclRefExpr>(c->getSubExpr()->IgnoreParens()); r && r->getDecl() == d) ++reads;
      return true;
    }
  } v;
  v.d = d;
  v.TraverseStmt(const_cast<clang::Stmt*>(kernel_body));
  return v.refs == v.reads;
}

// A row-periodic read `p[i % m]` (bias[i % cols]), read as one vector per kl_v: p a pointer
// parameter to float/int/unsigned int, i exactly the loop variable, m exactly the name of an integer
// parameter or local (declared before the loop) that the kernel only reads. The modulus
// declaration, or null when e is not exactly that (the gather then stays a scalar read per lane).
const clang::ValueDecl* periodicModulus(const clang::ASTContext& ctx, const clang::ArraySubscriptExpr* e,
                                        const clang::VarDecl* index, const std::set<const clang::ValueDecl*>& body_locals,
                                        const clang::Stmt* kernel_body) {
  auto plainRef = [](const clang::Expr* x) -> const clang::DeclRefExpr* {
    if (x->IgnoreImpCasts() != x->IgnoreParenImpCasts()) return nullptr;  // parenthesized
    return llvm::dyn_cast<clang::DeclRefExpr>(x->IgnoreImpCasts());
  };
  const clang::DeclRefExpr* base = plainRef(e->getBase());
  auto* pv = base ? llvm::dyn_cast<clang::ParmVarDecl>(base->getDecl()) : nullptr;
  if (!pv || !pv->getType()->isPointerType() || vectorType(ctx, elementType(pv)).empty()) return nullptr;
  if (e->getIdx()->IgnoreImpCasts() != e->getIdx()->IgnoreParenImpCasts()) return nullptr;
  auto* rem = llvm::dyn_cast<clang::BinaryOperator>(e->getIdx()->IgnoreImpCasts());
  if (!rem || rem->getOpcode() != clang::BO_Rem) return nullptr;
  const clang::DeclRefExpr* i = plainRef(rem->getLHS());
  const clang::DeclRefExpr* m = plainRef(rem->getRHS());
  if (!i || i->getDecl() != index || !m) return nullptr;
  auto* mv = llvm::dyn_cast<clang::VarDecl>(m->getDecl());
  if (!mv || mv == index || body_locals.count(mv) || !mv->hasLocalStorage()) return nullptr;
  clang::QualType t = mv->getType();
  if (t->isDependentType() || t->isReferenceType() || t.isVolatileQualified() || !t->isIntegerType() ||
      t->isBooleanType() || t->isEnumeralType())
    return nullptr;
  if (!onlyRead(kernel_body, mv)) return nullptr;
  return mv;
}

// `(kl_v * 4 % m) / 4`: the vector of p that holds p[i % m] for the four elements i = 4 * kl_v + L.
std::string periodicIndex(const std::string& m) { return "(kl_v * 4 % " + m + ") / 4"; }

// The vector branch's condition as forward writes it: the alignment check, then `m % 4 == 0` for
// each row-periodic operand's modulus (`...) & 15) == 0 && cols % 4 == 0`). The moduli, or nullopt
// when cond is anything else.
std::optional<std::vector<std::string>> vectorCondition(const std::string& cond) {
  const std::string s = squeeze(cond);
  std::vector<std::string> parts;
  for (size_t p = 0;;) {
    size_t q = s.find("&&", p);
    parts.push_back(s.substr(p, q == std::string::npos ? std::string::npos : q - p));
    if (q == std::string::npos) break;
    p = q + 2;
  }
  if (!isAlignmentCheck(parts.front())) return std::nullopt;
  std::vector<std::string> moduli;
  const std::string tail = "%4==0";
  for (size_t k = 1; k < parts.size(); ++k) {
    const std::string& t = parts[k];
    if (t.size() <= tail.size() || t.compare(t.size() - tail.size(), tail.size(), tail) != 0) return std::nullopt;
    std::string m = t.substr(0, t.size() - tail.size());
    if (!(std::isalpha(static_cast<unsigned char>(m[0])) || m[0] == '_')) return std::nullopt;
    for (char c : m)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
    moduli.push_back(m);
  }
  return moduli;
}

class VectorizeAccess : public Transform {
 public:
  std::string id() const override { return "vectorize-access"; }
  std::string summary() const override {
    return "process 4 elements per thread with float4/int4/uint4 loads and stores in a grid-stride loop";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    long long width = intParam(req.params, "width", 4);
    if (width != 4) return TransformResult::no("only width 4 is supported (asked for " + std::to_string(width) + ")");
    const long long divisor = intParam(req.params, "grid_divisor", 4);
    if (divisor != 1 && divisor != 2 && divisor != 4)
      return TransformResult::no("grid_divisor must be 1, 2 or 4 (asked for " + std::to_string(divisor) + ")");
    auto* kbody = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!kbody) return TransformResult::no("the kernel has no body");
    if (sourceText(ctx, kbody->getSourceRange()).find("kl_") != std::string::npos)
      return TransformResult::no("the kernel already uses kl_ names (vectorized before?)");

    std::string last_why = "no top-level grid-stride loop `for (T i = <global index>; i < n; i += blockDim.x * gridDim.x)`";
    for (const clang::Stmt* s : kbody->body()) {
      auto* fs = llvm::dyn_cast<clang::ForStmt>(s);
      if (!fs || !fs->getCond() || !fs->getInc() || fs->getConditionVariable()) continue;
      auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(fs->getInit());
      if (!ds || !ds->isSingleDecl()) continue;
      auto* vd = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
      if (!vd || !vd->getInit() || !vd->getType()->isIntegerType()) continue;
      auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(fs->getInc());
      if (!isGlobalThreadIndex(ctx, vd->getInit()) || !ca || ca->getOpcode() != clang::BO_AddAssign ||
          !refersTo(ca->getLHS(), vd) || !isGridStride(ctx, ca->getRHS())) {
        last_why = "the loop is not a grid-stride loop over the global thread index";
        continue;
      }
      auto* cond = llvm::dyn_cast<clang::BinaryOperator>(fs->getCond()->IgnoreParenImpCasts());
      const clang::Expr* bound = nullptr;
      if (cond && cond->getOpcode() == clang::BO_LT && refersTo(cond->getLHS(), vd)) bound = cond->getRHS();
      if (cond && cond->getOpcode() == clang::BO_GT && refersTo(cond->getRHS(), vd)) bound = cond->getLHS();
      if (!bound) return TransformResult::no("the loop condition is not `" + vd->getNameAsString() + " < n`");
      return vectorize(req, src, fs, vd, bound, divisor);
    }
    return TransformResult::no(last_why);
  }

  // divisor: forward's validated grid_divisor (1, 2 or 4).
  TransformResult vectorize(TransformRequest& req, const Src& src, const clang::ForStmt* fs, const clang::VarDecl* vd,
                            const clang::Expr* bound, long long divisor) const {
    auto& ctx = req.ctx;
    std::string name = vd->getNameAsString();
    if (!src.inFile(fs) || !src.inFile(fs->getBody()) || !src.inFile(bound) || !src.inFile(vd->getInit()))
      return TransformResult::no("the loop is written through a macro");
    // bound: a plain name stays; anything else is hoisted (it must not read memory or call)
    const clang::Expr* b = bound->IgnoreParenImpCasts();
    bool plain = llvm::isa<clang::DeclRefExpr>(b) && bound->IgnoreImpCasts() == b;
    if (!plain) {
      struct V : clang::RecursiveASTVisitor<V> {
        bool ok = true;
        bool VisitStmt(clang::Stmt* s) {
          if (llvm::isa<clang::CallExpr>(s) || llvm::isa<clang::ArraySubscriptExpr>(s) ||
              (llvm::isa<clang::UnaryOperator>(s) && (llvm::cast<clang::UnaryOperator>(s)->getOpcode() == clang::UO_Deref ||
                                                       llvm::cast<clang::UnaryOperator>(s)->isIncrementDecrementOp())) ||
              (llvm::isa<clang::BinaryOperator>(s) && llvm::cast<clang::BinaryOperator>(s)->isAssignmentOp()) ||
              (llvm::isa<clang::MemberExpr>(s) && llvm::cast<clang::MemberExpr>(s)->isArrow()))
            ok = false;
          return ok;
        }
      } v;
      v.TraverseStmt(const_cast<clang::Expr*>(bound));
      if (!v.ok) return TransformResult::no("the loop bound reads memory or calls a function; it cannot be hoisted");
    }
    if (auto* d = referencedDecl(bound); d && d == vd) return TransformResult::no("the bound uses the loop variable");

    const clang::Stmt* body = fs->getBody();
    auto* cbody = llvm::dyn_cast<clang::CompoundStmt>(body);
    BodyScan scan(ctx, src, vd, cbody);
    scan.TraverseStmt(const_cast<clang::Stmt*>(body));
    if (!scan.why.empty()) return TransformResult::no(scan.why);
    // Row-periodic operands p[i % m] (periodicModulus) are read once per vector, at
    // (kl_v * 4 % m) / 4, behind `m % 4 == 0` and p's alignment in the vector branch's condition.
    // Only reads the body evaluates on every path (the original then reads all four elements of
    // that vector too), of a p not also read as p[i], all with one m; other gathers stay scalar.
    std::map<const clang::ParmVarDecl*, const clang::ValueDecl*> periodic;  // p -> m
    std::vector<const clang::ArraySubscriptExpr*> periodic_reads;
    {
      const std::set<const clang::ArraySubscriptExpr*> conditional = conditionalAccesses(body);
      std::set<const clang::ParmVarDecl*> dropped;
      for (const Access& a : scan.accesses) dropped.insert(a.param);  // read as p[i] too
      std::vector<std::pair<const clang::ArraySubscriptExpr*, const clang::ParmVarDecl*>> found;
      for (const clang::ArraySubscriptExpr* e : scan.gathers) {
        if (conditional.count(e)) continue;
        const clang::ValueDecl* m = periodicModulus(ctx, e, vd, scan.local, req.kernel->getBody());
        if (!m) continue;
        auto* pv = llvm::cast<clang::ParmVarDecl>(referencedDecl(e->getBase()));
        if (auto it = periodic.find(pv); it != periodic.end() && it->second != m) dropped.insert(pv);  // two moduli
        periodic[pv] = m;
        found.push_back({e, pv});
      }
      for (const clang::ParmVarDecl* pv : dropped) periodic.erase(pv);
      for (const auto& [e, pv] : found)
        if (periodic.count(pv)) periodic_reads.push_back(e);
    }
    // Every use of a pointer parameter is the base of an accepted p[i] or of a gather. Other uses
    // of i read the lane's own index, declared in each lane's scope (`const T i = kl_v * 4 + L`).
    std::set<const clang::Expr*> in_access;
    for (const clang::ArraySubscriptExpr* e : scan.accepted) {
      in_access.insert(e->getBase()->IgnoreParenImpCasts());
      in_access.insert(e->getIdx()->IgnoreParenImpCasts());
    }
    for (const clang::ArraySubscriptExpr* e : periodic_reads)  // i in p[i % m] is no lane's index
      in_access.insert(llvm::cast<clang::BinaryOperator>(e->getIdx()->IgnoreImpCasts())->getLHS()->IgnoreParenImpCasts());
    for (const clang::ArraySubscriptExpr* e : scan.gathers) in_access.insert(e->getBase()->IgnoreParenImpCasts());
    bool lane_index = false;  // i is used outside the accepted p[i]
    for (const clang::DeclRefExpr* ref : scan.used_refs) {
      if (in_access.count(ref)) continue;
      if (ref->getDecl() == vd) {
        lane_index = true;
        continue;
      }
      return TransformResult::no("the loop body uses " + ref->getDecl()->getNameAsString() + " other than as p[" + name + "]");
    }
    if (scan.accesses.empty()) return TransformResult::no("the loop body accesses no pointer parameter as p[" + name + "]");
    if (sourceText(ctx, body->getSourceRange()).find("kl_") != std::string::npos)
      return TransformResult::no("the loop body uses kl_ names (reserved for the transform)");

    // reads and writes per array
    for (const Access& a : scan.accesses) scan.arrays[a.param];
    struct RW : clang::RecursiveASTVisitor<RW> {
      BodyScan* scan;
      const clang::CompoundStmt* top;
      std::set<const clang::Expr*> lhs_plain, lhs_rw;
      bool VisitBinaryOperator(clang::BinaryOperator* bo) {
        if (bo->getOpcode() == clang::BO_Assign) lhs_plain.insert(bo->getLHS()->IgnoreParens());
        else if (bo->isCompoundAssignmentOp()) lhs_rw.insert(bo->getLHS()->IgnoreParens());
        return true;
      }
      bool VisitUnaryOperator(clang::UnaryOperator* uo) {
        if (uo->isIncrementDecrementOp()) lhs_rw.insert(uo->getSubExpr()->IgnoreParens());
        return true;
      }
    } rw;
    rw.scan = &scan;
    rw.top = cbody;
    rw.TraverseStmt(const_cast<clang::Stmt*>(body));
    std::set<const clang::Expr*> always;  // p[i] = ... as a statement of the body itself
    if (cbody) {
      for (const clang::Stmt* s : cbody->body())
        if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(s); bo && bo->getOpcode() == clang::BO_Assign)
          always.insert(bo->getLHS()->IgnoreParens());
    } else if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(body); bo && bo->getOpcode() == clang::BO_Assign) {
      always.insert(bo->getLHS()->IgnoreParens());
    }
    for (const clang::ArraySubscriptExpr* e : scan.accepted) {
      auto* pv = llvm::cast<clang::ParmVarDecl>(referencedDecl(e->getBase()));
      ArrayUse& u = scan.arrays[pv];
      if (rw.lhs_plain.count(e)) {
        u.written = true;
        if (always.count(e)) u.written_always = true;
      } else if (rw.lhs_rw.count(e)) {
        u.written = u.read = true;
      } else {
        u.read = true;
      }
    }
    for (auto& [pv, u] : scan.arrays)
      if (u.written && pv->getType()->getPointeeType().isConstQualified())
        return TransformResult::no(pv->getNameAsString() + " is written through a pointer to const");
    // A gather reads an array nothing in the loop stores to: another lane's store cannot reach it.
    for (const clang::ArraySubscriptExpr* e : scan.gathers) {
      auto* pv = llvm::cast<clang::ParmVarDecl>(referencedDecl(e->getBase()));
      const std::string at = pv->getNameAsString() + "[" + sourceText(ctx, e->getIdx()->getSourceRange()) + "]";
      if (rw.lhs_plain.count(e) || rw.lhs_rw.count(e))
        return TransformResult::no("the loop body stores to " + at + ", not to " + pv->getNameAsString() + "[" + name + "]");
      if (auto it = scan.arrays.find(pv); it != scan.arrays.end() && it->second.written)
        return TransformResult::no("the loop body reads " + at + " and stores to " + pv->getNameAsString() + "[" + name +
                                   "]: another element's lane may write what it reads");
    }

    // the text
    unsigned f0 = src.off(fs->getBeginLoc()), f1 = src.stmtEnd(fs);
    std::string I = src.indentOf(f0);
    std::string I2 = I + "  ", I4 = I2 + "  ", I6 = I4 + "  ";
    std::string type = vd->getType().getUnqualifiedType().getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
    {
      // the loop variable's type as written (int, unsigned, size_t...)
      std::string written = sourceText(ctx, clang::SourceRange(fs->getInit()->getBeginLoc(), vd->getLocation()));
      if (written.size() > name.size()) {
        std::string t = written.substr(0, written.size() - name.size());
        while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.pop_back();
        if (!t.empty() && t.find("auto") == std::string::npos && t.find("const") == std::string::npos) type = t;
      }
    }
    std::string index = sourceText(ctx, vd->getInit()->getSourceRange());
    std::string stride = sourceText(ctx, llvm::cast<clang::CompoundAssignOperator>(fs->getInc())->getRHS()->getSourceRange());
    std::string n = sourceText(ctx, bound->getSourceRange());
    std::string hoist;
    if (!plain) {
      std::string bt = bound->getType().getUnqualifiedType().getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
      hoist = "const " + bt + " kl_n = " + n + ";\n" + I;
      n = "kl_n";
    }
    // params in declaration order
    std::vector<const clang::ParmVarDecl*> order;
    for (const clang::ParmVarDecl* pv : req.kernel->parameters())
      if (scan.arrays.count(pv) || periodic.count(pv)) order.push_back(pv);
    std::vector<std::string> names, moduli;
    for (const clang::ParmVarDecl* pv : order) {
      names.push_back(pv->getNameAsString());
      if (auto it = periodic.find(pv); it != periodic.end()) {
        const std::string m = it->second->getNameAsString();
        if (std::find(moduli.begin(), moduli.end(), m) == moduli.end()) moduli.push_back(m);
      }
    }
    std::string check = alignmentCheck(names);
    for (const std::string& m : moduli) check += " && " + m + " % 4 == 0";

    std::string out = hoist + "if (" + check + ") {\n";
    out += I2 + "for (" + type + " kl_v = " + index + "; kl_v < " + n + " / 4; kl_v += " + stride + ") {\n";
    for (const clang::ParmVarDecl* pv : order) {
      std::string vt = vectorType(ctx, elementType(pv));
      std::string p = pv->getNameAsString();
      if (auto it = periodic.find(pv); it != periodic.end()) {
        out += I4 + vt + " kl_" + p + " = " + vectorLoad(vt, p, periodicIndex(it->second->getNameAsString())) + ";\n";
        continue;
      }
      const ArrayUse& u = scan.arrays[pv];
      if (u.read || !u.written_always)
        out += I4 + vt + " kl_" + p + " = " + vectorLoad(vt, p, "kl_v") + ";\n";
      else
        out += I4 + vt + " kl_" + p + ";\n";
    }
    // lanes: the body with p[i] -> kl_p.<lane>
    unsigned b0, b1;
    if (cbody) {
      b0 = src.off(cbody->getLBracLoc()) + 1;
      b1 = src.off(cbody->getRBracLoc());
    } else {
      b0 = src.off(body->getBeginLoc());
      b1 = src.stmtEnd(body);
    }
    std::vector<Access> acc = scan.accesses;
    for (const clang::ArraySubscriptExpr* e : periodic_reads)  // p[i % m] -> kl_p.<lane>, as p[i]
      acc.push_back({llvm::cast<clang::ParmVarDecl>(referencedDecl(e->getBase())), src.off(e->getBeginLoc()),
                     src.tokEnd(e->getEndLoc())});
    std::sort(acc.begin(), acc.end(), [](const Access& a, const Access& b) { return a.begin < b.begin; });
    int lane_no = 0;
    for (const char* lane : {"x", "y", "z", "w"}) {
      std::string text;
      const std::string lane_decl =
          lane_index ? I6 + "const " + type + " " + name + " = kl_v * 4 + " + std::to_string(lane_no) + ";\n" : "";
      ++lane_no;
      unsigned pos = b0;
      for (const Access& a : acc) {
        if (a.begin < pos || a.end > b1) return TransformResult::no("overlapping accesses in the loop body");
        text += src.slice(pos, a.begin) + "kl_" + a.param->getNameAsString() + "." + lane;
        pos = a.end;
      }
      text += src.slice(pos, b1);
      out += I4 + "{\n" + lane_decl + reindentBlock(text, I6) + I4 + "}\n";
    }
    for (const clang::ParmVarDecl* pv : order)
      if (scan.arrays.count(pv) && scan.arrays[pv].written) {
        std::string vt = vectorType(ctx, elementType(pv));
        out += I4 + "reinterpret_cast<" + vt + "*>(" + pv->getNameAsString() + ")[kl_v] = kl_" + pv->getNameAsString() + ";\n";
      }
    out += I2 + "}\n";
    // the n % 4 tail: the original loop from (n / 4) * 4
    unsigned rp = src.off(fs->getRParenLoc()) + 1;
    out += I2 + "for (" + type + " " + name + " = (" + n + " / 4) * 4 + " + index + "; " + name + " < " + n + "; " +
           sourceText(ctx, fs->getInc()->getSourceRange()) + ")" + indentRest(src.slice(rp, f1), "  ") + "\n";
    out += I + "} else {\n" + I2 + indentRest(src.slice(f0, f1), "  ") + "\n" + I + "}";
    if (req.rewriter.ReplaceText(src.at(f0), f1 - f0, out)) return TransformResult::no("the rewriter refused the edit");
    // grid.x / 4 gives a grid that covered n one element a thread one vector a thread; a launcher
    // that capped its grid (a grid-stride kernel sized to the GPU) keeps it with grid_divisor 1
    // (checked in forward).
    GeometryChange g;
    g.grid_x_divisor = static_cast<unsigned>(divisor);
    std::string arrays;
    for (const clang::ParmVarDecl* pv : order) {
      arrays += (arrays.empty() ? "" : ", ") + pv->getNameAsString();
      if (auto it = periodic.find(pv); it != periodic.end()) arrays += "[" + name + " % " + it->second->getNameAsString() + "]";
    }
    std::string when = " behind an alignment check";
    for (const std::string& m : moduli) when += " and " + m + " % 4 == 0";
    return TransformResult::yes("4-wide vector accesses to " + arrays + when +
                                    (divisor > 1 ? "; grid.x / " + std::to_string(divisor) : "; the grid is kept"), g);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    auto* kbody = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!kbody) return TransformResult::no("the kernel has no body");
    std::vector<const clang::Stmt*> stmts(kbody->body_begin(), kbody->body_end());
    for (size_t k = 0; k < stmts.size(); ++k) {
      auto* is = llvm::dyn_cast<clang::IfStmt>(stmts[k]);
      if (!is || !is->getElse()) continue;
      const std::optional<std::vector<std::string>> moduli = vectorCondition(sourceText(ctx, is->getCond()->getSourceRange()));
      if (!moduli) continue;
      auto* then = llvm::dyn_cast<clang::CompoundStmt>(is->getThen());
      auto* els = llvm::dyn_cast<clang::CompoundStmt>(is->getElse());
      if (!then || !els || then->size() != 2 || els->size() != 1) continue;
      // each `m % 4 == 0` guards a row-periodic vector read, `[(kl_v * 4 % m) / 4]`
      const std::string vector_text = squeeze(sourceText(ctx, then->body_front()->getSourceRange()));
      if (std::any_of(moduli->begin(), moduli->end(), [&](const std::string& m) {
            return vector_text.find(squeeze("[" + periodicIndex(m) + "]")) == std::string::npos;
          }))
        continue;
      auto* vloop = llvm::dyn_cast<clang::ForStmt>(then->body_front());
      auto* orig = llvm::dyn_cast<clang::ForStmt>(els->body_front());
      if (!vloop || !orig || !llvm::isa<clang::ForStmt>(then->body_back())) continue;
      auto* vds = llvm::dyn_cast_or_null<clang::DeclStmt>(vloop->getInit());
      if (!vds || !vds->isSingleDecl() || llvm::cast<clang::NamedDecl>(vds->getSingleDecl())->getNameAsString() != "kl_v")
        continue;
      if (!src.inFile(is) || !src.inFile(orig)) return TransformResult::no("the vectorized code is written through a macro");
      unsigned start = src.off(is->getBeginLoc());
      if (k > 0)
        if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(stmts[k - 1]); ds && ds->isSingleDecl())
          if (auto* nd = llvm::dyn_cast<clang::NamedDecl>(ds->getSingleDecl()); nd && nd->getNameAsString() == "kl_n") {
            if (!src.inFile(ds)) return TransformResult::no("kl_n is written through a macro");
            start = src.off(ds->getBeginLoc());
          }
      unsigned end = src.stmtEnd(is);
      std::string loop = dedentRest(src.slice(src.off(orig->getBeginLoc()), src.stmtEnd(orig)), "  ");
      if (req.rewriter.ReplaceText(src.at(start), end - start, loop))
        return TransformResult::no("the rewriter refused the edit");
      const long long divisor = intParam(req.params, "grid_divisor", 4);
      if (divisor != 1 && divisor != 2 && divisor != 4)
        return TransformResult::no("grid_divisor must be 1, 2 or 4 (asked for " + std::to_string(divisor) + ")");
      GeometryChange g;
      g.grid_x_multiplier = static_cast<unsigned>(divisor);  // forward's grid.x / grid_divisor undone
      return TransformResult::yes("back to the scalar grid-stride loop" +
                                      (divisor > 1 ? ", grid.x * " + std::to_string(divisor) : std::string()), g);
    }
    return TransformResult::no("no vectorized loop (alignment check with a kl_v loop and the scalar loop in the else branch)");
  }
};

}  // namespace
std::unique_ptr<Transform> makeVectorizeAccess() { return std::make_unique<VectorizeAccess>(); }
}  // namespace klineage
