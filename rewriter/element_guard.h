// The one-element-per-thread kernel shape shared by the accumulate transforms (block-reduce-atomic,
// privatize-histogram):
//   __global__ void k(...) {
//     T i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (i < n) atomicAdd(P, E);          // the only other statement; braces allowed
//   }
// and the grid-stride loop both rewrite it into. Matching is on the AST; the texts kept are the
// user's own (the declaration, the condition, the atomic's arguments), so the inverse can restore
// them as written.
#pragma once
#include <string>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/Rewrite/Core/Rewriter.h>

namespace klineage {

struct GuardedAtomic {
  const clang::CompoundStmt* body = nullptr;
  const clang::VarDecl* index = nullptr;   // i
  std::string decl_text;                   // "int i = blockIdx.x * blockDim.x + threadIdx.x"
  std::string cond_text;                   // "i < n"
  const clang::CallExpr* atomic = nullptr; // atomicAdd(P, E)
  std::string callee;                      // "atomicAdd"
  bool wide_index = false;                 // the index is 64-bit: the stride is computed in its type
  std::string index_type;                  // the index's type as written ("int", "size_t")
};

// The kernel's shape as above, or the reason it is not (in `why`).
bool matchGuardedAtomic(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, GuardedAtomic& out,
                        std::string& why);

// "for (<decl>; <cond>; i += blockDim.x * gridDim.x)" for the matched index.
std::string gridStrideHeader(const GuardedAtomic& g);

// Why evaluating `s` once per element in a loop, or once per thread, could change what other
// threads see: an assignment, ++/--, or a barrier, atomic or warp collective ("" when none).
// Calls to other functions are trusted to be pure (math functions); the gate checks the rest.
std::string sideEffectOf(const clang::Stmt* s);

// The kernel body's text between its braces, replaced by `text` (which starts after '{').
bool replaceBody(clang::ASTContext& ctx, clang::Rewriter& rw, const clang::CompoundStmt* body, const std::string& text);

}  // namespace klineage
