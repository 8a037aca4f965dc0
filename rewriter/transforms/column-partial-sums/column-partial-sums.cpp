// column-partial-sums: one thread per column summing down its column becomes a 2-D block whose
// threadIdx.y split the column's rows; the parts are added in shared memory.
//   T col = <global index>;                         __shared__ U kl_part[Y][33];
//   if (col < W) {                                  U kl_s = 0;
//     U s = 0;                                      if (col < W) {
//     for (int r = 0; r < H; ++r) {          ->       U s = 0;  [p += (size_t)threadIdx.y * (LD);]
//       s += m[r * W + col];   (or *p; p += LD)       for (int r = threadIdx.y; r < H; r += blockDim.y) ...
//     }                                               kl_s = s;
//     sums[col] = s;                                }
//   }                                               kl_part[threadIdx.y][threadIdx.x] = kl_s; __syncthreads();
//                                                   if (threadIdx.y == 0 && col < W) { U s = kl_s; s += the
//                                                     other parts; sums[col] = s; }
// Why it pays: a column sum has one thread per column, so a 4096-wide matrix runs 4096 threads, each
// a long chain of loads down its column: too few warps to hide memory latency. Splitting every
// column's rows over Y threads (the block becomes 32 x Y, grid.x scaled by B / 32) gives Y times the
// warps, each load still coalesced across the warp's 32 columns.
// Recognized: the kernel's body is declarations (the column index `T col = blockIdx.x * blockDim.x
// + threadIdx.x`, any name and integer type) and then one guard `if (col < W) { ... }` (an early
// return is that guard in the normal form); inside it declarations, the loop `for (T r = 0; r < H;
// ++r)` (`r++`, `r += 1`) whose body is one accumulation `s += E` (`s = s + E`) into a local declared
// zero before it, and pointer walks `p += LD` of locals declared before it; then the statements
// that use the sum (one or more).
// When it is sound: the iterations are independent (E has no side effects and reads s nowhere; the
// walks advance by a loop-invariant step, so thread y starting at p + y * LD and stepping Y * LD reads
// rows y, y + Y, ...), the statements after the loop read no other local of the guard than s and run
// once per column (threadIdx.y == 0), nothing else in the kernel reads the block's geometry, and the
// block is 1-D with a multiple of 32 threads (TransformFacts::shape(); the skill requires
// uniform-block-size). A floating-point sum is reassociated (the gate's numerics judge it).
// Inverse: recognizes exactly the form forward writes and restores the one-thread-per-column loop
// (block 32 x 1, the grid kept).
#include <memory>

#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/literals.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

using cuda::isBuiltinMember;
using cuda::isIntLiteral;
using cuda::isSyncthreads;
using cuda::stripIndexCasts;
using cuda::varOf;

const char* const kNames[] = {"kl_part", "kl_s", "kl_r"};

std::vector<const clang::Stmt*> stmtsOf(const clang::Stmt* s) {
  if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(s)) return {cs->body_begin(), cs->body_end()};
  return {s};
}

const clang::VarDecl* singleVar(const clang::Stmt* s) {
  auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(s);
  return ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
}

// References to the built-in geometry (threadIdx, blockIdx, blockDim, gridDim) under s.
struct GeometryRefs : clang::RecursiveASTVisitor<GeometryRefs> {
  unsigned n = 0;
  bool VisitDeclRefExpr(clang::DeclRefExpr* d) {
    n += isBuiltinGeometry(d->getDecl()->getNameAsString());
    return true;
  }
};

unsigned geometryRefs(const clang::Stmt* s) {
  GeometryRefs g;
  g.TraverseStmt(const_cast<clang::Stmt*>(s));
  return g.n;
}

// `r = 0; r < H; ++r` with r declared by the loop.
const clang::VarDecl* rowLoop(const clang::ForStmt* f, std::string& why) {
  const clang::VarDecl* r = singleVar(f->getInit());
  if (!r || !r->getType()->isIntegerType() || !r->getInit() || !isIntLiteral(r->getInit(), 0)) {
    why = "the loop does not declare its row from 0 (`for (int r = 0; r < H; ++r)`)";
    return nullptr;
  }
  auto* c = llvm::dyn_cast_or_null<clang::BinaryOperator>(f->getCond() ? f->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!c || c->getOpcode() != clang::BO_LT || varOf(c->getLHS()) != r || usesDecl(c->getRHS(), r) ||
      c->getRHS()->HasSideEffects(r->getASTContext(), false)) {
    why = "the loop's condition is not `r < H`";
    return nullptr;
  }
  const clang::Stmt* inc = f->getInc();
  bool step1 = false;
  if (auto* u = llvm::dyn_cast_or_null<clang::UnaryOperator>(inc)) step1 = u->isIncrementOp() && varOf(u->getSubExpr()) == r;
  if (auto* ca = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(inc))
    step1 = ca->getOpcode() == clang::BO_AddAssign && varOf(ca->getLHS()) == r && isIntLiteral(ca->getRHS(), 1);
  if (!step1) {
    why = "the loop does not step its row by one";
    return nullptr;
  }
  return r;
}

struct Walk {
  const clang::VarDecl* p;
  const clang::CompoundAssignOperator* step;  // p += LD
};

struct Shape {
  const clang::VarDecl* col = nullptr;
  const clang::IfStmt* guard = nullptr;
  const clang::CompoundStmt* then = nullptr;
  const clang::ForStmt* loop = nullptr;
  const clang::VarDecl* row = nullptr;
  const clang::VarDecl* sum = nullptr;
  std::vector<Walk> walks;
  size_t loop_at = 0;  // index of the loop in then
};

std::optional<std::string> match(clang::ASTContext& ctx, const clang::CompoundStmt* body, Shape& s) {
  if (body->size() < 2) return "the kernel's body is not declarations and one guard";
  for (size_t i = 0; i + 1 < body->size(); ++i) {
    auto* ds = llvm::dyn_cast<clang::DeclStmt>(body->body_begin()[i]);
    if (!ds) return "the kernel's body is not declarations and then one guard `if (col < W) { ... }`";
    for (const clang::Decl* d : ds->decls())
      if (auto* v = llvm::dyn_cast<clang::VarDecl>(d); v && v->getInit() && v->getInit()->HasSideEffects(ctx, false))
        return "a declaration before the guard has side effects";
  }
  s.guard = llvm::dyn_cast<clang::IfStmt>(body->body_back());
  if (!s.guard || s.guard->getElse() || s.guard->getInit() || s.guard->getConditionVariable())
    return "the kernel's body does not end in one guard `if (col < W) { ... }` without else";
  s.then = llvm::dyn_cast<clang::CompoundStmt>(s.guard->getThen());
  if (!s.then) return "the guard's body is not a block";
  auto* c = llvm::dyn_cast<clang::BinaryOperator>(s.guard->getCond()->IgnoreParenImpCasts());
  s.col = c && c->getOpcode() == clang::BO_LT ? varOf(c->getLHS()) : nullptr;
  if (!s.col || !s.col->isLocalVarDecl() || !s.col->getInit() || !isGlobalThreadIndex(ctx, s.col->getInit()) ||
      !onlyReads(ctx, body, s.col) || c->getRHS()->HasSideEffects(ctx, false))
    return "the guard is not `col < W` on the global thread index";
  // The block's geometry is read only by the column index (forward changes the block).
  if (geometryRefs(body) != geometryRefs(s.col->getInit()))
    return "the kernel reads the block's geometry outside the column index";
  // Inside: declarations, the loop, the statements using the sum.
  size_t i = 0;
  std::vector<const clang::VarDecl*> locals;
  for (; i < s.then->size(); ++i) {
    const clang::Stmt* st = s.then->body_begin()[i];
    auto* ds = llvm::dyn_cast<clang::DeclStmt>(st);
    if (!ds) break;
    for (const clang::Decl* d : ds->decls()) {
      auto* v = llvm::dyn_cast<clang::VarDecl>(d);
      if (!v) return "the guard declares something other than variables";
      if (v->getInit() && v->getInit()->HasSideEffects(ctx, false)) return "a declaration in the guard has side effects";
      locals.push_back(v);
    }
  }
  s.loop = i < s.then->size() ? llvm::dyn_cast<clang::ForStmt>(s.then->body_begin()[i]) : nullptr;
  if (!s.loop) return "the guard's declarations are not followed by the loop over the column's rows";
  s.loop_at = i;
  if (i + 1 >= s.then->size()) return "nothing uses the sum after the loop";
  std::string why;
  s.row = rowLoop(s.loop, why);
  if (!s.row) return why;
  auto isLocal = [&](const clang::VarDecl* v) { return std::find(locals.begin(), locals.end(), v) != locals.end(); };
  for (const clang::Stmt* st : stmtsOf(s.loop->getBody())) {
    auto* b = llvm::dyn_cast<clang::BinaryOperator>(st);
    const clang::VarDecl* lhs = b ? varOf(b->getLHS()) : nullptr;
    if (!b || !lhs || !isLocal(lhs)) return "the loop's body is not one accumulation `s += E` and pointer walks `p += LD`";
    if (lhs->getType()->isPointerType()) {
      auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(b);
      if (!ca || ca->getOpcode() != clang::BO_AddAssign || ca->getRHS()->HasSideEffects(ctx, false) ||
          usesDecl(ca->getRHS(), s.row) || usesDecl(ca->getRHS(), lhs))
        return "the pointer " + lhs->getNameAsString() + " does not advance by a loop-invariant step (`p += LD`)";
      for (const Walk& w : s.walks)
        if (w.p == lhs) return "the pointer " + lhs->getNameAsString() + " advances twice an iteration";
      s.walks.push_back({lhs, ca});
      continue;
    }
    const clang::Expr* term = nullptr;
    if (b->getOpcode() == clang::BO_AddAssign) {
      term = b->getRHS();
    } else if (b->getOpcode() == clang::BO_Assign) {
      auto* add = llvm::dyn_cast<clang::BinaryOperator>(b->getRHS()->IgnoreParenImpCasts());
      if (add && add->getOpcode() == clang::BO_Add && varOf(add->getLHS()) == lhs) term = add->getRHS();
      else if (add && add->getOpcode() == clang::BO_Add && varOf(add->getRHS()) == lhs) term = add->getLHS();
    }
    if (!term) return "the loop's body is not one accumulation `s += E` and pointer walks `p += LD`";
    if (s.sum && s.sum != lhs) return "the loop accumulates into two variables";
    if (s.sum) return "the loop accumulates into " + lhs->getNameAsString() + " twice";
    s.sum = lhs;
    if (term->HasSideEffects(ctx, false) || usesDecl(term, lhs)) return "the accumulated term has side effects or reads the sum";
  }
  if (!s.sum) return "the loop accumulates nothing";
  if (!s.sum->getInit() || !isZeroLiteral(s.sum->getInit())) return "the sum " + s.sum->getNameAsString() + " does not start at zero";
  if (!s.sum->getType()->isArithmeticType()) return "the sum is not a number";
  for (const clang::Stmt* st : stmtsOf(s.loop->getBody()))
    for (const Walk& w : s.walks)
      if (st != w.step && !onlyReads(ctx, st, w.p)) return "the loop writes the pointer " + w.p->getNameAsString() + " elsewhere";
  // After the loop: the sum's uses, run once per column; no other local of the guard.
  for (size_t j = i + 1; j < s.then->size(); ++j)
    for (const clang::VarDecl* v : locals)
      if (v != s.sum && usesDecl(s.then->body_begin()[j], v))
        return "the statements after the loop use " + v->getNameAsString() + " (only the sum is carried to them)";
  return std::nullopt;
}

struct KlDecls : clang::RecursiveASTVisitor<KlDecls> {
  std::string found;
  bool VisitNamedDecl(clang::NamedDecl* d) {
    for (const char* n : kNames)
      if (d->getName() == n) found = n;
    return true;
  }
};

class ColumnPartialSums : public Transform {
 public:
  std::string id() const override { return "column-partial-sums"; }
  std::string summary() const override {
    return "split each column's rows of a one-thread-per-column sum over a 32 x Y block, the parts added in shared memory";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    if (!body) return TransformResult::no("the kernel has no body");
    KlDecls kl;
    kl.TraverseDecl(const_cast<clang::FunctionDecl*>(req.kernel));
    if (!kl.found.empty()) return TransformResult::no("the kernel already declares " + kl.found + " (kl_ names are the transform's)");
    Shape s;
    if (auto why = match(ctx, body, s)) return TransformResult::no(*why);
    const long long Y = intParam(req.params, "rows_split", 32);
    if (Y < 2 || Y > 32) return TransformResult::no("rows_split must be 2 to 32");
    const long long unroll = intParam(req.params, "unroll", 1);
    if (unroll < 1 || unroll > 16) return TransformResult::no("unroll must be 1 to 16");
    const auto shape = req.facts.shape();
    if (!shape) return TransformResult::no("the block shape is unknown (the grid is rescaled from it)");
    if (shape->y != 1 || shape->z != 1) return TransformResult::no("the block is not 1-D");
    if (shape->x < 32 || shape->x % 32 != 0) return TransformResult::no("the block has " + std::to_string(shape->x) + " threads, not a multiple of 32");
    if (!src.inFile(s.guard) || !src.inFile(s.loop)) return TransformResult::no("the column sum is written through a macro");
    for (const Walk& w : s.walks)
      if (!src.inFile(w.step)) return TransformResult::no("a pointer walk is written through a macro");

    const std::string U = s.sum->getType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
    const std::string sum = s.sum->getNameAsString(), row = s.row->getNameAsString();
    const unsigned g = src.off(s.guard->getBeginLoc());
    const std::string in0 = src.indentOf(g);
    const unsigned lp = src.off(s.loop->getBeginLoc());
    const std::string in1 = src.indentOf(lp);
    auto text = [&](const clang::Expr* e) { return src.slice(src.off(e->getBeginLoc()), src.tokEnd(e->getEndLoc())); };
    const std::string cond = text(s.guard->getCond());
    auto& rw = req.rewriter;
    bool bad = false;
    bad |= rw.InsertTextBefore(src.at(g), "__shared__ " + U + " kl_part[" + std::to_string(Y) +
                                               "][33];  // the column's rows split over threadIdx.y, the parts added here\n" + in0 +
                                               U + " kl_s = 0;\n" + in0);
    std::string walks_start;
    for (const Walk& w : s.walks) {
      const std::string ld = text(w.step->getRHS());
      walks_start += w.p->getNameAsString() + " += (size_t)threadIdx.y * (" + ld + ");\n" + in1;
      const unsigned a = src.off(w.step->getRHS()->getBeginLoc()), e = src.tokEnd(w.step->getRHS()->getEndLoc());
      bad |= rw.ReplaceText(src.at(a), e - a, "(size_t)blockDim.y * (" + ld + ")");
    }
    // `#pragma unroll N` on the split loop: several rows' loads in flight per thread (a 4096-wide
    // matrix gives 4096 x 32 threads, a thread's loads one after another otherwise).
    if (unroll > 1) walks_start += "#pragma unroll " + std::to_string(unroll) + "\n" + in1;
    if (!walks_start.empty()) bad |= rw.InsertTextBefore(src.at(lp), walks_start);
    const clang::Expr* init = s.row->getInit();
    bad |= rw.ReplaceText(src.at(src.off(init->getBeginLoc())), src.tokEnd(init->getEndLoc()) - src.off(init->getBeginLoc()), "threadIdx.y");
    const clang::Stmt* inc = s.loop->getInc();
    bad |= rw.ReplaceText(src.at(src.off(inc->getBeginLoc())), src.tokEnd(inc->getEndLoc()) - src.off(inc->getBeginLoc()),
                          row + " += blockDim.y");
    const unsigned after = src.stmtEnd(s.loop);
    const unsigned p0 = src.off(s.then->body_begin()[s.loop_at + 1]->getBeginLoc());
    const unsigned p1 = src.stmtEnd(s.then->body_back());
    std::string tail = "\n" + in1 + "kl_s = " + sum + ";\n" + in0 + "}\n";
    tail += in0 + "kl_part[threadIdx.y][threadIdx.x] = kl_s;\n";
    tail += in0 + "__syncthreads();\n";
    tail += in0 + "if (threadIdx.y == 0 && " + cond + ") {\n";
    tail += in1 + U + " " + sum + " = kl_s;\n";
    tail += in1 + "for (unsigned int kl_r = 1; kl_r < blockDim.y; ++kl_r) " + sum + " += kl_part[kl_r][threadIdx.x];\n";
    tail += in1 + src.slice(p0, p1) + "\n" + in0 + "}";
    bad |= rw.ReplaceText(src.at(after), src.off(s.then->getRBracLoc()) + 1 - after, tail);
    if (bad) return TransformResult::no("the rewriter refused the edit");
    GeometryChange geo;
    geo.block_x = 32;
    geo.block_y = Y;
    geo.grid_x_multiplier = static_cast<unsigned>(shape->x / 32);
    return TransformResult::yes("the rows of each column split over " + std::to_string(Y) + " threads (block 32 x " +
                                    std::to_string(Y) + ")" +
                                    (unroll > 1 ? ", the loop unrolled " + std::to_string(unroll) : std::string()),
                                geo);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    const std::string not_ours = "no column split in the form forward writes";
    if (!body || body->size() < 6) return TransformResult::no(not_ours);
    const size_t n = body->size();
    // kl_part, kl_s, the first guard, the part's store, the barrier, the second guard: the last six.
    const clang::VarDecl* part = singleVar(body->body_begin()[n - 6]);
    const clang::VarDecl* ks = singleVar(body->body_begin()[n - 5]);
    auto* g1 = llvm::dyn_cast<clang::IfStmt>(body->body_begin()[n - 4]);
    auto* g2 = llvm::dyn_cast<clang::IfStmt>(body->body_back());
    if (!part || part->getName() != "kl_part" || !ks || ks->getName() != "kl_s" || !g1 || !g2 ||
        !isSyncthreads(body->body_begin()[n - 2]))
      return TransformResult::no(not_ours);
    auto* t1 = llvm::dyn_cast<clang::CompoundStmt>(g1->getThen());
    auto* t2 = llvm::dyn_cast<clang::CompoundStmt>(g2->getThen());
    if (!t1 || !t2 || t1->size() < 2 || t2->size() < 3) return TransformResult::no(not_ours);
    auto text = [&](const clang::Stmt* e) { return src.slice(src.off(e->getBeginLoc()), src.tokEnd(e->getEndLoc())); };
    const unsigned from = src.off(src.sm.getExpansionLoc(body->body_begin()[n - 6]->getBeginLoc()));
    const std::string in0 = src.indentOf(from);
    const std::string cond = text(g1->getCond());
    const std::string U = ks->getType().getAsString(ctx.getPrintingPolicy());
    // The second guard: `U s = kl_s;`, the parts' loop, then the user's statements.
    const clang::VarDecl* sum = singleVar(t2->body_front());
    if (!sum || !sum->getInit() || varOf(sum->getInit()) != ks) return TransformResult::no(not_ours);
    const std::string sn = sum->getNameAsString();
    const std::string in1 = src.indentOf(src.off(t2->body_front()->getBeginLoc()));
    if (text(g2->getCond()) != "threadIdx.y == 0 && " + cond ||
        src.slice(src.off(t2->body_begin()[1]->getBeginLoc()), src.stmtEnd(t2->body_begin()[1])) !=
            "for (unsigned int kl_r = 1; kl_r < blockDim.y; ++kl_r) " + sn + " += kl_part[kl_r][threadIdx.x];" ||
        src.slice(src.off(body->body_begin()[n - 3]->getBeginLoc()), src.stmtEnd(body->body_begin()[n - 3])) !=
            "kl_part[threadIdx.y][threadIdx.x] = kl_s;")
      return TransformResult::no(not_ours);
    // The first guard: declarations, [walk starts], the loop, `kl_s = s;`.
    auto* last = llvm::dyn_cast<clang::BinaryOperator>(t1->body_back());
    if (!last || text(last) != "kl_s = " + sn) return TransformResult::no(not_ours);
    // The loop, under `#pragma unroll N` when forward had the unroll param (an AttributedStmt).
    const clang::Stmt* loop_stmt = t1->body_begin()[t1->size() - 2];
    const auto* hinted = llvm::dyn_cast<clang::AttributedStmt>(loop_stmt);
    const clang::ForStmt* loop = llvm::dyn_cast<clang::ForStmt>(hinted ? hinted->getSubStmt() : loop_stmt);
    const long long unroll = intParam(req.params, "unroll", 1);
    unsigned pragma_line = 0, loop_line = 0;
    if (loop) {
      loop_line = src.lineStart(src.off(loop->getBeginLoc()));
      const unsigned prev = loop_line > 0 ? src.lineStart(loop_line - 1) : 0;
      const std::string want = unroll > 1 ? squeeze("#pragma unroll " + std::to_string(unroll)) : "";
      const std::string got = hinted && loop_line > 0 ? squeeze(src.slice(prev, loop_line)) : "";
      if (got != want)
        return TransformResult::no(got.empty() ? "the split loop has no `#pragma unroll " + std::to_string(unroll) + "`: not unroll " +
                                                     std::to_string(unroll) + "'s form"
                                               : "the split loop has `" + got + "`, not unroll " + std::to_string(unroll) + "'s form");
      pragma_line = prev;
    }
    const clang::VarDecl* r = loop ? singleVar(loop->getInit()) : nullptr;
    if (!r || !r->getInit() || !loop->getInc() || text(r->getInit()) != "threadIdx.y" ||
        text(loop->getInc()) != r->getNameAsString() + " += blockDim.y")
      return TransformResult::no(not_ours);
    if (!src.inFile(g1) || !src.inFile(g2)) return TransformResult::no(not_ours);
    auto& rw = req.rewriter;
    bool bad = false;
    if (hinted) bad |= rw.RemoveText(src.at(pragma_line), loop_line - pragma_line);
    // Walk starts just before the loop: `p += (size_t)threadIdx.y * (LD);`; their steps in it.
    for (size_t i = t1->size() - 2; i-- > 0;) {
      auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(t1->body_begin()[i]);
      if (!ca) break;
      const std::string st = text(ca);
      const std::string p = varOf(ca->getLHS()) ? varOf(ca->getLHS())->getNameAsString() : "";
      const std::string pre = p + " += (size_t)threadIdx.y * (";
      if (p.empty() || st.rfind(pre, 0) != 0 || st.back() != ')') return TransformResult::no(not_ours);
      const std::string ld = st.substr(pre.size(), st.size() - pre.size() - 1);
      bool stepped = false;
      for (const clang::Stmt* b : stmtsOf(loop->getBody()))
        if (auto* sc = llvm::dyn_cast<clang::CompoundAssignOperator>(b); sc && varOf(sc->getLHS()) == varOf(ca->getLHS())) {
          const clang::Expr* rhs = sc->getRHS();
          if (text(rhs) != "(size_t)blockDim.y * (" + ld + ")") return TransformResult::no(not_ours);
          const unsigned a = src.off(rhs->getBeginLoc());
          bad |= rw.ReplaceText(src.at(a), src.tokEnd(rhs->getEndLoc()) - a, ld);
          stepped = true;
        }
      if (!stepped) return TransformResult::no(not_ours);
      const unsigned a = src.lineStart(src.off(ca->getBeginLoc()));
      bad |= rw.RemoveText(src.at(a), src.stmtEnd(ca) + 1 - a);
    }
    bad |= rw.RemoveText(src.at(from), src.off(g1->getBeginLoc()) - from);
    const unsigned ri = src.off(r->getInit()->getBeginLoc());
    bad |= rw.ReplaceText(src.at(ri), src.tokEnd(r->getInit()->getEndLoc()) - ri, "0");
    const unsigned ii = src.off(loop->getInc()->getBeginLoc());
    bad |= rw.ReplaceText(src.at(ii), src.tokEnd(loop->getInc()->getEndLoc()) - ii, "++" + r->getNameAsString());
    const unsigned after = src.stmtEnd(loop);
    const unsigned u0 = src.off(t2->body_begin()[2]->getBeginLoc()), u1 = src.stmtEnd(t2->body_back());
    bad |= rw.ReplaceText(src.at(after), src.stmtEnd(g2) - after, "\n" + in1 + src.slice(u0, u1) + "\n" + in0 + "}");
    if (bad) return TransformResult::no("the rewriter refused the edit");
    GeometryChange geo;
    geo.block_y = 1;
    return TransformResult::yes("the split column sum became one thread per column (block 32)", geo);
  }
};

}  // namespace

std::unique_ptr<Transform> makeColumnPartialSums() { return std::make_unique<ColumnPartialSums>(); }

}  // namespace klineage
