// warp-reduce-shuffle: a warp's reduction through shared memory  ->  through register shuffles.
//   v = kl_warp_tree_sum(v);   ->   for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2)
//                                       v += __shfl_xor_sync(0xffffffffu, v, kl_offset);
//   v = kl_warp_tree_fmaxf(v); ->   for (...) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, kl_offset));
// (the butterfly as warp-per-row and row-registers write it, so their experts' reductions
// de-shuffle and come back)
// Why it can pay: a butterfly of five shuffles leaves every lane with the warp's result without
// touching shared memory or a barrier; the shared-memory tree takes five rounds of stores, loads
// and __syncwarp() plus 4 KB of shared memory a block.
// When it is sound: the two give every lane the combination of the warp's 32 values (sums in
// another order: floating-point results may round differently, the gate's tolerance decides), and
// both need the whole warp present (a full mask; a block of whole warps).
// Inverse (the de-shuffle): an expert's butterfly, `for (o = 16; o > 0; o >>= 1 or o /= 2)
// v += / v = op(v, __shfl_xor_sync(FULL, v, o))` with op fmaxf, fminf, max, min, fmax or fmin, or a
// cooperative-groups `cg::reduce(tile32, v, cg::plus<T>() / cg::greater<T>() / cg::less<T>())`,
// becomes a call of a kl_warp_tree_<op> template helper (added before the first function that
// needs it) that combines the warp's values in a shared-memory tree; in the kernel and in the
// __device__ helpers of its file it calls.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

const char* kPrefix = "kl_warp_tree_";

// The helper a reduction with `op` calls ("sum", or the function that combines two values).
std::string helperText(const std::string& op) {
  const std::string combine =
      op == "sum" ? "kl_red[kl_t] + kl_red[kl_t + kl_o]" : op + "(kl_red[kl_t], kl_red[kl_t + kl_o])";
  return "// The warp's 32 values combined through shared memory (KLineage's de-shuffled form of a\n"
         "// warp reduction: every lane gets the result).\n"
         "template <typename T>\n"
         "__device__ __forceinline__ T " + std::string(kPrefix) + op + "(T v) {\n"
         "  __shared__ T kl_red[1024];\n"
         "  const unsigned kl_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
         "  const unsigned kl_lane = kl_t % 32u;\n"
         "  kl_red[kl_t] = v;\n"
         "  __syncwarp();\n"
         "  for (unsigned kl_o = 16; kl_o > 0; kl_o >>= 1) {\n"
         "    if (kl_lane < kl_o) kl_red[kl_t] = " + combine + ";\n"
         "    __syncwarp();\n"
         "  }\n"
         "  v = kl_red[kl_t - kl_lane];\n"
         "  __syncwarp();\n"
         "  return v;\n"
         "}\n\n";
}

const std::set<std::string>& combineFunctions() {
  static const std::set<std::string> f{"fmaxf", "fminf", "max", "min", "fmax", "fmin"};
  return f;
}

// The kernel and the __device__ functions of its file it calls directly (their definitions).
std::vector<const clang::FunctionDecl*> scope(const clang::FunctionDecl* kernel, const SourceBuffer& src) {
  struct Calls : clang::RecursiveASTVisitor<Calls> {
    std::vector<const clang::FunctionDecl*> callees;
    bool VisitCallExpr(clang::CallExpr* c) {
      if (const clang::FunctionDecl* f = c->getDirectCallee()) callees.push_back(f);
      return true;
    }
  } calls;
  calls.TraverseStmt(kernel->getBody());
  std::vector<const clang::FunctionDecl*> out{kernel};
  for (const clang::FunctionDecl* f : calls.callees) {
    if (const clang::FunctionDecl* pattern = f->getTemplateInstantiationPattern()) f = pattern;
    const clang::FunctionDecl* def = nullptr;
    if (!f->hasBody(def) || !def || !def->hasAttr<clang::CUDADeviceAttr>() || def->hasAttr<clang::CUDAGlobalAttr>()) continue;
    if (!src.inFile(def->getLocation()) || def->getName().startswith(kPrefix)) continue;
    if (std::find(out.begin(), out.end(), def) == out.end()) out.push_back(def);
  }
  return out;
}

// Where a function's text starts: its template header, when it has one.
unsigned startOf(const SourceBuffer& src, const clang::FunctionDecl* f) {
  // (`__global__` and `__device__` are macros: where they are written, not where they expand to)
  const clang::SourceLocation b = f->getDescribedFunctionTemplate() ? f->getDescribedFunctionTemplate()->getBeginLoc()
                                                                      : f->getBeginLoc();
  return src.lineStart(src.off(src.sm.getExpansionLoc(b)));
}

bool refersTo(const clang::Expr* e, const clang::ValueDecl* v) {
  const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  return r && r->getDecl() == v;
}

std::optional<long long> intValue(clang::ASTContext& ctx, const clang::Expr* e) {
  const clang::Expr* x = e->IgnoreParenImpCasts();
  clang::Expr::EvalResult r;
  if (x->isValueDependent() || !x->EvaluateAsInt(r, ctx)) return std::nullopt;
  return r.Val.getInt().getExtValue();
}

// The name a call's callee is written with (a template's unresolved call too).
std::string calleeName(const clang::CallExpr* c) {
  if (const clang::FunctionDecl* f = c->getDirectCallee()) return f->getNameAsString();
  if (const auto* u = llvm::dyn_cast<clang::UnresolvedLookupExpr>(c->getCallee()->IgnoreParenImpCasts()))
    return u->getName().getAsString();
  return "";
}

// __shfl_xor_sync(FULL, v, o) (a fourth argument only as 32).
bool isButterflyShuffle(clang::ASTContext& ctx, const clang::Expr* e, const clang::ValueDecl* v, const clang::ValueDecl* o) {
  const auto* c = llvm::dyn_cast<clang::CallExpr>(e->IgnoreParenImpCasts());
  if (!c || calleeName(c) != "__shfl_xor_sync" || c->getNumArgs() < 3 || c->getNumArgs() > 4) return false;
  const auto mask = intValue(ctx, c->getArg(0));
  if (!mask || (static_cast<unsigned long long>(*mask) & 0xffffffffull) != 0xffffffffull) return false;
  if (c->getNumArgs() == 4 && intValue(ctx, c->getArg(3)) != 32) return false;
  return refersTo(c->getArg(1), v) && refersTo(c->getArg(2), o);
}

// `for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);` and its spellings: the
// reduced variable and the helper's op, or {nullptr, ""}.
std::pair<const clang::ValueDecl*, std::string> butterfly(clang::ASTContext& ctx, const clang::ForStmt* f) {
  const auto* ds = llvm::dyn_cast_or_null<clang::DeclStmt>(f->getInit());
  const auto* o = ds && ds->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
  if (!o || !o->getType()->isIntegerType() || !o->getInit() || intValue(ctx, o->getInit()) != 16) return {};
  const auto* cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(f->getCond());
  if (!cond || !refersTo(cond->getLHS(), o)) return {};
  const auto bound = intValue(ctx, cond->getRHS());
  if (!bound || !((cond->getOpcode() == clang::BO_GT && *bound == 0) || (cond->getOpcode() == clang::BO_GE && *bound == 1) ||
                  (cond->getOpcode() == clang::BO_NE && *bound == 0)))
    return {};
  const auto* inc = llvm::dyn_cast_or_null<clang::BinaryOperator>(f->getInc());
  if (!inc || !refersTo(inc->getLHS(), o)) return {};
  bool halves = false;
  if (inc->getOpcode() == clang::BO_ShrAssign) halves = intValue(ctx, inc->getRHS()) == 1;
  else if (inc->getOpcode() == clang::BO_DivAssign) halves = intValue(ctx, inc->getRHS()) == 2;
  else if (inc->getOpcode() == clang::BO_Assign)
    if (const auto* h = llvm::dyn_cast<clang::BinaryOperator>(inc->getRHS()->IgnoreParenImpCasts()); h && refersTo(h->getLHS(), o))
      halves = (h->getOpcode() == clang::BO_Shr && intValue(ctx, h->getRHS()) == 1) ||
               (h->getOpcode() == clang::BO_Div && intValue(ctx, h->getRHS()) == 2);
  if (!halves) return {};
  const clang::Stmt* body = f->getBody();
  if (const auto* cs = llvm::dyn_cast<clang::CompoundStmt>(body)) body = cs->size() == 1 ? cs->body_front() : nullptr;
  const auto* b = llvm::dyn_cast_or_null<clang::BinaryOperator>(body);
  const auto* lhs = b ? llvm::dyn_cast<clang::DeclRefExpr>(b->getLHS()->IgnoreParens()) : nullptr;
  if (!lhs) return {};
  const clang::ValueDecl* v = lhs->getDecl();
  if (!v->getType()->isArithmeticType()) return {};
  if (b->getOpcode() == clang::BO_AddAssign) return isButterflyShuffle(ctx, b->getRHS(), v, o) ? std::pair{v, std::string("sum")} : std::pair<const clang::ValueDecl*, std::string>{};
  if (b->getOpcode() != clang::BO_Assign) return {};
  const clang::Expr* rhs = b->getRHS()->IgnoreParenImpCasts();
  auto pairOf = [&](const clang::Expr* a, const clang::Expr* c) {
    return (refersTo(a, v) && isButterflyShuffle(ctx, c, v, o)) || (refersTo(c, v) && isButterflyShuffle(ctx, a, v, o));
  };
  if (const auto* add = llvm::dyn_cast<clang::BinaryOperator>(rhs); add && add->getOpcode() == clang::BO_Add)
    return pairOf(add->getLHS(), add->getRHS()) ? std::pair{v, std::string("sum")} : std::pair<const clang::ValueDecl*, std::string>{};
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(rhs); call && call->getNumArgs() == 2) {
    const std::string fn = calleeName(call);
    if (combineFunctions().count(fn) && pairOf(call->getArg(0), call->getArg(1))) return {v, fn};
  }
  return {};
}

// cg::reduce(tile, v, cg::plus<T>() / cg::greater<T>() / cg::less<T>()) over a 32-thread tile: the
// helper's op, or "".
std::string cgReduceOp(const clang::CallExpr* c) {
  if (c->getNumArgs() != 3 || calleeName(c) != "reduce") return "";
  const clang::FunctionDecl* f = c->getDirectCallee();
  if (f && f->getQualifiedNameAsString().find("cooperative_groups") == std::string::npos) return "";
  const std::string tile = c->getArg(0)->IgnoreParenImpCasts()->getType().getCanonicalType().getAsString();
  if (tile.find("thread_block_tile<32") == std::string::npos) return "";
  const std::string op = c->getArg(2)->IgnoreParenImpCasts()->getType().getCanonicalType().getAsString();
  if (op.find("cooperative_groups") == std::string::npos) return "";
  if (op.find("::plus<") != std::string::npos) return "sum";
  if (op.find("::greater<") != std::string::npos) return "max";
  if (op.find("::less<") != std::string::npos) return "min";
  return "";
}

struct Finder : clang::RecursiveASTVisitor<Finder> {
  std::vector<const clang::ForStmt*> loops;
  std::vector<const clang::CallExpr*> calls;
  bool VisitForStmt(clang::ForStmt* f) {
    loops.push_back(f);
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* c) {
    calls.push_back(c);
    return true;
  }
};

class WarpReduceShuffle : public Transform {
 public:
  std::string id() const override { return "warp-reduce-shuffle"; }
  std::string summary() const override { return "reduce a warp's values with register shuffles instead of shared memory"; }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    if (!req.kernel->hasBody()) return TransformResult::no("the kernel has no body");
    std::map<std::string, unsigned> replaced;  // helper -> calls replaced
    std::string what;
    for (const clang::FunctionDecl* fn : scope(req.kernel, src)) {
      Finder f;
      f.TraverseStmt(fn->getBody());
      for (const clang::CallExpr* c : f.calls) {
        const std::string name = calleeName(c);
        if (name.rfind(kPrefix, 0) != 0 || c->getNumArgs() != 1) continue;
        const std::string op = name.substr(std::string(kPrefix).size());
        if (op != "sum" && !combineFunctions().count(op)) continue;
        // v = kl_warp_tree_<op>(v); as a statement
        const clang::Stmt* parent = parentStmtOf(ctx, *c);
        while (parent && llvm::isa<clang::ImplicitCastExpr, clang::ParenExpr>(parent)) parent = parentStmtOf(ctx, *parent);
        const auto* assign = llvm::dyn_cast_or_null<clang::BinaryOperator>(parent);
        const auto* lhs = assign && assign->getOpcode() == clang::BO_Assign
                              ? llvm::dyn_cast<clang::DeclRefExpr>(assign->getLHS()->IgnoreParens())
                              : nullptr;
        if (!lhs || !refersTo(c->getArg(0), lhs->getDecl()) || !src.inFile(assign)) continue;
        const clang::Stmt* stmt_parent = parentStmtOf(ctx, *assign);
        if (!stmt_parent || llvm::isa<clang::Expr>(stmt_parent)) continue;
        const std::string v = lhs->getDecl()->getNameAsString();
        const std::string shfl = "__shfl_xor_sync(0xffffffffu, " + v + ", kl_offset)";
        const std::string body = op == "sum" ? v + " += " + shfl : v + " = " + op + "(" + v + ", " + shfl + ")";
        const unsigned b = src.off(assign->getBeginLoc()), e = src.stmtEnd(assign);
        req.rewriter.ReplaceText(src.at(b), e - b, "for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) " + body + ";");
        ++replaced[name];
        what += (what.empty() ? "" : ", ") + v + " (" + op + ")";
      }
    }
    if (what.empty()) return TransformResult::no("no warp reduction through shared memory (v = kl_warp_tree_<op>(v);) in the kernel or its helpers");
    // The helper goes when no call of it is left (only the text inverse writes is removed).
    Finder all;
    all.TraverseDecl(ctx.getTranslationUnitDecl());
    for (const auto& [name, n] : replaced) {
      unsigned calls = 0;
      for (const clang::CallExpr* c : all.calls) calls += calleeName(c) == name ? 1 : 0;
      const std::string text = helperText(name.substr(std::string(kPrefix).size()));
      const size_t at = src.text.find(text);
      if (calls == n && at != llvm::StringRef::npos) req.rewriter.RemoveText(src.at(static_cast<unsigned>(at)), text.size());
    }
    return TransformResult::yes("warp shuffles reduce " + what);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    if (!req.kernel->hasBody()) return TransformResult::no("the kernel has no body");
    std::map<std::string, unsigned> first_use;  // op -> where its helper goes: before the first function using it
    auto need = [&](const std::string& op, const clang::FunctionDecl* fn) {
      const unsigned at = startOf(src, fn);
      auto [it, fresh] = first_use.emplace(op, at);
      if (!fresh) it->second = std::min(it->second, at);
    };
    std::string what;
    for (const clang::FunctionDecl* fn : scope(req.kernel, src)) {
      Finder f;
      f.TraverseStmt(fn->getBody());
      for (const clang::ForStmt* loop : f.loops) {
        const auto [v, op] = butterfly(ctx, loop);
        if (!v || !src.inFile(loop)) continue;
        unsigned b = src.off(loop->getBeginLoc());
        std::string call = v->getNameAsString() + " = " + kPrefix + op + "(" + v->getNameAsString() + ");";
        // a `#pragma unroll` line of the loop goes with it
        const unsigned line = src.lineStart(b);
        if (line > 0) {
          const unsigned prev = src.lineStart(line - 1);
          if (squeeze(src.slice(prev, line)).rfind("#pragmaunroll", 0) == 0) {
            call = src.indentOf(b) + call;
            b = prev;
          }
        }
        req.rewriter.ReplaceText(src.at(b), src.stmtEnd(loop) - b, call);
        need(op, fn);
        what += (what.empty() ? "" : ", ") + v->getNameAsString() + " (" + op + ")";
      }
      for (const clang::CallExpr* c : f.calls) {
        const std::string op = cgReduceOp(c);
        if (op.empty() || !src.inFile(c)) continue;
        const clang::Expr* value = c->getArg(1);
        const unsigned b = src.off(c->getBeginLoc()), vb = src.off(value->getBeginLoc());
        const unsigned ve = src.tokEnd(value->getEndLoc()), e = src.off(c->getRParenLoc()) + 1;
        req.rewriter.ReplaceText(src.at(ve), e - ve, ")");
        req.rewriter.ReplaceText(src.at(b), vb - b, std::string(kPrefix) + op + "(");
        need(op, fn);
        what += (what.empty() ? "" : ", ") + src.slice(vb, ve) + " (cg::reduce, " + op + ")";
      }
    }
    if (what.empty())
      return TransformResult::no("no warp reduction by __shfl_xor_sync butterfly (offsets 16 to 1, full mask) or cg::reduce over a 32-thread tile");
    for (const auto& [op, at] : first_use)
      if (src.text.find(helperText(op)) == llvm::StringRef::npos) req.rewriter.InsertTextAfter(src.at(at), helperText(op));
    return TransformResult::yes("shared-memory warp tree instead of shuffles: " + what);
  }
};

}  // namespace
std::unique_ptr<Transform> makeWarpReduceShuffle() { return std::make_unique<WarpReduceShuffle>(); }
}  // namespace klineage
