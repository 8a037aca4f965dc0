// 4-wide vector access, as the transforms that load 16 bytes per thread write it: vectorize-access
// (elementwise grid-stride loops) and the block reductions' accumulation loop (block-reduce-atomic
// and block-reduce-cas with vector_width = 4, through element_guard.h). One place for the vector
// type of an element type, the element type of a (template) pointer parameter, and the runtime
// 16-byte alignment check the vector branch runs behind, so both write and recognize the same text.
#pragma once
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclTemplate.h>

#include "rewriter/ast_util.h"

namespace klineage {

// Vector type for an element type: float -> float4, int -> int4, unsigned int -> uint4; "" for any
// other (4-byte elements only: the vector is 16 bytes, what the alignment check below proves).
inline std::string vectorType(const clang::ASTContext& ctx, clang::QualType elem) {
  clang::QualType t = elem.getUnqualifiedType().getCanonicalType();
  if (t == ctx.FloatTy) return "float4";
  if (t == ctx.IntTy) return "int4";
  if (t == ctx.UnsignedIntTy) return "uint4";
  return "";
}

// Elements per 16-byte vector: 4 for float, int and unsigned int (float4/int4/uint4, lanes .x .. .w);
// 16 for 1-byte and 8 for 2-byte integer types, loaded as a uint4 whose lanes are shifted out of its
// 32-bit words (laneOf); 0 for any other type (doubles, halves, structs stay scalar).
inline int vectorLanes(const clang::ASTContext& ctx, clang::QualType elem) {
  clang::QualType t = elem.getUnqualifiedType().getCanonicalType();
  if (!vectorType(ctx, t).empty()) return 4;
  if (!t->isIntegerType() || t->isBooleanType() || t->isEnumeralType()) return 0;
  const uint64_t bits = ctx.getTypeSize(t);
  return bits == 8 ? 16 : bits == 16 ? 8 : 0;
}

// The 16-byte vector type an element type is loaded through (vectorType, or uint4 for 1- and 2-byte
// integers); "" when vectorLanes is 0.
inline std::string vectorTypeOf(const clang::ASTContext& ctx, clang::QualType elem) {
  std::string v = vectorType(ctx, elem);
  return !v.empty() || vectorLanes(ctx, elem) == 0 ? v : "uint4";
}

// Lane `l` of the vector `vec` of `lanes` elements of type `elem` (as written, "unsigned char"):
// `vec.y` for 4 lanes; for 1- and 2-byte elements the lane's bits of its 32-bit word (CUDA is
// little-endian: lane 5 of 16 is byte 1 of .y), converted to the element type as a scalar load would.
inline std::string laneOf(const std::string& vec, const std::string& elem, int lanes, int l) {
  static const char* const kWord[] = {"x", "y", "z", "w"};
  if (lanes == 4) return vec + "." + kWord[l];
  const int per_word = lanes / 4, bits = 32 / per_word, shift = (l % per_word) * bits;
  const std::string word = vec + "." + kWord[l / per_word];
  return "(" + elem + ")" + (shift ? "(" + word + " >> " + std::to_string(shift) + ")" : word);
}

// The element type p points to; for a template kernel's `T*`, the type T has in the one
// instantiation the translation unit makes (the pipeline rewrites a template only when it has one),
// so `const T* x` of scale_add<float> is vectorized as float4 in the pattern the header keeps.
inline clang::QualType elementType(const clang::ParmVarDecl* pv) {
  clang::QualType elem = pv->getType()->getPointeeType();
  if (!elem->isDependentType()) return elem;
  auto* fd = llvm::dyn_cast<clang::FunctionDecl>(pv->getDeclContext());
  const clang::FunctionTemplateDecl* tmpl = fd ? fd->getDescribedFunctionTemplate() : nullptr;
  if (!tmpl) return elem;
  const clang::FunctionDecl* only = nullptr;
  for (const clang::FunctionDecl* spec : tmpl->specializations()) {
    if (only) return elem;  // several instantiations: no single element type
    only = spec;
  }
  const unsigned at = pv->getFunctionScopeIndex();
  if (!only || at >= only->getNumParams() || !only->getParamDecl(at)->getType()->isPointerType()) return elem;
  return only->getParamDecl(at)->getType()->getPointeeType();
}

// `(reinterpret_cast<unsigned long long>(x) & 15) == 0`, or for several pointers
// `((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0`:
// every pointer is 16-byte aligned (the condition of the vector branch).
inline std::string alignmentCheck(const std::vector<std::string>& pointers) {
  std::string check;
  for (const std::string& p : pointers)
    check += (check.empty() ? "" : " | ") + std::string("reinterpret_cast<unsigned long long>(") + p + ")";
  return pointers.size() > 1 ? "((" + check + ") & 15) == 0" : "(" + check + " & 15) == 0";
}

// Whether a condition's text is such a check (whitespace aside), for the inverses.
inline bool isAlignmentCheck(const std::string& cond) {
  std::string s = squeeze(cond);
  const std::string tail = "&15)==0";
  return s.find("reinterpret_cast<unsignedlonglong>") != std::string::npos && s.size() > tail.size() &&
         s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// `reinterpret_cast<const float4*>(x)[kl_v]`: the vector at index v of p.
inline std::string vectorLoad(const std::string& vector_type, const std::string& p, const std::string& v) {
  return "reinterpret_cast<const " + vector_type + "*>(" + p + ")[" + v + "]";
}

}  // namespace klineage
