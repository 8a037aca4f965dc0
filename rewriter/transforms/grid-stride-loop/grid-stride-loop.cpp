// grid-stride-loop: one element per thread  ->  a grid-stride loop over the elements.
//   T i = blockIdx.x * blockDim.x + threadIdx.x;        for (T i = blockIdx.x * blockDim.x + threadIdx.x;
//   if (i < n) S                                   ->        i < n; i += blockDim.x * gridDim.x) S
// The early-return form `if (i >= n) return; REST` becomes the same loop over `{ REST }`.
// Why it can pay: the kernel no longer needs one thread per element, so the launch may use a
// grid sized to the device (fewer blocks, amortized index math), and it is the shape
// vectorize-access needs. When T is 64-bit the stride is computed in T: (T)blockDim.x * gridDim.x.
// When it is sound: for any grid (GeometryChange none), provided each element's work is
// independent of the thread doing it. So the transform refuses when the guarded region has a
// barrier or warp collective (features/intrinsics.h; threads would run different trip counts),
// return/goto, break or continue aimed at the new loop, __shared__ declarations, any use of
// threadIdx/blockIdx/blockDim/gridDim, assigns i or a variable declared outside the region
// (state would carry across iterations), when the bound reads memory or calls, or when the kernel
// already has a grid-stride loop. Statements between the index and the guard must not use i; they stay before
// the loop.
// Inverse: for (T i = <index>; i < n; i += <grid stride>) S  ->  T i = <index>;  if (i < n) S.
// It is only correct when the launch grid covers n (every element gets its own thread); the
// transform cannot see the launches, so the caller checks that fact.
#include <set>

#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

#include "rewriter/ast_util.h"
#include "rewriter/loop_depth.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

// Offsets into the main file's buffer (all edits here are computed on the text as written).
using Src = SourceBuffer;

bool refersTo(const clang::Expr* e, const clang::ValueDecl* d) { return e && referencedDecl(e) == d; }

// Why the statements of a guarded region cannot become a loop body ("" when they can).
struct RegionScan : LoopDepthVisitor<RegionScan> {
  const clang::ValueDecl* index = nullptr;
  std::set<const clang::ValueDecl*> local;
  bool control_only = false;  // only break/continue aimed at the loop and changes to the index
  std::string why;
  bool fail(const std::string& w) {
    if (why.empty()) why = w;
    return false;
  }
  bool VisitReturnStmt(clang::ReturnStmt*) { return control_only || fail("the guarded code returns"); }
  bool VisitGotoStmt(clang::GotoStmt*) { return control_only || fail("the guarded code uses goto"); }
  bool VisitGCCAsmStmt(clang::GCCAsmStmt*) { return control_only || fail("the guarded code has inline asm"); }
  bool VisitBreakStmt(clang::BreakStmt*) {
    return loops || switches ? true : fail("the guarded code has a break that would leave the new loop");
  }
  bool VisitContinueStmt(clang::ContinueStmt*) {
    return loops ? true : fail("the guarded code has a continue that would apply to the new loop");
  }
  bool VisitVarDecl(clang::VarDecl* vd) {
    local.insert(vd);
    if (control_only) return true;
    if (vd->hasAttr<clang::CUDASharedAttr>()) return fail("the guarded code declares __shared__ memory");
    if (vd->isStaticLocal()) return fail("the guarded code declares a static local");
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* c) {
    std::string n = calleeName(c);
    if (control_only) return true;
    auto kind = intrinsicKind(n);
    if (kind && *kind != IntrinsicKind::Atomic)
      return fail("the guarded code calls " + n + " (" + describe(*kind) + ")");
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    std::string n = e->getDecl()->getNameAsString();
    if (control_only) return true;
    if (isBuiltinGeometry(n)) return fail("the guarded code uses " + n);
    return true;
  }
  bool target(const clang::Expr* lhs, const char* how) {
    const clang::ValueDecl* d = referencedDecl(assignedBase(lhs));
    if (!d) return true;
    if (d == index) return fail(std::string("the guarded code ") + how + " the index " + d->getNameAsString());
    if (!control_only && llvm::isa<clang::VarDecl>(d) && !local.count(d))
      return fail(std::string("the guarded code ") + how + " " + d->getNameAsString() +
                  ", declared outside it (state would carry across loop iterations)");
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    return bo->isAssignmentOp() ? target(bo->getLHS(), "assigns") : true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->isIncrementDecrementOp()) return target(uo->getSubExpr(), "modifies");
    if (uo->getOpcode() == clang::UO_AddrOf) return target(uo->getSubExpr(), "takes the address of");
    return true;
  }
};

std::string scanRegion(const std::vector<const clang::Stmt*>& region, const clang::ValueDecl* index) {
  RegionScan scan;
  scan.index = index;
  for (const clang::Stmt* s : region) {
    scan.TraverseStmt(const_cast<clang::Stmt*>(s));
    if (!scan.why.empty()) return scan.why;
  }
  return "";
}

// True when the expression only combines names, constants and arithmetic (no memory, no calls):
// it can be re-evaluated by the loop condition with the same value.
bool simpleBound(const clang::Expr* e) {
  struct V : clang::RecursiveASTVisitor<V> {
    bool ok = true;
    bool VisitStmt(clang::Stmt* s) {
      if (llvm::isa<clang::DeclRefExpr>(s) || llvm::isa<clang::IntegerLiteral>(s) || llvm::isa<clang::ParenExpr>(s) ||
          llvm::isa<clang::ImplicitCastExpr>(s) || llvm::isa<clang::CStyleCastExpr>(s) ||
          llvm::isa<clang::CXXStaticCastExpr>(s) || llvm::isa<clang::CXXFunctionalCastExpr>(s) ||
          llvm::isa<clang::MemberExpr>(s) || llvm::isa<clang::OpaqueValueExpr>(s) ||
          llvm::isa<clang::CXXBoolLiteralExpr>(s) || llvm::isa<clang::ConstantExpr>(s) ||
          llvm::isa<clang::ConditionalOperator>(s))
        return true;
      if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(s)) {
        if (!bo->isAssignmentOp() && bo->getOpcode() != clang::BO_Comma) return true;
      }
      if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(s)) {
        if (!uo->isIncrementDecrementOp() && uo->getOpcode() != clang::UO_Deref && uo->getOpcode() != clang::UO_AddrOf)
          return true;
      }
      if (auto* me = llvm::dyn_cast<clang::MemberExpr>(s)) return !me->isArrow();
      ok = false;
      return false;
    }
  } v;
  v.TraverseStmt(const_cast<clang::Expr*>(e));
  return v.ok;
}

// A grid-stride loop anywhere in a statement (`... += blockDim.x * gridDim.x`).
bool hasGridStrideLoop(clang::ASTContext& ctx, const clang::Stmt* body) {
  return !findAllIn<clang::ForStmt>(ctx, body, cuda::gridStrideLoop(), "loop").empty();
}

// `T i = <global thread index>` declared by a statement, or null.
const clang::VarDecl* indexDecl(clang::ASTContext& ctx, const clang::Stmt* s) {
  auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(s);
  if (!ds || !ds->isSingleDecl()) return nullptr;
  auto* vd = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
  if (!vd || !vd->getInit() || !vd->getType()->isIntegerType() || vd->getType()->isReferenceType()) return nullptr;
  if (vd->isStaticLocal() || vd->hasAttr<clang::CUDASharedAttr>()) return nullptr;
  if (!isGlobalThreadIndex(ctx, vd->getInit())) return nullptr;
  return vd;
}

// The declared type as written, without const ("const int" -> "int"); the AST's type for auto.
std::string typeText(const clang::ASTContext& ctx, const Src& src, const clang::VarDecl* vd, unsigned begin) {
  std::string written = src.slice(begin, src.off(vd->getLocation()));
  std::vector<std::string> words;
  std::string w;
  for (char c : written + " ") {
    if (c == ' ' || c == '\t' || c == '\n') {
      if (!w.empty() && w != "const") words.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  std::string out;
  for (const auto& x : words) out += (out.empty() ? "" : " ") + x;
  if (out.find("auto") != std::string::npos || out.find_first_of("*&[") != std::string::npos || out.empty())
    out = vd->getType().getUnqualifiedType().getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
  return out;
}

class GridStrideLoop : public Transform {
 public:
  std::string id() const override { return "grid-stride-loop"; }
  std::string summary() const override {
    return "turn a one-element-per-thread guard (if (i < n) / if (i >= n) return) into a grid-stride loop";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    if (hasGridStrideLoop(ctx, body)) return TransformResult::no("the kernel already has a grid-stride loop");
    std::vector<const clang::Stmt*> stmts(body->body_begin(), body->body_end());

    size_t at = 0;
    const clang::VarDecl* vd = nullptr;
    for (; at < stmts.size() && !vd; ++at) vd = indexDecl(ctx, stmts[at]);
    if (!vd)
      return TransformResult::no("no top-level `T i = blockIdx.x * blockDim.x + threadIdx.x;` index declaration");
    const clang::Stmt* decl = stmts[at - 1];
    std::string name = vd->getNameAsString();

    // The guard: the first top-level statement after the index that uses it.
    const clang::IfStmt* guard = nullptr;
    size_t g = at;
    for (; g < stmts.size(); ++g) {
      if (!usesDecl(stmts[g], vd)) continue;
      guard = llvm::dyn_cast<clang::IfStmt>(stmts[g]);
      if (!guard) return TransformResult::no(name + " is used before a bounds guard `if (" + name + " < n)`");
      break;
    }
    if (!guard) return TransformResult::no("no bounds guard `if (" + name + " < n)` on the index " + name);
    if (guard->getInit() || guard->getConditionVariable() || guard->isConstexpr())
      return TransformResult::no("the bounds guard has an init statement or a condition variable");
    auto* cond = llvm::dyn_cast<clang::BinaryOperator>(guard->getCond()->IgnoreParenImpCasts());
    if (!cond) return TransformResult::no("the guard on " + name + " is not a comparison `" + name + " < n`");
    const clang::Expr* bound = nullptr;
    bool early_return = false;
    auto op = cond->getOpcode();
    bool lhs_i = refersTo(cond->getLHS(), vd), rhs_i = refersTo(cond->getRHS(), vd);
    if ((op == clang::BO_LT && lhs_i) || (op == clang::BO_GT && rhs_i)) {
      bound = op == clang::BO_LT ? cond->getRHS() : cond->getLHS();
    } else if ((op == clang::BO_GE && lhs_i) || (op == clang::BO_LE && rhs_i)) {
      bound = op == clang::BO_GE ? cond->getRHS() : cond->getLHS();
      early_return = true;
    } else {
      return TransformResult::no("the guard on " + name + " is not `" + name + " < n` or `" + name + " >= n`");
    }
    if (usesDecl(bound, vd)) return TransformResult::no("the bound of the guard uses " + name);
    if (!simpleBound(bound)) return TransformResult::no("the bound of the guard reads memory or calls a function");

    std::vector<const clang::Stmt*> region;
    if (early_return) {
      const clang::Stmt* then = guard->getThen();
      if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(then); cs && cs->size() == 1) then = cs->body_front();
      auto* ret = llvm::dyn_cast<clang::ReturnStmt>(then);
      if (!ret || ret->getRetValue() || guard->getElse())
        return TransformResult::no("the guard `" + name + " >= n` is not followed by a plain return");
      if (g + 1 == stmts.size()) return TransformResult::no("nothing follows the early return");
      region.assign(stmts.begin() + g + 1, stmts.end());
    } else {
      if (guard->getElse()) return TransformResult::no("the bounds guard has an else branch");
      if (g + 1 != stmts.size()) return TransformResult::no("the bounds guard is not the last statement of the kernel");
      region.push_back(guard->getThen());
    }
    if (std::string why = scanRegion(region, vd); !why.empty()) return TransformResult::no(why);

    // Text positions (everything must be written in the main file, outside macros).
    if (!src.inFile(decl) || !src.inFile(guard) || !src.inFile(body->getRBracLoc()) || !src.inFile(bound))
      return TransformResult::no("the index, the guard or the body is written through a macro");
    for (const clang::Stmt* s : region)
      if (!src.inFile(s)) return TransformResult::no("the guarded code is written through a macro");

    std::string type = typeText(ctx, src, vd, src.off(decl->getBeginLoc()));
    bool wide = ctx.getTypeSize(vd->getType()) >= 64;
    std::string stride = wide ? "(" + type + ")blockDim.x * gridDim.x" : "blockDim.x * gridDim.x";
    std::string index = sourceText(ctx, vd->getInit()->getSourceRange());
    std::string bound_text = sourceText(ctx, bound->getSourceRange());
    std::string cond_text = !early_return && op == clang::BO_LT ? sourceText(ctx, guard->getCond()->getSourceRange())
                                                                : name + " < " + bound_text;
    std::string header =
        "for (" + type + " " + name + " = " + index + "; " + cond_text + "; " + name + " += " + stride + ")";

    // 1. the index declaration goes (with its line when it is alone on it)
    unsigned d0 = src.off(decl->getBeginLoc()), d1 = src.stmtEnd(decl);
    size_t eol = src.restOfLineBlank(d1);
    if (src.blankBefore(d0) && eol != std::string::npos) {
      d0 = src.lineStart(d0);
      d1 = static_cast<unsigned>(eol);
    } else {
      while (d1 < src.text.size() && (src.text[d1] == ' ' || src.text[d1] == '\t')) ++d1;
    }
    unsigned if0 = src.off(guard->getBeginLoc());
    if (d1 > if0) return TransformResult::no("the index declaration and the guard share a line");

    if (!early_return) {
      // 2a. `if (cond)` becomes the loop header; the guarded statement is kept as written.
      unsigned if1 = src.off(guard->getRParenLoc()) + 1;
      if (req.rewriter.RemoveText(src.at(d0), d1 - d0) ||
          req.rewriter.ReplaceText(src.at(if0), if1 - if0, header))
        return TransformResult::no("the rewriter refused the edit");
      return TransformResult::yes("grid-stride loop over " + name + " < " + bound_text);
    }
    // 2b. `if (i >= n) return; REST` becomes `for (...) { REST }`.
    size_t after_guard = src.restOfLineBlank(src.stmtEnd(guard));
    unsigned close = src.off(body->getRBracLoc());
    if (after_guard == std::string::npos || !src.blankBefore(close))
      return TransformResult::no("the early return or the kernel's closing brace shares a line with other code");
    std::string indent = src.indentOf(if0);
    unsigned rest0 = static_cast<unsigned>(after_guard), rest1 = src.lineStart(close);
    std::string text = header + " {\n" + indentLines(src.slice(rest0, rest1), "  ") + indent + "}\n";
    if (req.rewriter.RemoveText(src.at(d0), d1 - d0) || req.rewriter.ReplaceText(src.at(if0), rest1 - if0, text))
      return TransformResult::no("the rewriter refused the edit");
    return TransformResult::yes("grid-stride loop over " + name + " < " + bound_text + " (from an early return)");
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    std::vector<const clang::Stmt*> stmts(body->body_begin(), body->body_end());
    for (size_t k = 0; k < stmts.size(); ++k) {
      auto* fs = llvm::dyn_cast<clang::ForStmt>(stmts[k]);
      if (!fs || !fs->getCond() || !fs->getInc() || fs->getConditionVariable()) continue;
      const clang::VarDecl* vd = indexDecl(ctx, fs->getInit());
      if (!vd) continue;
      auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(fs->getInc());
      if (!ca || ca->getOpcode() != clang::BO_AddAssign || !refersTo(ca->getLHS(), vd) ||
          !isGridStride(ctx, ca->getRHS()))
        continue;
      auto* cond = llvm::dyn_cast<clang::BinaryOperator>(fs->getCond()->IgnoreParenImpCasts());
      if (!cond || !((cond->getOpcode() == clang::BO_LT && refersTo(cond->getLHS(), vd)) ||
                     (cond->getOpcode() == clang::BO_GT && refersTo(cond->getRHS(), vd))))
        continue;
      std::string name = vd->getNameAsString();
      // The body runs once: break/continue aimed at the loop would no longer compile, and a body
      // that moves the index relies on the loop.
      RegionScan scan;
      scan.index = vd;
      scan.control_only = true;
      scan.TraverseStmt(const_cast<clang::Stmt*>(fs->getBody()));
      if (!scan.why.empty())
        return TransformResult::no("the grid-stride loop over " + name + " cannot run once: " + scan.why);
      for (size_t later = k + 1; later < stmts.size(); ++later)
        if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(stmts[later]))
          for (auto* d : ds->decls())
            if (auto* nd = llvm::dyn_cast<clang::NamedDecl>(d); nd && nd->getNameAsString() == name)
              return TransformResult::no("a later declaration of " + name + " would clash");
      if (!src.inFile(fs) || !src.inFile(fs->getInit()) || !src.inFile(fs->getCond()))
        return TransformResult::no("the loop is written through a macro");
      unsigned f0 = src.off(fs->getBeginLoc()), f1 = src.off(fs->getRParenLoc()) + 1;
      std::string decl = sourceText(ctx, clang::SourceRange(fs->getInit()->getBeginLoc(), vd->getInit()->getEndLoc()));
      std::string text = decl + ";\n" + src.indentOf(f0) + "if (" + sourceText(ctx, fs->getCond()->getSourceRange()) + ")";
      if (req.rewriter.ReplaceText(src.at(f0), f1 - f0, text)) return TransformResult::no("the rewriter refused the edit");
      return TransformResult::yes("one element per thread: " + name + " guarded by " +
                                  sourceText(ctx, fs->getCond()->getSourceRange()) +
                                  " (correct only when the grid covers the bound)");
    }
    return TransformResult::no("no top-level grid-stride loop `for (T i = <global index>; i < n; i += blockDim.x * gridDim.x)`");
  }
};

}  // namespace
std::unique_ptr<Transform> makeGridStrideLoop() { return std::make_unique<GridStrideLoop>(); }
}  // namespace klineage
