// row-registers: a warp's row, read from global memory in several lane-strided loops, is read once
// into registers and every such loop computes from there.
//   float m = x[0];                                            float m = x[0];
//   for (int c = 1 + kl_lane; c < cols; c += 32)               float kl_row[64];
//     m = fmaxf(m, x[c]);                                      const bool kl_in_regs = cols <= 64 * 32;
//   ...                                                        if (kl_in_regs) { for kl_j: kl_row[kl_j] = x[kl_j * 32 + kl_lane] }
//   for (int c = 0 + kl_lane; c < cols; c += 32)         ->    if (kl_in_regs) { for kl_j (unrolled) { const int c = kl_j * 32 + kl_lane;
//     y[c] = expf(x[c] - m) / s;                                 if (c >= 1 && c < cols) m = fmaxf(m, kl_row[kl_j]); } }
//                                                              else for (int c = 1 + kl_lane; ...) m = fmaxf(m, x[c]);   (unchanged)
// Why it pays: warp-per-row's softmax and layernorm read their row from DRAM (or L2) two or three
// times; the register path reads it once. kl_row is indexed only by kl_j of fully unrolled loops
// (compile-time indices), so it stays in registers: max_cols / 32 of them per thread.
// What is rewritten: a kernel in warp-per-row's form (`const int kl_lane = threadIdx.x % 32;`,
// top-level `for (int c = S + kl_lane; c < B; c += 32)` loops, maybe after a `#pragma unroll N`
// line) where one pointer x is read as x[c] in two or more of those loops, all with the same bound
// B (a name the kernel never assigns), and one of them starts at 0. The row is loaded before the
// first of them (element kl_j * 32 + kl_lane in kl_row[kl_j]), and each such loop becomes
// `if (kl_in_regs) <register loop> else <the loop, verbatim>`. Rows longer than max_cols take the
// original loops.
// When it is sound: x is never stored to (the kernel stores through no pointer that x may be derived
// from, nor passes such a pointer to a call; other parameters do not overlap it: the skill's
// no-overlap fact) and never reassigned, so a register holds what the loop would have read. A loop
// starting at a multiple of 32 visits, in every lane, the same c in the same order as before:
// results are bit-identical. A loop starting elsewhere (softmax's max from 1) gives the element c to
// lane c % 32 instead of (c - S) % 32: it is accepted only when its body reads no memory but x[c],
// stores nothing, and assigns outer variables only as sums or min/max that a butterfly (warp-per-row's
// `for (int kl_offset = 16; ...)` with full-mask shuffles, so every lane is there) combines right
// after it: every element still enters exactly once (min/max: the same result; sums: regrouped).
// Inverse: recognizes exactly what forward writes (its text is regenerated from the fallback loops
// and compared) and keeps only the fallback loops.
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/loop_depth.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

using Src = SourceBuffer;

const char* kComment = "// the row, read once: element kl_j * 32 + kl_lane in kl_row[kl_j]";
const std::set<std::string> kMinMax = {"fmaxf", "fminf", "fmax", "fmin", "max", "min"};
const std::set<std::string> kOurNames = {"kl_row", "kl_j", "kl_in_regs"};

const clang::Expr* bare(const clang::Expr* e) { return e ? e->IgnoreParenImpCasts() : nullptr; }

bool isLocalArray(const clang::Expr* e) {
  auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(bare(e));
  return ase && bare(ase->getBase())->getType()->isArrayType();
}

bool isMemoryLvalue(const clang::Expr* e) {
  e = bare(e);
  if (llvm::isa<clang::ArraySubscriptExpr>(e)) return !isLocalArray(e);
  if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(e)) return uo->getOpcode() == clang::UO_Deref;
  if (auto* me = llvm::dyn_cast<clang::MemberExpr>(e)) return me->isArrow() || isMemoryLvalue(me->getBase());
  return false;
}

// The variable a pointer expression is based on: p in p[i], *p, p + k, &p[i], (T*)p, s.p; null when
// it is not a variable (a call, a conditional, ...).
const clang::ValueDecl* pointerBase(const clang::Expr* e) {
  if (!e) return nullptr;
  e = e->IgnoreParenCasts();
  if (auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) return pointerBase(ase->getBase());
  if (auto* uo = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    if (uo->getOpcode() == clang::UO_Deref || uo->getOpcode() == clang::UO_AddrOf || uo->isIncrementDecrementOp())
      return pointerBase(uo->getSubExpr());
    return nullptr;
  }
  if (auto* me = llvm::dyn_cast<clang::MemberExpr>(e)) return pointerBase(me->getBase());
  if (auto* bo = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    if (bo->isAdditiveOp())
      return pointerBase(bo->getLHS()->IgnoreParenCasts()->getType()->isPointerType() ? bo->getLHS() : bo->getRHS());
    if (bo->isAssignmentOp() || bo->getOpcode() == clang::BO_Comma) return pointerBase(bo->getRHS());
    return nullptr;
  }
  if (auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(e)) return dre->getDecl();
  return nullptr;
}

// `for (int c = S + kl_lane; c < B; c += 32)`, as warp-per-row writes it (maybe behind a `#pragma`).
struct Strided {
  const clang::Stmt* stmt = nullptr;  // the statement in the row's code (an AttributedStmt with a pragma)
  const clang::ForStmt* loop = nullptr;
  const clang::VarDecl* counter = nullptr;
  const clang::Expr* start = nullptr;  // S, as written ("1", "(a + b)")
  const clang::ValueDecl* bound = nullptr;  // B when it is a name
  const clang::Expr* bound_expr = nullptr;
  size_t index = 0;  // in the row's statements
};

std::optional<Strided> stridedLoop(const clang::Stmt* s, const clang::VarDecl* lane) {
  Strided st;
  st.stmt = s;
  if (auto* at = llvm::dyn_cast<clang::AttributedStmt>(s)) s = at->getSubStmt();
  st.loop = llvm::dyn_cast<clang::ForStmt>(s);
  if (!st.loop) return std::nullopt;
  auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(st.loop->getInit());
  st.counter = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
  if (!st.counter || !st.counter->getInit() || !st.counter->getType()->isIntegerType()) return std::nullopt;
  auto* add = llvm::dyn_cast<clang::BinaryOperator>(bare(st.counter->getInit()));
  if (!add || add->getOpcode() != clang::BO_Add || referencedDecl(add->getRHS()) != lane) return std::nullopt;
  st.start = add->getLHS()->IgnoreImpCasts();
  auto* cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(bare(st.loop->getCond()));
  if (!cond || cond->getOpcode() != clang::BO_LT || referencedDecl(cond->getLHS()) != st.counter) return std::nullopt;
  st.bound_expr = cond->getRHS()->IgnoreImpCasts();
  st.bound = referencedDecl(cond->getRHS());
  auto* inc = llvm::dyn_cast_or_null<clang::CompoundAssignOperator>(st.loop->getInc());
  auto* lit = inc ? llvm::dyn_cast<clang::IntegerLiteral>(bare(inc->getRHS())) : nullptr;
  if (!inc || inc->getOpcode() != clang::BO_AddAssign || referencedDecl(inc->getLHS()) != st.counter || !lit ||
      lit->getValue() != 32)
    return std::nullopt;
  return st;
}

// Reads p[c] (c: the loop's counter) of pointer variables in a strided loop's body, by pointer.
struct CounterReads : clang::RecursiveASTVisitor<CounterReads> {
  const clang::VarDecl* c;
  std::set<const clang::Expr*> written;
  std::map<const clang::ValueDecl*, std::vector<const clang::ArraySubscriptExpr*>> reads;
  std::vector<const clang::ValueDecl*> order;  // pointers in the order first read
  explicit CounterReads(const clang::VarDecl* counter) : c(counter) {}
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    if (bo->isAssignmentOp()) written.insert(bare(bo->getLHS()));
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->isIncrementDecrementOp() || uo->getOpcode() == clang::UO_AddrOf) written.insert(bare(uo->getSubExpr()));
    return true;
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
    if (written.count(e) || referencedDecl(e->getIdx()) != c) return true;
    auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(bare(e->getBase()));
    if (!dre || !dre->getDecl()->getType()->isPointerType()) return true;
    const clang::ValueDecl* p = dre->getDecl();
    if (!reads.count(p)) order.push_back(p);
    reads[p].push_back(e);
    return true;
  }
};

// What a strided loop's body does, for the loops that read x[c].
struct BodyScan : LoopDepthVisitor<BodyScan> {
  const clang::VarDecl* c;
  const clang::ValueDecl* x;
  std::set<const clang::ValueDecl*> inner;
  std::set<const clang::Expr*> written;
  std::vector<const clang::ArraySubscriptExpr*> x_reads;  // x[c], in source order
  unsigned counter_refs = 0, counter_indices = 0;
  bool stores = false, other_reads = false;
  std::vector<std::pair<const clang::VarDecl*, bool>> outer_updates;  // var, is a sum or min/max
  std::string why;
  BodyScan(const clang::VarDecl* counter, const clang::ValueDecl* xp) : c(counter), x(xp) {}
  bool fail(std::string w) {
    if (why.empty()) why = std::move(w);
    return true;  // keep going: the first reason is the one reported
  }
  static bool reduction(const clang::VarDecl* v, const clang::Expr* whole) {
    if (auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(whole))
      return ca->getOpcode() == clang::BO_AddAssign && !usesDecl(ca->getRHS(), v);
    auto* bo = llvm::dyn_cast<clang::BinaryOperator>(whole);
    if (!bo || bo->getOpcode() != clang::BO_Assign) return false;
    auto* call = llvm::dyn_cast<clang::CallExpr>(bare(bo->getRHS()));
    if (!call || call->getNumArgs() != 2 || !kMinMax.count(calleeName(call))) return false;
    bool a0 = referencedDecl(call->getArg(0)) == v, a1 = referencedDecl(call->getArg(1)) == v;
    return a0 != a1 && !usesDecl(call->getArg(a0 ? 1 : 0), v);
  }
  void target(const clang::Expr* lhs, const clang::Expr* whole) {
    written.insert(bare(lhs));
    if (isLocalArray(lhs)) return;
    if (isMemoryLvalue(lhs)) {
      stores = true;
      return;
    }
    auto* vd = llvm::dyn_cast_or_null<clang::VarDecl>(referencedDecl(lhs));
    if (vd == c) fail("a strided loop's body assigns its counter " + c->getNameAsString());
    if (vd && !inner.count(vd)) outer_updates.push_back({vd, reduction(vd, whole)});
  }
  bool VisitVarDecl(clang::VarDecl* vd) {
    inner.insert(vd);
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    if (bo->isAssignmentOp()) target(bo->getLHS(), bo);
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->isIncrementDecrementOp()) target(uo->getSubExpr(), uo);
    if (uo->getOpcode() == clang::UO_AddrOf) {
      auto* ase = llvm::dyn_cast<clang::ArraySubscriptExpr>(bare(uo->getSubExpr()));
      if (ase && pointerBase(ase) == x) fail("a strided loop takes the address of an element of " + x->getNameAsString());
    }
    if (uo->getOpcode() == clang::UO_Deref && !written.count(uo)) other_reads = true;
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr* me) {
    if (me->isArrow() && !written.count(me)) other_reads = true;
    return true;
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
    const bool is_x = referencedDecl(e->getBase()) == x && referencedDecl(e->getIdx()) == c;
    if (referencedDecl(e->getIdx()) == c) ++counter_indices;
    if (written.count(e)) return true;
    if (is_x) x_reads.push_back(e);
    else if (!isLocalArray(e)) other_reads = true;
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    if (e->getDecl() == c) ++counter_refs;
    if (kOurNames.count(e->getDecl()->getNameAsString())) fail("the kernel already uses " + e->getDecl()->getNameAsString());
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* call) {
    std::string n = calleeName(call);
    if (auto k = intrinsicKind(n)) {
      if (*k != IntrinsicKind::Atomic) fail("a strided loop calls " + n + " (" + describe(*k) + ")");
      else stores = true;
    }
    return true;
  }
  bool VisitBreakStmt(clang::BreakStmt*) {
    if (!loops && !switches) fail("a strided loop has a break");
    return true;
  }
  bool VisitContinueStmt(clang::ContinueStmt*) {
    if (!loops) fail("a strided loop has a continue");
    return true;
  }
  bool VisitReturnStmt(clang::ReturnStmt*) { return fail("a strided loop returns"); }
  bool VisitGotoStmt(clang::GotoStmt*) { return fail("a strided loop uses goto"); }
};

// Anything in a statement that leaves it other than at its end.
struct Exits : clang::RecursiveASTVisitor<Exits> {
  bool found = false;
  bool VisitReturnStmt(clang::ReturnStmt*) { return !(found = true); }
  bool VisitGotoStmt(clang::GotoStmt*) { return !(found = true); }
};

// Variables a statement assigns (as a whole variable, not through memory).
struct Assigned : clang::RecursiveASTVisitor<Assigned> {
  std::set<const clang::ValueDecl*> vars;
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    if (bo->isAssignmentOp())
      if (auto* d = referencedDecl(bo->getLHS())) vars.insert(d);
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->isIncrementDecrementOp() || uo->getOpcode() == clang::UO_AddrOf)
      if (auto* d = referencedDecl(uo->getSubExpr())) vars.insert(d);
    return true;
  }
};

// The whole kernel: where pointers come from, and what is stored through which pointer.
struct PointerFlow : clang::RecursiveASTVisitor<PointerFlow> {
  std::map<const clang::ValueDecl*, std::vector<const clang::Expr*>> sources;  // init and `p = e`
  std::vector<std::pair<const clang::Expr*, std::string>> stores;             // the pointer expression, what it is
  std::set<const clang::ValueDecl*> names;                                     // every declared name
  bool references = false;
  bool VisitVarDecl(clang::VarDecl* vd) {
    names.insert(vd);
    if (vd->getType()->isReferenceType() && !vd->getType().getNonReferenceType().isConstQualified()) references = true;
    if (vd->getType()->isPointerType() && vd->getInit()) sources[vd].push_back(vd->getInit());
    return true;
  }
  void store(const clang::Expr* lhs, const clang::Expr* whole) {
    if (isMemoryLvalue(lhs)) stores.push_back({bare(lhs), "a store"});
    auto* d = referencedDecl(lhs);
    if (d && d->getType()->isPointerType()) {
      auto* bo = llvm::dyn_cast<clang::BinaryOperator>(whole);
      if (bo && bo->getOpcode() == clang::BO_Assign) sources[d].push_back(bo->getRHS());
    }
  }
  bool VisitBinaryOperator(clang::BinaryOperator* bo) {
    if (bo->isAssignmentOp()) store(bo->getLHS(), bo);
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* uo) {
    if (uo->isIncrementDecrementOp()) store(uo->getSubExpr(), uo);
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* call) {
    for (const clang::Expr* a : call->arguments())
      if (bare(a)->getType()->isPointerType() || bare(a)->getType()->isReferenceType())
        stores.push_back({a, "a call's pointer argument (" + calleeName(call) + ")"});
    return true;
  }
  // Every variable p may be derived from (p itself included); null in the set: something unknown.
  std::set<const clang::ValueDecl*> roots(const clang::ValueDecl* p) const {
    std::set<const clang::ValueDecl*> out;
    std::function<void(const clang::ValueDecl*)> walk = [&](const clang::ValueDecl* d) {
      if (!d) {
        out.insert(nullptr);
        return;
      }
      if (!out.insert(d).second) return;
      auto it = sources.find(d);
      if (it == sources.end()) return;
      for (const clang::Expr* e : it->second) walk(pointerBase(e));
    };
    walk(p);
    return out;
  }
};

// The first character of a loop statement's text: its `#pragma` line when it has one.
std::optional<unsigned> loopTextStart(const Src& src, const Strided& st) {
  unsigned f = src.off(st.loop->getBeginLoc());
  if (!llvm::isa<clang::AttributedStmt>(st.stmt)) return f;
  if (!src.blankBefore(f)) return std::nullopt;
  unsigned line = src.lineStart(f);
  if (line == 0) return std::nullopt;
  unsigned prev = src.lineStart(line - 1);
  std::string text = src.slice(prev, line - 1);
  size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos || text.compare(first, 8, "#pragma ") != 0) return std::nullopt;
  return prev + static_cast<unsigned>(first);
}

// The statements of the row: after kl_lane at the top level, or inside the kernel's last
// `if (r < rows) { ... }`.
std::vector<std::vector<const clang::Stmt*>> rowScopes(const clang::CompoundStmt* body, const clang::VarDecl* lane) {
  std::vector<std::vector<const clang::Stmt*>> scopes(1);
  bool after = false;
  for (const clang::Stmt* s : body->body()) {
    if (after) scopes[0].push_back(s);
    auto* ds = llvm::dyn_cast<clang::DeclStmt>(s);
    if (ds && ds->isSingleDecl() && ds->getSingleDecl() == lane) after = true;
  }
  if (!scopes[0].empty())
    if (auto* is = llvm::dyn_cast<clang::IfStmt>(scopes[0].back()); is && !is->getElse())
      if (auto* cs = llvm::dyn_cast<clang::CompoundStmt>(is->getThen()))
        scopes.emplace_back(cs->body_begin(), cs->body_end());
  return scopes;
}

const clang::VarDecl* laneOf(const clang::CompoundStmt* body) {
  for (const clang::Stmt* s : body->body())
    if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(s); ds && ds->isSingleDecl())
      if (auto* vd = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()); vd && vd->getNameAsString() == "kl_lane")
        return vd;
  return nullptr;
}

// The loops of a scope that read x[c], with their scans; and the text forward writes.
struct Plan {
  const clang::ValueDecl* x = nullptr;
  std::string elem;  // T
  std::string bound;  // B's name
  std::vector<Strided> loops;
  std::vector<BodyScan> scans;
};

std::string zeroOf(const std::string& t) {
  return t.find(' ') == std::string::npos ? t + "(0)" : "static_cast<" + t + ">(0)";
}

std::string prefetchText(const Plan& p, long long k, const std::string& indent) {
  const std::string ks = std::to_string(k);
  return std::string(kComment) + " (rows of up to " + std::to_string(k * 32) + ")\n" +  //
         indent + p.elem + " kl_row[" + ks + "];\n" +                                   //
         indent + "const bool kl_in_regs = " + p.bound + " <= " + ks + " * 32;\n" +     //
         indent + "if (kl_in_regs) {\n" +                                               //
         indent + "  #pragma unroll\n" +                                                //
         indent + "  for (int kl_j = 0; kl_j < " + ks + "; ++kl_j) kl_row[kl_j] = kl_j * 32 + kl_lane < " + p.bound +
         " ? " + p.x->getNameAsString() + "[kl_j * 32 + kl_lane] : " + zeroOf(p.elem) + ";\n" +  //
         indent + "}\n" + indent;
}

// `if (kl_in_regs) { <register loop> } else ` (+ a line break before a `#pragma` line), written
// in front of the loop, which stays as it is.
std::string headText(const Src& src, const clang::ASTContext& ctx, const Strided& st, const BodyScan& scan,
                     const Plan& p, long long k, const std::string& indent) {
  const clang::Stmt* body = st.loop->getBody();
  unsigned b0 = src.off(body->getBeginLoc()), b1 = src.stmtEnd(body);
  std::string text;
  unsigned at = b0;
  for (const clang::ArraySubscriptExpr* e : scan.x_reads) {
    unsigned e0 = src.off(e->getBeginLoc()), e1 = src.off(e->getRBracketLoc()) + 1;
    text += src.slice(at, e0) + "kl_row[kl_j]";
    at = e1;
  }
  text += src.slice(at, b1);
  std::string body_text;  // the body's later lines, 4 columns deeper
  for (size_t i = 0; i < text.size(); ++i) {
    body_text += text[i];
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] != '\n') body_text += "    ";
  }
  const std::string c = st.counter->getNameAsString();
  const std::string start = sourceText(ctx, st.start->getSourceRange());
  const std::string ctype = st.counter->getType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
  const bool pragma = llvm::isa<clang::AttributedStmt>(st.stmt);
  return "if (kl_in_regs) {\n" +                                                                       //
         indent + "  #pragma unroll\n" +                                                              //
         indent + "  for (int kl_j = 0; kl_j < " + std::to_string(k) + "; ++kl_j) {\n" +              //
         indent + "    const " + ctype + " " + c + " = kl_j * 32 + kl_lane;\n" +                      //
         indent + "    if (" + c + " >= " + start + " && " + c + " < " + p.bound + ") " + body_text + "\n" +  //
         indent + "  }\n" +                                                                           //
         indent + "} else" + (pragma ? "\n" + indent : " ");
}

// Which pointer the strided loops read at their counter most often: x (ties: the first read).
// `why` says why there is none worth keeping in registers.
Plan choose(const std::vector<Strided>& strided, std::string& why) {
  Plan p;
  std::map<const clang::ValueDecl*, unsigned> loops_reading;
  std::vector<const clang::ValueDecl*> order;
  for (const Strided& st : strided) {
    CounterReads cr(st.counter);
    cr.TraverseStmt(const_cast<clang::Stmt*>(st.loop->getBody()));
    for (const clang::ValueDecl* d : cr.order) {
      if (!loops_reading.count(d)) order.push_back(d);
      ++loops_reading[d];
    }
  }
  unsigned best = 0;
  for (const clang::ValueDecl* d : order)
    if (loops_reading[d] > best) best = loops_reading[d], p.x = d;
  if (!p.x) {
    why = "no strided loop reads a pointer at its counter (p[c])";
    return p;
  }
  if (best < 2) {
    why = p.x->getNameAsString() + " is read at the counter in only one strided loop: a single pass over the row "
                                   "gains nothing from registers";
    p.x = nullptr;
    return p;
  }
  for (const Strided& st : strided) {
    BodyScan scan(st.counter, p.x);
    scan.TraverseStmt(const_cast<clang::Stmt*>(st.loop->getBody()));
    if (scan.x_reads.empty()) continue;
    p.loops.push_back(st);
    p.scans.push_back(std::move(scan));
  }
  return p;
}

class RowRegisters : public Transform {
 public:
  std::string id() const override { return "row-registers"; }
  std::string summary() const override {
    return "after warp-per-row: the row a warp reads in several strided loops is loaded once into registers "
           "(rows of up to max_cols; longer rows take the original loops)";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    const long long max_cols = intParam(req.params, "max_cols", 2048);
    if (max_cols < 32 || max_cols > 8192 || max_cols % 32 != 0)
      return TransformResult::no("max_cols (" + std::to_string(max_cols) + ") must be a multiple of 32, 32..8192");
    const long long k = max_cols / 32;
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    const clang::VarDecl* lane = body ? laneOf(body) : nullptr;
    if (!lane) return TransformResult::no("the kernel is not in warp-per-row's form (no `const int kl_lane = threadIdx.x % 32;`)");
    if (squeeze(sourceText(ctx, lane->getInit()->getSourceRange())) != "threadIdx.x%32")
      return TransformResult::no("kl_lane is not `threadIdx.x % 32` (not in warp-per-row's form)");

    // The scope holding the strided loops, and the loops.
    std::vector<const clang::Stmt*> rows;
    std::vector<Strided> strided;
    for (const auto& scope : rowScopes(body, lane)) {
      for (size_t i = 0; i < scope.size(); ++i)
        if (auto st = stridedLoop(scope[i], lane)) {
          st->index = i;
          strided.push_back(*st);
        }
      if (!strided.empty()) {
        rows = scope;
        break;
      }
    }
    if (strided.empty())
      return TransformResult::no("the kernel is not in warp-per-row's form (no top-level `for (int c = S + kl_lane; c < B; c += 32)`)");
    std::string why;
    Plan p = choose(strided, why);
    if (!p.x) return TransformResult::no(why);
    const std::string xn = p.x->getNameAsString();
    clang::QualType pointee = p.x->getType()->getPointeeType();
    if (!pointee->isArithmeticType() || pointee->isAnyComplexType())
      return TransformResult::no(xn + "'s elements are not a built-in arithmetic type");
    p.elem = pointee.getUnqualifiedType().getAsString(ctx.getPrintingPolicy());

    // Every loop that reads x[c]: its form, bound, start and body.
    bool starts_at_zero = false;
    for (size_t i = 0; i < p.loops.size(); ++i) {
      const Strided& st = p.loops[i];
      const BodyScan& scan = p.scans[i];
      if (!src.inFile(st.stmt) || !loopTextStart(src, st))
        return TransformResult::no("a strided loop reading " + xn + " is written through a macro or after an unexpected pragma");
      if (!st.bound) return TransformResult::no("a strided loop reading " + xn + " is not bounded by a name (c < B)");
      if (st.bound != p.loops[0].bound)
        return TransformResult::no("the strided loops reading " + xn + " have different bounds (" +
                                   p.loops[0].bound->getNameAsString() + ", " + st.bound->getNameAsString() + ")");
      if (!scan.why.empty()) return TransformResult::no(scan.why);
      for (const auto* e : scan.x_reads)
        if (!src.inFile(e->getBeginLoc()) || !src.inFile(e->getRBracketLoc()))
          return TransformResult::no("a read of " + xn + " is written through a macro");
      if (scan.counter_refs != scan.counter_indices)
        return TransformResult::no("a strided loop uses its counter " + st.counter->getNameAsString() +
                                   " other than as an array index");
      clang::Expr::EvalResult start;
      if (!st.start->EvaluateAsInt(start, ctx) || start.Val.getInt().isNegative())
        return TransformResult::no("a strided loop's start is not a constant >= 0");
      const long long s = start.Val.getInt().getExtValue();
      if (s == 0) starts_at_zero = true;
      if (s % 32 == 0) continue;
      // A start that is not a multiple of 32 hands element c to lane c % 32, not (c - S) % 32.
      if (scan.stores || scan.other_reads)
        return TransformResult::no("a strided loop starting at " + std::to_string(s) +
                                   " (not a multiple of 32) reads memory other than " + xn + "[c] or stores");
      Assigned combined;
      for (size_t j = st.index + 1; j < rows.size(); ++j) {
        auto* fs = llvm::dyn_cast<clang::ForStmt>(rows[j]);
        auto* ds = fs ? llvm::dyn_cast_or_null<clang::DeclStmt>(fs->getInit()) : nullptr;
        auto* v = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
        if (!v || v->getNameAsString() != "kl_offset") break;
        combined.TraverseStmt(const_cast<clang::Stmt*>(fs->getBody()));
      }
      for (const auto& [v, red] : scan.outer_updates)
        if (!red || !combined.vars.count(v))
          return TransformResult::no("a strided loop starting at " + std::to_string(s) + " (not a multiple of 32) assigns " +
                                     v->getNameAsString() + " other than as a sum or min/max combined across the warp right after it");
    }
    if (!starts_at_zero)
      return TransformResult::no("no strided loop reading " + xn + " starts at 0 (the register path would read elements the kernel does not)");
    const clang::ValueDecl* bound = p.loops[0].bound;
    if (!bound->getType()->isIntegerType()) return TransformResult::no("the bound " + bound->getNameAsString() + " is not an integer");
    p.bound = bound->getNameAsString();

    // The whole kernel: B and x never assigned; nothing stored through what x may point into.
    Assigned assigned;
    assigned.TraverseStmt(const_cast<clang::Stmt*>(static_cast<const clang::Stmt*>(body)));
    if (assigned.vars.count(bound)) return TransformResult::no("the bound " + p.bound + " is assigned in the kernel");
    if (assigned.vars.count(p.x)) return TransformResult::no(xn + " is assigned in the kernel");
    PointerFlow flow;
    flow.TraverseStmt(const_cast<clang::Stmt*>(static_cast<const clang::Stmt*>(body)));
    for (const clang::ValueDecl* d : flow.names)
      if (kOurNames.count(d->getNameAsString())) return TransformResult::no("the kernel already declares " + d->getNameAsString());
    if (flow.references) return TransformResult::no("the kernel declares a non-const reference (a store through it could reach " + xn + ")");
    std::set<const clang::ValueDecl*> xroots = flow.roots(p.x);
    if (xroots.count(nullptr)) return TransformResult::no("cannot tell which pointer " + xn + " is derived from");
    for (const auto& [e, what] : flow.stores) {
      std::set<const clang::ValueDecl*> r = flow.roots(pointerBase(e));
      bool hits = r.count(nullptr) > 0;
      for (const auto* d : r) hits |= d && xroots.count(d);
      if (hits)
        return TransformResult::no(what + " through " + (pointerBase(e) ? pointerBase(e)->getNameAsString() : "an unknown pointer") +
                                   " may write into " + xn + "'s row (`" + sourceText(ctx, e->getSourceRange()) + "`)");
    }
    // Between the first and the last loop, nothing leaves the row's code (the register path reads
    // the whole row up front).
    for (size_t j = p.loops.front().index; j <= p.loops.back().index; ++j) {
      Exits ex;
      ex.TraverseStmt(const_cast<clang::Stmt*>(rows[j]));
      if (ex.found) return TransformResult::no("the row's code may return between the loops that read " + xn);
    }

    // The edits: the row read before the first loop, each loop behind `if (kl_in_regs) ... else`.
    for (size_t i = 0; i < p.loops.size(); ++i) {
      const Strided& st = p.loops[i];
      unsigned at = *loopTextStart(src, st);
      std::string indent = src.indentOf(at);
      std::string text = headText(src, ctx, st, p.scans[i], p, k, indent);
      if (i == 0) text = prefetchText(p, k, indent) + text;
      if (req.rewriter.InsertTextAfter(src.at(at), text)) return TransformResult::no("the rewriter refused the edit");
    }
    return TransformResult::yes("the row of " + xn + " read once into " + std::to_string(k) + " registers per lane (" +
                                std::to_string(p.loops.size()) + " loops read it; rows longer than " +
                                std::to_string(max_cols) + " take them as before)");
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    Src src(ctx);
    auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(req.kernel->getBody());
    const clang::VarDecl* lane = body ? laneOf(body) : nullptr;
    if (!lane) return TransformResult::no("no kl_lane: not a kernel row-registers writes");
    // The scope with `T kl_row[K];`, then kl_in_regs, then the fill, then the loops.
    std::vector<const clang::Stmt*> rows;
    size_t at = 0;
    const clang::VarDecl* row = nullptr;
    for (const auto& scope : rowScopes(body, lane)) {
      for (size_t i = 0; i < scope.size() && !row; ++i)
        if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(scope[i]); ds && ds->isSingleDecl())
          if (auto* vd = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()); vd && vd->getNameAsString() == "kl_row")
            row = vd, at = i;
      if (row) {
        rows = scope;
        break;
      }
    }
    if (!row) return TransformResult::no("no kl_row: not a kernel row-registers writes");
    auto* arr = ctx.getAsConstantArrayType(row->getType());
    if (!arr || at + 3 >= rows.size()) return TransformResult::no("kl_row is not followed by what row-registers writes");
    const long long k = static_cast<long long>(arr->getSize().getZExtValue());
    auto* flag_ds = llvm::dyn_cast<clang::DeclStmt>(rows[at + 1]);
    auto* flag = flag_ds && flag_ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(flag_ds->getSingleDecl()) : nullptr;
    if (!flag || flag->getNameAsString() != "kl_in_regs") return TransformResult::no("no kl_in_regs after kl_row");
    // The loops: `if (kl_in_regs) {...} else <loop>`, the first right after the fill.
    std::vector<Strided> fallbacks;
    std::vector<const clang::IfStmt*> ifs;
    for (size_t i = at + 3; i < rows.size(); ++i) {
      auto* is = llvm::dyn_cast<clang::IfStmt>(rows[i]);
      if (!is || referencedDecl(is->getCond()) != flag || !is->getElse()) continue;
      auto st = stridedLoop(is->getElse(), lane);
      if (!st) return TransformResult::no("an `if (kl_in_regs)` has no strided loop as its else branch");
      st->index = i;
      fallbacks.push_back(*st);
      ifs.push_back(is);
    }
    if (ifs.empty() || fallbacks[0].index != at + 3)
      return TransformResult::no("the register loops do not follow kl_row's fill");
    std::string why;
    Plan p = choose(fallbacks, why);
    if (!p.x || p.loops.size() != fallbacks.size() || !fallbacks[0].bound)
      return TransformResult::no("the fallback loops are not what row-registers keeps" + (why.empty() ? "" : ": " + why));
    p.elem = p.x->getType()->getPointeeType().getUnqualifiedType().getAsString(ctx.getPrintingPolicy());
    p.bound = fallbacks[0].bound->getNameAsString();
    // Regenerate what forward writes from the fallbacks and compare (formatting aside).
    std::vector<std::pair<unsigned, unsigned>> cuts;
    for (size_t i = 0; i < fallbacks.size(); ++i) {
      auto start = loopTextStart(src, fallbacks[i]);
      if (!start) return TransformResult::no("a fallback loop is written oddly");
      unsigned from = src.off(ifs[i]->getBeginLoc());
      std::string expected = headText(src, ctx, fallbacks[i], p.scans[i], p, k, src.indentOf(from));
      if (i == 0) {
        unsigned decl = src.off(rows[at]->getBeginLoc());
        from = decl;
        unsigned line = src.lineStart(decl);
        if (line > 0) {
          unsigned prev = src.lineStart(line - 1);
          std::string text = src.slice(prev, line - 1);
          size_t first = text.find_first_not_of(" \t");
          if (first != std::string::npos && text.compare(first, std::string(kComment).size(), kComment) == 0)
            from = prev + static_cast<unsigned>(first);
        }
        std::string pre = prefetchText(p, k, "");
        if (from == decl) pre = pre.substr(pre.find('\n') + 1);  // without its comment line
        expected = pre + expected;
      }
      if (squeeze(src.slice(from, *start)) != squeeze(expected))
        return TransformResult::no("the register path is not what row-registers writes for its fallback loop");
      cuts.push_back({from, *start});
    }
    for (const auto& [a, b] : cuts)
      if (req.rewriter.RemoveText(src.at(a), b - a)) return TransformResult::no("the rewriter refused the edit");
    return TransformResult::yes("the row read from global memory in each loop again (" + std::to_string(cuts.size()) +
                                " loops)");
  }
};

}  // namespace
std::unique_ptr<Transform> makeRowRegisters() { return std::make_unique<RowRegisters>(); }
}  // namespace klineage
