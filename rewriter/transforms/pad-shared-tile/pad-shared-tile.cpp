// pad-shared-tile: __shared__ T tile[A][B]  ->  __shared__ T tile[A][B + 1] for a 2-D shared tile
// a warp reads or writes by column.
// Why it can pay: with B a multiple of 32 four-byte words (16 eight-byte ones), the elements of one
// column sit in one shared-memory bank, so a warp whose lanes walk down a column (the lane index in
// the row subscript: a transpose's read of tile[threadIdx.x][...]) is served one lane at a time, a
// 32-way conflict. One word of padding per row shifts each row by one bank.
// When it is sound: the tile is only ever used as tile[i][j] (no pointer to it, no flat indexing
// across rows), so within-bounds accesses name the same elements; the layout is private to the
// kernel. The launch does not change.
// Inverse: __shared__ T tile[A][X + 1] -> tile[A][X] for such a tile whose X is a multiple of 32
// words and which a warp accesses by column: an expert's padding taken away.
#include <algorithm>
#include <set>

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/TypeLoc.h>
#include <clang/Lex/Lexer.h>

#include "features/cuda_matchers.h"
#include "rewriter/ast_util.h"
#include "rewriter/transform.h"

namespace klineage {
namespace {

struct Uses : clang::RecursiveASTVisitor<Uses> {
  std::vector<const clang::VarDecl*> shared;                                 // 2-D __shared__ arrays
  std::vector<const clang::ArraySubscriptExpr*> subscripts;                  // every a[...]
  std::vector<const clang::DeclRefExpr*> refs;
  std::vector<const clang::VarDecl*> locals;
  bool VisitVarDecl(clang::VarDecl* v) {
    if (v->hasAttr<clang::CUDASharedAttr>()) shared.push_back(v);
    else if (!llvm::isa<clang::ParmVarDecl>(v) && v->getInit()) locals.push_back(v);
    return true;
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr* e) {
    subscripts.push_back(e);
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    refs.push_back(e);
    return true;
  }
};

// Whether e mentions threadIdx.x or a local made from it (`int tx = threadIdx.x;`): a value that
// differs between the lanes of a warp.
bool laneVarying(const clang::Stmt* e, const std::set<const clang::VarDecl*>& lanes) {
  if (!e) return false;
  if (const auto* x = llvm::dyn_cast<clang::Expr>(e)) {
    if (cuda::isBuiltinMember(x, "threadIdx", "x")) return true;
    if (const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(x->IgnoreParenImpCasts()))
      if (const auto* v = llvm::dyn_cast<clang::VarDecl>(r->getDecl()); v && lanes.count(v)) return true;
  }
  for (const clang::Stmt* c : e->children())
    if (laneVarying(c, lanes)) return true;
  return false;
}

// The element sizes of a tile: its own, or for an element type that depends on a template
// parameter (`__shared__ T t[32][33]`) the same tile's in every instantiation of the kernel (0 for
// an element that is not a scalar); empty when there is none.
std::vector<unsigned> elementBytes(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, const clang::VarDecl* v,
                                   clang::QualType elem) {
  auto size = [&](clang::QualType t) {
    return t->isScalarType() ? static_cast<unsigned>(ctx.getTypeSizeInChars(t).getQuantity()) : 0u;
  };
  if (!elem->isDependentType()) return {size(elem)};
  std::vector<unsigned> out;
  const clang::FunctionTemplateDecl* tpl = kernel->getDescribedFunctionTemplate();
  if (!tpl) return out;
  for (const clang::FunctionDecl* spec : tpl->specializations()) {
    if (!spec->hasBody()) continue;
    Uses u;
    u.TraverseStmt(spec->getBody());
    for (const clang::VarDecl* sv : u.shared) {
      if (sv->getName() != v->getName()) continue;
      const clang::ArrayType* a = ctx.getAsArrayType(sv->getType());
      const clang::ArrayType* b = a ? ctx.getAsArrayType(a->getElementType()) : nullptr;
      if (b && !b->getElementType()->isDependentType()) out.push_back(size(b->getElementType()));
    }
  }
  return out;
}

struct Tile {
  const clang::VarDecl* var;
  const clang::Expr* row_size;  // B as written
  unsigned long long row_len;   // B's value
  unsigned elem_bytes;
};

// The 2-D shared tiles of the kernel that are only used as tile[i][j] and that some warp accesses by
// column (the lane index in the row subscript only); `why` gathers what disqualified the others.
std::vector<Tile> columnTiles(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, std::string& why) {
  Uses u;
  u.TraverseStmt(kernel->getBody());
  std::set<const clang::VarDecl*> lanes;
  for (bool grew = true; grew;) {  // locals made from threadIdx.x, or from such locals
    grew = false;
    for (const clang::VarDecl* v : u.locals)
      if (!lanes.count(v) && v->getType()->isIntegerType() && laneVarying(v->getInit(), lanes)) grew = lanes.insert(v).second;
  }
  std::vector<Tile> out;
  for (const clang::VarDecl* v : u.shared) {
    const auto* outer = ctx.getAsConstantArrayType(v->getType());
    const auto* inner = outer ? ctx.getAsConstantArrayType(outer->getElementType()) : nullptr;
    if (!inner || inner->getElementType()->isArrayType()) continue;  // 1-D, 3-D, extern or template-sized
    const std::string name = v->getNameAsString();
    const std::vector<unsigned> sizes = elementBytes(ctx, kernel, v, inner->getElementType());
    if (sizes.empty()) {
      why += name + "'s element type depends on a template parameter the file never instantiates; ";
      continue;
    }
    unsigned bytes = 0;
    for (unsigned b : sizes)
      if (b != 4 && b != 8) bytes = b;
    if (bytes) {
      why += name + ": elements of " + std::to_string(bytes) + " bytes (only 4- and 8-byte scalars are padded); ";
      continue;
    }
    bytes = sizes[0];
    for (unsigned b : sizes) bytes = std::min(bytes, b);  // the smaller element needs the longer row to conflict
    clang::TypeLoc tl = v->getTypeSourceInfo()->getTypeLoc().getUnqualifiedLoc();
    auto outer_loc = tl.getAs<clang::ConstantArrayTypeLoc>();
    auto inner_loc = outer_loc ? outer_loc.getElementLoc().getUnqualifiedLoc().getAs<clang::ConstantArrayTypeLoc>()
                               : clang::ConstantArrayTypeLoc();
    if (!inner_loc || !inner_loc.getSizeExpr()) continue;
    // Every use is tile[i][j]: the outer subscript's base is the inner one, whose base is the tile.
    unsigned as_2d = 0, uses = 0;
    bool column = false;
    for (const auto* r : u.refs) uses += r->getDecl() == v ? 1 : 0;
    for (const auto* e : u.subscripts) {
      const auto* in = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->getBase()->IgnoreParenImpCasts());
      const auto* ref = in ? llvm::dyn_cast<clang::DeclRefExpr>(in->getBase()->IgnoreParenImpCasts()) : nullptr;
      if (!ref || ref->getDecl() != v) continue;
      const clang::Stmt* parent = parentStmtOf(ctx, *e);
      while (const auto* pe = llvm::dyn_cast_or_null<clang::ParenExpr>(parent)) parent = parentStmtOf(ctx, *pe);
      if (const auto* op = llvm::dyn_cast_or_null<clang::UnaryOperator>(parent); op && op->getOpcode() == clang::UO_AddrOf)
        continue;  // &tile[i][j]: a pointer that may walk across rows
      ++as_2d;
      if (laneVarying(in->getIdx(), lanes) && !laneVarying(e->getIdx(), lanes)) column = true;
    }
    if (as_2d != uses) {
      why += name + " is used other than as " + name + "[i][j] (a pointer to it, or one subscript); ";
      continue;
    }
    if (!column) {
      why += "no warp accesses " + name + " by column (threadIdx.x in the row subscript only); ";
      continue;
    }
    out.push_back({v, inner_loc.getSizeExpr(), inner->getSize().getZExtValue(), bytes});
  }
  if (u.shared.empty()) why += "the kernel declares no __shared__ array; ";
  return out;
}

// The words of one row: conflicts come from rows a multiple of 32 banks (4-byte words) long.
bool conflicting(unsigned long long row_len, unsigned bytes) { return (row_len * bytes) % 128 == 0; }

std::string trimmed(std::string why) {
  while (!why.empty() && (why.back() == ' ' || why.back() == ';')) why.pop_back();
  return why.empty() ? "no 2-D __shared__ tile" : why;
}

class PadSharedTile : public Transform {
 public:
  std::string id() const override { return "pad-shared-tile"; }
  std::string summary() const override { return "pad a 2-D shared tile read by column with one word per row"; }

  TransformResult forward(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    const auto& sm = ctx.getSourceManager();
    if (!req.kernel->hasBody()) return TransformResult::no("the kernel has no body");
    std::string why;
    std::string what;
    for (const Tile& t : columnTiles(ctx, req.kernel, why)) {
      const std::string name = t.var->getNameAsString();
      if (!conflicting(t.row_len, t.elem_bytes)) {
        why += name + "'s rows are " + std::to_string(t.row_len) + " elements (not a multiple of 32 banks: no conflict to pad away); ";
        continue;
      }
      const clang::Expr* b = t.row_size->IgnoreImpCasts();
      if (llvm::isa<clang::ConditionalOperator, clang::BinaryConditionalOperator>(b) ||
          (llvm::isa<clang::BinaryOperator>(b) && llvm::cast<clang::BinaryOperator>(b)->isAssignmentOp())) {
        why += name + "'s row length is not a simple expression; ";
        continue;
      }
      const clang::SourceLocation end = sm.getExpansionLoc(t.row_size->getEndLoc());
      if (!sm.isWrittenInMainFile(end)) continue;
      req.rewriter.InsertTextAfterToken(end, " + 1");
      what += (what.empty() ? "" : ", ") + name + "[" + std::to_string(t.row_len) + " + 1]";
    }
    if (what.empty()) return TransformResult::no(trimmed(why));
    return TransformResult::yes("padded " + what);
  }

  TransformResult inverse(TransformRequest& req) const override {
    auto& ctx = req.ctx;
    const auto& sm = ctx.getSourceManager();
    if (!req.kernel->hasBody()) return TransformResult::no("the kernel has no body");
    std::string why;
    std::string what;
    for (const Tile& t : columnTiles(ctx, req.kernel, why)) {
      const std::string name = t.var->getNameAsString();
      // X + 1 as the expert wrote it, with X a conflicting row length: the padding.
      const auto* add = llvm::dyn_cast<clang::BinaryOperator>(t.row_size->IgnoreParenImpCasts());
      const auto* one = add && add->getOpcode() == clang::BO_Add
                            ? llvm::dyn_cast<clang::IntegerLiteral>(add->getRHS()->IgnoreParenImpCasts())
                            : nullptr;
      if (!one || one->getValue() != 1 || t.row_len < 2 || !conflicting(t.row_len - 1, t.elem_bytes)) {
        why += name + "[...][" + std::to_string(t.row_len) + "] is not written as a padded row (X + 1, X a multiple of 32 banks); ";
        continue;
      }
      if (add->getBeginLoc().isMacroID() && sm.getExpansionLoc(add->getBeginLoc()) == sm.getExpansionLoc(add->getEndLoc())) {
        why += name + "'s padded row length comes from one macro; ";
        continue;
      }
      const clang::SourceLocation x_end = clang::Lexer::getLocForEndOfToken(sm.getExpansionLoc(add->getLHS()->getEndLoc()), 0,
                                                                           sm, ctx.getLangOpts());
      const clang::SourceLocation one_end =
          clang::Lexer::getLocForEndOfToken(sm.getExpansionLoc(one->getEndLoc()), 0, sm, ctx.getLangOpts());
      if (x_end.isInvalid() || one_end.isInvalid() || !sm.isWrittenInMainFile(x_end)) continue;
      req.rewriter.RemoveText(clang::CharSourceRange::getCharRange(x_end, one_end));
      what += (what.empty() ? "" : ", ") + name + "[" + std::to_string(t.row_len - 1) + "]";
    }
    if (what.empty()) return TransformResult::no(trimmed(why));
    return TransformResult::yes("padding removed: " + what);
  }
};

}  // namespace
std::unique_ptr<Transform> makePadSharedTile() { return std::make_unique<PadSharedTile>(); }
}  // namespace klineage
