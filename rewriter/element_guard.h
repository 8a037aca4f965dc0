// The one-element-per-thread kernel shape shared by the accumulate transforms (block-reduce-atomic,
// privatize-histogram; block-reduce-cas matches the index and the guard and its own guarded code):
//   __global__ void k(...) {
//     T i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (i < n) atomicAdd(P, E);          // the only other statement; braces allowed
//   }
// and the grid-stride loop both rewrite it into. Matching is on the AST; the texts kept are the
// user's own (the declaration, the condition, the atomic's arguments), so the inverse can restore
// them as written. The block reductions' accumulation loop (accumulationLoop) is written here too,
// scalar or with 4-wide vector loads (vector_access.h), for both of them and their inverses.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

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
  const clang::Expr* bound = nullptr;      // n
  std::string index_text;                  // "blockIdx.x * blockDim.x + threadIdx.x"
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

// The index and bound of a grid-stride loop `for (T i = <index>; i < n; i += <stride>)` as
// gridStrideHeader writes it (`body` and `guard` are left empty), or the reason it is not one.
bool loopGuard(clang::ASTContext& ctx, const clang::ForStmt* loop, ElementGuard& out, std::string& why);

// What a block reduction accumulates per element, and how its accumulation loop is written.
struct Accumulation {
  // E (one or more expressions, as written in the edited file) and the statement made of their texts:
  // {E} -> "kl_sum += E;", {IDX, V} -> "atomicAdd(&kl_bins[IDX], V);".
  std::vector<const clang::Expr*> values;
  std::function<std::string(const std::vector<std::string>&)> stmt;
  // Elements a 16-byte vector load gives: 1 (scalar loads), 4 (float4/int4/uint4), 8 or 16 (2- or
  // 1-byte integers through a uint4, vector_access.h's laneOf).
  long long width = 1;
  long long unroll = 1;                                  // > 1: `#pragma unroll <unroll>` before the loops
  std::vector<const clang::Stmt*> updates;               // what stores (the atomic's address, the CAS update)
  std::vector<std::string> loaded;                       // out (width > 1): the pointers read as vectors
};

// The accumulation loop over the guard's elements, the text that starts at an indentation of two
// spaces and ends with a newline:
//   width 1:  for (<decl>; <cond>; i += <stride>) <stmt(E)>
//   width W:  if (<every pointer E reads is 16-byte aligned>) {
//               for (T kl_v = <index>; kl_v < <n> / W; kl_v += <stride>) {
//                 float4 kl_x4 = reinterpret_cast<const float4*>(x)[kl_v];   // each pointer E reads
//                 <stmt(E with x[i] -> kl_x4.x)>  ... .y, .z, .w  (W = 4)
//               }
//               for (T i = (<n> / W) * W + <index>; <cond>; i += <stride>) <stmt(E)>   // n % W tail
//             } else {
//               for (<decl>; <cond>; i += <stride>) <stmt(E)>   // misaligned: the scalar loop
//             }
// (W = 16 for bytes: `uint4 kl_x16 = ...;` and lanes `(unsigned char)(kl_x16.x >> 8)`, vector_access.h)
// with `#pragma unroll <unroll>` before the loop over vectors and the scalar loops of width 1 and
// of the fallback (not the tail: at most W - 1 elements per thread). Width W needs E to read memory
// only as p[i]: p a pointer parameter to an element type of W lanes (vectorLanes) that no update
// uses, i exactly the index, and i and the pointers used nowhere else in E (each lane then
// evaluates E for its own element). Otherwise false, with the reason in `why`.
bool accumulationLoop(clang::ASTContext& ctx, const ElementGuard& g, Accumulation& a, std::string& text,
                      std::string& why);

// For the inverses: the scalar accumulation loop of what accumulationLoop wrote, `s` itself (under
// a `#pragma unroll`) or the else branch of a vector form (then `vector` is that if statement);
// null when s is neither.
const clang::ForStmt* accumulationScalarLoop(const clang::Stmt* s, const clang::IfStmt** vector);

// "" when the inverse's `vector_width` param (1 by default; 1, 4, 8 or 16) is the form it sees
// (`vector`: a vector form), else why not: each inverse takes back only its own forward's form, so
// a lineage step records the vector_width that made it (klineage mine runs every param set of the skills).
std::string vectorWidthMatches(const std::map<std::string, std::string>& params, bool vector);

// Whether the vector form `vector` is exactly what accumulationLoop writes around its scalar loop
// `loop` for `a` (a.values and a.stmt read from that loop, a.width the vector_width param, 4 when
// it is 1; whitespace and pragmas aside), or why not.
bool isVectorAccumulation(clang::ASTContext& ctx, const clang::IfStmt* vector, const clang::ForStmt* loop,
                          Accumulation a, std::string& why);

// Why evaluating `s` once per element in a loop, or once per thread, could change what other
// threads see: an assignment, ++/--, or a barrier, atomic or warp collective ("" when none).
// Calls to other functions are trusted to be pure (math functions); the gate checks the rest.
std::string sideEffectOf(const clang::Stmt* s);

// The kernel body's text between its braces, replaced by `text` (which starts after '{').
bool replaceBody(clang::ASTContext& ctx, clang::Rewriter& rw, const clang::CompoundStmt* body, const std::string& text);

}  // namespace klineage
