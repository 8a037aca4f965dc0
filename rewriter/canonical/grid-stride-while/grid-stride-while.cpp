// grid-stride-while: a grid-stride loop written as a while loop becomes the `for` form that
// grid-stride-loop writes and every transform matches.
//   long i = threadIdx.x + (long)blockIdx.x * blockDim.x;
//   long offset = (long)blockDim.x * gridDim.x;       ->   for (long i = threadIdx.x + (long)blockIdx.x * blockDim.x;
//   while (i < size) {                                          i < size; i += (long)blockDim.x * gridDim.x) {
//     atomicAdd(&histo[buffer[i]], 1);                        atomicAdd(&histo[buffer[i]], 1);
//     i += offset;                                          }
//   }
// Why: the while spelling is how textbooks write the grid-stride loop (and the dot product's
// accumulation); without this pass every transform that starts from a grid-stride loop would need a
// second matcher for it.
// When it is sound: the index is declared with the global thread index in the same block as the
// loop and read nowhere but in the loop; the loop's last statement is its only change of the index,
// `i += S` (or `i = i + S`) with S the grid stride or a local initialized to it that nothing
// changes; the body has no `continue` of this loop (a `for` would run the increment a while loop
// skips). A stride local nothing else reads is removed with the increment.
// Refuses: no such loop; the index read before or after the loop, or changed inside it; a
// `continue`; a stride that is not blockDim.x * gridDim.x; code written through a macro.
#include <memory>

#include <clang/AST/RecursiveASTVisitor.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/cuda_matchers.h"
#include "rewriter/source_buffer.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

// A `continue` that belongs to the loop whose body is visited (not to a loop nested in it).
struct OwnContinue : clang::RecursiveASTVisitor<OwnContinue> {
  bool found = false;
  bool TraverseForStmt(clang::ForStmt*) { return true; }
  bool TraverseWhileStmt(clang::WhileStmt*) { return true; }
  bool TraverseDoStmt(clang::DoStmt*) { return true; }
  bool TraverseCXXForRangeStmt(clang::CXXForRangeStmt*) { return true; }
  bool VisitContinueStmt(clang::ContinueStmt*) { return !(found = true); }
};

// Any write of `v` under s: an assignment, compound assignment, ++/--, or its address taken.
bool writes(clang::ASTContext& ctx, const clang::Stmt* s, const clang::VarDecl* v) { return !onlyReads(ctx, s, v); }

// `i += S` or `i = i + S` (S on either side): S, else null.
const clang::Expr* increment(const clang::Stmt* s, const clang::VarDecl* i) {
  auto* e = llvm::dyn_cast_or_null<clang::Expr>(s);
  if (!e) return nullptr;
  auto* bo = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParens());
  if (!bo || referencedDecl(bo->getLHS()) != i) return nullptr;
  if (bo->getOpcode() == clang::BO_AddAssign) return bo->getRHS();
  if (bo->getOpcode() != clang::BO_Assign) return nullptr;
  auto* add = llvm::dyn_cast<clang::BinaryOperator>(bo->getRHS()->IgnoreParenImpCasts());
  if (!add || add->getOpcode() != clang::BO_Add) return nullptr;
  if (referencedDecl(add->getLHS()) == i) return add->getRHS();
  if (referencedDecl(add->getRHS()) == i) return add->getLHS();
  return nullptr;
}

class GridStrideWhile : public Transform {
 public:
  std::string id() const override { return "grid-stride-while"; }
  std::string summary() const override {
    return "a grid-stride while loop (index declared before it, incremented last) -> the grid-stride for loop";
  }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    SourceBuffer src(ctx);
    const clang::Stmt* fbody = req.kernel->getBody();
    if (!fbody) return TransformResult::no("the kernel has no body");
    std::string last_why = "no `while (i < n) { ...; i += <grid stride>; }` after `T i = <global thread index>;`";
    for (const clang::CompoundStmt* block :
         findAllIn<clang::CompoundStmt>(ctx, fbody, clang::ast_matchers::compoundStmt().bind("b"), "b")) {
      for (auto it = block->body_begin(); it != block->body_end(); ++it) {
        auto* loop = llvm::dyn_cast<clang::WhileStmt>(*it);
        if (!loop) continue;
        std::string why;
        if (rewrite(req, src, fbody, block, it, loop, why)) return TransformResult::yes(why);
        last_why = why;
      }
    }
    return TransformResult::no(last_why);
  }

  TransformResult inverse(TransformRequest&) const override {
    return TransformResult::no("a canonicalization pass has no inverse");
  }

 private:
  bool rewrite(TransformRequest& req, const SourceBuffer& src, const clang::Stmt* fbody, const clang::CompoundStmt* block,
               clang::CompoundStmt::const_body_iterator at, const clang::WhileStmt* loop, std::string& why) const {
    auto& ctx = req.ctx;
    if (loop->getConditionVariable()) return why = "the while loop declares a variable in its condition", false;
    auto* cond = llvm::dyn_cast<clang::BinaryOperator>(loop->getCond()->IgnoreParenImpCasts());
    if (!cond || !(cond->getOpcode() == clang::BO_LT || cond->getOpcode() == clang::BO_GT))
      return why = "the while condition is not `i < n`", false;
    auto* index = llvm::dyn_cast_or_null<clang::VarDecl>(
        referencedDecl(cond->getOpcode() == clang::BO_LT ? cond->getLHS() : cond->getRHS()));
    if (!index || !index->isLocalVarDecl() || !index->getType()->isIntegerType() || !index->getInit() ||
        !isGlobalThreadIndex(ctx, index->getInit()))
      return why = "the while condition's index is not a local initialized to the global thread index", false;
    // The index's declaration: its own statement in the same block, before the loop.
    const clang::DeclStmt* decl = nullptr;
    for (auto it = block->body_begin(); it != at; ++it)
      if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(*it); ds && ds->isSingleDecl() && ds->getSingleDecl() == index)
        decl = ds;
    if (!decl) return why = "the index " + index->getNameAsString() + " is not declared on its own before the loop, in its block", false;
    for (auto it = block->body_begin(); it != block->body_end(); ++it) {
      if (*it == decl || *it == loop) continue;
      if (usesDecl(*it, index))
        return why = "the index " + index->getNameAsString() + " is read outside the loop", false;
    }
    auto* body = llvm::dyn_cast<clang::CompoundStmt>(loop->getBody());
    if (!body || body->size() < 2) return why = "the loop body is not a block ending in the index's increment", false;
    const clang::Stmt* inc = body->body_back();
    const clang::Expr* step = increment(inc, index);
    if (!step) return why = "the loop's last statement is not `" + index->getNameAsString() + " += <stride>`", false;
    for (auto it = body->body_begin(); it + 1 != body->body_end(); ++it)
      if (writes(ctx, *it, index)) return why = "the loop changes " + index->getNameAsString() + " before its last statement", false;
    OwnContinue oc;
    oc.TraverseStmt(const_cast<clang::CompoundStmt*>(body));
    if (oc.found) return why = "the loop has a `continue` (a for loop would run the increment it skips)", false;
    // The stride: the grid stride itself, or a local initialized to it that nothing changes.
    const clang::VarDecl* stride_var = nullptr;
    std::string stride;
    if (isGridStride(ctx, step)) {
      stride = sourceText(ctx, step->getSourceRange());
    } else {
      stride_var = llvm::dyn_cast_or_null<clang::VarDecl>(referencedDecl(step));
      if (!stride_var || !stride_var->isLocalVarDecl() || !stride_var->getInit() ||
          !isGridStride(ctx, stride_var->getInit()) || writes(ctx, fbody, stride_var))
        return why = "the increment's stride is not blockDim.x * gridDim.x or a local set to it once", false;
      stride = sourceText(ctx, stride_var->getInit()->getSourceRange());
    }
    for (const clang::Stmt* s : {static_cast<const clang::Stmt*>(decl), static_cast<const clang::Stmt*>(loop)})
      if (!src.inFile(s)) return why = "the loop or the index's declaration is written through a macro", false;
    // The stride local goes when the increment was its only reader and its declaration stands alone.
    const clang::DeclStmt* stride_decl = nullptr;
    if (stride_var && refsTo(fbody, stride_var).size() == 1)
      for (const clang::Stmt* s : block->body())
        if (auto* ds = llvm::dyn_cast<clang::DeclStmt>(s); ds && ds->isSingleDecl() && ds->getSingleDecl() == stride_var &&
                                                            src.inFile(ds))
          stride_decl = ds;

    auto& rw = req.rewriter;
    auto removeLine = [&](const clang::Stmt* s) {
      unsigned a = src.off(s->getBeginLoc());
      if (src.blankBefore(a)) a = src.lineStart(a);
      unsigned e = src.stmtEnd(s);
      size_t eol = src.restOfLineBlank(e);
      rw.RemoveText(src.at(a), (eol == std::string::npos ? e : static_cast<unsigned>(eol)) - a);
    };
    std::string decl_text = src.slice(src.off(decl->getBeginLoc()), src.stmtEnd(decl));
    while (!decl_text.empty() && (decl_text.back() == ';' || decl_text.back() == ' ')) decl_text.pop_back();
    const std::string cond_text = sourceText(ctx, loop->getCond()->getSourceRange());
    const std::string name = index->getNameAsString();
    // "while (c)" -> "for (<decl>; c; i += <stride>)"
    const unsigned w0 = src.off(loop->getBeginLoc()), w1 = src.off(loop->getRParenLoc()) + 1;
    rw.ReplaceText(src.at(w0), w1 - w0, "for (" + decl_text + "; " + cond_text + "; " + name + " += " + stride + ")");
    removeLine(inc);
    removeLine(decl);
    if (stride_decl) removeLine(stride_decl);
    why = "the while loop over " + name + " is a grid-stride for loop" +
          (stride_decl ? " (the stride local " + stride_var->getNameAsString() + " folded in)" : "");
    return true;
  }
};

}  // namespace
std::unique_ptr<Transform> makeGridStrideWhile() { return std::make_unique<GridStrideWhile>(); }
}  // namespace klineage
