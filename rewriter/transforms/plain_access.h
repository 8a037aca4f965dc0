// Cache-operator intrinsics (__ldg, __ldcs, __stcs, ...) taken back to plain loads and stores, for
// the inverses of ldg-loads and cache-hints. Each call is taken apart by small edits at its own
// tokens (not replaced whole), so nested calls (__ldg(&x[__ldg(&i[t])])) simplify together.
#pragma once
#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include "rewriter/transform.h"

namespace klineage {

// Whether a statement's text comes from a macro expansion (transforms leave those alone).
inline bool inMacro(const clang::Stmt* s) { return s->getBeginLoc().isMacroID() || s->getEndLoc().isMacroID(); }

// Whether an element type has an overload of the cache-operator intrinsics (sm_32_intrinsics.h):
// the integer types, float, double and the CUDA vector types; with `half_types` also __half,
// __half2, __nv_bfloat16 and __nv_bfloat162 (which __ldg takes and the stores do not).
bool cacheOperatorType(clang::QualType t, bool half_types);

// Whether an element's value is read: a scalar's lvalue-to-rvalue conversion, or a vector type's
// copy (`float4 v = rows[i]`); not an address taken, a reference bound or a member read.
bool isValueRead(clang::ASTContext& ctx, const clang::Expr* e);

// A load intrinsic call `f(P)` -> the element P points at: f(&E) -> E, f(p + k) -> p[k], f(p) ->
// p[0], anything else (P)[0]. False (no edit) for a call written through a macro.
bool plainLoad(TransformRequest& req, const clang::CallExpr* call);

// A store intrinsic call `f(P, V)` whose value is unused -> an assignment: f(&E, V) -> E = V,
// f(p + k, V) -> p[k] = V, f(p, V) -> p[0] = V. False (no edit) for any other pointer spelling or
// a call written through a macro.
bool plainStore(TransformRequest& req, const clang::CallExpr* call);

}  // namespace klineage
