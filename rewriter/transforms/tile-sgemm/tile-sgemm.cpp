// tile-sgemm: a naive fp32 GEMM (one thread per element of C)  ->  a shared-memory tiled GEMM with
// 4 x 4 register blocking:
//   T col = blockIdx.x * blockDim.x + threadIdx.x;       a 16 x 16 block computes the 64 x 64 tile of C
//   T row = blockIdx.y * blockDim.y + threadIdx.y;       at (64 * blockIdx.y, 64 * blockIdx.x); thread
//   if (row < M && col < N) {                      ->    (tx, ty) owns rows ty + 16 * i and columns
//     U acc = 0;                                         tx + 16 * j of it (i, j < 4), so its stores stay
//     for (int k = 0; k < K; ++k)                        coalesced. K advances 16 at a time: the block
//       acc += A[row * LDA + k] * B[k * LDB + col];      loads a 64 x 16 tile of A (transposed, into
//     C[row * LDC + col] = acc;                          __shared__ kl_As[16][64 + 2]) and a 16 x 64 tile
//   }                                                    of B (kl_Bs[16][64]), zero-filled outside M, N
// and K, between two __syncthreads(); each thread then adds 16 products to each of its 16
// accumulators `U kl_acc[4][4]`, and finally stores through the kernel's own guard and store:
//   T row = kl_r0 + threadIdx.y + 16 * kl_i; T col = ...; if (row < M && col < N) { U acc =
//   kl_acc[kl_i][kl_j]; C[row * LDC + col] = acc; }
// The tile loads keep the kernel's accesses as written (`A[row * LDA + k]`, `B[k * LDB + col]`, with
// row, k and col declared under the kernel's names and types), so no leading dimension is assumed
// equal to a bound; the store may be any expression of acc, row, col, parameters and C at the same
// element (alpha * acc + beta * C[row * LDC + col]).
// Why it can pay: the naive kernel reads 2 floats from global memory (through L1/L2) per FMA; the
// tiled one reads each A and B element once per 64-wide tile and feeds 16 FMAs from 8 shared-memory
// reads (on an H200 at 1536 x 1024 x 768: naive 0.46 ms, tiled 0.10 ms, cuBLAS 0.063 ms). The pad
// of A's tile puts the transposed stores in 32 different banks; the inner loop reads are broadcasts
// (A) and 16 consecutive words (B), without conflicts.
// When it is sound: every output gets the same sum in the same order (k = 0..K-1; zero-filled
// entries add exact zeros), so results differ from the naive only where the compiler contracts
// differently into FMAs. The tiled kernel runs 16 x 16 x 1 blocks; the naive one may use a square
// block of 8, 16 or 32 a side (TransformFacts::shape()), whose grid (ceil(N / S), ceil(M / S))
// becomes (ceil(N / 64), ceil(M / 64)): GeometryChange{grid_x_divisor = grid_y_divisor = 64 / S,
// block_x = block_y = 16 when S is not 16}; a larger grid only
// adds blocks whose loads and stores are all guarded out. Every thread reaches both barriers (no
// return; the guards only wrap accesses). Facts the caller establishes: one block shape for every
// launch (uniform-block-size; the launch grid changes) and that C overlaps neither A nor B (the
// order of reads and writes across threads changes; no-overlap).
// Layouts: C's row is the index C is stored at as `row * LDC + ...` (the x index for a linear
// layer's tokens: the tiles then run along blockIdx.x for rows); A is indexed by (row, k) and B by
// (k, col), each either way round (A^T, B^T = out = inp * weight^T): a tile read along k is loaded k
// fastest and stored transposed into a padded tile, the other loaded along row or col. An
// accumulator starting from a value other than 0 (`(bias != NULL) ? bias[o] : 0.0f`: constants,
// parameters, row, col, elements of pointer parameters other than C) starts each of the 16 sums
// from it, evaluated for that output under the kernel's guard: the order is still init, k = 0..K-1.
// Param layout = "vec4": each thread owns 4 x 4 consecutive outputs and reads A and B from shared
// memory as float4 (tiledText). It refuses (with the reason) an unknown block shape or one other
// than square with 8, 16 or 32 a side, a layout other than "strided" or "vec4", a kernel that already uses
// __shared__ memory or barriers, kl_ names, preprocessor lines in the body, anything written
// through macros, a body other than the two index declarations and the one guarded
// dot product and store above (acc += A * B in either factor order or acc = acc + A * B; ++k or
// k++), a transposed A or B, element types other than float, an accumulator other than float or
// double, bounds or leading dimensions that read memory, call, or use row, col, k or acc, and C
// being the same parameter as A or B. Comments inside the body are not kept.
// Inverse: recognizes exactly the text forward emits (it rebuilds that text from the parts it
// parses and compares) and restores the naive body, so inverse(forward(x)) == x for the canonical
// form (col declared before row, `blockIdx.x * blockDim.x + threadIdx.x` initializers,
// `acc += A[...] * B[...]` on the loop's line, `++k`). It reports no geometry: the original launch
// (grid x4 in x and y) is the caller's to restore.
#include <optional>
#include <vector>

#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/literals.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

using Src = SourceBuffer;

constexpr int kThreads = 16;                      // block.x == block.y
constexpr int kMicro = 4;                         // outputs per thread in each dimension
constexpr int kTile = kThreads * kMicro;          // 64: rows and columns of C per block
constexpr int kDepth = 16;                        // K per shared tile
constexpr int kPad = 2;                           // kl_As row pad: transposed stores hit 32 banks
constexpr int kPadVec4 = 4;                       // layout vec4: rows 16-byte aligned (2-way store conflicts)
constexpr int kBlock = kThreads * kThreads;       // 256 threads
constexpr int kAPasses = kTile * kDepth / kBlock; // 4 loads of A per thread and tile
constexpr int kBPasses = kDepth * kTile / kBlock; // 4 loads of B per thread and tile
static_assert(kBlock % kDepth == 0 && kBlock % kTile == 0 && kAPasses * kBlock == kTile * kDepth &&
                  kBPasses * kBlock == kDepth * kTile,
              "the tile loads must cover each tile exactly once");

const char* const kExpected =
    "`T col = blockIdx.x * blockDim.x + threadIdx.x; T row = blockIdx.y * blockDim.y + threadIdx.y; "
    "if (row < M && col < N) { U acc = 0; for (int k = 0; k < K; ++k) acc += A[row * LDA + k] * "
    "B[k * LDB + col]; C[row * LDC + col] = acc; }`";

// The parts of the naive kernel, as written: forward emits the tiled body from them, inverse the
// naive one.
struct Gemm {
  std::string col_type, col, row_type, row;  // the index variables (types without const)
  std::string guard;                         // `row < M && col < N` as written
  std::string m, n, k_bound;                 // M, N and K as written
  std::string acc_type, acc, zero;           // `U acc = zero;`
  std::string k_type, k;                     // the loop variable
  std::string a_access, b_access;            // A[row * LDA + k], B[k * LDB + col] as written
  std::string store;                         // the store of C, with its ';'
  // Generalized forms (all false / empty: the form above).
  bool row_from_x = false;  // row is the x index (`T row = blockIdx.x * ...`), col the y index
  bool a_trans = false;     // A read A[k * LDA + row]
  bool b_trans = false;     // B read B[col * LDB + k] (out = inp * weight^T)
  std::string init;         // `U acc = init;` when init is not 0: each accumulator starts from it
};

// The body's text is rebuilt line by line: `base` is the indentation of the closing brace, `unit`
// one level more.
struct Layout {
  std::string base, unit;
  std::string line(int depth, const std::string& text) const {
    std::string s = base;
    for (int d = 0; d < depth; ++d) s += unit;
    return s + text + "\n";
  }
};

std::string num(long long v) { return std::to_string(v); }

std::string naiveText(const Gemm& g, const Layout& L) {
  std::string s;
  // the x index first
  if (g.row_from_x) {
    s += L.line(1, g.row_type + " " + g.row + " = blockIdx.x * blockDim.x + threadIdx.x;");
    s += L.line(1, g.col_type + " " + g.col + " = blockIdx.y * blockDim.y + threadIdx.y;");
  } else {
    s += L.line(1, g.col_type + " " + g.col + " = blockIdx.x * blockDim.x + threadIdx.x;");
    s += L.line(1, g.row_type + " " + g.row + " = blockIdx.y * blockDim.y + threadIdx.y;");
  }
  s += L.line(1, "if (" + g.guard + ") {");
  s += L.line(2, g.acc_type + " " + g.acc + " = " + (g.init.empty() ? g.zero : g.init) + ";");
  s += L.line(2, "for (" + g.k_type + " " + g.k + " = 0; " + g.k + " < " + g.k_bound + "; ++" + g.k + ") " + g.acc +
                     " += " + g.a_access + " * " + g.b_access + ";");
  s += L.line(2, g.store);
  s += L.line(1, "}");
  return s;
}

// vec4: each thread owns a 4 x 4 block of consecutive rows and columns (rows 4 * ty + i, columns
// 4 * tx + j of the tile) and reads its 4 values of A and of B per k as one float4 each from shared
// memory (2 shared loads per 16 FMAs instead of 8); kl_As's rows are padded to 68 floats so each
// row starts 16-byte aligned.
std::string tiledText(const Gemm& g, const Layout& L, bool vec4) {
  const std::string T = num(kThreads), TM = num(kTile), TK = num(kDepth), U = num(kMicro);
  const int pad = vec4 ? kPadVec4 : kPad;
  const std::string align = vec4 ? "__align__(16) " : "";
  const std::string P = "#pragma unroll";
  auto loop = [&](const char* v, int n) {
    return std::string("for (int ") + v + " = 0; " + v + " < " + num(n) + "; ++" + v + ")";
  };
  std::string s;
  s += L.line(1, "// kl: a " + TM + " x " + TM + " tile of C per " + T + " x " + T + " block, " + U + " x " + U +
                     (vec4 ? " consecutive outputs per thread (read as float4 from shared memory)"
                           : " outputs per thread (strided by " + T + ")") +
                     ", K in steps of " + TK);
  // A tile read along k (A[row * LDA + k], or B[col * LDB + k]) is stored transposed: its rows
  // are padded so those stores fall in different banks.
  auto tileDecl = [&](const char* name, bool transposed, const char* what) {
    return "__shared__ " + align + "float " + name + "[" + TK + "][" + TM +
           (transposed ? " + " + num(pad) + "];  // " + what + "'s tile, transposed" : "];");
  };
  s += L.line(1, tileDecl("kl_As", !g.a_trans, "A"));
  s += L.line(1, tileDecl("kl_Bs", g.b_trans, "B"));
  // the block's tile: rows along the grid dimension the row index comes from
  s += L.line(1, "const " + g.row_type + " kl_r0 = blockIdx." + (g.row_from_x ? "x" : "y") + " * " + TM + ";");
  s += L.line(1, "const " + g.col_type + " kl_c0 = blockIdx." + (g.row_from_x ? "y" : "x") + " * " + TM + ";");
  s += L.line(1, "const int kl_t = threadIdx.y * " + T + " + threadIdx.x;");
  s += L.line(1, g.acc_type + " kl_acc[" + U + "][" + U + "];");
  // the output (kl_i, kl_j) of this thread: row and col under the kernel's names
  auto outputIndex = [&](int depth) {
    std::string o;
    if (vec4) {
      o += L.line(depth, g.row_type + " " + g.row + " = kl_r0 + threadIdx.y * " + U + " + kl_i;");
      o += L.line(depth, g.col_type + " " + g.col + " = kl_c0 + threadIdx.x * " + U + " + kl_j;");
    } else {
      o += L.line(depth, g.row_type + " " + g.row + " = kl_r0 + threadIdx.y + " + T + " * kl_i;");
      o += L.line(depth, g.col_type + " " + g.col + " = kl_c0 + threadIdx.x + " + T + " * kl_j;");
    }
    return o;
  };
  s += L.line(1, P);
  s += L.line(1, loop("kl_i", kMicro));
  s += L.line(2, P);
  if (g.init.empty()) {
    s += L.line(2, loop("kl_j", kMicro) + " kl_acc[kl_i][kl_j] = " + g.zero + ";");
  } else {
    // each sum starts from the kernel's initial value, as before (k = 0..K-1 is added after it)
    s += L.line(2, loop("kl_j", kMicro) + " {");
    s += outputIndex(3);
    s += L.line(3, "kl_acc[kl_i][kl_j] = " + g.guard + " ? (" + g.init + ") : " + g.zero + ";");
    s += L.line(2, "}");
  }
  s += L.line(1, "for (" + g.k_type + " kl_k0 = 0; kl_k0 < " + g.k_bound + "; kl_k0 += " + TK + ") {");
  // Each tile is loaded with the operand's contiguous index fastest (coalesced): along k for
  // A[row * LDA + k] and B[col * LDB + k] (stored transposed, as kl_[AB]s[k][row or col]), along
  // row or col for A[k * LDA + row] and B[k * LDB + col].
  const std::string KP = num(kBlock / kDepth), MP = num(kBlock / kTile);
  const std::string along_k_mn = "kl_t / " + TK + " + " + KP + " * kl_i", along_k_k = "kl_t % " + TK;
  const std::string along_mn_k = "kl_t / " + TM + " + " + MP + " * kl_i", along_mn_mn = "kl_t % " + TM;
  // A's tile: 64 rows x 16 k
  s += L.line(2, P);
  s += L.line(2, loop("kl_i", kAPasses) + " {");
  const std::string& a_mn = g.a_trans ? along_mn_mn : along_k_mn;
  const std::string& a_k = g.a_trans ? along_mn_k : along_k_k;
  s += L.line(3, g.row_type + " " + g.row + " = kl_r0 + " + a_mn + ";");
  s += L.line(3, g.k_type + " " + g.k + " = kl_k0 + " + a_k + ";");
  s += L.line(3, "kl_As[" + a_k + "][" + a_mn + "] = " + g.row + " < " + g.m + " && " + g.k + " < " + g.k_bound + " ? " +
                     g.a_access + " : 0.0f;");
  s += L.line(2, "}");
  // B's tile: 16 k x 64 columns
  s += L.line(2, P);
  s += L.line(2, loop("kl_i", kBPasses) + " {");
  const std::string& b_mn = g.b_trans ? along_k_mn : along_mn_mn;
  const std::string& b_k = g.b_trans ? along_k_k : along_mn_k;
  s += L.line(3, g.k_type + " " + g.k + " = kl_k0 + " + b_k + ";");
  s += L.line(3, g.col_type + " " + g.col + " = kl_c0 + " + b_mn + ";");
  s += L.line(3, "kl_Bs[" + b_k + "][" + b_mn + "] = " + g.k + " < " + g.k_bound + " && " + g.col + " < " + g.n + " ? " +
                     g.b_access + " : 0.0f;");
  s += L.line(2, "}");
  s += L.line(2, "__syncthreads();");
  s += L.line(2, P);
  s += L.line(2, loop("kl_kk", kDepth) + " {");
  if (vec4) {
    s += L.line(3, "const float4 kl_a4 = *reinterpret_cast<const float4*>(&kl_As[kl_kk][threadIdx.y * " + U + "]);");
    s += L.line(3, "const float4 kl_b4 = *reinterpret_cast<const float4*>(&kl_Bs[kl_kk][threadIdx.x * " + U + "]);");
    s += L.line(3, "const float kl_a[" + U + "] = {kl_a4.x, kl_a4.y, kl_a4.z, kl_a4.w};");
    s += L.line(3, "const float kl_b[" + U + "] = {kl_b4.x, kl_b4.y, kl_b4.z, kl_b4.w};");
  } else {
    s += L.line(3, "float kl_a[" + U + "], kl_b[" + U + "];");
    s += L.line(3, P);
    s += L.line(3, loop("kl_i", kMicro) + " kl_a[kl_i] = kl_As[kl_kk][threadIdx.y + " + T + " * kl_i];");
    s += L.line(3, P);
    s += L.line(3, loop("kl_j", kMicro) + " kl_b[kl_j] = kl_Bs[kl_kk][threadIdx.x + " + T + " * kl_j];");
  }
  s += L.line(3, P);
  s += L.line(3, loop("kl_i", kMicro));
  s += L.line(4, P);
  s += L.line(4, loop("kl_j", kMicro) + " kl_acc[kl_i][kl_j] += kl_a[kl_i] * kl_b[kl_j];");
  s += L.line(2, "}");
  s += L.line(2, "__syncthreads();");
  s += L.line(1, "}");
  s += L.line(1, P);
  s += L.line(1, loop("kl_i", kMicro));
  s += L.line(2, P);
  s += L.line(2, loop("kl_j", kMicro) + " {");
  s += outputIndex(3);
  s += L.line(3, "if (" + g.guard + ") {");
  s += L.line(4, g.acc_type + " " + g.acc + " = kl_acc[kl_i][kl_j];");
  s += L.line(4, g.store);
  s += L.line(3, "}");
  s += L.line(2, "}");
  return s;
}

// ---- matching helpers ----

const clang::VarDecl* singleVar(const clang::Stmt* s) {
  auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(s);
  if (!ds || !ds->isSingleDecl()) return nullptr;
  return llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
}

// e is (after parentheses and integer casts) a reference to d.
bool refersTo(const clang::Expr* e, const clang::ValueDecl* d) {
  auto* dre = llvm::dyn_cast_or_null<clang::DeclRefExpr>(cuda::stripIndexCasts(e));
  return dre && d && dre->getDecl() == d;
}

// blockIdx.c * blockDim.c + threadIdx.c for c = "x" or "y" (any operand order, integer casts).
bool isThreadIndexOf(clang::ASTContext& ctx, const clang::Expr* e, const std::string& c) {
  using namespace clang::ast_matchers;
  auto member = [&](const char* var) { return cuda::ignoringIndexCasts(cuda::builtinMember(var, c)); };
  auto scaled = binaryOperator(hasOperatorName("*"), hasOperands(member("blockIdx"), member("blockDim")));
  auto m = cuda::ignoringIndexCasts(
      binaryOperator(hasOperatorName("+"), hasOperands(member("threadIdx"), cuda::ignoringIndexCasts(scaled))));
  return e && !match(expr(m), *e, ctx).empty();
}

// A bound or leading dimension: parameters (not pointers), constants and + - * / % << >>, in
// parentheses or casts; no memory, no calls, no local variable (row, col, k, acc).
bool simpleExpr(const clang::Expr* e) {
  struct V : clang::RecursiveASTVisitor<V> {
    bool ok = true;
    bool fail() { return ok = false; }
    bool VisitStmt(clang::Stmt* s) {
      if (llvm::isa<clang::IntegerLiteral, clang::ParenExpr, clang::ImplicitCastExpr, clang::CStyleCastExpr,
                    clang::CXXStaticCastExpr, clang::CXXFunctionalCastExpr, clang::ConstantExpr>(s))
        return true;
      if (auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
        const clang::ValueDecl* d = dre->getDecl();
        if (llvm::isa<clang::EnumConstantDecl>(d)) return true;
        if (auto* p = llvm::dyn_cast<clang::ParmVarDecl>(d)) return p->getType()->isIntegerType() || fail();
        if (auto* v = llvm::dyn_cast<clang::VarDecl>(d))
          return (v->hasGlobalStorage() && !v->isStaticLocal() && v->getType().isConstQualified() &&
                  v->getType()->isIntegerType()) ||
                 fail();
        return fail();
      }
      if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(s)) {
        switch (bo->getOpcode()) {
          case clang::BO_Add: case clang::BO_Sub: case clang::BO_Mul: case clang::BO_Div:
          case clang::BO_Rem: case clang::BO_Shl: case clang::BO_Shr:
            return true;
          default:
            return fail();
        }
      }
      if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(s))
        return uo->getOpcode() == clang::UO_Minus || uo->getOpcode() == clang::UO_Plus || fail();
      return fail();
    }
  } v;
  v.TraverseStmt(const_cast<clang::Expr*>(e));
  return v.ok;
}

// `var < bound` or `bound > var`: the bound, else null.
const clang::Expr* boundOf(const clang::Expr* cmp, const clang::ValueDecl* var) {
  auto* bo = llvm::dyn_cast_or_null<clang::BinaryOperator>(cmp ? cmp->IgnoreParenImpCasts() : nullptr);
  if (!bo) return nullptr;
  if (bo->getOpcode() == clang::BO_LT && refersTo(bo->getLHS(), var)) return bo->getRHS();
  if (bo->getOpcode() == clang::BO_GT && refersTo(bo->getRHS(), var)) return bo->getLHS();
  return nullptr;
}

// `outer * LD + inner` (either operand order of either operator, integer casts): LD, else null.
const clang::Expr* rowMajorLd(const clang::Expr* idx, const clang::ValueDecl* outer, const clang::ValueDecl* inner) {
  auto* add = llvm::dyn_cast_or_null<clang::BinaryOperator>(cuda::stripIndexCasts(idx));
  if (!add || add->getOpcode() != clang::BO_Add) return nullptr;
  for (auto [p, q] : {std::pair{add->getLHS(), add->getRHS()}, std::pair{add->getRHS(), add->getLHS()}}) {
    if (!refersTo(q, inner)) continue;
    auto* mul = llvm::dyn_cast_or_null<clang::BinaryOperator>(cuda::stripIndexCasts(p));
    if (!mul || mul->getOpcode() != clang::BO_Mul) continue;
    if (refersTo(mul->getLHS(), outer)) return mul->getRHS();
    if (refersTo(mul->getRHS(), outer)) return mul->getLHS();
  }
  return nullptr;
}

// p[...] with p a pointer parameter: the parameter, else null.
const clang::ParmVarDecl* pointerParam(const clang::ArraySubscriptExpr* a) {
  auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(a->getBase()->IgnoreParenImpCasts());
  auto* p = dre ? llvm::dyn_cast<clang::ParmVarDecl>(dre->getDecl()) : nullptr;
  return p && p->getType()->isPointerType() ? p : nullptr;
}

bool isFloat(clang::QualType t, clang::BuiltinType::Kind k) {
  auto* bt = t.getCanonicalType()->getAs<clang::BuiltinType>();
  return bt && bt->getKind() == k;
}

// The declared type as written, without const; the AST's type for auto.
std::string typeText(const clang::ASTContext& ctx, const Src& src, const clang::DeclStmt* ds,
                     const clang::VarDecl* vd) {
  std::string written = src.slice(src.off(ds->getBeginLoc()), src.off(vd->getLocation()));
  std::string out, w;
  for (char c : written + " ") {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!w.empty() && w != "const") out += (out.empty() ? "" : " ") + w;
      w.clear();
    } else {
      w += c;
    }
  }
  if (out.empty() || out.find("auto") != std::string::npos || out.find_first_of("*&[") != std::string::npos)
    out = vd->getType().getUnqualifiedType().getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
  return out;
}

// Whether a statement or anything in it is written through a macro.
bool throughMacro(const clang::Stmt* s) {
  struct V : clang::RecursiveASTVisitor<V> {
    bool found = false;
    bool VisitStmt(clang::Stmt* x) {
      if (x->getBeginLoc().isMacroID() || x->getEndLoc().isMacroID()) found = true;
      return !found;
    }
    bool VisitDecl(clang::Decl* d) {
      if (d->getLocation().isMacroID() || d->getBeginLoc().isMacroID()) found = true;
      return !found;
    }
  } v;
  v.TraverseStmt(const_cast<clang::Stmt*>(s));
  return v.found;
}

// The store's right-hand side: acc, row, col, constants, parameters and C at the stored element,
// combined with arithmetic (no calls, no other memory, no assignments). It must read acc.
bool pureStoreValue(const clang::Expr* e, const clang::ValueDecl* acc, const clang::ValueDecl* row,
                    const clang::ValueDecl* col, const clang::ParmVarDecl* c, const std::string& c_index) {
  struct V : clang::RecursiveASTVisitor<V> {
    const clang::ValueDecl *acc, *row, *col;
    const clang::ParmVarDecl* c;
    const clang::ASTContext* ctx;
    std::string c_index;
    bool ok = true, reads_acc = false;
    bool fail() { return ok = false; }
    bool TraverseArraySubscriptExpr(clang::ArraySubscriptExpr* a) {
      // only C[<the stored index>]; its index is not traversed further (row, col, LDC)
      if (pointerParam(a) != c || squeeze(sourceText(*ctx, a->getIdx()->getSourceRange())) != c_index) return fail();
      return true;
    }
    bool VisitStmt(clang::Stmt* s) {
      if (llvm::isa<clang::IntegerLiteral, clang::FloatingLiteral, clang::ParenExpr, clang::ImplicitCastExpr,
                    clang::CStyleCastExpr, clang::CXXStaticCastExpr, clang::CXXFunctionalCastExpr,
                    clang::ConstantExpr>(s))
        return true;
      if (auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
        const clang::ValueDecl* d = dre->getDecl();
        if (d == acc) return reads_acc = true;
        if (d == row || d == col || llvm::isa<clang::EnumConstantDecl>(d)) return true;
        if (auto* p = llvm::dyn_cast<clang::ParmVarDecl>(d)) return !p->getType()->isPointerType() || fail();
        return fail();
      }
      if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(s)) {
        switch (bo->getOpcode()) {
          case clang::BO_Add: case clang::BO_Sub: case clang::BO_Mul: case clang::BO_Div:
            return true;
          default:
            return fail();
        }
      }
      if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(s))
        return uo->getOpcode() == clang::UO_Minus || uo->getOpcode() == clang::UO_Plus || fail();
      return fail();
    }
  } v;
  v.acc = acc;
  v.row = row;
  v.col = col;
  v.c = c;
  v.ctx = &acc->getASTContext();
  v.c_index = c_index;
  v.TraverseStmt(const_cast<clang::Expr*>(e));
  return v.ok && v.reads_acc;
}

// An accumulator's initial value other than 0 (`(bias != NULL) ? bias[o] : 0.0f`): constants,
// parameters, row and col, arithmetic, comparisons and ?:, and elements of pointer parameters other
// than C at indices of the same; no calls, no other variable, no assignment. It is evaluated for
// each output under the kernel's guard, as before.
bool pureInit(const clang::Expr* e, const clang::ValueDecl* row, const clang::ValueDecl* col,
              const clang::ParmVarDecl* c) {
  struct V : clang::RecursiveASTVisitor<V> {
    const clang::ValueDecl *row, *col;
    const clang::ParmVarDecl* c;
    bool ok = true;
    bool fail() { return ok = false; }
    bool VisitStmt(clang::Stmt* s) {
      if (llvm::isa<clang::IntegerLiteral, clang::FloatingLiteral, clang::CXXNullPtrLiteralExpr, clang::CXXBoolLiteralExpr,
                    clang::GNUNullExpr, clang::ParenExpr, clang::ImplicitCastExpr, clang::CStyleCastExpr,
                    clang::CXXStaticCastExpr, clang::CXXFunctionalCastExpr, clang::ConstantExpr,
                    clang::ConditionalOperator>(s))
        return true;
      if (auto* a = llvm::dyn_cast<clang::ArraySubscriptExpr>(s)) {
        const clang::ParmVarDecl* p = pointerParam(a);
        return (p && p != c) || fail();
      }
      if (auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
        const clang::ValueDecl* d = dre->getDecl();
        if (d == row || d == col || llvm::isa<clang::EnumConstantDecl>(d)) return true;
        if (auto* p = llvm::dyn_cast<clang::ParmVarDecl>(d)) return p != c || fail();
        return fail();
      }
      if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(s)) return !(bo->isAssignmentOp() || bo->isCommaOp()) || fail();
      if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(s))
        return uo->getOpcode() == clang::UO_Minus || uo->getOpcode() == clang::UO_Plus || uo->getOpcode() == clang::UO_LNot ||
               fail();
      return fail();
    }
  } v;
  v.row = row;
  v.col = col;
  v.c = c;
  v.TraverseStmt(const_cast<clang::Expr*>(e));
  return v.ok;
}

bool usesKlNames(const clang::FunctionDecl* kernel) {
  for (const clang::ParmVarDecl* p : kernel->parameters())
    if (p->getName().starts_with("kl_")) return true;
  struct V : clang::RecursiveASTVisitor<V> {
    bool found = false;
    bool VisitNamedDecl(clang::NamedDecl* d) {
      if (d->getIdentifier() && d->getName().starts_with("kl_")) found = true;
      return !found;
    }
    bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
      if (e->getDecl()->getIdentifier() && e->getDecl()->getName().starts_with("kl_")) found = true;
      return !found;
    }
  } v;
  v.TraverseStmt(kernel->getBody());
  return v.found;
}

const clang::Stmt* unwrapAttributed(const clang::Stmt* s) {
  while (auto* a = llvm::dyn_cast_or_null<clang::AttributedStmt>(s)) s = a->getSubStmt();
  return s;
}

// The only statement of a braced block, or the statement itself.
const clang::Stmt* onlyStmt(const clang::Stmt* s) {
  if (auto* cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(s)) return cs->size() == 1 ? cs->body_front() : nullptr;
  return s;
}

// Where the body's text is rebuilt: [begin, end) from the line after `{` to the start of the
// line of `}`, with the indentation of `}` and the one of the first statement.
struct BodyText {
  unsigned begin = 0, end = 0;
  Layout layout;
};

std::optional<BodyText> bodyText(const Src& src, const clang::CompoundStmt* body, std::string* why) {
  unsigned lb = src.off(body->getLBracLoc()), rb = src.off(body->getRBracLoc());
  size_t first = src.restOfLineBlank(lb + 1);
  if (first == std::string::npos || !src.blankBefore(rb) || body->body_empty()) {
    *why = "the kernel's braces share their lines with code";
    return std::nullopt;
  }
  BodyText b;
  b.begin = static_cast<unsigned>(first);
  b.end = src.lineStart(rb);
  b.layout.base = src.indentOf(rb);
  // the indentation of the first line with code (or a comment) after `{`
  unsigned line = b.begin;
  while (line < b.end && src.restOfLineBlank(line) != std::string::npos)
    line = static_cast<unsigned>(src.restOfLineBlank(line));
  std::string ind = src.indentOf(line);
  if (ind.size() <= b.layout.base.size() || ind.compare(0, b.layout.base.size(), b.layout.base) != 0) {
    *why = "the body is not indented more than the kernel's closing brace";
    return std::nullopt;
  }
  b.layout.unit = ind.substr(b.layout.base.size());
  return b;
}

// The `layout` parameter: "strided" (default) or "vec4"; nullopt for anything else.
std::optional<bool> vec4Layout(const TransformParams& p) {
  auto it = p.find("layout");
  if (it == p.end() || it->second == "strided") return false;
  if (it->second == "vec4") return true;
  return std::nullopt;
}

std::string shapeText(const Dim3& d) { return num(d.x) + "x" + num(d.y) + "x" + num(d.z); }

class TileSgemm : public Transform {
 public:
  std::string id() const override { return "tile-sgemm"; }
  std::string summary() const override {
    return "tile a naive one-thread-per-output fp32 GEMM through shared memory, 64 x 64 per 16 x 16 block, 4 x 4 "
           "outputs per thread";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    using namespace clang::ast_matchers;
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    const std::optional<bool> vec4 = vec4Layout(req.params);
    if (!vec4) return TransformResult::no("the parameter layout must be \"strided\" or \"vec4\"");
    auto shared = varDecl(hasAttr(clang::attr::CUDAShared));
    if (!findAllIn<clang::Decl>(ctx, body, decl(shared).bind("d"), "d").empty() ||
        !findAllIn<clang::Expr>(ctx, body, declRefExpr(to(shared)).bind("e"), "e").empty())
      return TransformResult::no("the kernel already uses __shared__ memory");
    if (callsIntrinsicOf(ctx, req.kernel, IntrinsicKind::Barrier))
      return TransformResult::no("the kernel already calls a barrier (__syncthreads or another)");
    if (usesKlNames(req.kernel)) return TransformResult::no("the kernel already uses kl_ names");
    if (!src.inFile(body->getLBracLoc()) || !src.inFile(body->getRBracLoc()) || throughMacro(body))
      return TransformResult::no("the kernel's body is written through a macro");
    if (src.slice(src.off(body->getLBracLoc()), src.off(body->getRBracLoc())).find('#') != std::string::npos)
      return TransformResult::no("the kernel's body has preprocessor lines");

    // T col = <x index>; T row = <y index>; if (...) {...}
    std::vector<const clang::Stmt*> stmts(body->body_begin(), body->body_end());
    bool has_y = false;
    for (const clang::Stmt* s : stmts)
      if (const clang::VarDecl* vd = singleVar(s); vd && vd->getInit() && isThreadIndexOf(ctx, vd->getInit(), "y"))
        has_y = true;
    if (!has_y)
      return TransformResult::no("no 2-D index: the body declares no `T row = blockIdx.y * blockDim.y + threadIdx.y;`");
    if (stmts.size() != 3)
      return TransformResult::no("the body is not two 2-D index declarations and one guarded dot product, " +
                                 std::string(kExpected));
    const clang::VarDecl *col = nullptr, *row = nullptr;
    const clang::DeclStmt *col_ds = nullptr, *row_ds = nullptr;
    for (int i = 0; i < 2; ++i) {
      const clang::VarDecl* vd = singleVar(stmts[i]);
      if (!vd || !vd->getInit() || !vd->getType()->isIntegerType() || vd->getType()->isReferenceType() ||
          vd->isStaticLocal() || vd->getInitStyle() != clang::VarDecl::CInit)
        return TransformResult::no("the body does not start with two 2-D index declarations, " +
                                   std::string(kExpected));
      if (isThreadIndexOf(ctx, vd->getInit(), "x") && !col) {
        col = vd;
        col_ds = llvm::cast<clang::DeclStmt>(stmts[i]);
      } else if (isThreadIndexOf(ctx, vd->getInit(), "y") && !row) {
        row = vd;
        row_ds = llvm::cast<clang::DeclStmt>(stmts[i]);
      }
    }
    if (!col || !row)
      return TransformResult::no("no 2-D index: the body does not declare both blockIdx.x * blockDim.x + "
                                 "threadIdx.x and blockIdx.y * blockDim.y + threadIdx.y");
    // Which index is C's row is read from the store C[row * LDC + col]: a kernel whose x index runs
    // over C's rows (a linear layer's tokens: out[t * OC + o] with t from x) gets its tiles along
    // the grid dimensions that way round.
    bool row_from_x = false;
    if (auto* g0 = llvm::dyn_cast<clang::IfStmt>(stmts[2]))
      if (auto* in0 = llvm::dyn_cast_or_null<clang::CompoundStmt>(g0->getThen()); in0 && !in0->body_empty())
        if (auto* st0 = llvm::dyn_cast<clang::BinaryOperator>(in0->body_back()))
          if (auto* cs0 = llvm::dyn_cast<clang::ArraySubscriptExpr>(st0->getLHS()->IgnoreParens());
              cs0 && !rowMajorLd(cs0->getIdx(), row, col) && rowMajorLd(cs0->getIdx(), col, row)) {
            std::swap(row, col);
            std::swap(row_ds, col_ds);
            row_from_x = true;
          }
    const std::string rn = row->getNameAsString(), cn = col->getNameAsString();

    // if (row < M && col < N) { U acc = 0; for (...) ...; C[...] = ...; }
    auto* guard = llvm::dyn_cast<clang::IfStmt>(stmts[2]);
    if (!guard || guard->getElse() || guard->getInit() || guard->getConditionVariable() || guard->isConstexpr())
      return TransformResult::no("the index declarations are not followed by one guard `if (" + rn + " < M && " + cn +
                                 " < N)` without else");
    auto* cond = llvm::dyn_cast<clang::BinaryOperator>(guard->getCond()->IgnoreParenImpCasts());
    const clang::Expr *m = nullptr, *n = nullptr;
    if (cond && cond->getOpcode() == clang::BO_LAnd) {
      for (auto [p, q] : {std::pair{cond->getLHS(), cond->getRHS()}, std::pair{cond->getRHS(), cond->getLHS()}}) {
        if (boundOf(p, row) && boundOf(q, col)) {
          m = boundOf(p, row);
          n = boundOf(q, col);
          break;
        }
      }
    }
    if (!m || !n) return TransformResult::no("the guard is not `" + rn + " < M && " + cn + " < N` (either order)");
    auto* inner = llvm::dyn_cast<clang::CompoundStmt>(guard->getThen());
    if (!inner || inner->size() != 3)
      return TransformResult::no(
          "the guarded block is not `U acc = 0; for (...) acc += A[...] * B[...]; C[...] = acc;`");
    std::vector<const clang::Stmt*> in(inner->body_begin(), inner->body_end());

    // U acc = 0;
    const clang::VarDecl* acc = singleVar(in[0]);
    if (!acc || !acc->getInit() || acc->isStaticLocal() || acc->getInitStyle() != clang::VarDecl::CInit)
      return TransformResult::no("the guarded block does not start with an accumulator `U acc = <initial value>;`");
    if (!isFloat(acc->getType(), clang::BuiltinType::Float) && !isFloat(acc->getType(), clang::BuiltinType::Double))
      return TransformResult::no("the accumulator " + acc->getNameAsString() + " is " + acc->getType().getAsString() +
                                 ", not float or double");

    // for (int k = 0; k < K; ++k) acc += A[row * LDA + k] * B[k * LDB + col];
    auto* loop = llvm::dyn_cast<clang::ForStmt>(in[1]);
    const clang::VarDecl* k = loop ? singleVar(loop->getInit()) : nullptr;
    if (!loop || !k || !k->getInit() || !k->getType()->isIntegerType() || k->getInitStyle() != clang::VarDecl::CInit ||
        !isZeroLiteral(k->getInit()) || loop->getConditionVariable())
      return TransformResult::no("the accumulator is not followed by a loop `for (int k = 0; k < K; ++k)`");
    const clang::Expr* kb = boundOf(loop->getCond(), k);
    auto* inc = llvm::dyn_cast_or_null<clang::UnaryOperator>(loop->getInc());
    if (!kb || !inc || !inc->isIncrementOp() || !refersTo(inc->getSubExpr(), k))
      return TransformResult::no("the loop is not `for (int k = 0; k < K; ++k)`");
    for (auto [what, b] : {std::pair{"M", m}, std::pair{"N", n}, std::pair{"K", kb}})
      if (!simpleExpr(b))
        return TransformResult::no(std::string("the bound ") + what + " (" + sourceText(ctx, b->getSourceRange()) +
                                   ") reads memory, calls or uses a local variable");

    const clang::Stmt* step = onlyStmt(loop->getBody());
    auto* upd = llvm::dyn_cast_or_null<clang::BinaryOperator>(
        llvm::dyn_cast_or_null<clang::Expr>(step) ? llvm::cast<clang::Expr>(step)->IgnoreParens() : nullptr);
    const clang::Expr* prod = nullptr;
    if (upd && upd->getOpcode() == clang::BO_AddAssign && refersTo(upd->getLHS(), acc)) {
      prod = upd->getRHS();
    } else if (upd && upd->getOpcode() == clang::BO_Assign && refersTo(upd->getLHS(), acc)) {
      auto* add = llvm::dyn_cast<clang::BinaryOperator>(upd->getRHS()->IgnoreParenImpCasts());
      if (add && add->getOpcode() == clang::BO_Add) {
        if (refersTo(add->getLHS(), acc)) prod = add->getRHS();
        else if (refersTo(add->getRHS(), acc)) prod = add->getLHS();
      }
    }
    auto* mul = llvm::dyn_cast_or_null<clang::BinaryOperator>(prod ? prod->IgnoreParenImpCasts() : nullptr);
    const clang::ArraySubscriptExpr *fa = nullptr, *fb = nullptr;
    if (mul && mul->getOpcode() == clang::BO_Mul) {
      fa = llvm::dyn_cast<clang::ArraySubscriptExpr>(mul->getLHS()->IgnoreParenImpCasts());
      fb = llvm::dyn_cast<clang::ArraySubscriptExpr>(mul->getRHS()->IgnoreParenImpCasts());
    }
    if (!fa || !fb || !pointerParam(fa) || !pointerParam(fb))
      return TransformResult::no("the loop body is not `" + acc->getNameAsString() +
                                 " += A[...] * B[...]` with A and B pointer parameters");
    const std::string kn = k->getNameAsString();
    // A is the factor indexed by row and k, B the one indexed by k and col, each either way round:
    // A[row * lda + k] or A[k * lda + row] (A^T), B[k * ldb + col] or B[col * ldb + k] (B^T, as
    // in out = inp * weight^T).
    auto indexedBy = [&](const clang::ArraySubscriptExpr* f, const clang::VarDecl* mn, bool* trans) -> const clang::Expr* {
      if (const clang::Expr* ld = rowMajorLd(f->getIdx(), mn == row ? row : k, mn == row ? k : col)) {
        *trans = false;
        return ld;
      }
      if (const clang::Expr* ld = rowMajorLd(f->getIdx(), mn == row ? k : col, mn == row ? row : k)) {
        *trans = true;
        return ld;
      }
      return nullptr;
    };
    bool a_trans = false, b_trans = false;
    if (!indexedBy(fa, row, &a_trans)) std::swap(fa, fb);
    const clang::Expr* lda = indexedBy(fa, row, &a_trans);
    if (!lda)
      return TransformResult::no("neither factor is indexed A[" + rn + " * lda + " + kn + "] (or A[" + kn + " * lda + " +
                                 rn + "])");
    const clang::Expr* ldb = indexedBy(fb, col, &b_trans);
    if (!ldb)
      return TransformResult::no("the second factor is not indexed B[" + kn + " * ldb + " + cn + "] (or B[" + cn +
                                 " * ldb + " + kn + "])");

    // C[row * LDC + col] = <value of acc>;   (or +=)
    auto* st = llvm::dyn_cast<clang::BinaryOperator>(in[2]);
    auto* cs = st ? llvm::dyn_cast<clang::ArraySubscriptExpr>(st->getLHS()->IgnoreParens()) : nullptr;
    const clang::Expr* ldc = cs ? rowMajorLd(cs->getIdx(), row, col) : nullptr;
    if (!st || (st->getOpcode() != clang::BO_Assign && st->getOpcode() != clang::BO_AddAssign) || !cs ||
        !pointerParam(cs) || !ldc)
      return TransformResult::no("the dot product is not followed by a store `C[" + rn + " * ldc + " + cn + "] = " +
                                 acc->getNameAsString() + ";`");
    for (auto [what, e] : {std::pair{"lda", lda}, std::pair{"ldb", ldb}, std::pair{"ldc", ldc}})
      if (!simpleExpr(e))
        return TransformResult::no(std::string("the leading dimension ") + what + " (" +
                                   sourceText(ctx, e->getSourceRange()) +
                                   ") reads memory, calls or uses a local variable");
    const clang::ParmVarDecl *pa = pointerParam(fa), *pb = pointerParam(fb), *pc = pointerParam(cs);
    if (pc == pa || pc == pb)
      return TransformResult::no("C (" + pc->getNameAsString() + ") is also a factor of the product");
    if (!isZeroLiteral(acc->getInit()) && !pureInit(acc->getInit(), row, col, pc))
      return TransformResult::no("the initial value of " + acc->getNameAsString() + " (" +
                                 sourceText(ctx, acc->getInit()->getSourceRange()) +
                                 ") is not an expression of constants, parameters, " + rn + ", " + cn +
                                 " and elements of pointer parameters other than " + pc->getNameAsString());
    if (!pureStoreValue(st->getRHS(), acc, row, col, pc, squeeze(sourceText(ctx, cs->getIdx()->getSourceRange()))))
      return TransformResult::no("the stored value is not an expression of " + acc->getNameAsString() +
                                 " (with constants, parameters, " + rn + ", " + cn + " and " + pc->getNameAsString() +
                                 " at the stored element)");
    using Access = std::pair<const clang::ParmVarDecl*, const clang::ArraySubscriptExpr*>;
    for (auto [p, e] : {Access{pa, fa}, Access{pb, fb}, Access{pc, cs}})
      if (!isFloat(e->getType(), clang::BuiltinType::Float))
        return TransformResult::no("the element type of " + p->getNameAsString() + " is " +
                                   e->getType().getUnqualifiedType().getAsString() + ", not float");

    // The block: 16 x 16 x 1 threads (the tile and the thread mapping follow from it).
    std::optional<Dim3> shape = req.facts.shape();
    if (!shape)
      return TransformResult::no("the block shape is unknown (tile-sgemm needs every launch to use one square block "
                                 "of 8, " + num(kThreads) + " or 32 threads a side)");
    // A square block of 8, 16 or 32 threads a side covers a whole number of blocks per 64 x 64
    // tile: the grid shrinks by 64 / side and the launch gets the 16 x 16 block the tile needs.
    const long long side = shape->x;
    if (!(shape->y == side && shape->z == 1 && (side == 8 || side == kThreads || side == 32)))
      return TransformResult::no("the block is " + shapeText(*shape) + "; tile-sgemm needs a square block of 8, " +
                                 num(kThreads) + " or 32 threads a side (its " + num(kTile) + " x " + num(kTile) +
                                 " tile, " + num(kThreads) + " x " + num(kThreads) + " threads with " + num(kMicro) +
                                 " x " + num(kMicro) + " outputs each, covers whole blocks of the naive grid)");
    const unsigned per_tile = static_cast<unsigned>(kTile / side);

    std::string why;
    auto bt = bodyText(src, body, &why);
    if (!bt) return TransformResult::no(why);
    Gemm g;
    g.col_type = typeText(ctx, src, col_ds, col);
    g.col = cn;
    g.row_type = typeText(ctx, src, row_ds, row);
    g.row = rn;
    g.guard = sourceText(ctx, guard->getCond()->getSourceRange());
    g.m = sourceText(ctx, m->getSourceRange());
    g.n = sourceText(ctx, n->getSourceRange());
    g.k_bound = sourceText(ctx, kb->getSourceRange());
    g.acc_type = typeText(ctx, src, llvm::cast<clang::DeclStmt>(in[0]), acc);
    g.acc = acc->getNameAsString();
    if (isZeroLiteral(acc->getInit())) {
      g.zero = sourceText(ctx, acc->getInit()->getSourceRange());
    } else {
      g.init = sourceText(ctx, acc->getInit()->getSourceRange());
      g.zero = isFloat(acc->getType(), clang::BuiltinType::Float) ? "0.0f" : "0.0";
    }
    g.row_from_x = row_from_x;
    g.a_trans = a_trans;
    g.b_trans = b_trans;
    g.k_type = typeText(ctx, src, llvm::cast<clang::DeclStmt>(loop->getInit()), k);
    g.k = kn;
    g.a_access = sourceText(ctx, fa->getSourceRange());
    g.b_access = sourceText(ctx, fb->getSourceRange());
    g.store = src.slice(src.off(in[2]->getBeginLoc()), src.stmtEnd(in[2]));
    if (req.rewriter.ReplaceText(src.at(bt->begin), bt->end - bt->begin, tiledText(g, bt->layout, *vec4)))
      return TransformResult::no("the rewriter refused the edit");
    GeometryChange geo;
    geo.grid_x_divisor = per_tile;
    geo.grid_y_divisor = per_tile;
    if (side != kThreads) geo.block_x = geo.block_y = kThreads;
    return TransformResult::yes("tiled GEMM: " + num(kTile) + " x " + num(kTile) + " of " + pc->getNameAsString() +
                                    " per " + num(kThreads) + " x " + num(kThreads) + " block, " + num(kMicro) + " x " +
                                    num(kMicro) + (*vec4 ? " consecutive per thread (float4 shared reads)" : " per thread") +
                                    ", " + g.k + " in steps of " + num(kDepth) + " (grid / " + num(per_tile) +
                                    " in x and y" + (side != kThreads ? ", block " + num(side) + "x" + num(side) + " -> " +
                                                                              num(kThreads) + "x" + num(kThreads)
                                                                        : std::string()) + ")",
                                geo);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    const TransformResult not_ours = TransformResult::no("the body is not the tiled GEMM tile-sgemm's forward emits");
    // (__shared__ is a macro: the parts are checked by rebuilding the text, not for macros)
    if (!src.inFile(body->getLBracLoc()) || !src.inFile(body->getRBracLoc())) return not_ours;
    std::vector<const clang::Stmt*> stmts(body->body_begin(), body->body_end());
    if (stmts.size() != 9) return not_ours;

    // Every part is read from where forward puts it; the rebuilt text is then compared in full.
    Gemm g;
    auto decl = [&](const clang::Stmt* s, std::string* type, std::string* name) {
      const clang::VarDecl* vd = singleVar(s);
      if (!vd) return false;
      *type = typeText(ctx, src, llvm::cast<clang::DeclStmt>(s), vd);
      *name = vd->getNameAsString();
      return true;
    };
    auto text = [&](const clang::Stmt* s) { return s ? sourceText(ctx, s->getSourceRange()) : std::string(); };
    auto forBody = [](const clang::Stmt* s) -> const clang::Stmt* {
      auto* f = llvm::dyn_cast_or_null<clang::ForStmt>(unwrapAttributed(s));
      return f ? f->getBody() : nullptr;
    };
    auto child = [](const clang::Stmt* s, unsigned i, unsigned size) -> const clang::Stmt* {
      auto* cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(s);
      return cs && cs->size() == size ? cs->body_begin()[i] : nullptr;
    };
    // The stores: for kl_i { for kl_j { T row = ...; T col = ...; if (guard) { U acc = ...; store } } }
    const clang::Stmt* sb = forBody(forBody(stmts[8]));
    auto* sif = llvm::dyn_cast_or_null<clang::IfStmt>(child(sb, 2, 3));
    if (!sif || !decl(child(sb, 0, 3), &g.row_type, &g.row) || !decl(child(sb, 1, 3), &g.col_type, &g.col))
      return not_ours;
    g.guard = text(sif->getCond());
    const clang::Stmt* st = child(sif->getThen(), 1, 2);
    if (!st || !decl(child(sif->getThen(), 0, 2), &g.acc_type, &g.acc)) return not_ours;
    g.store = src.slice(src.off(st->getBeginLoc()), src.stmtEnd(st));
    // kl_acc[kl_i][kl_j] = zero;   or { T row = ...; T col = ...; kl_acc[kl_i][kl_j] = guard ? init : zero; }
    const clang::Stmt* fill = forBody(forBody(stmts[6]));
    if (auto* zero = llvm::dyn_cast_or_null<clang::BinaryOperator>(fill)) {
      g.zero = text(zero->getRHS());
    } else {
      auto* set = llvm::dyn_cast_or_null<clang::BinaryOperator>(child(fill, 2, 3));
      auto* pick = set ? llvm::dyn_cast<clang::ConditionalOperator>(set->getRHS()->IgnoreImpCasts()) : nullptr;
      if (!pick) return not_ours;
      auto* init = llvm::dyn_cast<clang::ParenExpr>(pick->getTrueExpr()->IgnoreImpCasts());  // forward's parentheses
      if (!init) return not_ours;
      g.init = text(init->getSubExpr());
      g.zero = text(pick->getFalseExpr()->IgnoreImpCasts());
    }
    // for (T kl_k0 = 0; kl_k0 < K; ...) { A loads; B loads; sync; products; sync }
    auto* k0 = llvm::dyn_cast<clang::ForStmt>(stmts[7]);
    auto* k0c = k0 ? llvm::dyn_cast_or_null<clang::BinaryOperator>(k0->getCond()) : nullptr;
    if (!k0c) return not_ours;
    g.k_bound = text(k0c->getRHS());
    const clang::Stmt* al = forBody(child(k0->getBody(), 0, 5));
    const clang::Stmt* bl = forBody(child(k0->getBody(), 1, 5));
    if (!decl(child(al, 1, 3), &g.k_type, &g.k)) return not_ours;
    // kl_As[...][...] = row < M && k < K ? A[...] : 0.0f;  kl_Bs[...][...] = k < K && col < N ? B[...] : 0.0f;
    // (M is the right operand of the first comparison, N of the second)
    auto load = [&](const clang::Stmt* s, bool second, std::string* bound, std::string* access) {
      auto* as = llvm::dyn_cast_or_null<clang::BinaryOperator>(s);
      auto* co = as ? llvm::dyn_cast<clang::ConditionalOperator>(as->getRHS()->IgnoreImpCasts()) : nullptr;
      auto* both = co ? llvm::dyn_cast<clang::BinaryOperator>(co->getCond()->IgnoreImpCasts()) : nullptr;
      const clang::Expr* side = both ? (second ? both->getRHS() : both->getLHS()) : nullptr;
      auto* cmp = side ? llvm::dyn_cast<clang::BinaryOperator>(side->IgnoreImpCasts()) : nullptr;
      if (!cmp) return false;
      *bound = text(cmp->getRHS());
      *access = text(co->getTrueExpr()->IgnoreImpCasts());
      return true;
    };
    if (!load(child(al, 2, 3), false, &g.m, &g.a_access) || !load(child(bl, 2, 3), true, &g.n, &g.b_access))
      return not_ours;

    std::string why;
    auto bt = bodyText(src, body, &why);
    if (!bt) return not_ours;
    // The layout the parameters name (so forward with the same parameters gives this text back).
    const std::optional<bool> vec4 = vec4Layout(req.params);
    if (!vec4) return TransformResult::no("the parameter layout must be \"strided\" or \"vec4\"");
    // Which of forward's forms it is (row index from x or y, A or B read along k): the one whose
    // text it is.
    bool found = false;
    for (int form = 0; form < 8 && !found; ++form) {
      g.row_from_x = form & 1;
      g.a_trans = form & 2;
      g.b_trans = form & 4;
      found = src.slice(bt->begin, bt->end) == tiledText(g, bt->layout, *vec4);
    }
    if (!found) return not_ours;
    if (req.rewriter.ReplaceText(src.at(bt->begin), bt->end - bt->begin, naiveText(g, bt->layout)))
      return TransformResult::no("the rewriter refused the edit");
    GeometryChange geo;  // forward's grid / 4 in x and y undone
    geo.grid_x_multiplier = kMicro;
    geo.grid_y_multiplier = kMicro;
    return TransformResult::yes("naive GEMM: one thread per element of C, grid * " + num(kMicro) + " in x and y", geo);
  }
};

}  // namespace
std::unique_ptr<Transform> makeTileSgemm() { return std::make_unique<TileSgemm>(); }
}  // namespace klineage
