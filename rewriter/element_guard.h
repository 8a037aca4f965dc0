// The one-element-per-thread kernel shape shared by the accumulate transforms (block-reduce-atomic,
// privatize-histogram; block-reduce-cas matches the index and the guard and its own guarded code):
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

// The index declaration and the bounds guard around the per-element code (the guard's `then`,
// with or without braces), shared by every shape below.
struct ElementGuard {
  const clang::CompoundStmt* body = nullptr;
  const clang::VarDecl* index = nullptr;   // i
  std::string decl_text;                   // "int i = blockIdx.x * blockDim.x + threadIdx.x"
  std::string cond_text;                   // "i < n"
  const clang::IfStmt* guard = nullptr;    // if (i < n) ...
  bool wide_index = false;                 // the index is 64-bit: the stride is computed in its type
  std::string index_type;                  // the index's type as written ("int", "size_t")
};

struct GuardedAtomic : ElementGuard {
  const clang::CallExpr* atomic = nullptr; // atomicAdd(P, E)
  std::string callee;                      // "atomicAdd"
};

// `T i = <global thread index>; if (i < n) <then>` as the whole body (`shape` names the expected
// body in the reason when it is not), or the reason it is not (in `why`).
bool matchElementGuard(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, ElementGuard& out, std::string& why,
                       const std::string& shape);

// The kernel's shape as above, or the reason it is not (in `why`).
bool matchGuardedAtomic(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, GuardedAtomic& out,
                        std::string& why);

// "for (<decl>; <cond>; i += blockDim.x * gridDim.x)" for the matched index.
std::string gridStrideHeader(const ElementGuard& g);

// Why evaluating `s` once per element in a loop, or once per thread, could change what other
// threads see: an assignment, ++/--, or a barrier, atomic or warp collective ("" when none).
// Calls to other functions are trusted to be pure (math functions); the gate checks the rest.
std::string sideEffectOf(const clang::Stmt* s);

// The kernel body's text between its braces, replaced by `text` (which starts after '{').
bool replaceBody(clang::ASTContext& ctx, clang::Rewriter& rw, const clang::CompoundStmt* body, const std::string& text);

}  // namespace klineage
