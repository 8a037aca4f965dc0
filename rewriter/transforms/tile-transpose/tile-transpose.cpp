// tile-transpose: a naive 2-D transpose (one element per thread, strided stores)  ->  the padded
// shared-memory tile transpose (32 x 32 tile, 32 x 8 threads, 4 elements per thread and phase):
//   T x = blockIdx.x * blockDim.x + threadIdx.x;
//   T y = blockIdx.y * blockDim.y + threadIdx.y;
//   if (C) OUT[x * LDO + y] = IN[y * LDI + x];
// becomes
//   __shared__ E kl_tile[32][33];
//   for (int kl_j = 0; kl_j < 32; kl_j += 8) {
//     T x = blockIdx.x * 32 + threadIdx.x;
//     T y = blockIdx.y * 32 + threadIdx.y + kl_j;
//     if (C) kl_tile[threadIdx.y + kl_j][threadIdx.x] = IN[y * LDI + x];
//   }
//   __syncthreads();
//   for (int kl_j = 0; kl_j < 32; kl_j += 8) {
//     T x = blockIdx.x * 32 + threadIdx.y + kl_j;
//     T y = blockIdx.y * 32 + threadIdx.x;
//     if (C) OUT[x * LDO + y] = kl_tile[threadIdx.x][threadIdx.y + kl_j];
//   }
// C is the kernel's own guard (x < W && y < H, either order, either way round); the declarations
// keep their types as written (a 64-bit T computes the tile origin in T: (T)blockIdx.x * 32), the
// guard, the load and the store are kept as written, so no stride is assumed equal to a bound;
// end-of-line comments on the declarations and on the copy are kept.
// Why it can pay: the naive stores are LDO elements apart (one 32-byte sector per element); in
// the tile both the loads (phase 1) and the stores (phase 2) are consecutive along threadIdx.x, and
// the padding column puts the 32 elements of a tile column in 32 different banks.
// When it is sound: the tile slot of element (x, y) is kl_tile[y - 32 * blockIdx.y][x - 32 *
// blockIdx.x] in both phases, so every element reaches the same out position as before, provided
// the block is 32 x 8 (GeometryChange: block_x = 32, block_y = 8, grid_x_divisor = 32 / bx,
// grid_y_divisor = 32 / by for the original block bx x by, read from TransformFacts::shape(); the
// grid then still covers W x H) and IN and OUT do not overlap (the order of reads and writes
// changes). Every thread reaches the barrier (no return; guards only around the accesses). Facts
// the caller establishes: one block shape for every launch (uniform-block-size; the launch must
// change) and no overlap of the two arrays. The transform refuses an unknown block shape, bx or by
// not dividing 32, z != 1, a kernel that already uses __shared__ memory or barriers, kl_ names,
// __launch_bounds__ below 256 threads, anything written through macros, and any body other than
// exactly the two index declarations and the one guarded copy (same arithmetic element type on
// both sides; W, H, LDI, LDO without memory reads, calls or x/y).
// Inverse: recognizes exactly the text forward emits (it rebuilds it from the parts it parses and
// compares) and restores the naive body, so inverse(forward(x)) == x for the canonical form
// (`blockIdx.x * blockDim.x + threadIdx.x` initializers, one statement per line). Its launch change
// restores a bx x by block (params block_x, block_y; default 16 x 16, each dividing 32): block
// bx x by, grid.x * (32 / bx), grid.y * (32 / by), from the 32 x 8 block forward launches.
#include <optional>

#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

using Src = SourceBuffer;

constexpr long long kTile = 32, kRowsPerPass = 8;

const char* const kExpected =
    "`T x = blockIdx.x * blockDim.x + threadIdx.x; T y = blockIdx.y * blockDim.y + threadIdx.y; "
    "if (x < W && y < H) OUT[x * LDO + y] = IN[y * LDI + x];`";

// blockIdx.c * blockDim.c + threadIdx.c for c = "x" or "y" (any operand order, integer casts).
cuda::Matcher<clang::Expr> indexOf(const std::string& c) {
  using namespace cuda;
  return ignoringIndexCasts(binaryOperator(
      hasOperatorName("+"),
      hasOperands(ignoringIndexCasts(builtinMember("threadIdx", c)),
                  ignoringIndexCasts(binaryOperator(hasOperatorName("*"),
                                                    hasOperands(ignoringIndexCasts(builtinMember("blockIdx", c)),
                                                                ignoringIndexCasts(builtinMember("blockDim", c))))))));
}

bool matches(clang::ASTContext& ctx, const cuda::Matcher<clang::Expr>& m, const clang::Expr* e) {
  return e && !clang::ast_matchers::match(clang::ast_matchers::expr(m), *e, ctx).empty();
}

bool refersTo(const clang::Expr* e, const clang::ValueDecl* d) {
  e = cuda::stripIndexCasts(e);
  auto* dre = llvm::dyn_cast_or_null<clang::DeclRefExpr>(e);
  return dre && dre->getDecl() == d;
}

// Names, constants and arithmetic only (no memory reads, no calls, no assignments): the
// expression has the same value wherever and however often the tiled kernel evaluates it.
bool simpleExpr(const clang::Expr* e) {
  struct V : clang::RecursiveASTVisitor<V> {
    bool ok = true;
    bool VisitStmt(clang::Stmt* s) {
      if (auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
        // parameters, locals, enumerators and constants; a __device__ variable is memory
        auto* vd = llvm::dyn_cast<clang::VarDecl>(dre->getDecl());
        if (!vd || vd->isLocalVarDeclOrParm() || vd->getType().isConstQualified() || vd->isConstexpr()) return true;
        ok = false;
        return false;
      }
      if (llvm::isa<clang::IntegerLiteral>(s) || llvm::isa<clang::ParenExpr>(s) ||
          llvm::isa<clang::ImplicitCastExpr>(s) || llvm::isa<clang::CStyleCastExpr>(s) ||
          llvm::isa<clang::CXXStaticCastExpr>(s) || llvm::isa<clang::CXXFunctionalCastExpr>(s) ||
          llvm::isa<clang::CXXBoolLiteralExpr>(s) || llvm::isa<clang::ConstantExpr>(s) ||
          llvm::isa<clang::ConditionalOperator>(s))
        return true;
      if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(s))
        if (!bo->isAssignmentOp() && bo->getOpcode() != clang::BO_Comma) return true;
      if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(s))
        if (!uo->isIncrementDecrementOp() && uo->getOpcode() != clang::UO_Deref && uo->getOpcode() != clang::UO_AddrOf)
          return true;
      if (auto* me = llvm::dyn_cast<clang::MemberExpr>(s)) return ok = !me->isArrow();
      ok = false;
      return false;
    }
  } v;
  v.TraverseStmt(const_cast<clang::Expr*>(e));
  return v.ok;
}

// Why the kernel cannot take a tile (shared memory, barriers, kl_ names, macros, in this order of
// precedence), or "".
struct KernelScan : clang::RecursiveASTVisitor<KernelScan> {
  std::string shared, barrier, name, macro;
  std::string why() const {
    for (const std::string* w : {&shared, &barrier, &name, &macro})
      if (!w->empty()) return *w;
    return "";
  }
  bool VisitStmt(clang::Stmt* s) {
    if (llvm::isa<clang::DeclStmt>(s)) return true;  // `__shared__` is a macro; its declarations are checked below
    if (macro.empty() && (s->getBeginLoc().isMacroID() || s->getEndLoc().isMacroID()))
      macro = "the kernel body is written through a macro";
    return true;
  }
  bool VisitVarDecl(clang::VarDecl* vd) {
    if (vd->hasAttr<clang::CUDASharedAttr>()) shared = "the kernel already uses __shared__ memory";
    if (name.empty() && vd->getName().startswith("kl_"))
      name = "the kernel already declares " + vd->getNameAsString() + " (kl_ names are the transform's)";
    if (macro.empty() && !vd->hasAttr<clang::CUDASharedAttr>() &&
        (vd->getBeginLoc().isMacroID() || vd->getLocation().isMacroID()))
      macro = "the kernel body is written through a macro";
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    if (e->getDecl()->hasAttr<clang::CUDASharedAttr>()) shared = "the kernel already uses __shared__ memory";
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* c) {
    std::string n = calleeName(c);
    auto kind = intrinsicKind(n);
    if (barrier.empty() && kind && *kind == IntrinsicKind::Barrier)
      barrier = "the kernel already calls " + n + " (a barrier)";
    return true;
  }
};

// The rest of the line after a statement ending at `end`: its `//` comment with the blanks before
// it ("" when only blanks follow), and in *eol the offset of the line's end. nullopt when code or
// a block comment follows on the same line.
std::optional<std::string> lineComment(const Src& src, unsigned end, unsigned* eol) {
  unsigned p = end;
  while (p < src.text.size() && (src.text[p] == ' ' || src.text[p] == '\t')) ++p;
  unsigned stop = p;
  while (stop < src.text.size() && src.text[stop] != '\n') ++stop;
  *eol = stop;
  if (p == stop || (p < src.text.size() && src.text[p] == '\r' && p + 1 == stop)) return std::string();
  if (src.text.substr(p, 2) != "//") return std::nullopt;
  std::string c = src.slice(end, stop);
  while (!c.empty() && (c.back() == ' ' || c.back() == '\t' || c.back() == '\r')) c.pop_back();
  return c;
}

bool blank(const Src& src, unsigned a, unsigned b) {
  for (unsigned p = a; p < b; ++p)
    if (src.text[p] != ' ' && src.text[p] != '\t' && src.text[p] != '\n' && src.text[p] != '\r') return false;
  return true;
}

// One of the two index declarations: `PREFIX INIT;COMMENT`, PREFIX as written ("int x = ").
struct IndexDecl {
  std::string prefix, cast, comment;  // cast: "(T)" for a 64-bit T, else ""
};

// The parts of the naive kernel that both shapes are built from.
struct Parts {
  std::string indent, unit;  // the body's indent and one level more
  std::string elem;          // the element type ("float")
  IndexDecl dx, dy;
  bool x_first = true;
  std::string cond, store, load, if_comment;  // C, OUT[x * LDO + y], IN[y * LDI + x]
};

// From the first index declaration to the end of the guarded copy's line (without the newline).
std::string naiveText(const Parts& p) {
  std::string a = p.dx.prefix + p.dx.cast + "blockIdx.x * blockDim.x + threadIdx.x;" + p.dx.comment;
  std::string b = p.dy.prefix + p.dy.cast + "blockIdx.y * blockDim.y + threadIdx.y;" + p.dy.comment;
  return (p.x_first ? a : b) + "\n" + p.indent + (p.x_first ? b : a) + "\n" + p.indent + "if (" + p.cond + ") " +
         p.store + " = " + p.load + ";" + p.if_comment;
}

// From the tile's declaration to the closing brace of the second loop.
std::string tiledText(const Parts& p) {
  const std::string in = p.indent + p.unit;
  const std::string tile = std::to_string(kTile), rows = std::to_string(kRowsPerPass);
  auto phase = [&](const std::string& xi, const std::string& yi, const std::string& xc, const std::string& yc,
                   const std::string& copy, const std::string& copy_comment) {
    std::string a = in + p.dx.prefix + p.dx.cast + xi + ";" + xc + "\n";
    std::string b = in + p.dy.prefix + p.dy.cast + yi + ";" + yc + "\n";
    return "for (int kl_j = 0; kl_j < " + tile + "; kl_j += " + rows + ") {\n" + (p.x_first ? a + b : b + a) + in +
           "if (" + p.cond + ") " + copy + ";" + copy_comment + "\n" + p.indent + "}";
  };
  return "__shared__ " + p.elem + " kl_tile[" + tile + "][" + std::to_string(kTile + 1) + "];\n" + p.indent +
         phase("blockIdx.x * " + tile + " + threadIdx.x", "blockIdx.y * " + tile + " + threadIdx.y + kl_j",
               p.dx.comment, p.dy.comment, "kl_tile[threadIdx.y + kl_j][threadIdx.x] = " + p.load, "") +
         "\n" + p.indent + "__syncthreads();\n" + p.indent +
         phase("blockIdx.x * " + tile + " + threadIdx.y + kl_j", "blockIdx.y * " + tile + " + threadIdx.x", "", "",
               p.store + " = kl_tile[threadIdx.x][threadIdx.y + kl_j]", p.if_comment);
}

// One indentation level: the body's indent beyond the kernel's own line (two spaces when unclear).
std::string indentUnit(const Src& src, const clang::FunctionDecl* kernel, const std::string& indent) {
  clang::SourceLocation l = src.sm.getExpansionLoc(kernel->getBeginLoc());
  if (!src.inFile(l)) return "  ";
  std::string outer = src.indentOf(src.off(l));
  if (indent.size() > outer.size() && indent.compare(0, outer.size(), outer) == 0) return indent.substr(outer.size());
  return "  ";
}

// `(T)` for a 64-bit index type (the tile origin is then computed in T), else "".
std::string castFor(const clang::ASTContext& ctx, const clang::VarDecl* vd) {
  if (ctx.getTypeSize(vd->getType()) < 64) return "";
  return "(" + vd->getType().getUnqualifiedType().getAsString(clang::PrintingPolicy(ctx.getLangOpts())) + ")";
}

// A plain `T v = <init>;` local declaration of an integer index, or null.
const clang::VarDecl* plainIndexDecl(const clang::Stmt* s) {
  auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(s);
  if (!ds || !ds->isSingleDecl()) return nullptr;
  auto* vd = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
  if (!vd || !vd->getInit() || vd->getInitStyle() != clang::VarDecl::CInit || vd->isStaticLocal() ||
      !vd->getType()->isIntegerType() || vd->getType()->isReferenceType() || vd->getType().isVolatileQualified())
    return nullptr;
  return vd;
}

// `v < b` or `b > v`: the bound b, or null.
const clang::Expr* upperBound(const clang::Expr* e, const clang::ValueDecl* v) {
  auto* bo = llvm::dyn_cast_or_null<clang::BinaryOperator>(e ? e->IgnoreParenImpCasts() : nullptr);
  if (!bo) return nullptr;
  if (bo->getOpcode() == clang::BO_LT && refersTo(bo->getLHS(), v)) return bo->getRHS();
  if (bo->getOpcode() == clang::BO_GT && refersTo(bo->getRHS(), v)) return bo->getLHS();
  return nullptr;
}

// `a * LD + b` (any operand order, integer casts): LD, or null when the index has another form.
const clang::Expr* leadingDim(const clang::Expr* idx, const clang::ValueDecl* a, const clang::ValueDecl* b) {
  auto* add = llvm::dyn_cast_or_null<clang::BinaryOperator>(cuda::stripIndexCasts(idx));
  if (!add || add->getOpcode() != clang::BO_Add) return nullptr;
  for (int k = 0; k < 2; ++k) {
    const clang::Expr* prod = k ? add->getRHS() : add->getLHS();
    const clang::Expr* other = k ? add->getLHS() : add->getRHS();
    if (!refersTo(other, b)) continue;
    auto* mul = llvm::dyn_cast_or_null<clang::BinaryOperator>(cuda::stripIndexCasts(prod));
    if (!mul || mul->getOpcode() != clang::BO_Mul) continue;
    if (refersTo(mul->getLHS(), a)) return mul->getRHS();
    if (refersTo(mul->getRHS(), a)) return mul->getLHS();
  }
  return nullptr;
}

// `P[idx]` with P a pointer parameter: P, or null.
const clang::ParmVarDecl* pointerParam(const clang::ArraySubscriptExpr* e) {
  auto* pv = llvm::dyn_cast_or_null<clang::ParmVarDecl>(referencedDecl(e->getBase()));
  return pv && pv->getType()->isPointerType() ? pv : nullptr;
}

class TileTranspose : public Transform {
 public:
  std::string id() const override { return "tile-transpose"; }
  std::string summary() const override {
    return "turn a naive 2-D transpose (strided stores) into a padded 32 x 33 shared-memory tile transpose on 32 x 8 "
           "threads";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    KernelScan scan;
    scan.TraverseStmt(const_cast<clang::CompoundStmt*>(body));
    if (std::string why = scan.why(); !why.empty()) return TransformResult::no(why);
    for (const clang::ParmVarDecl* pv : req.kernel->parameters())
      if (pv->getName().startswith("kl_"))
        return TransformResult::no("the kernel already has a parameter " + pv->getNameAsString() +
                                   " (kl_ names are the transform's)");
    if (!src.inFile(body->getLBracLoc()) || !src.inFile(body->getRBracLoc()))
      return TransformResult::no("the kernel body is written through a macro");

    // The shape: two index declarations and one guarded copy.
    std::vector<const clang::Stmt*> stmts(body->body_begin(), body->body_end());
    if (stmts.size() != 3)
      return TransformResult::no("the body has " + std::to_string(stmts.size()) + " statements, not the 3 of " +
                                 kExpected);
    const clang::VarDecl* d0 = plainIndexDecl(stmts[0]);
    const clang::VarDecl* d1 = plainIndexDecl(stmts[1]);
    if (!d0 || !d1)
      return TransformResult::no("the body does not start with two integer index declarations " +
                                 std::string(kExpected));
    const clang::VarDecl *vx = nullptr, *vy = nullptr;
    if (matches(ctx, indexOf("x"), d0->getInit()) && matches(ctx, indexOf("y"), d1->getInit())) {
      vx = d0;
      vy = d1;
    } else if (matches(ctx, indexOf("y"), d0->getInit()) && matches(ctx, indexOf("x"), d1->getInit())) {
      vx = d1;
      vy = d0;
    } else {
      return TransformResult::no(
          "the two declarations are not the 2-D index pair x = blockIdx.x * blockDim.x + "
          "threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y");
    }
    std::string nx = vx->getNameAsString(), ny = vy->getNameAsString();

    auto* guard = llvm::dyn_cast<clang::IfStmt>(stmts[2]);
    if (!guard) return TransformResult::no("the third statement is not the guarded copy of " + std::string(kExpected));
    if (guard->getInit() || guard->getConditionVariable() || guard->isConstexpr() || guard->getElse())
      return TransformResult::no("the guard has an init statement, a condition variable or an else branch");
    auto* land = llvm::dyn_cast<clang::BinaryOperator>(guard->getCond()->IgnoreParens());
    if (!land || land->getOpcode() != clang::BO_LAnd)
      return TransformResult::no("the guard is not `" + nx + " < W && " + ny + " < H`");
    const clang::Expr *w = upperBound(land->getLHS(), vx), *h = upperBound(land->getRHS(), vy);
    if (!w || !h) {  // y < H && x < W
      w = upperBound(land->getRHS(), vx);
      h = upperBound(land->getLHS(), vy);
    }
    if (!w || !h) return TransformResult::no("the guard is not `" + nx + " < W && " + ny + " < H` (in either order)");
    for (const clang::Expr* b : {w, h})
      if (usesDecl(b, vx) || usesDecl(b, vy) || !simpleExpr(b))
        return TransformResult::no("a bound of the guard uses " + nx + " or " + ny + ", reads memory or calls");

    const clang::Stmt* then = guard->getThen();
    if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(then); cs && cs->size() == 1) then = cs->body_front();
    auto* assign = llvm::dyn_cast<clang::BinaryOperator>(then);
    if (!assign || assign->getOpcode() != clang::BO_Assign)
      return TransformResult::no("the guarded statement is not one copy `OUT[" + nx + " * LDO + " + ny + "] = IN[" +
                                 ny + " * LDI + " + nx + "];`");
    auto* st = llvm::dyn_cast<clang::ArraySubscriptExpr>(assign->getLHS()->IgnoreParens());
    auto* ld = llvm::dyn_cast<clang::ArraySubscriptExpr>(assign->getRHS()->IgnoreParenImpCasts());
    const clang::ParmVarDecl* out = st ? pointerParam(st) : nullptr;
    const clang::ParmVarDecl* in = ld ? pointerParam(ld) : nullptr;
    if (!out || !in)
      return TransformResult::no("the guarded copy is not `OUT[...] = IN[...]` between two pointer parameters");
    if (out == in) return TransformResult::no("the copy reads and writes the same array " + in->getNameAsString());
    const clang::Expr* ldo = leadingDim(st->getIdx(), vx, vy);
    if (!ldo)
      return TransformResult::no("the store index " + sourceText(ctx, st->getIdx()->getSourceRange()) + " is not `" +
                                 nx + " * LDO + " + ny + "`");
    const clang::Expr* ldi = leadingDim(ld->getIdx(), vy, vx);
    if (!ldi)
      return TransformResult::no("the load index " + sourceText(ctx, ld->getIdx()->getSourceRange()) + " is not `" +
                                 ny + " * LDI + " + nx + "`");
    for (const clang::Expr* e : {ldi, ldo})
      if (usesDecl(e, vx) || usesDecl(e, vy) || !simpleExpr(e))
        return TransformResult::no("a leading dimension (" + sourceText(ctx, e->getSourceRange()) + ") uses " + nx +
                                   " or " + ny + ", reads memory or calls");
    clang::QualType te = out->getType()->getPointeeType(), ti = in->getType()->getPointeeType();
    if (te.isVolatileQualified() || ti.isVolatileQualified()) return TransformResult::no("the arrays are volatile");
    if (!te->isArithmeticType() ||
        te.getUnqualifiedType().getCanonicalType() != ti.getUnqualifiedType().getCanonicalType())
      return TransformResult::no("the element types of " + in->getNameAsString() + " and " + out->getNameAsString() +
                                 " are not the same arithmetic type");

    if (auto* lb = req.kernel->getAttr<clang::CUDALaunchBoundsAttr>()) {
      std::optional<llvm::APSInt> max = lb->getMaxThreads()->getIntegerConstantExpr(ctx);
      if (!max || max->getExtValue() < kTile * kRowsPerPass)
        return TransformResult::no("__launch_bounds__ does not allow the 256 threads of a 32 x 8 block");
    }

    // The launch: the original block must tile a 32 x 32 square.
    std::optional<Dim3> shape = req.facts.shape();
    if (!shape) return TransformResult::no("the block shape is unknown (the launch must change to 32 x 8)");
    if (shape->z != 1) return TransformResult::no("the block is 3-D (z = " + std::to_string(shape->z) + ")");
    if (shape->x <= 0 || shape->y <= 0 || kTile % shape->x || kTile % shape->y)
      return TransformResult::no("the block " + std::to_string(shape->x) + " x " + std::to_string(shape->y) +
                                 " does not divide the 32 x 32 tile");

    // Text: one statement per line, nothing but an end-of-line comment beside them.
    for (const clang::Stmt* s : stmts)
      if (!src.inFile(s)) return TransformResult::no("the kernel body is written through a macro");
    unsigned b0 = src.off(stmts[0]->getBeginLoc());
    if (!src.blankBefore(b0)) return TransformResult::no("the first declaration shares its line with other code");
    Parts p;
    p.indent = src.indentOf(b0);
    p.unit = indentUnit(src, req.kernel, p.indent);
    std::string comments[3];
    unsigned eol = 0;
    for (int k = 0; k < 3; ++k) {
      std::optional<std::string> c = lineComment(src, src.stmtEnd(stmts[k]), &eol);
      if (!c) return TransformResult::no("a statement shares its line with other code or a /* */ comment");
      comments[k] = *c;
      if (k < 2 && !blank(src, eol, src.off(stmts[k + 1]->getBeginLoc())))
        return TransformResult::no("a comment stands between the statements (the rewrite has no place for it)");
    }
    auto decl = [&](const clang::VarDecl* vd, const std::string& comment) {
      IndexDecl d;
      d.prefix = src.slice(src.off(vd->getBeginLoc()), src.off(vd->getInit()->getBeginLoc()));
      d.cast = castFor(ctx, vd);
      d.comment = comment;
      return d;
    };
    p.x_first = vx == d0;
    p.dx = decl(vx, comments[p.x_first ? 0 : 1]);
    p.dy = decl(vy, comments[p.x_first ? 1 : 0]);
    p.elem = te.getUnqualifiedType().getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
    p.cond = sourceText(ctx, guard->getCond()->getSourceRange());
    p.store = sourceText(ctx, assign->getLHS()->getSourceRange());
    p.load = sourceText(ctx, assign->getRHS()->getSourceRange());
    p.if_comment = comments[2];
    if (p.cond.empty() || p.store.empty() || p.load.empty())
      return TransformResult::no("the guard or the copy is written through a macro");

    if (req.rewriter.ReplaceText(src.at(b0), eol - b0, tiledText(p)))
      return TransformResult::no("the rewriter refused the edit");
    GeometryChange g;
    g.grid_x_divisor = static_cast<unsigned>(kTile / shape->x);
    g.grid_y_divisor = static_cast<unsigned>(kTile / shape->y);
    g.block_x = kTile;
    g.block_y = kRowsPerPass;
    return TransformResult::yes("32 x 33 shared-memory tile transpose of " + in->getNameAsString() + " into " +
                                    out->getNameAsString() + " (block " + std::to_string(shape->x) + " x " +
                                    std::to_string(shape->y) + " -> 32 x 8, grid / " +
                                    std::to_string(g.grid_x_divisor) + " x / " + std::to_string(g.grid_y_divisor) + ")",
                                g);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    const std::string not_ours =
        "the kernel is not the tile transpose this transform emits (`__shared__ T kl_tile[32][33];`, "
        "two kl_j loops around __syncthreads())";
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    std::vector<const clang::Stmt*> stmts(body->body_begin(), body->body_end());
    if (stmts.size() != 4) return TransformResult::no(not_ours);
    // The naive launch to go back to: a bx x by block (forward's TransformFacts::shape()).
    const long long bx = intParam(req.params, "block_x", 16), by = intParam(req.params, "block_y", 16);
    if (bx <= 0 || by <= 0 || kTile % bx || kTile % by || bx * by > 1024)
      return TransformResult::no("block_x and block_y must divide 32 (at most 1024 threads)");
    if (auto shape = req.facts.shape(); shape && !(*shape == Dim3{kTile, kRowsPerPass, 1}))
      return TransformResult::no("the block is " + dimText(*shape) + ", not the 32 x 8 forward launches");
    for (size_t k = 1; k < stmts.size(); ++k)
      if (!src.inFile(stmts[k])) return TransformResult::no("the kernel body is written through a macro");
    auto* tile_ds = llvm::dyn_cast<clang::DeclStmt>(stmts[0]);
    auto* tile =
        tile_ds && tile_ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(tile_ds->getSingleDecl()) : nullptr;
    auto* load = llvm::dyn_cast<clang::ForStmt>(stmts[1]);
    auto* store = llvm::dyn_cast<clang::ForStmt>(stmts[3]);
    if (!tile || tile->getName() != "kl_tile" || !tile->hasAttr<clang::CUDASharedAttr>() || !load || !store)
      return TransformResult::no(not_ours);
    auto* lb = llvm::dyn_cast<clang::CompoundStmt>(load->getBody());
    auto* sb = llvm::dyn_cast<clang::CompoundStmt>(store->getBody());
    if (!lb || !sb || lb->size() != 3 || sb->size() != 3) return TransformResult::no(not_ours);
    std::vector<const clang::Stmt*> ls(lb->body_begin(), lb->body_end()), ss(sb->body_begin(), sb->body_end());
    const clang::VarDecl *d0 = plainIndexDecl(ls[0]), *d1 = plainIndexDecl(ls[1]);
    auto* lif = llvm::dyn_cast<clang::IfStmt>(ls[2]);
    auto* sif = llvm::dyn_cast<clang::IfStmt>(ss[2]);
    if (!d0 || !d1 || !lif || !sif) return TransformResult::no(not_ours);
    auto* lcopy = llvm::dyn_cast_or_null<clang::BinaryOperator>(lif->getThen());
    auto* scopy = llvm::dyn_cast_or_null<clang::BinaryOperator>(sif->getThen());
    if (!lcopy || !scopy || lcopy->getOpcode() != clang::BO_Assign || scopy->getOpcode() != clang::BO_Assign)
      return TransformResult::no(not_ours);

    Parts p;
    clang::SourceLocation tile_at = src.sm.getExpansionLoc(stmts[0]->getBeginLoc());  // `__shared__` is a macro
    if (!src.inFile(tile_at)) return TransformResult::no(not_ours);
    unsigned t0 = src.off(tile_at);
    if (!src.blankBefore(t0)) return TransformResult::no(not_ours);
    p.indent = src.indentOf(t0);
    p.unit = indentUnit(src, req.kernel, p.indent);
    p.elem = ctx.getBaseElementType(tile->getType()).getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
    unsigned eol = 0;
    auto decl = [&](const clang::VarDecl* vd, const clang::Stmt* s, bool* ok) {
      IndexDecl d;
      d.prefix = src.slice(src.off(vd->getBeginLoc()), src.off(vd->getInit()->getBeginLoc()));
      d.cast = castFor(ctx, vd);
      std::optional<std::string> c = lineComment(src, src.stmtEnd(s), &eol);
      *ok = c.has_value();
      d.comment = c.value_or("");
      return d;
    };
    bool ok0 = false, ok1 = false;
    IndexDecl i0 = decl(d0, ls[0], &ok0), i1 = decl(d1, ls[1], &ok1);
    if (!ok0 || !ok1) return TransformResult::no(not_ours);
    p.x_first = sourceText(ctx, d0->getInit()->getSourceRange()).find("blockIdx.x") != std::string::npos;
    p.dx = p.x_first ? i0 : i1;
    p.dy = p.x_first ? i1 : i0;
    p.cond = sourceText(ctx, lif->getCond()->getSourceRange());
    p.load = sourceText(ctx, lcopy->getRHS()->getSourceRange());
    p.store = sourceText(ctx, scopy->getLHS()->getSourceRange());
    std::optional<std::string> ic = lineComment(src, src.stmtEnd(ss[2]), &eol);
    if (!ic) return TransformResult::no(not_ours);
    p.if_comment = *ic;

    // Exactly what forward emits for these parts, or nothing.
    unsigned t1 = src.stmtEnd(store);
    if (src.slice(t0, t1) != tiledText(p)) return TransformResult::no(not_ours + " (the text differs from it)");
    if (req.rewriter.ReplaceText(src.at(t0), t1 - t0, naiveText(p)))
      return TransformResult::no("the rewriter refused the edit");
    GeometryChange g;
    g.block_x = bx;
    g.block_y = by;
    g.grid_x_multiplier = static_cast<unsigned>(kTile / bx);
    g.grid_y_multiplier = static_cast<unsigned>(kTile / by);
    return TransformResult::yes("naive transpose " + p.store + " = " + p.load + " (one element per thread; block " +
                                    std::to_string(bx) + " x " + std::to_string(by) + ", grid * " +
                                    std::to_string(g.grid_x_multiplier) + " x * " + std::to_string(g.grid_y_multiplier) + ")",
                                g);
  }
};

}  // namespace
std::unique_ptr<Transform> makeTileTranspose() { return std::make_unique<TileTranspose>(); }
}  // namespace klineage
