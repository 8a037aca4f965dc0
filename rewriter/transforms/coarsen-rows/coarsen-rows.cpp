// coarsen-rows: a 2-D kernel with one output row per thread  ->  R consecutive rows per thread.
//   T row = blockIdx.y * blockDim.y + threadIdx.y;     #pragma unroll
//   REST                                          ->   for (int kl_r = 0; kl_r < R; ++kl_r) {
//                                                        T row = (blockIdx.y * blockDim.y + threadIdx.y) * R + kl_r;
//                                                        REST
//                                                      }
// and the launch's grid.y / R (GeometryChange grid_y_divisor; the block is unchanged).
// Why it can pay: a stencil's neighbouring rows are the same thread's loads now (the compiler keeps
// the shared rows in registers when the pointers are __restrict__), each thread has R independent
// rows of work in flight, and the index arithmetic is amortized. Measured before writing it
// (bench/shape_probe.cu, H100): a 5-point stencil 1.28x and a 3x3 8-bit box blur 1.20x with R = 4,
// where a shared-memory halo tile was 0.66x and 0.59x and a wider block alone 1.02-1.05x.
// When it is sound: iteration r of thread (x, y) does exactly what the original thread of row
// (blockIdx.y * blockDim.y + threadIdx.y) * R + r and the same x did, so the transform refuses
// whatever would tell them apart: threadIdx.y, blockIdx.y or gridDim.y used anywhere but the row's
// declaration; state carried between iterations (REST assigning or taking the address of a
// variable declared before it, or the row); return, goto, break/continue out of the loop; block or
// warp cooperation (barriers, warp collectives, __shared__ memory: the block's threads no longer
// run the same rows together); statements before the row that do more than declare (they run once
// per thread, where R original threads ran them); and `kl_` names. The rows now reach
// ceil(grid.y / R) * R * blockDim.y: every statement of REST with an effect must sit under a guard
// `row < B` (any conjunct of its condition, B free of row, memory reads and calls), so the extra
// rows do nothing when the original grid covered B (the same assumption as tile-transpose's grid).
// Param block_x (the skill coarsen-rows-wide): the block also becomes block_x x (bx * by / block_x)
// (same threads, wider rows of threads; GeometryChange block_x/block_y, grid.x * bx / block_x,
// grid.y * by / (by' * R)). It then needs the block every launch uses, and refuses any read of the
// thread geometry other than the row's declaration and one declaration of the global x index, and
// any effect not under a guard bounding that column too (the grid reaches more columns).
// Inverse (un-coarsen): a last top-level `for (int r = 0; r < R; ++r)` (R a literal >= 2, with or
// without `#pragma unroll`) whose body starts with `T row = (Y) * R + r;` (Y the y index above,
// either operand order) and otherwise obeys the rules above becomes that body with `T row = Y;`,
// and grid.y * R; the body's indentation is taken back by the loop's.
#include <numeric>
#include <set>

#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/loop_depth.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

using Src = SourceBuffer;

// blockIdx.y * blockDim.y + threadIdx.y (any operand order, integer casts).
bool isRowIndex(clang::ASTContext& ctx, const clang::Expr* e) {
  using namespace cuda;
  auto m = ignoringIndexCasts(binaryOperator(
      hasOperatorName("+"),
      hasOperands(ignoringIndexCasts(builtinMember("threadIdx", "y")),
                  ignoringIndexCasts(binaryOperator(hasOperatorName("*"),
                                                    hasOperands(ignoringIndexCasts(builtinMember("blockIdx", "y")),
                                                                ignoringIndexCasts(builtinMember("blockDim", "y"))))))));
  return e && !clang::ast_matchers::match(clang::ast_matchers::expr(m), *e, ctx).empty();
}

// A plain `T v = <init>;` integer local, or null.
const clang::VarDecl* plainIntDecl(const clang::Stmt* s) {
  auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(s);
  if (!ds || !ds->isSingleDecl()) return nullptr;
  auto* vd = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
  if (!vd || !vd->getInit() || !vd->getType()->isIntegerType() || vd->getType()->isReferenceType()) return nullptr;
  if (vd->isStaticLocal() || vd->hasAttr<clang::CUDASharedAttr>()) return nullptr;
  return vd;
}

// Why the statements that become (or are) one iteration cannot run as one original thread ("" when
// they can). `outside`: the variables declared before them (never written, never addressed).
struct IterationScan : LoopDepthVisitor<IterationScan> {
  const clang::ValueDecl* row = nullptr;
  const clang::ValueDecl* counter = nullptr;  // inverse: the loop's counter, read only by the row
  std::set<const clang::ValueDecl*> local;
  std::string why;
  bool y_geometry = false;  // threadIdx.y, blockIdx.y or gridDim.y seen
  bool fail(const std::string& w) {
    if (why.empty()) why = w;
    return false;
  }
  bool VisitReturnStmt(clang::ReturnStmt*) { return fail("the rows' code returns"); }
  bool VisitGotoStmt(clang::GotoStmt*) { return fail("the rows' code uses goto"); }
  bool VisitGCCAsmStmt(clang::GCCAsmStmt*) { return fail("the rows' code has inline asm"); }
  bool VisitBreakStmt(clang::BreakStmt*) {
    return loops || switches ? true : fail("the rows' code has a break out of the row loop");
  }
  bool VisitContinueStmt(clang::ContinueStmt*) {
    return loops ? true : fail("the rows' code has a continue of the row loop");
  }
  bool VisitVarDecl(clang::VarDecl* vd) {
    local.insert(vd);
    if (vd->hasAttr<clang::CUDASharedAttr>()) return fail("the rows' code declares __shared__ memory");
    if (vd->isStaticLocal()) return fail("the rows' code declares a static local");
    if (vd->getName().startswith("kl_")) return fail("the kernel already declares kl_ names");
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* c) {
    std::string n = calleeName(c);
    auto kind = intrinsicKind(n);
    if (kind && *kind != IntrinsicKind::Atomic) return fail("the rows' code calls " + n + " (" + describe(*kind) + ")");
    return true;
  }
  bool VisitPseudoObjectExpr(clang::PseudoObjectExpr* e) {
    for (const char* var : {"threadIdx", "blockIdx", "gridDim"})
      if (cuda::isBuiltinMember(e, var, "y")) {
        y_geometry = true;
        return fail(std::string("the rows' code uses ") + var +
                    ".y (it differs between a row's original thread and the thread that runs it now)");
      }
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    if (counter && e->getDecl() == counter) return fail("the row loop's counter is used beyond the row's declaration");
    if (e->getDecl()->hasAttr<clang::CUDASharedAttr>()) return fail("the rows' code uses __shared__ memory");
    return true;
  }
  bool target(const clang::Expr* lhs, const char* how) {
    const clang::ValueDecl* d = referencedDecl(assignedBase(lhs));
    if (!d) return true;
    if (d == row) return fail(std::string("the rows' code ") + how + " the row " + d->getNameAsString());
    if (llvm::isa<clang::VarDecl>(d) && !local.count(d))
      return fail(std::string("the rows' code ") + how + " " + d->getNameAsString() +
                  ", declared before it (state would carry from one row to the next)");
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

// Only names, constants and arithmetic: the same value on every row.
bool plainBound(const clang::Expr* e) {
  struct V : clang::RecursiveASTVisitor<V> {
    bool ok = true;
    bool VisitStmt(clang::Stmt* s) {
      if (llvm::isa<clang::DeclRefExpr, clang::IntegerLiteral, clang::ParenExpr, clang::ImplicitCastExpr,
                    clang::CStyleCastExpr, clang::CXXStaticCastExpr, clang::CXXFunctionalCastExpr, clang::ConstantExpr>(
              s))
        return true;
      if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(s); bo && !bo->isAssignmentOp() && !bo->isCommaOp())
        return true;
      if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(s);
          uo && (uo->getOpcode() == clang::UO_Minus || uo->getOpcode() == clang::UO_Plus))
        return true;
      ok = false;
      return false;
    }
  } v;
  v.TraverseStmt(const_cast<clang::Expr*>(e));
  return v.ok;
}

// Whether evaluating e may change memory or state: an assignment, ++/--, or a call other than the
// CUDA geometry getters and functions of system headers (math) that the intrinsics list does not
// name (atomics, barriers, warp collectives). Clang's HasSideEffects counts the getters behind
// threadIdx.x as possible effects, and with IncludePossibleEffects off it forgives every call.
bool hasEffects(clang::ASTContext& ctx, const clang::Expr* e) {
  struct V : clang::RecursiveASTVisitor<V> {
    clang::ASTContext& ctx;
    bool effect = false;
    explicit V(clang::ASTContext& c) : ctx(c) {}
    bool TraversePseudoObjectExpr(clang::PseudoObjectExpr* p) {
      for (const char* var : {"threadIdx", "blockIdx", "blockDim", "gridDim"})
        for (const char* f : {"x", "y", "z"})
          if (cuda::isBuiltinMember(p, var, f)) return true;
      effect = true;
      return false;
    }
    bool VisitBinaryOperator(clang::BinaryOperator* bo) {
      if (bo->isAssignmentOp()) effect = true;
      return !effect;
    }
    bool VisitUnaryOperator(clang::UnaryOperator* uo) {
      if (uo->isIncrementDecrementOp()) effect = true;
      return !effect;
    }
    bool VisitCallExpr(clang::CallExpr* c) {
      const clang::FunctionDecl* fd = c->getDirectCallee();
      bool system = fd && ctx.getSourceManager().isInSystemHeader(fd->getLocation());
      if (!system || intrinsicKind(calleeName(c))) effect = true;
      return !effect;
    }
  } v(ctx);
  v.TraverseStmt(const_cast<clang::Expr*>(e));
  return v.effect;
}

// The condition implies `row < B` (or <=) through its && chain.
bool boundsRow(const clang::Expr* cond, const clang::VarDecl* row) {
  auto* bo = llvm::dyn_cast<clang::BinaryOperator>(cond->IgnoreParenImpCasts());
  if (!bo) return false;
  if (bo->getOpcode() == clang::BO_LAnd) return boundsRow(bo->getLHS(), row) || boundsRow(bo->getRHS(), row);
  auto isRow = [&](const clang::Expr* e) { return referencedDecl(cuda::stripIndexCasts(e)) == row; };
  const clang::Expr* bound = nullptr;
  if ((bo->getOpcode() == clang::BO_LT || bo->getOpcode() == clang::BO_LE) && isRow(bo->getLHS())) bound = bo->getRHS();
  if ((bo->getOpcode() == clang::BO_GT || bo->getOpcode() == clang::BO_GE) && isRow(bo->getRHS())) bound = bo->getLHS();
  return bound && !usesDecl(bound, row) && plainBound(bound);
}

// Every effect of `s` happens under a guard bounding `row` (any index variable): a declaration
// without side effects, or an `if` (no else) whose condition bounds it, or whose statements do.
bool guardedByRow(clang::ASTContext& ctx, const clang::Stmt* s, const clang::VarDecl* row) {
  if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
    for (const auto* d : ds->decls()) {
      auto* vd = llvm::dyn_cast<clang::VarDecl>(d);
      if (!vd || (vd->getInit() && hasEffects(ctx, vd->getInit()))) return false;
    }
    return true;
  }
  if (llvm::isa<clang::NullStmt>(s)) return true;
  auto* is = llvm::dyn_cast<clang::IfStmt>(s);
  if (!is || is->getElse() || is->getInit() || is->getConditionVariable() || hasEffects(ctx, is->getCond()))
    return false;
  if (boundsRow(is->getCond(), row)) return true;
  const clang::Stmt* then = is->getThen();
  if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(then)) {
    for (const clang::Stmt* inner : cs->body())
      if (!guardedByRow(ctx, inner, row)) return false;
    return true;
  }
  return guardedByRow(ctx, then, row);
}

// Statements before the row run once per thread now: only declarations without side effects that
// do not read the y geometry.
std::string checkPrologue(clang::ASTContext& ctx, const std::vector<const clang::Stmt*>& pre) {
  for (const clang::Stmt* s : pre) {
    auto* ds = llvm::dyn_cast<clang::DeclStmt>(s);
    if (!ds) return "a statement before the row's declaration does more than declare (it would run once for " +
                    std::string("several rows)");
    for (const auto* d : ds->decls()) {
      auto* vd = llvm::dyn_cast<clang::VarDecl>(d);
      if (!vd || vd->isStaticLocal() || vd->hasAttr<clang::CUDASharedAttr>())
        return "a declaration before the row is not a plain local";
      if (vd->getInit() && hasEffects(ctx, vd->getInit()))
        return "the initializer of " + vd->getNameAsString() + " has side effects";
    }
    IterationScan geo;
    geo.TraverseStmt(const_cast<clang::Stmt*>(s));
    if (geo.y_geometry) return "a declaration before the row reads the y geometry";
  }
  return "";
}

// `(Y) * R + r` (either order of either operator): Y, else null.
const clang::Expr* coarseRowBase(clang::ASTContext& ctx, const clang::Expr* init, long long rows,
                                 const clang::VarDecl* counter) {
  auto* add = llvm::dyn_cast<clang::BinaryOperator>(cuda::stripIndexCasts(init));
  if (!add || add->getOpcode() != clang::BO_Add) return nullptr;
  for (int side = 0; side < 2; ++side) {
    const clang::Expr* c = side ? add->getLHS() : add->getRHS();
    const clang::Expr* prod = side ? add->getRHS() : add->getLHS();
    if (referencedDecl(cuda::stripIndexCasts(c)) != counter) continue;
    auto* mul = llvm::dyn_cast<clang::BinaryOperator>(cuda::stripIndexCasts(prod));
    if (!mul || mul->getOpcode() != clang::BO_Mul) continue;
    for (int m = 0; m < 2; ++m) {
      const clang::Expr* y = m ? mul->getRHS() : mul->getLHS();
      if (cuda::isIntLiteral(m ? mul->getLHS() : mul->getRHS(), static_cast<uint64_t>(rows)) && isRowIndex(ctx, y))
        return y;
    }
  }
  return nullptr;
}

// With a new block shape each thread has another (x, y) in its block, so the kernel may read the
// thread geometry only through its global indices: the row's declaration and declarations of the
// global x index (blockIdx.x * blockDim.x + threadIdx.x). Returns that x index's variable (null
// when the kernel reads the x geometry nowhere), or sets `why`.
const clang::VarDecl* onlyGlobalIndices(clang::ASTContext& ctx, const clang::CompoundStmt* body,
                                        const clang::VarDecl* row, std::string& why) {
  struct V : clang::RecursiveASTVisitor<V> {
    clang::ASTContext& ctx;
    const clang::VarDecl* row;
    const clang::VarDecl* col = nullptr;
    std::string why;
    V(clang::ASTContext& c, const clang::VarDecl* r) : ctx(c), row(r) {}
    bool TraverseVarDecl(clang::VarDecl* vd) {
      if (vd == row) return true;  // the row's own index
      if (vd->getInit() && vd->getType()->isIntegerType() && isGlobalThreadIndex(ctx, vd->getInit())) {
        if (col && col != vd) why = "the kernel declares the global x index twice (" + col->getNameAsString() + ", " +
                                    vd->getNameAsString() + ")";
        col = vd;
        return why.empty();
      }
      return clang::RecursiveASTVisitor<V>::TraverseVarDecl(vd);
    }
    bool VisitPseudoObjectExpr(clang::PseudoObjectExpr* e) {
      for (const char* var : {"threadIdx", "blockIdx", "blockDim", "gridDim"})
        for (const char* f : {"x", "y", "z"})
          if (cuda::isBuiltinMember(e, var, f)) {
            why = std::string("the kernel reads ") + var + "." + f +
                  " beyond its global indices (a new block shape would change it)";
            return false;
          }
      return true;
    }
  } v(ctx, row);
  v.TraverseStmt(const_cast<clang::CompoundStmt*>(body));
  why = v.why;
  return v.col;
}

class CoarsenRows : public Transform {
 public:
  std::string id() const override { return "coarsen-rows"; }
  std::string summary() const override {
    return "let each thread of a 2-D kernel compute R consecutive rows (grid.y / R)";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    long long rows = intParam(req.params, "rows", 4);
    if (rows < 2 || rows > 32) return TransformResult::no("rows must be 2 to 32");
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    std::vector<const clang::Stmt*> stmts(body->body_begin(), body->body_end());
    size_t at = 0;
    const clang::VarDecl* row = nullptr;
    for (; at < stmts.size() && !row; ++at)
      if (const clang::VarDecl* vd = plainIntDecl(stmts[at]); vd && isRowIndex(ctx, vd->getInit())) row = vd;
    if (!row)
      return TransformResult::no("no top-level `T row = blockIdx.y * blockDim.y + threadIdx.y;` declaration");
    const clang::Stmt* decl = stmts[at - 1];
    std::vector<const clang::Stmt*> pre(stmts.begin(), stmts.begin() + (at - 1));
    std::vector<const clang::Stmt*> rest(stmts.begin() + at, stmts.end());
    if (rest.empty()) return TransformResult::no("nothing follows the row's declaration");
    if (std::string why = checkPrologue(ctx, pre); !why.empty()) return TransformResult::no(why);
    IterationScan scan;
    scan.row = row;
    for (const clang::Stmt* s : rest) {
      scan.TraverseStmt(const_cast<clang::Stmt*>(s));
      if (!scan.why.empty()) return TransformResult::no(scan.why);
    }
    for (const clang::Stmt* s : stmts)
      if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(s))
        for (const auto* d : ds->decls())
          if (auto* nd = llvm::dyn_cast<clang::NamedDecl>(d); nd && nd->getName().startswith("kl_"))
            return TransformResult::no("the kernel already declares kl_ names");
    std::string name = row->getNameAsString();
    for (const clang::Stmt* s : rest)
      if (!guardedByRow(ctx, s, row))
        return TransformResult::no("a statement after " + name + " has an effect outside a guard `" + name +
                                   " < B` (the extra rows the smaller grid reaches would run it)");
    // Param block_x: also give the block this many columns (same threads), where a wider block pays.
    const long long block_x = intParam(req.params, "block_x", 0);
    bool reshape = false;
    if (block_x) {
      auto shape = req.facts.shape();
      if (!shape || shape->z != 1)
        return TransformResult::no("block_x needs the block every launch uses (uniform-block-size), not known here");
      const long long threads = shape->x * shape->y;
      if (block_x < 32 || block_x > 1024 || block_x % 32 || threads % block_x)
        return TransformResult::no("block_x " + std::to_string(block_x) + " does not divide the block's " +
                                   std::to_string(threads) + " threads into full warps");
      if (block_x == shape->x)
        return TransformResult::no("the block is already " + std::to_string(block_x) + " wide");
      std::string why;
      const clang::VarDecl* col = onlyGlobalIndices(ctx, body, row, why);
      if (!why.empty()) return TransformResult::no(why);
      if (!col) return TransformResult::no("no global x index: a new block shape would change which columns run");
      // The wider grid reaches columns the original did not: every effect under a bound on the column too.
      for (const clang::Stmt* s : rest)
        if (!guardedByRow(ctx, s, col))
          return TransformResult::no("a statement after " + name + " has an effect outside a guard `" +
                                     col->getNameAsString() + " < W` (the wider grid reaches more columns)");
      reshape = true;
    }

    if (!src.inFile(decl) || !src.inFile(row->getInit()) || !src.inFile(body->getRBracLoc()))
      return TransformResult::no("the row's declaration or the kernel's end is written through a macro");
    for (const clang::Stmt* s : rest)
      if (!src.inFile(s)) return TransformResult::no("the rows' code is written through a macro");
    unsigned d0 = src.off(decl->getBeginLoc()), d1 = src.stmtEnd(decl);
    size_t line_end = src.restOfLineBlank(d1);
    size_t eol = src.text.find('\n', d1);
    if (!src.blankBefore(d0) || eol == llvm::StringRef::npos)
      return TransformResult::no("the row's declaration shares its line with other code");
    (void)line_end;
    unsigned close = src.off(body->getRBracLoc());
    if (!src.blankBefore(close)) return TransformResult::no("the kernel's closing brace shares a line with code");
    unsigned rest0 = static_cast<unsigned>(eol + 1), rest1 = src.lineStart(close);
    if (rest0 > rest1) return TransformResult::no("the rows' code shares a line with the row's declaration");

    std::string indent = src.indentOf(d0);
    unsigned i0 = src.off(row->getInit()->getBeginLoc()), i1 = src.tokEnd(row->getInit()->getEndLoc());
    std::string r = std::to_string(rows);
    std::string decl_text =
        src.slice(d0, i0) + "(" + src.slice(i0, i1) + ") * " + r + " + kl_r" + src.slice(i1, static_cast<unsigned>(eol));
    std::string pad = indent.empty() ? "  " : indent;  // the file's own indentation step
    std::string text = "#pragma unroll\n" + indent + "for (int kl_r = 0; kl_r < " + r + "; ++kl_r) {  // kl: " + r +
                       " consecutive rows per thread (a grid " + r + "x smaller in y)\n" + indent + pad + decl_text +
                       "\n" + indentLines(src.slice(rest0, rest1), pad) + indent + "}\n";
    if (req.rewriter.ReplaceText(src.at(d0), rest1 - d0, text)) return TransformResult::no("the rewriter refused the edit");
    GeometryChange g;
    g.grid_y_divisor = static_cast<unsigned>(rows);
    std::string shape_note;
    if (reshape) {  // block bx x by -> block_x x (bx * by / block_x): the grid covers the same columns and rows
      const long long bx = req.facts.shape()->x, by = req.facts.shape()->y, by2 = bx * by / block_x;
      auto reduced = [](unsigned long long m, unsigned long long d, unsigned& mul, unsigned& div) {
        const unsigned long long c = std::gcd(m, d);
        mul = static_cast<unsigned>(m / c), div = static_cast<unsigned>(d / c);
      };
      reduced(static_cast<unsigned long long>(bx), static_cast<unsigned long long>(block_x), g.grid_x_multiplier,
              g.grid_x_divisor);
      reduced(static_cast<unsigned long long>(by), static_cast<unsigned long long>(by2 * rows), g.grid_y_multiplier,
              g.grid_y_divisor);
      g.block_x = block_x;
      g.block_y = by2;
      shape_note = ", block " + std::to_string(block_x) + " x " + std::to_string(by2);
    }
    return TransformResult::yes(r + " consecutive rows per thread over " + name + " (grid.y / " + r + shape_note + ")", g);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body || body->body_empty()) return TransformResult::no("the kernel has no body");
    const clang::Stmt* last = body->body_back();
    bool pragma = false;
    if (auto* as = llvm::dyn_cast<clang::AttributedStmt>(last)) {
      for (const clang::Attr* a : as->getAttrs())
        if (llvm::isa<clang::LoopHintAttr>(a)) pragma = true;
      last = as->getSubStmt();
    }
    const char* kNone =
        "no last top-level row loop `for (int r = 0; r < R; ++r) { T row = (blockIdx.y * blockDim.y + threadIdx.y) * "
        "R + r; ... }`";
    auto* fs = llvm::dyn_cast<clang::ForStmt>(last);
    if (!fs || !fs->getCond() || !fs->getInc() || fs->getConditionVariable()) return TransformResult::no(kNone);
    const clang::VarDecl* counter = plainIntDecl(fs->getInit());
    if (!counter || !cuda::isIntLiteral(counter->getInit(), 0)) return TransformResult::no(kNone);
    auto* cond = llvm::dyn_cast<clang::BinaryOperator>(fs->getCond()->IgnoreParenImpCasts());
    if (!cond || cond->getOpcode() != clang::BO_LT || referencedDecl(cuda::stripIndexCasts(cond->getLHS())) != counter)
      return TransformResult::no(kNone);
    clang::Expr::EvalResult ev;
    if (!cond->getRHS()->EvaluateAsInt(ev, ctx)) return TransformResult::no("the row loop's trip count is not a constant");
    long long rows = ev.Val.getInt().getExtValue();
    if (rows < 2 || rows > 32) return TransformResult::no("the row loop's trip count is not 2 to 32");
    bool step1 = false;
    if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(fs->getInc()))
      step1 = uo->isIncrementOp() && referencedDecl(uo->getSubExpr()) == counter;
    if (auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(fs->getInc()))
      step1 = ca->getOpcode() == clang::BO_AddAssign && referencedDecl(ca->getLHS()) == counter &&
              cuda::isIntLiteral(ca->getRHS(), 1);
    if (!step1) return TransformResult::no(kNone);
    auto* lb = llvm::dyn_cast<clang::CompoundStmt>(fs->getBody());
    if (!lb || lb->body_empty()) return TransformResult::no(kNone);
    const clang::VarDecl* row = plainIntDecl(lb->body_front());
    const clang::Expr* base = row ? coarseRowBase(ctx, row->getInit(), rows, counter) : nullptr;
    if (!base) return TransformResult::no(kNone);

    std::vector<const clang::Stmt*> pre(body->body_begin(), body->body_end() - 1);
    if (std::string why = checkPrologue(ctx, pre); !why.empty()) return TransformResult::no(why);
    IterationScan scan;
    scan.row = row;
    scan.counter = counter;
    for (auto it = lb->body_begin() + 1; it != lb->body_end(); ++it) {
      scan.TraverseStmt(*it);
      if (!scan.why.empty()) return TransformResult::no(scan.why);
    }
    const clang::Stmt* decl = lb->body_front();
    if (!src.inFile(fs) || !src.inFile(decl) || !src.inFile(lb->getRBracLoc()))
      return TransformResult::no("the row loop is written through a macro");
    unsigned f0 = src.off(fs->getBeginLoc());
    if (!src.blankBefore(f0)) return TransformResult::no("the row loop shares its line with other code");
    unsigned start = f0;
    if (pragma) {  // the `#pragma unroll` line just above the loop goes with it
      unsigned ls = src.lineStart(f0);
      if (ls == 0) return TransformResult::no("no line above the row loop");
      unsigned p0 = src.lineStart(ls - 1);
      if (squeeze(src.slice(p0, ls - 1)) != "#pragmaunroll")
        return TransformResult::no("the row loop's pragma is not a plain `#pragma unroll` on the line above it");
      start = p0 + static_cast<unsigned>(src.indentOf(p0).size());
    }
    unsigned d0 = src.off(decl->getBeginLoc()), d1 = src.stmtEnd(decl);
    size_t eol = src.text.find('\n', d1);
    unsigned close = src.off(lb->getRBracLoc());
    size_t after = src.restOfLineBlank(close + 1);
    if (!src.blankBefore(d0) || eol == llvm::StringRef::npos || !src.blankBefore(close) || after == std::string::npos)
      return TransformResult::no("the row loop's lines hold other code");
    size_t outer = src.indentOf(f0).size(), inner = src.indentOf(d0).size();
    if (inner < outer) return TransformResult::no("the row loop's body is indented less than the loop");
    unsigned i0 = src.off(row->getInit()->getBeginLoc()), i1 = src.tokEnd(row->getInit()->getEndLoc());
    const clang::Expr* y = base->IgnoreParens();
    std::string decl_text = src.slice(d0, i0) + sourceText(ctx, y->getSourceRange()) +
                            src.slice(i1, static_cast<unsigned>(eol));
    std::string text = decl_text + "\n" +
                       dedentLines(src.slice(static_cast<unsigned>(eol + 1), src.lineStart(close)), inner - outer);
    if (req.rewriter.ReplaceText(src.at(start), static_cast<unsigned>(after) - start, text))
      return TransformResult::no("the rewriter refused the edit");
    GeometryChange g;
    g.grid_y_multiplier = static_cast<unsigned>(rows);
    return TransformResult::yes("one row per thread: " + row->getNameAsString() + " (grid.y * " +
                                    std::to_string(rows) + ")",
                                g);
  }
};

}  // namespace
std::unique_ptr<Transform> makeCoarsenRows() { return std::make_unique<CoarsenRows>(); }
}  // namespace klineage
