// tree-reduce-shuffle: a shared-memory tree reduction becomes warp shuffles.
//   __syncthreads();                                     __syncthreads();
//   for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {  {  // warp shuffles, then one slot per warp
//     if (tid < s) sdata[tid] += sdata[tid + s];   ->        float kl_v = sdata[tid];
//     __syncthreads();                                       for (int kl_o = 16; ...) kl_v += __shfl_down_sync(...);
//   }                                                        ... warp 0 reduces the warps' values ...
//   if (tid == 0) atomicAdd(out, sdata[0]);                  if (tid == 0) sdata[0] = kl_v; }  __syncthreads(); }
//                                                        if (tid == 0) atomicAdd(out, sdata[0]);
// Why it pays: the tree takes log2(block) steps, each a barrier and a shared-memory round trip with
// half the threads idle; shuffles reduce a warp in registers with no barrier, so the block needs two
// barriers and one shared slot per warp. The code around the tree (loads, grid-stride sums, the
// atomic or the per-block partial) is kept as written.
// Recognized trees (the reduction sample's reduce0-reduce2 spellings and textbook ones): sequential
// addressing `for (s = blockDim.x / 2 (or >> 1); s > 0 (!= 0, >= 1); s >>= 1 (or /= 2))` or the same
// as `int s = blockDim.x / 2; while (s != 0) { ...; s /= 2; }`, and interleaved addressing
// `for (s = 1; s < blockDim.x; s *= 2 (<<= 1)) if (tid % (2 * s) == 0) ...`; the step
// `SH[tid] += SH[tid + s]`, `SH[tid] = SH[tid] + SH[tid + s]` or `SH[tid] = F(SH[tid], SH[tid + s])`
// with F one of max, min, fmaxf, fminf, fmax, fmin; tid is threadIdx.x or a local initialized from
// it and never written.
// When it is sound: every thread of the block reaches the tree (it is a statement of the kernel's
// body, after a barrier that publishes every slot), the block is 1-D with a power-of-two number of
// threads from 32 to 1024 (TransformFacts::shape(); the skill requires uniform-block-size), so every
// warp is full for __shfl_down_sync's full mask; after the tree the kernel reads only SH[0], which
// the rewrite writes before a barrier, as the tree left it. A sum is reassociated (floating-point
// results round differently: the gate's numerics decide); max and min are exact.
// Param coarsen > 1: the one-element load `SH[tid] = (i < n) ? E : ID;` becomes a grid-stride
// reduction per thread and the grid shrinks by coarsen (sound only when the one store is an atomic
// of the tree's operation at one location, the grid appears only in i, and ID is the identity:
// coarseLoad checks it; tree-reduce-shuffle.md says why).
// Inverse: recognizes exactly the text forward emits (rebuilt from its parts and compared) and
// writes the canonical sequential tree `for (unsigned int kl_s = blockDim.x / 2; kl_s > 0; kl_s >>= 1)`.
#include <algorithm>
#include <memory>
#include <optional>

#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

using cuda::isBuiltinMember;
using cuda::isSyncthreads;
using cuda::stripIndexCasts;
using cuda::varOf;

bool isLiteral(const clang::Expr* e, uint64_t v) { return cuda::isIntLiteral(e, v); }

bool isBlockDimX(const clang::Expr* e) { return isBuiltinMember(stripIndexCasts(e), "blockDim", "x"); }

// The reduction's combining step.
struct Op {
  bool sum = true;
  std::string fn;  // max, fminf, ... when !sum
  std::string combine(const std::string& acc, const std::string& other) const {
    return sum ? acc + " += " + other : acc + " = " + fn + "(" + acc + ", " + other + ")";
  }
};

bool isMinMax(const std::string& n) {
  return n == "max" || n == "min" || n == "fmaxf" || n == "fminf" || n == "fmax" || n == "fmin";
}

// Emitted names; a kernel that declares one is refused.
const char* const kNames[] = {"kl_v", "kl_o", "kl_warp", "kl_acc", "kl_i"};

struct DeclaresKl : clang::RecursiveASTVisitor<DeclaresKl> {
  std::string found;
  bool VisitNamedDecl(clang::NamedDecl* d) {
    for (const char* n : kNames)
      if (d->getName() == n) found = n;
    return true;
  }
};

class TreeMatcher {
 public:
  TreeMatcher(clang::ASTContext& ctx, const clang::CompoundStmt* body) : ctx_(ctx), body_(body) {}

  // tid: threadIdx.x, or a local initialized from it that the kernel never writes.
  bool isTid(const clang::Expr* e, std::string* text = nullptr) const { return cuda::isThreadIndexX(ctx_, body_, e, text); }

  // SH[tid] for the shared array `sh` (set on first use).
  bool isSlot(const clang::Expr* e, const clang::VarDecl*& sh, std::string& tid) const {
    auto* a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts());
    if (!a) return false;
    const clang::VarDecl* base = varOf(a->getBase());
    if (!base || (sh && base != sh)) return false;
    if (!isTid(a->getIdx(), &tid)) return false;
    sh = base;
    return true;
  }

  // SH[tid + s] (either order).
  bool isPartner(const clang::Expr* e, const clang::VarDecl* sh, const clang::VarDecl* s) const {
    auto* a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts());
    if (!a || varOf(a->getBase()) != sh) return false;
    auto* add = llvm::dyn_cast<clang::BinaryOperator>(stripIndexCasts(a->getIdx()));
    if (!add || add->getOpcode() != clang::BO_Add) return false;
    return (isTid(add->getLHS()) && varOf(add->getRHS()) == s) || (isTid(add->getRHS()) && varOf(add->getLHS()) == s);
  }

  // The guarded step of the tree: SH[tid] += SH[tid + s] and its spellings.
  bool step(const clang::Stmt* st, const clang::VarDecl* s, const clang::VarDecl*& sh, std::string& tid, Op& op,
            std::string& why) const {
    if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(st)) {
      if (cs->size() != 1) return fail(why, "the tree's step is not one statement");
      st = cs->body_front();
    }
    auto* b = llvm::dyn_cast<clang::BinaryOperator>(st);
    if (!b) return fail(why, "the tree's step is not an assignment");
    if (!isSlot(b->getLHS(), sh, tid)) return fail(why, "the tree's step does not write SH[tid]");
    const clang::Expr* r = b->getRHS()->IgnoreParenImpCasts();
    if (b->getOpcode() == clang::BO_AddAssign) {
      if (!isPartner(r, sh, s)) return fail(why, "the tree's step does not add SH[tid + s]");
      op.sum = true;
      return true;
    }
    if (b->getOpcode() != clang::BO_Assign) return fail(why, "the tree's step is not `+=` or `=`");
    std::string t2;
    const clang::VarDecl* sh2 = sh;
    if (auto* add = llvm::dyn_cast<clang::BinaryOperator>(r); add && add->getOpcode() == clang::BO_Add) {
      if ((isSlot(add->getLHS(), sh2, t2) && isPartner(add->getRHS(), sh, s)) ||
          (isSlot(add->getRHS(), sh2, t2) && isPartner(add->getLHS(), sh, s))) {
        op.sum = true;
        return true;
      }
      return fail(why, "the tree's step adds something other than SH[tid] and SH[tid + s]");
    }
    if (auto* c = llvm::dyn_cast<clang::CallExpr>(r); c && c->getDirectCallee() && c->getNumArgs() == 2) {
      const std::string fn = c->getDirectCallee()->getNameAsString();
      if (!isMinMax(fn)) return fail(why, "the tree combines with " + fn + ", not a sum, max or min");
      if ((isSlot(c->getArg(0), sh2, t2) && isPartner(c->getArg(1), sh, s)) ||
          (isSlot(c->getArg(1), sh2, t2) && isPartner(c->getArg(0), sh, s))) {
        op.sum = false;
        op.fn = fn;
        return true;
      }
      return fail(why, "the tree's " + fn + " does not combine SH[tid] and SH[tid + s]");
    }
    return fail(why, "the tree's step is not a sum, max or min of SH[tid] and SH[tid + s]");
  }

  static bool fail(std::string& why, const std::string& w) {
    if (why.empty()) why = w;
    return false;
  }

 private:
  clang::ASTContext& ctx_;
  const clang::CompoundStmt* body_;
};

struct Tree {
  size_t first = 0, last = 0;  // statements of the body the tree spans (a while's declaration too)
  const clang::VarDecl* sh = nullptr;
  std::string tid;
  Op op;
};

// `s > 0`, `s != 0`, `s >= 1`.
bool positive(const clang::Expr* c, const clang::VarDecl* s) {
  auto* b = llvm::dyn_cast<clang::BinaryOperator>(c->IgnoreParenImpCasts());
  if (!b || varOf(b->getLHS()) != s) return false;
  return ((b->getOpcode() == clang::BO_GT || b->getOpcode() == clang::BO_NE) && isLiteral(b->getRHS(), 0)) ||
         (b->getOpcode() == clang::BO_GE && isLiteral(b->getRHS(), 1));
}

// `s >>= 1`, `s /= 2` (halve) or `s *= 2`, `s <<= 1` (double).
bool scales(const clang::Stmt* st, const clang::VarDecl* s, bool halve) {
  auto* b = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(st);
  if (!b || varOf(b->getLHS()) != s) return false;
  if (halve)
    return (b->getOpcode() == clang::BO_ShrAssign && isLiteral(b->getRHS(), 1)) ||
           (b->getOpcode() == clang::BO_DivAssign && isLiteral(b->getRHS(), 2));
  return (b->getOpcode() == clang::BO_ShlAssign && isLiteral(b->getRHS(), 1)) ||
         (b->getOpcode() == clang::BO_MulAssign && isLiteral(b->getRHS(), 2));
}

// `blockDim.x / 2` or `blockDim.x >> 1`.
bool halfBlock(const clang::Expr* e) {
  auto* b = llvm::dyn_cast_or_null<clang::BinaryOperator>(e ? stripIndexCasts(e) : nullptr);
  if (!b || !isBlockDimX(b->getLHS())) return false;
  return (b->getOpcode() == clang::BO_Div && isLiteral(b->getRHS(), 2)) ||
         (b->getOpcode() == clang::BO_Shr && isLiteral(b->getRHS(), 1));
}

// `tid < s` (sequential) or `tid % (2 * s) == 0` (interleaved).
bool activeThreads(const TreeMatcher& m, const clang::Expr* c, const clang::VarDecl* s, bool interleaved) {
  auto* b = llvm::dyn_cast<clang::BinaryOperator>(c->IgnoreParenImpCasts());
  if (!b) return false;
  if (!interleaved) return b->getOpcode() == clang::BO_LT && m.isTid(b->getLHS()) && varOf(b->getRHS()) == s;
  if (b->getOpcode() != clang::BO_EQ || !isLiteral(b->getRHS(), 0)) return false;
  auto* rem = llvm::dyn_cast<clang::BinaryOperator>(stripIndexCasts(b->getLHS()));
  if (!rem || rem->getOpcode() != clang::BO_Rem || !m.isTid(rem->getLHS())) return false;
  auto* mul = llvm::dyn_cast<clang::BinaryOperator>(stripIndexCasts(rem->getRHS()));
  return mul && mul->getOpcode() == clang::BO_Mul &&
         ((isLiteral(mul->getLHS(), 2) && varOf(mul->getRHS()) == s) || (isLiteral(mul->getRHS(), 2) && varOf(mul->getLHS()) == s));
}

// The loop's body: the guarded step and a barrier (and a while loop's own halving).
bool treeBody(const TreeMatcher& m, const clang::Stmt* body, const clang::VarDecl* s, bool interleaved, bool is_while,
              Tree& t, std::string& why) {
  auto* cs = llvm::dyn_cast<clang::CompoundStmt>(body);
  if (!cs || cs->size() != (is_while ? 3u : 2u))
    return TreeMatcher::fail(why, "the loop's body is not the guarded step and a __syncthreads()");
  auto* guard = llvm::dyn_cast<clang::IfStmt>(cs->body_front());
  if (!guard || guard->getElse() || guard->getInit() || guard->getConditionVariable())
    return TreeMatcher::fail(why, "the loop's first statement is not the guarded step `if (tid < s) ...`");
  if (!activeThreads(m, guard->getCond(), s, interleaved))
    return TreeMatcher::fail(why, interleaved ? "the step's guard is not `tid % (2 * s) == 0`" : "the step's guard is not `tid < s`");
  if (!isSyncthreads(cs->body_begin()[1])) return TreeMatcher::fail(why, "the step is not followed by __syncthreads()");
  if (is_while && !scales(cs->body_back(), s, true)) return TreeMatcher::fail(why, "the while loop does not halve its stride last");
  return m.step(guard->getThen(), s, t.sh, t.tid, t.op, why);
}

// The tree starting at statement i of the body, if there is one.
bool treeAt(const TreeMatcher& m, const clang::CompoundStmt* body, size_t i, Tree& t, std::string& why) {
  const clang::Stmt* st = body->body_begin()[i];
  if (auto* f = llvm::dyn_cast<clang::ForStmt>(st)) {
    auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(f->getInit());
    if (!ds || !ds->isSingleDecl() || !f->getCond() || !f->getInc()) return false;
    auto* s = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
    if (!s || !s->getType()->isIntegerType() || !s->getInit()) return false;
    bool interleaved;
    if (halfBlock(s->getInit()) && positive(f->getCond(), s) && scales(f->getInc(), s, true)) {
      interleaved = false;
    } else if (isLiteral(s->getInit(), 1) && scales(f->getInc(), s, false)) {
      auto* c = llvm::dyn_cast<clang::BinaryOperator>(f->getCond()->IgnoreParenImpCasts());
      if (!c || c->getOpcode() != clang::BO_LT || varOf(c->getLHS()) != s || !isBlockDimX(c->getRHS())) return false;
      interleaved = true;
    } else {
      return false;
    }
    t.first = t.last = i;
    return treeBody(m, f->getBody(), s, interleaved, false, t, why);
  }
  // int s = blockDim.x / 2; while (s != 0) { ...; s /= 2; }
  auto* ds = llvm::dyn_cast<clang::DeclStmt>(st);
  if (!ds || !ds->isSingleDecl() || i + 1 >= body->size()) return false;
  auto* s = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
  auto* w = llvm::dyn_cast<clang::WhileStmt>(body->body_begin()[i + 1]);
  if (!s || !w || !s->getType()->isIntegerType() || !halfBlock(s->getInit()) || !positive(w->getCond(), s)) return false;
  t.first = i;
  t.last = i + 1;
  if (!treeBody(m, w->getBody(), s, false, true, t, why)) return false;
  for (size_t j = i + 2; j < body->size(); ++j)
    if (usesDecl(body->body_begin()[j], s)) return TreeMatcher::fail(why, "the tree's stride " + s->getNameAsString() + " is used after it");
  return true;
}

// What the kernel does with SH after the tree: only reads of SH[0].
struct AfterUses : clang::RecursiveASTVisitor<AfterUses> {
  clang::ASTContext& ctx;
  const clang::VarDecl* sh;
  std::string why;
  AfterUses(clang::ASTContext& c, const clang::VarDecl* s) : ctx(c), sh(s) {}
  bool VisitDeclRefExpr(clang::DeclRefExpr* d) {
    if (d->getDecl() != sh) return true;
    const clang::Stmt* p = parentStmtOf(ctx, *d);
    while (p && llvm::isa<clang::ImplicitCastExpr>(p)) p = parentStmtOf(ctx, *p);
    auto* a = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(p);
    if (!a || !isLiteral(a->getIdx(), 0)) {
      why = "the kernel uses " + sh->getNameAsString() + " after the tree other than as " + sh->getNameAsString() + "[0]";
      return false;
    }
    const clang::Stmt* up = parentStmtOf(ctx, *a);
    while (up && llvm::isa<clang::ParenExpr>(up)) up = parentStmtOf(ctx, *up);
    auto* impl = llvm::dyn_cast_or_null<clang::ImplicitCastExpr>(up);
    // In a template's pattern a call on dependent types has no conversions yet: an atomic's value
    // operand (not its address) is passed by value, a read.
    bool value_of_atomic = false;
    if (auto* call = llvm::dyn_cast_or_null<clang::CallExpr>(up); call && a->isTypeDependent()) {
      const auto kind = intrinsicKind(calleeName(call));
      for (unsigned i = 1; i < call->getNumArgs(); ++i)
        if (call->getArg(i)->IgnoreParens() == a) value_of_atomic = kind == IntrinsicKind::Atomic;
    }
    if (!value_of_atomic && (!impl || impl->getCastKind() != clang::CK_LValueToRValue)) {
      why = "the kernel writes or takes the address of " + sh->getNameAsString() + "[0] after the tree";
      return false;
    }
    return true;
  }
};

std::string elementType(clang::ASTContext& ctx, const clang::VarDecl* sh) { return cuda::arrayElementType(ctx, sh); }

// Whether __shfl_down_sync takes the element type (dependent types are checked when instantiated,
// by the gate's compile).
bool shuffleable(clang::ASTContext& ctx, const clang::VarDecl* sh) { return cuda::shufflesArrayElement(ctx, sh); }

// The forward text for the parts, its first line at the statement's place, the others indented.
std::string shuffleText(const std::string& T, const std::string& sh, const std::string& tid, const Op& op,
                        const std::string& in) {
  const std::string shfl = "__shfl_down_sync(0xffffffffu, kl_v, kl_o)";
  const std::string identity = op.sum ? "(" + T + ")0" : "kl_warp[0]";
  std::string s;
  s += "{  // the tree as warp shuffles, then one shared slot per warp\n";
  s += in + "    " + T + " kl_v = " + sh + "[" + tid + "];\n";
  s += in + "    for (int kl_o = 16; kl_o > 0; kl_o >>= 1) " + op.combine("kl_v", shfl) + ";\n";
  s += in + "    __shared__ " + T + " kl_warp[32];\n";
  s += in + "    if ((" + tid + " & 31) == 0) kl_warp[" + tid + " >> 5] = kl_v;\n";
  s += in + "    __syncthreads();\n";
  s += in + "    if (" + tid + " < 32) {\n";
  s += in + "        kl_v = " + tid + " < (blockDim.x >> 5) ? kl_warp[" + tid + "] : " + identity + ";\n";
  s += in + "        for (int kl_o = 16; kl_o > 0; kl_o >>= 1) " + op.combine("kl_v", shfl) + ";\n";
  s += in + "        if (" + tid + " == 0) " + sh + "[0] = kl_v;\n";
  s += in + "    }\n";
  s += in + "    __syncthreads();\n";
  s += in + "}";
  return s;
}

// The canonical sequential tree the inverse writes.
std::string treeText(const std::string& sh, const std::string& tid, const Op& op, const std::string& in) {
  const std::string slot = sh + "[" + tid + "]", partner = sh + "[" + tid + " + kl_s]";
  std::string s;
  s += "for (unsigned int kl_s = blockDim.x / 2; kl_s > 0; kl_s >>= 1) {\n";
  s += in + "    if (" + tid + " < kl_s)\n";
  s += in + "        " + (op.sum ? slot + " += " + partner : slot + " = " + op.fn + "(" + slot + ", " + partner + ")") + ";\n";
  s += in + "    __syncthreads();\n";
  s += in + "}";
  return s;
}

// ---- coarsen: the one-element load becomes a grid-stride reduction ----

// The load `SH[tid] = (g < n) ? E : ID;` before the tree, as parts.
struct CoarseLoad {
  const clang::Stmt* stmt = nullptr;
  const clang::VarDecl* g = nullptr;  // the global index, read only here
  std::string g_type, g_name, n, id, e_with_i, combine_fn;  // E with g written kl_i
  std::string T, sh, tid;
  bool sum = true;
};

// The text coarsen writes in place of the load (its first line at the statement's place).
std::string coarseText(const CoarseLoad& c, long long coarsen, const std::string& in) {
  const std::string acc = c.sum ? "kl_acc += " + c.e_with_i : "kl_acc = " + c.combine_fn + "(kl_acc, " + c.e_with_i + ")";
  std::string s;
  s += "{  // kl: each thread first reduces its elements " + c.g_name + ", " + c.g_name +
       " + blockDim.x * gridDim.x, ... (a grid " + std::to_string(coarsen) + "x smaller)\n";
  s += in + "    " + c.T + " kl_acc = " + c.id + ";\n";
  s += in + "    for (" + c.g_type + " kl_i = " + c.g_name + "; kl_i < " + c.n + "; kl_i += blockDim.x * gridDim.x) " + acc + ";\n";
  s += in + "    " + c.sh + "[" + c.tid + "] = kl_acc;\n";
  s += in + "}";
  return s;
}

// The canonical load the inverse writes back.
std::string loadText(const CoarseLoad& c, const std::string& e) {
  return c.sh + "[" + c.tid + "] = (" + c.g_name + " < " + c.n + ") ? " + e + " : " + c.id + ";";
}

// e's text with every reference to v spelled `to` instead.
std::string renamed(clang::ASTContext& ctx, const SourceBuffer& src, const clang::Expr* e, const clang::ValueDecl* v,
                    const std::string& to, bool* ok) {
  const unsigned a = src.off(e->getBeginLoc()), b = src.tokEnd(e->getEndLoc());
  std::vector<const clang::DeclRefExpr*> refs = refsTo(e, v);
  std::sort(refs.begin(), refs.end(), [&](auto* x, auto* y) { return src.off(x->getBeginLoc()) < src.off(y->getBeginLoc()); });
  std::string out;
  unsigned at = a;
  for (const clang::DeclRefExpr* r : refs) {
    if (!src.inFile(r->getBeginLoc())) return *ok = false, std::string();
    const unsigned ra = src.off(r->getBeginLoc());
    out += src.slice(at, ra) + to;
    at = src.tokEnd(r->getEndLoc());
  }
  (void)ctx;
  return out + src.slice(at, b);
}

// Whether the constant e is the identity of the tree's operation on T: 0 for a sum, the type's
// lowest value (-INFINITY for floating point, INT_MIN, 0 unsigned) for max, its highest for min.
bool isIdentity(clang::ASTContext& ctx, const clang::Expr* e, clang::QualType T, const Op& op) {
  const bool is_max = !op.sum && op.fn.find("max") != std::string::npos;
  if (T->isRealFloatingType()) {
    llvm::APFloat f(0.0);
    if (!e->EvaluateAsFloat(f, ctx)) {
      clang::Expr::EvalResult r;
      if (!e->EvaluateAsRValue(r, ctx)) return false;
      if (r.Val.isInt()) return op.sum && r.Val.getInt() == 0;
      if (!r.Val.isFloat()) return false;
      f = r.Val.getFloat();
    }
    if (op.sum) return f.isZero();
    return f.isInfinity() && f.isNegative() == is_max;
  }
  if (!T->isIntegerType()) return false;
  clang::Expr::EvalResult r;
  if (!e->EvaluateAsInt(r, ctx)) return false;
  const llvm::APSInt v = r.Val.getInt();
  const unsigned bits = static_cast<unsigned>(ctx.getTypeSize(T));
  const bool uns = T->isUnsignedIntegerType();
  const llvm::APSInt want = op.sum ? llvm::APSInt::get(0)
                            : is_max ? llvm::APSInt::getMinValue(bits, uns) : llvm::APSInt::getMaxValue(bits, uns);
  return llvm::APSInt::isSameValue(v.extend(64), want.extend(64)) ||
         (v.isSigned() != want.isSigned() && v.getSExtValue() == want.getSExtValue());
}

// The load and what the rest of the kernel must be for the grid to shrink (see the doc).
std::optional<CoarseLoad> coarseLoad(clang::ASTContext& ctx, const SourceBuffer& src, const clang::CompoundStmt* body,
                                     const TreeMatcher& m, const Tree& t, std::string& why) {
  auto no = [&](const std::string& w) {
    why = "coarsen: " + w;
    return std::nullopt;
  };
  CoarseLoad c;
  c.sh = t.sh->getNameAsString();
  c.tid = t.tid;
  c.sum = t.op.sum;
  c.combine_fn = t.op.fn;
  c.T = elementType(ctx, t.sh);
  // the one statement before the tree that writes SH
  for (size_t i = 0; i + 1 < t.first; ++i) {
    const clang::Stmt* st = body->body_begin()[i];
    if (!usesDecl(st, t.sh)) continue;
    if (c.stmt) return no("the kernel writes " + c.sh + " more than once before the tree");
    c.stmt = st;
  }
  auto* as = llvm::dyn_cast_or_null<clang::BinaryOperator>(c.stmt);
  const clang::VarDecl* sh = t.sh;
  std::string tid;
  if (!as || as->getOpcode() != clang::BO_Assign || !m.isSlot(as->getLHS(), sh, tid))
    return no("the tree's slots are not filled by one `" + c.sh + "[tid] = (i < n) ? E : identity;`");
  auto* pick = llvm::dyn_cast<clang::ConditionalOperator>(as->getRHS()->IgnoreParenImpCasts());
  auto* cmp = pick ? llvm::dyn_cast<clang::BinaryOperator>(pick->getCond()->IgnoreParenImpCasts()) : nullptr;
  const clang::Expr *gi = nullptr, *n = nullptr;
  if (cmp && cmp->getOpcode() == clang::BO_LT) gi = cmp->getLHS(), n = cmp->getRHS();
  if (cmp && cmp->getOpcode() == clang::BO_GT) gi = cmp->getRHS(), n = cmp->getLHS();
  c.g = gi ? varOf(gi) : nullptr;
  if (!pick || !c.g || !c.g->getInit() || !c.g->getType()->isIntegerType() || !isGlobalThreadIndex(ctx, c.g->getInit()))
    return no("the load's condition is not `i < n` on the global thread index");
  if (!onlyReads(ctx, body, c.g)) return no(c.g->getNameAsString() + " is written");
  if (refsTo(body, c.g).size() != refsTo(c.stmt, c.g).size()) return no(c.g->getNameAsString() + " is used outside the load");
  // n: parameters and locals the kernel never writes, no memory, no calls
  struct Bound : clang::RecursiveASTVisitor<Bound> {
    clang::ASTContext* ctx;
    const clang::Stmt* body;
    bool ok = true;
    bool VisitStmt(clang::Stmt* s) {
      if (llvm::isa<clang::ArraySubscriptExpr, clang::CallExpr, clang::MemberExpr, clang::UnaryOperator>(s)) ok = false;
      if (auto* d = llvm::dyn_cast<clang::DeclRefExpr>(s))
        if (auto* v = llvm::dyn_cast<clang::VarDecl>(d->getDecl()); v && !onlyReads(*ctx, body, v)) ok = false;
      return ok;
    }
  } bound;
  bound.ctx = &ctx;
  bound.body = body;
  bound.TraverseStmt(const_cast<clang::Expr*>(n));
  if (!bound.ok || usesDecl(n, c.g)) return no("the bound n reads memory, calls or uses a variable the kernel writes");
  const clang::Expr* e = pick->getTrueExpr();
  if (e->HasSideEffects(ctx) || usesDecl(e, t.sh)) return no("the loaded value has side effects or reads " + c.sh);
  if (!isIdentity(ctx, pick->getFalseExpr(), t.sh->getType()->castAsArrayTypeUnsafe()->getElementType(), t.op))
    return no("the value past n (" + sourceText(ctx, pick->getFalseExpr()->getSourceRange()) + ") is not the identity of the tree's " +
              (t.op.sum ? std::string("sum (0)") : t.op.fn + " (the type's lowest or highest value, -INFINITY / INFINITY for floating point)"));
  // no other use of the grid: blockIdx and gridDim only in g's initializer
  struct Geo : clang::RecursiveASTVisitor<Geo> {
    std::vector<const clang::DeclRefExpr*> refs;
    bool VisitDeclRefExpr(clang::DeclRefExpr* d) {
      const std::string nm = d->getDecl()->getNameAsString();
      if (nm == "blockIdx" || nm == "gridDim") refs.push_back(d);
      return true;
    }
  } all, init;
  all.TraverseStmt(const_cast<clang::CompoundStmt*>(body));
  init.TraverseStmt(const_cast<clang::Expr*>(c.g->getInit()));
  if (all.refs.size() != init.refs.size()) return no("the kernel reads blockIdx or gridDim besides the global index");
  // the only store to global memory: one atomic of the tree's operation, after it, at a pointer parameter
  struct Stores : clang::RecursiveASTVisitor<Stores> {
    const clang::VarDecl* sh;
    std::vector<const clang::CallExpr*> atomics;
    bool other = false;
    void target(const clang::Expr* l) {
      l = l->IgnoreParenImpCasts();
      if (llvm::isa<clang::DeclRefExpr>(l)) return;  // a local
      if (auto* a = llvm::dyn_cast<clang::ArraySubscriptExpr>(l); a && varOf(a->getBase()) == sh) return;
      other = true;
    }
    bool VisitBinaryOperator(clang::BinaryOperator* b) {
      if (b->isAssignmentOp()) target(b->getLHS());
      return true;
    }
    bool VisitUnaryOperator(clang::UnaryOperator* u) {
      if (u->isIncrementDecrementOp()) target(u->getSubExpr());
      return true;
    }
    bool VisitCallExpr(clang::CallExpr* call) {
      if (auto k = intrinsicKind(calleeName(call)); k && *k == IntrinsicKind::Atomic) atomics.push_back(call);
      return true;
    }
  } stores;
  stores.sh = t.sh;
  stores.TraverseStmt(const_cast<clang::CompoundStmt*>(body));
  if (stores.other) return no("the kernel stores to memory other than " + c.sh + " and one atomic");
  const bool is_max = !t.op.sum && t.op.fn.find("max") != std::string::npos;
  const std::string want = t.op.sum ? "atomicAdd" : is_max ? "atomicMax" : "atomicMin";
  if (stores.atomics.size() != 1 || calleeName(stores.atomics[0]) != want || stores.atomics[0]->getNumArgs() != 2)
    return no("the block's result is not combined by one " + want + " (the tree's operation) on a fixed address");
  auto* addr = llvm::dyn_cast<clang::DeclRefExpr>(stores.atomics[0]->getArg(0)->IgnoreParenImpCasts());
  if (!addr || !llvm::isa<clang::ParmVarDecl>(addr->getDecl()))
    return no("the atomic's address is not a pointer parameter (one location for every block)");
  if (src.off(stores.atomics[0]->getBeginLoc()) < src.off(body->body_begin()[t.last]->getEndLoc()))
    return no("the atomic is not after the tree");
  // (the identity may be a macro such as INT_MIN: the statement ends at its expansion)
  if (!src.inFile(c.stmt->getBeginLoc()) || !src.inFile(src.sm.getExpansionLoc(c.stmt->getEndLoc())) || !src.inFile(e))
    return no("the load is written through a macro");
  bool ok = true;
  c.e_with_i = renamed(ctx, src, e, c.g, "kl_i", &ok);
  if (!ok) return no("the load is written through a macro");
  c.g_name = c.g->getNameAsString();
  c.g_type = c.g->getType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
  c.n = sourceText(ctx, n->getSourceRange());
  c.id = sourceText(ctx, pick->getFalseExpr()->getSourceRange());
  return c;
}

// Inverse of coarsen: forward's `{ T kl_acc = ID; for (G kl_i = g; kl_i < n; ...) ...; SH[tid] = kl_acc; }`
// (recognized by rebuilding its text from the parts) becomes `SH[tid] = (g < n) ? E : ID;`.
bool undoCoarse(clang::ASTContext& ctx, const SourceBuffer& src, const clang::CompoundStmt* body, const std::string& sh,
                const std::string& tid, const Op& op, long long coarsen, clang::Rewriter& rw, std::string& why) {
  why = "no grid-stride load in the form coarsen writes";
  for (const clang::Stmt* st : body->body()) {
    auto* cs = llvm::dyn_cast<clang::CompoundStmt>(st);
    if (!cs || cs->size() != 3 || !src.inFile(cs)) continue;
    auto* ds = llvm::dyn_cast<clang::DeclStmt>(cs->body_front());
    auto* acc = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
    if (!acc || acc->getName() != "kl_acc" || !acc->getInit()) continue;
    auto* loop = llvm::dyn_cast<clang::ForStmt>(cs->body_begin()[1]);
    auto* lds = loop ? llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit()) : nullptr;
    auto* i = lds && lds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(lds->getSingleDecl()) : nullptr;
    auto* cond = loop ? llvm::dyn_cast_or_null<clang::BinaryOperator>(loop->getCond()) : nullptr;
    const clang::VarDecl* g = i && i->getInit() ? varOf(i->getInit()) : nullptr;
    if (!g || !cond) return false;
    const clang::Expr* x = nullptr;
    if (auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(loop->getBody())) {
      x = ca->getRHS();
    } else if (auto* as = llvm::dyn_cast<clang::BinaryOperator>(loop->getBody())) {
      auto* call = llvm::dyn_cast<clang::CallExpr>(as->getRHS()->IgnoreParenImpCasts());
      if (call && call->getNumArgs() == 2) x = call->getArg(1);
    }
    if (!x) return false;
    CoarseLoad c;
    c.T = acc->getType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
    c.id = sourceText(ctx, acc->getInit()->getSourceRange());
    c.g_type = i->getType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
    c.g_name = g->getNameAsString();
    c.n = sourceText(ctx, cond->getRHS()->getSourceRange());
    c.e_with_i = sourceText(ctx, x->getSourceRange());
    c.sh = sh;
    c.tid = tid;
    c.sum = op.sum;
    c.combine_fn = op.fn;
    const unsigned from = src.off(cs->getLBracLoc()), to = src.stmtEnd(cs);
    if (src.slice(from, to) != coarseText(c, coarsen, src.indentOf(from))) return false;
    bool ok = true;
    const std::string e = renamed(ctx, src, x, i, c.g_name, &ok);
    if (!ok) return false;
    if (rw.ReplaceText(src.at(from), to - from, loadText(c, e))) return why = "the rewriter refused the edit", false;
    return true;
  }
  return false;
}

class TreeReduceShuffle : public Transform {
 public:
  std::string id() const override { return "tree-reduce-shuffle"; }
  std::string summary() const override {
    return "replace a shared-memory tree reduction (sum, max, min) by warp shuffles and one shared slot per warp";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    DeclaresKl kl;
    kl.TraverseDecl(const_cast<clang::FunctionDecl*>(req.kernel));
    if (!kl.found.empty()) return TransformResult::no("the kernel already declares " + kl.found + " (kl_ names are the transform's)");
    TreeMatcher m(ctx, body);
    Tree t;
    std::string why;
    bool found = false;
    for (size_t i = 0; i < body->size() && !found; ++i) {
      std::string w;
      found = treeAt(m, body, i, t, w);
      if (!found && why.empty()) why = w;
    }
    if (!found)
      return TransformResult::no(why.empty() ? "no shared-memory tree reduction (`for (s = blockDim.x / 2; s > 0; s >>= 1) "
                                               "{ if (tid < s) SH[tid] += SH[tid + s]; __syncthreads(); }`) in the kernel's body"
                                             : why);
    if (!t.sh->hasAttr<clang::CUDASharedAttr>()) return TransformResult::no(t.sh->getNameAsString() + " is not __shared__ memory");
    if (!shuffleable(ctx, t.sh))
      return TransformResult::no("__shfl_down_sync does not take " + t.sh->getNameAsString() + "'s element type " +
                                 elementType(ctx, t.sh));
    if (t.first == 0 || !isSyncthreads(body->body_begin()[t.first - 1]))
      return TransformResult::no("the tree does not follow a __syncthreads() that publishes every slot");
    for (size_t j = t.last + 1; j < body->size(); ++j) {
      AfterUses u(ctx, t.sh);
      u.TraverseStmt(const_cast<clang::Stmt*>(body->body_begin()[j]));
      if (!u.why.empty()) return TransformResult::no(u.why);
    }
    const auto shape = req.facts.shape();
    if (!shape) return TransformResult::no("the block shape is unknown (shuffles need full warps)");
    if (shape->y != 1 || shape->z != 1)
      return TransformResult::no("the block is " + std::to_string(shape->x) + " x " + std::to_string(shape->y) + " x " +
                                 std::to_string(shape->z) + ", not 1-D");
    const long long bx = shape->x;
    if (bx < 32 || bx > 1024 || (bx & (bx - 1)) != 0)
      return TransformResult::no("the block has " + std::to_string(bx) + " threads, not a power of two from 32 to 1024");
    const long long coarsen = intParam(req.params, "coarsen", 1);
    if (coarsen < 1 || coarsen > 64) return TransformResult::no("coarsen must be 1 to 64 (asked for " + std::to_string(coarsen) + ")");
    std::optional<CoarseLoad> coarse;
    if (coarsen > 1) {
      coarse = coarseLoad(ctx, src, body, m, t, why);
      if (!coarse) return TransformResult::no(why);
    }
    const clang::Stmt* a = body->body_begin()[t.first];
    const clang::Stmt* b = body->body_begin()[t.last];
    if (!src.inFile(a) || !src.inFile(b)) return TransformResult::no("the tree is written through a macro");
    const unsigned from = src.off(a->getBeginLoc()), to = src.stmtEnd(b);
    const std::string text = shuffleText(elementType(ctx, t.sh), t.sh->getNameAsString(), t.tid, t.op, src.indentOf(from));
    if (req.rewriter.ReplaceText(src.at(from), to - from, text)) return TransformResult::no("the rewriter refused the edit");
    GeometryChange geo;
    if (coarse) {
      const unsigned la = src.off(coarse->stmt->getBeginLoc());
      unsigned lb = src.tokEnd(src.sm.getExpansionLoc(coarse->stmt->getEndLoc()));
      while (lb < src.text.size() && (src.text[lb] == ' ' || src.text[lb] == '\t')) ++lb;
      if (lb < src.text.size() && src.text[lb] == ';') ++lb;
      if (req.rewriter.ReplaceText(src.at(la), lb - la, coarseText(*coarse, coarsen, src.indentOf(la))))
        return TransformResult::no("the rewriter refused the edit");
      geo.grid_x_divisor = static_cast<unsigned>(coarsen);
    }
    return TransformResult::yes("the " + std::string(t.op.sum ? "sum" : t.op.fn) + " tree over " + t.sh->getNameAsString() +
                                    " became warp shuffles" +
                                    (coarse ? "; each thread first reduces a grid-stride run of elements (grid / " +
                                                  std::to_string(coarsen) + ")"
                                            : std::string()),
                                geo);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    const std::string not_ours = "no shuffle reduction in the form forward writes";
    for (const clang::Stmt* st : body->body()) {
      auto* cs = llvm::dyn_cast<clang::CompoundStmt>(st);
      if (!cs || cs->size() < 2 || !src.inFile(cs)) continue;
      auto* ds = llvm::dyn_cast<clang::DeclStmt>(cs->body_front());
      auto* v = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
      if (!v || v->getName() != "kl_v" || !v->getInit()) continue;
      auto* slot = llvm::dyn_cast<clang::ArraySubscriptExpr>(v->getInit()->IgnoreParenImpCasts());
      const clang::VarDecl* sh = slot ? varOf(slot->getBase()) : nullptr;
      if (!sh) continue;
      const std::string tid = sourceText(ctx, slot->getIdx()->getSourceRange());
      // The combining step, from the first shuffle loop: `kl_v += ...` or `kl_v = F(kl_v, ...)`.
      auto* loop = llvm::dyn_cast<clang::ForStmt>(cs->body_begin()[1]);
      if (!loop) continue;
      Op op;
      if (auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(loop->getBody())) {
        if (ca->getOpcode() != clang::BO_AddAssign) continue;
      } else if (auto* as = llvm::dyn_cast<clang::BinaryOperator>(loop->getBody()); as && as->getOpcode() == clang::BO_Assign) {
        auto* c = llvm::dyn_cast<clang::CallExpr>(as->getRHS()->IgnoreParenImpCasts());
        if (!c || !c->getDirectCallee() || !isMinMax(c->getDirectCallee()->getNameAsString())) continue;
        op.sum = false;
        op.fn = c->getDirectCallee()->getNameAsString();
      } else {
        continue;
      }
      const unsigned from = src.off(cs->getLBracLoc()), to = src.stmtEnd(cs);
      const std::string in = src.indentOf(from);
      if (src.slice(from, to) != shuffleText(v->getType().getAsString(ctx.getPrintingPolicy()), sh->getNameAsString(), tid, op, in))
        return TransformResult::no(not_ours);
      // coarsen > 1: forward's grid-stride load goes back to one element per thread
      const long long coarsen = intParam(req.params, "coarsen", 1);
      GeometryChange geo;
      if (coarsen > 1) {
        std::string why;
        if (!undoCoarse(ctx, src, body, sh->getNameAsString(), tid, op, coarsen, req.rewriter, why))
          return TransformResult::no(why);
        geo.grid_x_multiplier = static_cast<unsigned>(coarsen);
      }
      if (req.rewriter.ReplaceText(src.at(from), to - from, treeText(sh->getNameAsString(), tid, op, in)))
        return TransformResult::no("the rewriter refused the edit");
      return TransformResult::yes("the shuffle reduction over " + sh->getNameAsString() + " became a shared-memory tree" +
                                      (coarsen > 1 ? ", one element per thread (grid * " + std::to_string(coarsen) + ")"
                                                   : std::string()),
                                  geo);
    }
    return TransformResult::no(not_ours);
  }
};

}  // namespace

std::unique_ptr<Transform> makeTreeReduceShuffle() { return std::make_unique<TreeReduceShuffle>(); }

}  // namespace klineage
