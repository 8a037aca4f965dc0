#include "element_guard.h"

#include <algorithm>
#include <set>

#include <clang/AST/RecursiveASTVisitor.h>

#include "ast_util.h"
#include "features/cuda_matchers.h"
#include "features/intrinsics.h"
#include "source_buffer.h"
#include "transform.h"
#include "vector_access.h"

namespace klineage {

std::string sideEffectOf(const clang::Stmt* s) {
  struct V : clang::RecursiveASTVisitor<V> {
    std::string why;
    bool VisitBinaryOperator(clang::BinaryOperator* bo) {
      if (bo->isAssignmentOp()) why = "an assignment";
      return why.empty();
    }
    bool VisitUnaryOperator(clang::UnaryOperator* uo) {
      if (uo->isIncrementDecrementOp()) why = "an increment or decrement";
      return why.empty();
    }
    bool VisitCallExpr(clang::CallExpr* c) {
      std::string n = calleeName(c);
      if (auto kind = intrinsicKind(n)) why = n + " (" + describe(*kind) + ")";
      return why.empty();
    }
  } v;
  v.TraverseStmt(const_cast<clang::Stmt*>(s));
  return v.why;
}

bool matchElementGuard(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, ElementGuard& out, std::string& why,
                       const std::string& shape) {
  SourceBuffer src(ctx);
  auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(kernel->getBody());
  if (!body) return why = "the kernel has no body", false;
  if (body->size() != 2) return why = "the body is not `" + shape + "`", false;
  auto* ds = llvm::dyn_cast<clang::DeclStmt>(body->body_front());
  auto* vd = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
  if (!vd || !vd->getInit() || !vd->getType()->isIntegerType() || !isGlobalThreadIndex(ctx, vd->getInit()))
    return why = "the body does not start with `T i = blockIdx.x * blockDim.x + threadIdx.x;`", false;
  auto* guard = llvm::dyn_cast<clang::IfStmt>(body->body_back());
  if (!guard || guard->getElse() || guard->getInit() || guard->getConditionVariable())
    return why = "the index is not followed by a bounds guard `if (i < n)` without else", false;
  auto* cond = llvm::dyn_cast<clang::BinaryOperator>(guard->getCond()->IgnoreParenImpCasts());
  auto isIndex = [&](const clang::Expr* e) { return referencedDecl(e) == vd; };
  if (!cond || !((cond->getOpcode() == clang::BO_LT && isIndex(cond->getLHS())) ||
                 (cond->getOpcode() == clang::BO_GT && isIndex(cond->getRHS()))))
    return why = "the guard is not `i < n`", false;
  const clang::Expr* bound = cond->getOpcode() == clang::BO_LT ? cond->getRHS() : cond->getLHS();
  if (usesDecl(bound, vd) || !sideEffectOf(bound).empty())
    return why = "the bound of the guard uses the index or has side effects", false;
  if (!src.inFile(ds) || !src.inFile(guard) || !src.inFile(body->getLBracLoc()) || !src.inFile(body->getRBracLoc()))
    return why = "the kernel body is written through a macro", false;
  out.body = body;
  out.index = vd;
  out.decl_text = sourceText(ctx, clang::SourceRange(ds->getBeginLoc(), vd->getInit()->getEndLoc()));
  out.cond_text = sourceText(ctx, guard->getCond()->getSourceRange());
  out.guard = guard;
  out.wide_index = ctx.getTypeSize(vd->getType()) >= 64;
  out.index_type = vd->getType().getUnqualifiedType().getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
  out.bound = bound;
  out.index_text = sourceText(ctx, vd->getInit()->getSourceRange());
  return true;
}

bool matchGuardedAtomic(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, GuardedAtomic& out,
                        std::string& why) {
  GuardedAtomic g;
  if (!matchElementGuard(ctx, kernel, g, why, "T i = <global thread index>; if (i < n) atomic(...);")) return false;
  const clang::Stmt* then = g.guard->getThen();
  if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(then)) {
    if (cs->size() != 1) return why = "the guarded code is more than one atomic call", false;
    then = cs->body_front();
  }
  auto* call = llvm::dyn_cast<clang::CallExpr>(then);
  std::string callee = call ? calleeName(call) : "";
  if (!call || callee.rfind("atomic", 0) != 0 || call->getNumArgs() != 2)
    return why = "the guarded code is not one call `atomicXxx(address, value)`", false;
  g.atomic = call;
  g.callee = callee;
  out = g;
  return true;
}

namespace {

std::string strideText(const ElementGuard& g) {
  return g.wide_index ? "(" + g.index_type + ")blockDim.x * gridDim.x" : "blockDim.x * gridDim.x";
}

// The reads p[i] of the added value, for the 4-wide loop (accumulationLoop says what is accepted).
struct LaneReads : clang::RecursiveASTVisitor<LaneReads> {
  const clang::ASTContext& ctx;
  const SourceBuffer& src;
  const clang::VarDecl* index;
  long long width;
  struct Read {
    const clang::ParmVarDecl* param;
    unsigned begin, end;
  };
  std::vector<Read> reads;
  std::set<const clang::Expr*> in_read;  // the base and index DeclRefExprs of accepted reads
  std::string why;
  LaneReads(const clang::ASTContext& c, const SourceBuffer& s, const clang::VarDecl* i, long long w)
      : ctx(c), src(s), index(i), width(w) {}
  bool fail(const std::string& w) {
    if (why.empty()) why = w;
    return false;
  }
  std::string text(const clang::Expr* e) const { return sourceText(ctx, e->getSourceRange()); }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
    auto* pv = llvm::dyn_cast_or_null<clang::ParmVarDecl>(referencedDecl(e->getBase()));
    if (!pv || !pv->getType()->isPointerType())
      return fail("the value reads " + text(e) + ", not a pointer parameter at the index");
    const clang::Expr* idx = e->getIdx();
    auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(idx->IgnoreImpCasts());
    if (!ref || ref->getDecl() != index)
      return fail("the value reads " + text(e) + ", not " + pv->getNameAsString() + "[" + index->getNameAsString() +
                  "] at the loop index");
    if (const int lanes = vectorLanes(ctx, elementType(pv)); lanes != width)
      return fail(pv->getNameAsString() + " has element type " + elementType(pv).getAsString() +
                  (lanes == 0 ? std::string(" (only float, int, unsigned int and 1- or 2-byte integers are loaded as vectors)")
                              : ": " + std::to_string(lanes) + " lanes a 16-byte vector, not vector_width " +
                                    std::to_string(width)));
    if (!src.inFile(e)) return fail("a read is written through a macro");
    in_read.insert(e->getBase()->IgnoreParenImpCasts());
    in_read.insert(ref);
    reads.push_back({pv, src.off(e->getBeginLoc()), src.tokEnd(e->getEndLoc())});
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    if (in_read.count(e)) return true;
    if (e->getDecl() == index)
      return fail("the value uses " + index->getNameAsString() + " other than as p[" + index->getNameAsString() + "]");
    if (llvm::isa<clang::ParmVarDecl>(e->getDecl()) && e->getDecl()->getType()->isPointerType())
      return fail("the value uses the pointer " + e->getDecl()->getNameAsString() + " other than as " +
                  e->getDecl()->getNameAsString() + "[" + index->getNameAsString() + "]");
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->getOpcode() == clang::UO_Deref) return fail("the value dereferences a pointer");
    if (uo->getOpcode() == clang::UO_AddrOf) return fail("the value takes an address");
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr* me) {
    if (me->isArrow()) return fail("the value reads through ->");
    return true;
  }
};

// The text without its `#pragma` lines.
std::string withoutPragmas(const std::string& s) {
  std::string out;
  size_t p = 0;
  while (p < s.size()) {
    size_t q = s.find('\n', p);
    if (q == std::string::npos) q = s.size();
    const std::string line = s.substr(p, q - p);
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line.compare(first, 7, "#pragma") != 0) out += line + "\n";
    p = q + 1;
  }
  return out;
}

}  // namespace

std::string gridStrideHeader(const ElementGuard& g) {
  return "for (" + g.decl_text + "; " + g.cond_text + "; " + g.index->getNameAsString() + " += " + strideText(g) + ")";
}

bool loopGuard(clang::ASTContext& ctx, const clang::ForStmt* loop, ElementGuard& out, std::string& why) {
  auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(loop->getInit());
  auto* vd = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
  if (!vd || !vd->getInit() || !vd->getType()->isIntegerType() || !isGlobalThreadIndex(ctx, vd->getInit()))
    return why = "the loop does not start at the global thread index", false;
  auto* cond = loop->getCond() ? llvm::dyn_cast<clang::BinaryOperator>(loop->getCond()->IgnoreParenImpCasts()) : nullptr;
  auto isIndex = [&](const clang::Expr* e) { return referencedDecl(e) == vd; };
  if (!cond || !((cond->getOpcode() == clang::BO_LT && isIndex(cond->getLHS())) ||
                 (cond->getOpcode() == clang::BO_GT && isIndex(cond->getRHS()))))
    return why = "the loop condition is not `i < n`", false;
  out.index = vd;
  out.decl_text = sourceText(ctx, clang::SourceRange(ds->getBeginLoc(), vd->getInit()->getEndLoc()));
  out.cond_text = sourceText(ctx, loop->getCond()->getSourceRange());
  out.wide_index = ctx.getTypeSize(vd->getType()) >= 64;
  out.index_type = vd->getType().getUnqualifiedType().getAsString(clang::PrintingPolicy(ctx.getLangOpts()));
  out.bound = cond->getOpcode() == clang::BO_LT ? cond->getRHS() : cond->getLHS();
  out.index_text = sourceText(ctx, vd->getInit()->getSourceRange());
  return true;
}

bool accumulationLoop(clang::ASTContext& ctx, const ElementGuard& g, Accumulation& a, std::string& text,
                      std::string& why) {
  if (a.values.empty()) return why = "nothing is accumulated", false;
  std::vector<std::string> texts;
  for (const clang::Expr* v : a.values) texts.push_back(sourceText(ctx, v->getSourceRange()));
  const auto pragma = [&](const std::string& indent) {
    return a.unroll > 1 ? "#pragma unroll " + std::to_string(a.unroll) + "\n" + indent : std::string();
  };
  const std::string scalar = gridStrideHeader(g) + " " + a.stmt(texts) + "\n";
  if (a.width == 1) {
    text = pragma("  ") + scalar;
    return true;
  }
  const long long w = a.width;
  if (w != 4 && w != 8 && w != 16)
    return why = "vector_width must be 1, 4, 8 or 16 (asked for " + std::to_string(w) + ")", false;

  SourceBuffer src(ctx);
  LaneReads scan(ctx, src, g.index, w);
  for (const clang::Expr* v : a.values) {
    if (!src.inFile(v->getBeginLoc()) || !src.inFile(v->getEndLoc())) return why = "the value is written through a macro", false;
    scan.TraverseStmt(const_cast<clang::Expr*>(v));
  }
  if (!scan.why.empty()) return why = scan.why, false;
  if (scan.reads.empty())
    return why = "the value reads no pointer parameter at the index " + g.index->getNameAsString() +
                 ": nothing to load as vectors", false;
  std::vector<const clang::ParmVarDecl*> arrays;  // in parameter order
  for (const auto& r : scan.reads)
    if (std::find(arrays.begin(), arrays.end(), r.param) == arrays.end()) arrays.push_back(r.param);
  std::sort(arrays.begin(), arrays.end(), [](const clang::ParmVarDecl* x, const clang::ParmVarDecl* y) {
    return x->getFunctionScopeIndex() < y->getFunctionScopeIndex();
  });
  for (const clang::ParmVarDecl* pv : arrays)
    for (const clang::Stmt* u : a.updates)
      if (usesDecl(u, pv))
        return why = pv->getNameAsString() + " is read as vectors and also used by the update " +
                     sourceText(ctx, u->getSourceRange()), false;
  std::vector<LaneReads::Read> reads = scan.reads;
  std::sort(reads.begin(), reads.end(), [](const auto& x, const auto& y) { return x.begin < y.begin; });

  const std::string n = sourceText(ctx, g.bound->getSourceRange());
  const clang::Expr* plain = g.bound->IgnoreParenImpCasts();
  const std::string ws = std::to_string(w);
  const std::string nw = (llvm::isa<clang::DeclRefExpr>(plain) || llvm::isa<clang::IntegerLiteral>(plain) ? n : "(" + n + ")") + " / " + ws;
  const std::string stride = strideText(g);
  const std::string name = g.index->getNameAsString();
  const clang::PrintingPolicy policy(ctx.getLangOpts());
  a.loaded.clear();
  for (const clang::ParmVarDecl* pv : arrays) a.loaded.push_back(pv->getNameAsString());

  text = "if (" + alignmentCheck(a.loaded) + ") {\n    " + pragma("    ") + "for (" + g.index_type + " kl_v = " +
         g.index_text + "; kl_v < " + nw + "; kl_v += " + stride + ") {\n";
  for (const clang::ParmVarDecl* pv : arrays) {
    const std::string p = pv->getNameAsString(), vt = vectorTypeOf(ctx, elementType(pv));
    text += "      " + vt + " kl_" + p + ws + " = " + vectorLoad(vt, p, "kl_v") + ";\n";
  }
  for (int lane = 0; lane < w; ++lane) {
    std::vector<std::string> lt;
    for (const clang::Expr* v : a.values) {
      const unsigned e0 = src.off(v->getBeginLoc()), e1 = src.tokEnd(v->getEndLoc());
      std::string le;
      unsigned pos = e0;
      for (const auto& r : reads) {
        if (r.begin < e0 || r.end > e1) continue;  // another value's read
        if (r.begin < pos) return why = "overlapping reads in the value", false;
        const std::string elem = elementType(r.param).getUnqualifiedType().getAsString(policy);
        le += src.slice(pos, r.begin) + laneOf("kl_" + r.param->getNameAsString() + ws, elem, static_cast<int>(w), lane);
        pos = r.end;
      }
      lt.push_back(le + src.slice(pos, e1));
    }
    text += "      " + a.stmt(lt) + "\n";
  }
  text += "    }\n    for (" + g.index_type + " " + name + " = (" + nw + ") * " + ws + " + " + g.index_text + "; " +
          g.cond_text + "; " + name + " += " + stride + ") " + a.stmt(texts) + "\n";
  text += "  } else {\n    " + pragma("    ") + scalar + "  }\n";
  return true;
}

const clang::ForStmt* accumulationScalarLoop(const clang::Stmt* s, const clang::IfStmt** vector) {
  *vector = nullptr;
  const auto unwrap = [](const clang::Stmt* t) -> const clang::ForStmt* {
    // `#pragma unroll N` wraps the loop in an AttributedStmt.
    if (auto* attributed = llvm::dyn_cast_or_null<clang::AttributedStmt>(t)) t = attributed->getSubStmt();
    return llvm::dyn_cast_or_null<clang::ForStmt>(t);
  };
  if (auto* is = llvm::dyn_cast<clang::IfStmt>(s)) {
    auto* els = llvm::dyn_cast_or_null<clang::CompoundStmt>(is->getElse());
    if (!els || els->size() != 1 || is->getInit() || is->getConditionVariable()) return nullptr;
    const clang::ForStmt* loop = unwrap(els->body_front());
    if (loop) *vector = is;
    return loop;
  }
  return unwrap(s);
}

std::string vectorWidthMatches(const std::map<std::string, std::string>& params, bool vector) {
  const long long width = intParam(params, "vector_width", 1);
  if (width != 1 && width != 4 && width != 8 && width != 16)
    return "vector_width must be 1, 4, 8 or 16 (asked for " + std::to_string(width) + ")";
  if (vector && width == 1) return "the accumulation loads vectors: not vector_width 1's form";
  if (!vector && width != 1)
    return "the accumulation is the scalar loop, not vector_width " + std::to_string(width) + "'s form";
  return "";
}

bool isVectorAccumulation(clang::ASTContext& ctx, const clang::IfStmt* vector, const clang::ForStmt* loop,
                          Accumulation a, std::string& why) {
  ElementGuard g;
  if (!loopGuard(ctx, loop, g, why)) return false;
  if (a.width == 1) a.width = 4;
  a.unroll = 1;
  a.updates.clear();
  std::string text;
  if (!accumulationLoop(ctx, g, a, text, why)) return false;
  if (squeeze(withoutPragmas(sourceText(ctx, vector->getSourceRange()))) != squeeze(withoutPragmas(text)))
    return why = "the aligned branch is not the 4-wide accumulation forward writes", false;
  return true;
}

bool replaceBody(clang::ASTContext& ctx, clang::Rewriter& rw, const clang::CompoundStmt* body, const std::string& text) {
  SourceBuffer src(ctx);
  unsigned a = src.off(body->getLBracLoc()) + 1, b = src.off(body->getRBracLoc());
  return !rw.ReplaceText(src.at(a), b - a, text);
}

}  // namespace klineage
