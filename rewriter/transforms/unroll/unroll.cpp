// unroll: for (int j = 0; j < 4; ++j) S  ->  #pragma unroll
//                                            for (int j = 0; j < 4; ++j) S
// on every for loop of the kernel whose trip count is a compile-time constant of at most
// max_trip (default 32): a counter declared or assigned from a constant, compared (<, <=, >, >=,
// !=) with a constant (a literal, a constexpr or const variable, an enumerator, a template's
// static constant such as Tile<4>::size, sizeof, ...), stepped by ++, --, += or -= a constant,
// and only read in the body.
// Why it can pay: the compiler unrolls the loop completely, so the counter and the branch go
// away, array indices become constants (small local arrays stay in registers instead of local
// memory) and independent iterations' loads can be issued together. nvcc often unrolls such
// loops by itself; the pragma makes it certain. The cost is code size, hence max_trip.
// When it is sound: always; a pragma changes no result (GeometryChange none). The checks only
// decide where full unrolling is possible: the transform refuses when the kernel has no for loop,
// or none whose trip count is a known constant from 1 to max_trip, naming each loop's reason (it
// already has a loop pragma, its start, bound or step is not a compile-time constant, the body
// may change the counter, it never runs, it has more than max_trip iterations, it is written
// through a macro or does not start its line).
// Inverse: removes a bare `#pragma unroll` line written right before such a loop (what forward
// adds), so inverse(forward(x)) == x; a bare pragma the user had put on such a loop goes too.
#include <optional>

#include <clang/AST/Attr.h>
#include <clang/AST/ParentMapContext.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

using Src = SourceBuffer;
using i128 = __int128;

std::optional<i128> constInt(const clang::ASTContext& ctx, const clang::Expr* e) {
  if (!e || e->isValueDependent() || e->isTypeDependent() || !e->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  clang::Expr::EvalResult r;
  if (!e->EvaluateAsInt(r, ctx)) return std::nullopt;
  const llvm::APSInt& v = r.Val.getInt();
  return v.isSigned() ? i128(v.getExtValue()) : i128(v.getZExtValue());
}

std::string str(i128 v) { return std::to_string(static_cast<long long>(v)); }

const clang::VarDecl* counterRef(const clang::Expr* e) {
  auto* dre = e ? llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts()) : nullptr;
  auto* vd = dre ? llvm::dyn_cast<clang::VarDecl>(dre->getDecl()) : nullptr;
  return vd && vd->getType()->isIntegerType() ? vd : nullptr;
}

// The loop pragma on a statement (#pragma unroll, nounroll, clang loop ...), if any.
const clang::LoopHintAttr* loopHint(clang::ASTContext& ctx, const clang::Stmt* loop) {
  auto parents = ctx.getParents(*loop);
  if (parents.empty()) return nullptr;
  auto* as = parents[0].get<clang::AttributedStmt>();
  if (!as) return nullptr;
  for (const clang::Attr* a : as->getAttrs())
    if (auto* h = llvm::dyn_cast<clang::LoopHintAttr>(a)) return h;
  return nullptr;
}

bool isBarePragmaUnroll(const clang::LoopHintAttr* h) {
  return h && h->getSemanticSpelling() == clang::LoopHintAttr::Pragma_unroll &&
         h->getOption() == clang::LoopHintAttr::Unroll && h->getState() == clang::LoopHintAttr::Enable &&
         !h->getValue();
}

struct Counted {
  i128 trip = 0;
  std::string why;  // empty when the trip count is known
};

// The trip count of a for loop, when it is a compile-time constant.
Counted tripCount(clang::ASTContext& ctx, const clang::ForStmt* fs) {
  Counted c;
  auto no = [&](std::string why) {
    c.why = std::move(why);
    return c;
  };
  // the counter and its start
  const clang::VarDecl* v = nullptr;
  std::optional<i128> start;
  if (auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(fs->getInit())) {
    auto* vd = ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
    if (vd && vd->getType()->isIntegerType() && vd->getInit()) {
      v = vd;
      start = constInt(ctx, vd->getInit());
    }
  } else if (auto* bo = llvm::dyn_cast_or_null<clang::BinaryOperator>(fs->getInit());
             bo && bo->getOpcode() == clang::BO_Assign) {
    v = counterRef(bo->getLHS());
    if (v) start = constInt(ctx, bo->getRHS());
  }
  if (!v) return no("it does not start one integer counter");
  std::string name = v->getNameAsString();
  if (!start) return no("the start of " + name + " is not a compile-time constant");

  // the bound
  auto* cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(fs->getCond() ? fs->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || !cond->isComparisonOp() || cond->getOpcode() == clang::BO_EQ || cond->getOpcode() == clang::BO_Cmp)
    return no("its condition is not a comparison of " + name + " with a bound");
  clang::BinaryOperatorKind op = cond->getOpcode();
  const clang::Expr* bound = nullptr;
  if (counterRef(cond->getLHS()) == v) {
    bound = cond->getRHS();
  } else if (counterRef(cond->getRHS()) == v) {
    bound = cond->getLHS();
    op = clang::BinaryOperator::reverseComparisonOp(op);
  } else {
    return no("its condition does not compare " + name + " with a bound");
  }
  std::optional<i128> end = constInt(ctx, bound);
  if (!end) return no("its bound is not a compile-time constant, so neither is the trip count");

  // the step
  std::optional<i128> step;
  const clang::Expr* inc = fs->getInc() ? fs->getInc()->IgnoreParens() : nullptr;
  if (auto* uo = llvm::dyn_cast_or_null<clang::UnaryOperator>(inc); uo && uo->isIncrementDecrementOp()) {
    if (counterRef(uo->getSubExpr()) == v) step = uo->isIncrementOp() ? 1 : -1;
  } else if (auto* ca = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(inc);
             ca && (ca->getOpcode() == clang::BO_AddAssign || ca->getOpcode() == clang::BO_SubAssign) &&
             counterRef(ca->getLHS()) == v) {
    if (auto s = constInt(ctx, ca->getRHS())) step = ca->getOpcode() == clang::BO_AddAssign ? *s : -*s;
  }
  if (!step || *step == 0)
    return no("it does not step " + name + " by ++, --, += or -= a nonzero compile-time constant");
  if (!onlyReads(ctx, fs->getBody(), v)) return no("its body may change the loop counter " + name);

  // every value the counter takes must fit its type and the comparison's
  auto fits = [&](clang::QualType t, i128 x) {
    unsigned bits = static_cast<unsigned>(ctx.getTypeSize(t));
    if (bits >= 64) return t->isUnsignedIntegerType() ? x >= 0 : true;
    i128 lo = t->isUnsignedIntegerType() ? 0 : -(i128(1) << (bits - 1));
    i128 hi = t->isUnsignedIntegerType() ? (i128(1) << bits) - 1 : (i128(1) << (bits - 1)) - 1;
    return x >= lo && x <= hi;
  };
  clang::QualType cmp = cond->getLHS()->getType();
  i128 a = *start, b = *end, s = *step, trip = 0;
  switch (op) {
    case clang::BO_LE: b += 1; [[fallthrough]];
    case clang::BO_LT:
      if (s < 0) return no("it steps " + name + " away from its bound");
      trip = a < b ? (b - a + s - 1) / s : 0;
      break;
    case clang::BO_GE: b -= 1; [[fallthrough]];
    case clang::BO_GT:
      if (s > 0) return no("it steps " + name + " away from its bound");
      trip = a > b ? (a - b + (-s) - 1) / (-s) : 0;
      break;
    case clang::BO_NE:
      if ((b - a) % s != 0 || (b - a) / s < 0) return no("it steps " + name + " past its bound");
      trip = (b - a) / s;
      break;
    default: return no("its condition is not a comparison of " + name + " with a bound");
  }
  // the first value, the last one the body sees, and the one that ends the loop
  i128 last = trip > 0 ? a + (trip - 1) * s : a, exit = a + trip * s;
  for (i128 x : {a, last, exit})
    if (!fits(v->getType(), x) || !fits(cmp, x))
      return no("the values of " + name + " do not fit its type, so the trip count is not what it seems");
  if (trip == 0) return no("it never runs (trip count 0)");
  c.trip = trip;
  return c;
}

struct Candidate {
  const clang::ForStmt* loop;
  unsigned line;
  i128 trip = 0;
  std::string why;  // empty: eligible
};

std::vector<Candidate> candidates(clang::ASTContext& ctx, const Src& src, const clang::FunctionDecl* kernel,
                                  long long max_trip, bool forward) {
  using namespace clang::ast_matchers;
  std::vector<Candidate> out;
  for (const clang::ForStmt* fs : findAllIn<clang::ForStmt>(ctx, kernel->getBody(), forStmt().bind("for"), "for")) {
    Candidate c{fs, src.sm.getSpellingLineNumber(fs->getBeginLoc())};
    const clang::LoopHintAttr* hint = loopHint(ctx, fs);
    Counted n = tripCount(ctx, fs);
    if (!src.inFile(fs)) c.why = "it is written through a macro";
    else if (forward && hint)
      c.why = isBarePragmaUnroll(hint) || hint->getOption() == clang::LoopHintAttr::UnrollCount
                  ? "it already has #pragma unroll"
                  : "it already has a loop pragma";
    else if (!n.why.empty()) c.why = n.why;
    else if (n.trip > max_trip) c.why = "its trip count " + str(n.trip) + " exceeds max_trip " + std::to_string(max_trip);
    else if (!src.blankBefore(src.off(fs->getBeginLoc()))) c.why = "it does not start its line";
    c.trip = n.trip;
    out.push_back(c);
  }
  return out;
}

class Unroll : public Transform {
 public:
  std::string id() const override { return "unroll"; }
  std::string summary() const override {
    return "add #pragma unroll to for loops with a compile-time constant trip count of at most max_trip";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    long long max_trip = intParam(req.params, "max_trip", 32);
    if (max_trip < 1) return TransformResult::no("max_trip must be at least 1 (asked for " + std::to_string(max_trip) + ")");
    if (!req.kernel->hasBody()) return TransformResult::no("the kernel has no body");
    std::vector<Candidate> loops = candidates(ctx, src, req.kernel, max_trip, true);
    if (loops.empty()) return TransformResult::no("no for loop in the kernel");
    std::string what, why;
    for (const Candidate& c : loops) {
      if (!c.why.empty()) {
        why += (why.empty() ? "" : "; ") + std::string("line ") + std::to_string(c.line) + ": " + c.why;
        continue;
      }
      unsigned f0 = src.off(c.loop->getBeginLoc());
      if (req.rewriter.InsertTextBefore(src.at(src.lineStart(f0)), src.indentOf(f0) + "#pragma unroll\n"))
        return TransformResult::no("the rewriter refused the edit");
      what += (what.empty() ? "" : ", ") + std::string("line ") + std::to_string(c.line) + " (" + str(c.trip) + " iterations)";
    }
    if (what.empty())
      return TransformResult::no("no for loop with a compile-time constant trip count of at most " +
                                 std::to_string(max_trip) + " to unroll: " + why);
    return TransformResult::yes("#pragma unroll on the loop at " + what);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    long long max_trip = intParam(req.params, "max_trip", 32);
    if (!req.kernel->hasBody()) return TransformResult::no("the kernel has no body");
    unsigned removed = 0;
    for (const Candidate& c : candidates(ctx, src, req.kernel, max_trip, false)) {
      if (!c.why.empty() || !isBarePragmaUnroll(loopHint(ctx, c.loop))) continue;
      unsigned line = src.lineStart(src.off(c.loop->getBeginLoc()));
      if (line == 0) continue;
      unsigned prev = src.lineStart(line - 1);
      if (squeeze(src.slice(prev, line)) != "#pragmaunroll") continue;  // not written the way forward writes it
      if (req.rewriter.RemoveText(src.at(prev), line - prev)) return TransformResult::no("the rewriter refused the edit");
      ++removed;
    }
    if (!removed)
      return TransformResult::no("no `#pragma unroll` line before a for loop with a compile-time constant trip count of at most " +
                                 std::to_string(max_trip));
    return TransformResult::yes("removed #pragma unroll from " + std::to_string(removed) + " loop" + (removed > 1 ? "s" : ""));
  }
};

}  // namespace
std::unique_ptr<Transform> makeUnroll() { return std::make_unique<Unroll>(); }
}  // namespace klineage
