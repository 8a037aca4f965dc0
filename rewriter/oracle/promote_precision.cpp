// promote-precision: a float kernel  ->  the same kernel computing in double, the gate's
// higher-precision oracle:
//   typedef float real_t;                         typedef float real_t;
//   __global__ void k(const float* x, float* y,   __global__ void k(const float* x, float* y,
//                     const float* b, float a) {                    const float* b, float a) {
//     __shared__ float s[256];                      __shared__ double s[256];
//     real_t acc = 0.0f;                            double acc = 0.0;
//     acc += expf(x[i]) * a;                        acc += exp((double)(x[i])) * a;
//     y[i] = acc * b[i] + 1.0f;                     y[i] = acc * b[i] + 1.0;
// Every floating-point local (scalars, local and static __shared__ arrays, spelled float, through a
// typedef or deduced by auto), every float literal, every explicit cast to float and every float
// math call is promoted one level (float -> double); every other read of a float value (buffer
// elements, *p, float parameters, float4 components, globals) is converted to double where it is
// read, `(double)(x[i])`, unless the usual arithmetic conversions already widen it (`a` and `b[i]`
// above: their other operand is a double once promoted). The kernel's parameters and buffers keep
// their types, so a store into a float buffer rounds once, at the store.
// Why: the gate judges the original and a variant by their distance to this oracle. A kernel that
// accumulates in float has an error that grows with the problem; the same kernel in double is a
// reference within a few float ulps of the exact result, so a variant that is closer to it than the
// original (or no farther) is accepted without guessing a tolerance.
// When it is sound: everything that computes in float is visible in the kernel's body on Clang's
// AST and is promoted: locals, literals, casts, math calls the CUDA/C library declares (identified
// by their FunctionDecl: declared in a system header or a builtin), and the reads of memory that
// stays float. Overloaded C++ math (exp(x), max(a, b), __shfl_down_sync(mask, v, o)) follows its
// arguments to the double overload. Three float-only intrinsics get a helper written once before
// the kernel (kl_fdividef, kl_frcp, kl_saturate). Not caught: memory keeps its type, so a kernel
// that accumulates through plain loads and stores of a float buffer (y[i] += ... in a loop over the
// same i) rounds at every store in the oracle too.
// What it refuses (no edit, and the reason names the construct), because a partial promotion would
// leave an oracle no more precise than the original: template kernels (dependent types), inline
// PTX, half/bfloat16 types, calls to the user's own functions that take or return floating-point
// values, float atomics into memory that stays float, float bit reinterpretation (__float_as_int,
// ..., pointer casts of promoted storage), extern __shared__ float arrays (the launch gives the
// bytes), static shared memory that would exceed 48 KiB once doubled, float vector (or other record)
// locals written after their initialization, pointers into both promoted and float memory, float
// parameters that are written, float math calls without a known double counterpart, edits that
// would fall inside a macro body, and kernels with no float arithmetic at all ("computes in double:
// no wider type on the GPU", "no floating-point arithmetic to promote"). Float literals written
// inside macro expansions are left as they are (a float constant converts exactly).
// Inverse: none. The oracle is never a lineage step.
#include "rewriter/oracle/promote_precision.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/TypeLoc.h>
#include <clang/Lex/Lexer.h>

#include "rewriter/ast_util.h"
#include "rewriter/features/intrinsics.h"
#include "rewriter/source_buffer.h"

namespace klineage {
namespace {

using Src = SourceBuffer;

// ---- types -------------------------------------------------------------------------------------

bool isKind(clang::QualType t, clang::BuiltinType::Kind k) {
  if (t.isNull()) return false;
  const auto* bt = llvm::dyn_cast<clang::BuiltinType>(t.getCanonicalType().getTypePtr());
  return bt && bt->getKind() == k;
}
bool isFloat(clang::QualType t) { return isKind(t, clang::BuiltinType::Float); }
bool isDouble(clang::QualType t) { return isKind(t, clang::BuiltinType::Double); }

// The element type of (nested) arrays, canonical; t itself when it is not an array.
clang::QualType elementOf(clang::QualType t) {
  t = t.getCanonicalType();
  while (const auto* at = llvm::dyn_cast<clang::ArrayType>(t.getTypePtr())) t = at->getElementType().getCanonicalType();
  return t;
}

// What a value of type t is made of after pointers, references and arrays.
clang::QualType innermost(clang::QualType t) {
  t = t.getCanonicalType();
  while (true) {
    if (const auto* p = llvm::dyn_cast<clang::PointerType>(t.getTypePtr())) t = p->getPointeeType().getCanonicalType();
    else if (const auto* r = llvm::dyn_cast<clang::ReferenceType>(t.getTypePtr())) t = r->getPointeeType().getCanonicalType();
    else if (const auto* a = llvm::dyn_cast<clang::ArrayType>(t.getTypePtr())) t = a->getElementType().getCanonicalType();
    else return t;
  }
}

// Whether a record (float4, a user struct, a union) holds float (or double, when asked) fields.
bool recordHolds(const clang::RecordDecl* rd, bool dbl, int depth = 0) {
  if (!rd || depth > 8) return false;
  if (const auto* def = rd->getDefinition()) rd = def;
  for (const clang::FieldDecl* f : rd->fields()) {
    clang::QualType t = innermost(f->getType());
    if (isFloat(t) || (dbl && isDouble(t))) return true;
    if (recordHolds(t->getAsRecordDecl(), dbl, depth + 1)) return true;
  }
  if (const auto* cxx = llvm::dyn_cast<clang::CXXRecordDecl>(rd); cxx && cxx->hasDefinition())
    for (const auto& b : cxx->bases())
      if (recordHolds(b.getType()->getAsRecordDecl(), dbl, depth + 1)) return true;
  return false;
}

// A floating-point value of any kind the user's own code could compute in: float, double, or a
// record of them (float4, a struct), behind pointers, references and arrays.
bool floatingValue(clang::QualType t) {
  clang::QualType in = innermost(t);
  return isFloat(in) || isDouble(in) || recordHolds(in->getAsRecordDecl(), true);
}

// The half-precision type t is made of, if any.
std::optional<std::string> halfName(clang::QualType t) {
  if (t.isNull()) return std::nullopt;
  clang::QualType in = innermost(t);
  if (const auto* bt = llvm::dyn_cast<clang::BuiltinType>(in.getTypePtr())) {
    switch (bt->getKind()) {
      case clang::BuiltinType::Half: return std::string("half");
      case clang::BuiltinType::Float16: return std::string("_Float16");
      case clang::BuiltinType::BFloat16: return std::string("__bf16");
      default: return std::nullopt;
    }
  }
  if (const auto* rd = in->getAsRecordDecl()) {
    const std::string n = rd->getNameAsString();
    if (n == "__half" || n == "__half2" || n == "__nv_bfloat16" || n == "__nv_bfloat162") return n;
  }
  return std::nullopt;
}

bool isFloatVector(clang::QualType t) {
  const auto* rd = elementOf(t)->getAsRecordDecl();
  if (!rd) return false;
  const std::string n = rd->getNameAsString();
  return n == "float1" || n == "float2" || n == "float3" || n == "float4";
}

// ---- the library's float functions ---------------------------------------------------------------

// float function -> its double counterpart (a CUDA/C library function of the same meaning).
const std::map<std::string, std::string>& renames() {
  static const std::map<std::string, std::string> m = [] {
    std::map<std::string, std::string> r = {
        {"expf", "exp"},         {"exp2f", "exp2"},       {"exp10f", "exp10"},       {"expm1f", "expm1"},
        {"logf", "log"},         {"log2f", "log2"},       {"log10f", "log10"},       {"log1pf", "log1p"},
        {"sqrtf", "sqrt"},       {"rsqrtf", "rsqrt"},     {"cbrtf", "cbrt"},         {"rcbrtf", "rcbrt"},
        {"sinf", "sin"},         {"cosf", "cos"},         {"tanf", "tan"},           {"asinf", "asin"},
        {"acosf", "acos"},       {"atanf", "atan"},       {"atan2f", "atan2"},       {"sinhf", "sinh"},
        {"coshf", "cosh"},       {"tanhf", "tanh"},       {"asinhf", "asinh"},       {"acoshf", "acosh"},
        {"atanhf", "atanh"},     {"powf", "pow"},         {"fabsf", "fabs"},         {"fminf", "fmin"},
        {"fmaxf", "fmax"},       {"fmaf", "fma"},         {"floorf", "floor"},       {"ceilf", "ceil"},
        {"roundf", "round"},     {"truncf", "trunc"},     {"rintf", "rint"},         {"nearbyintf", "nearbyint"},
        {"fmodf", "fmod"},       {"remainderf", "remainder"}, {"copysignf", "copysign"}, {"hypotf", "hypot"},
        {"erff", "erf"},         {"erfcf", "erfc"},       {"erfinvf", "erfinv"},     {"erfcinvf", "erfcinv"},
        {"normcdff", "normcdf"}, {"normcdfinvf", "normcdfinv"}, {"lgammaf", "lgamma"}, {"tgammaf", "tgamma"},
        {"ldexpf", "ldexp"},     {"sinpif", "sinpi"},     {"cospif", "cospi"},       {"fdimf", "fdim"},
        {"__expf", "exp"},       {"__exp10f", "exp10"},   {"__logf", "log"},         {"__log2f", "log2"},
        {"__log10f", "log10"},   {"__sinf", "sin"},       {"__cosf", "cos"},         {"__tanf", "tan"},
        {"__powf", "pow"},       {"__frsqrt_rn", "rsqrt"},
    };
    for (const char* mode : {"rn", "rz", "ru", "rd"}) {
      const std::string m2 = mode;
      r["__fadd_" + m2] = "__dadd_" + m2;
      r["__fsub_" + m2] = "__dsub_" + m2;
      r["__fmul_" + m2] = "__dmul_" + m2;
      r["__fdiv_" + m2] = "__ddiv_" + m2;
      r["__fsqrt_" + m2] = "__dsqrt_" + m2;
      r["__fmaf_" + m2] = "__fma_" + m2;
      r["__float2int_" + m2] = "__double2int_" + m2;
      r["__float2uint_" + m2] = "__double2uint_" + m2;
      r["__float2ll_" + m2] = "__double2ll_" + m2;
      r["__float2ull_" + m2] = "__double2ull_" + m2;
      // int -> float rounds; int -> double is exact for 32-bit integers
      r["__int2float_" + m2] = "__int2double_rn";
      r["__uint2float_" + m2] = "__uint2double_rn";
      r["__ll2float_" + m2] = "__ll2double_" + m2;
      r["__ull2float_" + m2] = "__ull2double_" + m2;
    }
    return r;
  }();
  return m;
}

// Float-only intrinsics without a double form: the helper written before the kernel.
struct Helper {
  const char* name;
  const char* text;
};
const std::map<std::string, Helper>& helpers() {
  static const std::map<std::string, Helper> m = [] {
    std::map<std::string, Helper> h;
    const Helper div{"kl_fdividef", "static __device__ __forceinline__ double kl_fdividef(double a, double b) { return a / b; }"};
    const Helper rcp{"kl_frcp", "static __device__ __forceinline__ double kl_frcp(double x) { return 1.0 / x; }"};
    const Helper sat{"kl_saturate", "static __device__ __forceinline__ double kl_saturate(double x) { return fmin(fmax(x, 0.0), 1.0); }"};
    h["__fdividef"] = div;
    h["fdividef"] = div;
    for (const char* mode : {"rn", "rz", "ru", "rd"}) h[std::string("__frcp_") + mode] = rcp;
    h["__saturatef"] = sat;
    return h;
  }();
  return m;
}

bool reinterpretsBits(const std::string& n) {
  return n == "__float_as_int" || n == "__float_as_uint" || n == "__int_as_float" || n == "__uint_as_float";
}

// Builtins that only name a float constant (INFINITY, NAN): exact in double, nothing to promote.
bool floatConstantBuiltin(const std::string& n) {
  return n == "__builtin_huge_valf" || n == "__builtin_inff" || n == "__builtin_nanf" || n == "__builtin_nansf";
}

// make_float4(...) and friends build a float vector: converting their arguments is a store.
bool buildsFloatVector(const std::string& n) {
  return n == "make_float1" || n == "make_float2" || n == "make_float3" || n == "make_float4";
}

// ---- what the body holds ---------------------------------------------------------------------------

struct Collected : clang::RecursiveASTVisitor<Collected> {
  std::vector<const clang::VarDecl*> vars;  // every variable declared in the body (lambda parameters too)
  std::vector<const clang::DeclRefExpr*> refs;
  std::vector<const clang::CallExpr*> calls;
  std::vector<const clang::CXXConstructExpr*> constructs;
  std::vector<const clang::CastExpr*> casts;
  std::vector<const clang::FloatingLiteral*> literals;
  std::vector<const clang::AsmStmt*> asms;
  std::vector<const clang::Expr*> exprs;
  std::vector<const clang::InitListExpr*> init_lists;
  std::vector<const clang::UnaryExprOrTypeTraitExpr*> sizeofs;
  struct TemplateUse {
    std::string type;
    clang::SourceLocation loc;
  };
  std::vector<TemplateUse> float_template_args;  // a type or call naming float as a template argument

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool VisitVarDecl(clang::VarDecl* v) {
    vars.push_back(v);
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    refs.push_back(e);
    for (const clang::TemplateArgumentLoc& a : e->template_arguments())
      if (a.getArgument().getKind() == clang::TemplateArgument::Type && floatingValue(a.getArgument().getAsType()))
        float_template_args.push_back({e->getNameInfo().getAsString() + "<" + a.getArgument().getAsType().getAsString() + ">",
                                       e->getBeginLoc()});
    return true;
  }
  bool VisitCallExpr(clang::CallExpr* e) {
    calls.push_back(e);
    return true;
  }
  bool VisitCXXConstructExpr(clang::CXXConstructExpr* e) {
    constructs.push_back(e);
    return true;
  }
  bool VisitCastExpr(clang::CastExpr* e) {
    casts.push_back(e);
    return true;
  }
  bool VisitFloatingLiteral(clang::FloatingLiteral* e) {
    literals.push_back(e);
    return true;
  }
  bool VisitAsmStmt(clang::AsmStmt* s) {
    asms.push_back(s);
    return true;
  }
  bool VisitExpr(clang::Expr* e) {
    exprs.push_back(e);
    return true;
  }
  bool VisitInitListExpr(clang::InitListExpr* e) {
    const clang::InitListExpr* sem = e->isSemanticForm() ? e : e->getSemanticForm();
    if (sem && std::find(init_lists.begin(), init_lists.end(), sem) == init_lists.end()) init_lists.push_back(sem);
    return true;
  }
  bool VisitUnaryExprOrTypeTraitExpr(clang::UnaryExprOrTypeTraitExpr* e) {
    sizeofs.push_back(e);
    return true;
  }
  bool VisitTemplateSpecializationTypeLoc(clang::TemplateSpecializationTypeLoc tl) {
    const auto* t = tl.getTypePtr();
    std::string name;
    llvm::raw_string_ostream os(name);
    t->getTemplateName().print(os, clang::PrintingPolicy(clang::LangOptions()));
    os.flush();
    if (name.find("numeric_limits") != std::string::npos) return true;  // constants only: kept float, exact in double
    for (const clang::TemplateArgument& a : t->template_arguments())
      if (a.getKind() == clang::TemplateArgument::Type && floatingValue(a.getAsType())) {
        float_template_args.push_back({clang::QualType(t, 0).getAsString(), tl.getBeginLoc()});
        break;
      }
    return true;
  }
};

// ---- the promotion ---------------------------------------------------------------------------------

// Where a pointer (or an lvalue) points: promoted storage, memory that stays float, or nothing yet.
enum Mem : unsigned { kNone = 0, kPromoted = 1, kFloatMem = 2 };

struct Refusal {
  std::string why;
};

class Promotion {
 public:
  Promotion(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, const Collected& c)
      : ctx_(ctx), src_(ctx), sm_(ctx.getSourceManager()), kernel_(kernel), c_(c) {}

  TransformResult run(clang::Rewriter& rw) {
    if (auto r = check()) return TransformResult::no(r->why);
    if (auto r = plan()) return TransformResult::no(r->why);
    return apply(rw);
  }

 private:
  clang::ASTContext& ctx_;
  Src src_;
  const clang::SourceManager& sm_;
  const clang::FunctionDecl* kernel_;
  const Collected& c_;

  std::set<const clang::VarDecl*> promoted_;             // float locals and local arrays
  std::map<const clang::VarDecl*, unsigned> pointers_;   // local pointers / references to float -> Mem
  struct Replace {
    unsigned b, e;
    std::string text;
  };
  std::vector<Replace> replaces_;
  std::set<std::pair<unsigned, unsigned>> wraps_;        // (double)(...) around [b, e)
  std::set<std::string> helpers_;                        // helper texts to write before the kernel
  std::set<const clang::CallExpr*> renamed_;             // math calls renamed to a double function
  std::set<const clang::CastExpr*> wrapped_reads_;       // float reads converted where they are read
  std::set<const clang::CallExpr*> wrapped_loads_;       // float loads (__ldg, ...) converted likewise
  unsigned n_locals_ = 0, n_reads_ = 0, n_calls_ = 0, n_literals_ = 0, n_casts_ = 0;

  // -- small helpers

  std::string line(clang::SourceLocation l) const {
    return "line " + std::to_string(sm_.getExpansionLineNumber(l));
  }
  std::string at(const clang::Stmt* s) const { return " (" + line(s->getBeginLoc()) + ")"; }
  std::string at(const clang::Decl* d) const { return " (" + line(d->getLocation()) + ")"; }

  std::string macroAt(clang::SourceLocation l) const {
    if (!l.isMacroID()) return "";
    llvm::StringRef n = clang::Lexer::getImmediateMacroNameForDiagnostics(l, sm_, ctx_.getLangOpts());
    if (n.empty()) n = clang::Lexer::getImmediateMacroName(l, sm_, ctx_.getLangOpts());
    return n.str();
  }
  std::string throughMacro(clang::SourceLocation l) const {
    const std::string m = macroAt(l);
    return m.empty() ? "outside the kernel's file" : "through the macro " + m;
  }

  // The file offsets [b, e) of a token range, when it is written in the edited file (a macro's
  // argument counts; a macro's body does not).
  std::optional<std::pair<unsigned, unsigned>> span(clang::SourceRange r) const {
    clang::CharSourceRange cr =
        clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(r), sm_, ctx_.getLangOpts());
    if (cr.isInvalid()) {
      // An expression that is a whole macro argument, which the macro's body wraps ((-(v))): its
      // spelling in the argument, followed through argument expansions only (never into a body).
      clang::SourceLocation b = r.getBegin(), e = r.getEnd();
      while (b.isMacroID() && e.isMacroID() && sm_.isMacroArgExpansion(b) && sm_.isMacroArgExpansion(e)) {
        b = sm_.getImmediateSpellingLoc(b);
        e = sm_.getImmediateSpellingLoc(e);
      }
      if (b.isFileID() && e.isFileID() && !(e < b))
        cr = clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(b, e), sm_, ctx_.getLangOpts());
    }
    if (cr.isInvalid() || !src_.inFile(cr.getBegin()) || !src_.inFile(cr.getEnd())) return std::nullopt;
    return std::make_pair(src_.off(cr.getBegin()), src_.off(cr.getEnd()));
  }

  const clang::Stmt* parent(const clang::Stmt* s) const {
    auto ps = ctx_.getParents(*s);
    return ps.empty() ? nullptr : ps[0].get<clang::Stmt>();
  }
  // The variable s initializes, if s is a variable's initializer.
  const clang::VarDecl* initialized(const clang::Stmt* s) const {
    auto ps = ctx_.getParents(*s);
    if (ps.empty()) return nullptr;
    const auto* v = ps[0].get<clang::VarDecl>();
    return v && v->getInit() == s ? v : nullptr;
  }

  bool isLocal(const clang::VarDecl* v) const {
    // A block-scope `extern __shared__` array's semantic context is the file: it is the kernel's own.
    return !llvm::isa<clang::ParmVarDecl>(v) && !v->isImplicit() &&
           (v->getParentFunctionOrMethod() != nullptr || v->isLocalExternDecl());
  }

  // Declared by the CUDA/C library: a builtin, in a system header, or in KLineage's parse-compat
  // header (it declares CUDA's own functions clang 16 lacks).
  bool isLibrary(const clang::FunctionDecl* fd) const {
    if (fd->getBuiltinID()) return true;
    const clang::FunctionDecl* first = fd->getFirstDecl();
    clang::SourceLocation l = sm_.getExpansionLoc(first->getLocation());
    if (l.isInvalid()) return fd->isImplicit();
    if (sm_.isInSystemHeader(l)) return true;
    if (auto fe = sm_.getFileEntryRefForID(sm_.getFileID(l)))
      return llvm::StringRef(fe->getName()).endswith("klineage_parse_compat.h");
    return false;
  }

  std::string calleeLabel(const clang::FunctionDecl* fd) const {
    if (const auto* m = llvm::dyn_cast<clang::CXXMethodDecl>(fd); m && m->getParent()->isLambda()) return "a lambda";
    return fd->getNameAsString();
  }

  // Where e (a pointer value or an lvalue) points.
  unsigned memOf(const clang::Expr* e) const {
    if (!e) return kNone;
    e = e->IgnoreParens();
    if (const auto* c = llvm::dyn_cast<clang::CastExpr>(e)) {
      if (c->getCastKind() == clang::CK_NullToPointer) return kNone;
      return memOf(c->getSubExpr());
    }
    if (llvm::isa<clang::CXXNullPtrLiteralExpr>(e) || llvm::isa<clang::GNUNullExpr>(e)) return kNone;
    if (const auto* d = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      const auto* v = llvm::dyn_cast<clang::VarDecl>(d->getDecl());
      if (!v) return kFloatMem;
      if (promoted_.count(v)) return kPromoted;
      if (auto it = pointers_.find(v); it != pointers_.end()) return it->second;
      return kFloatMem;  // parameters, globals, __constant__
    }
    if (const auto* a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) return memOf(a->getBase());
    if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
      switch (u->getOpcode()) {
        case clang::UO_Deref: case clang::UO_AddrOf: case clang::UO_PreInc: case clang::UO_PostInc:
        case clang::UO_PreDec: case clang::UO_PostDec:
          return memOf(u->getSubExpr());
        default: return kFloatMem;
      }
    }
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
      switch (b->getOpcode()) {
        case clang::BO_Add: case clang::BO_Sub:
          if (b->getLHS()->getType()->isPointerType()) return memOf(b->getLHS());
          if (b->getRHS()->getType()->isPointerType()) return memOf(b->getRHS());
          return kFloatMem;
        case clang::BO_Assign: case clang::BO_Comma: return memOf(b->getRHS());
        case clang::BO_AddAssign: case clang::BO_SubAssign: return memOf(b->getLHS());
        default: return kFloatMem;
      }
    }
    if (const auto* co = llvm::dyn_cast<clang::AbstractConditionalOperator>(e))
      return memOf(co->getTrueExpr()) | memOf(co->getFalseExpr());
    return kFloatMem;  // a field (float4's x, a struct's member), a call's result
  }

  // The variable e's memory belongs to (through casts, subscripts, pointer arithmetic), if any.
  const clang::VarDecl* baseVar(const clang::Expr* e) const {
    while (e) {
      e = e->IgnoreParens();
      if (const auto* c = llvm::dyn_cast<clang::CastExpr>(e)) e = c->getSubExpr();
      else if (const auto* a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) e = a->getBase();
      else if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e)) e = u->getSubExpr();
      else if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e); b && b->isAdditiveOp())
        e = b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS();
      else if (const auto* d = llvm::dyn_cast<clang::DeclRefExpr>(e)) return llvm::dyn_cast<clang::VarDecl>(d->getDecl());
      else return nullptr;
    }
    return nullptr;
  }

  // Whether the reference d (to a variable) only reads it: through parentheses, member access,
  // subscripts and no-op conversions to a load, a copy, sizeof or decltype. A node with two parents (an
  // initializer list's syntactic and semantic forms) is a read when one of them reads it.
  bool onlyRead(const clang::Stmt* cur) const {
    auto ps = ctx_.getParents(*cur);
    if (ps.empty()) return false;
    for (const auto& node : ps) {
      if (node.get<clang::TypeLoc>()) return true;  // an operand of decltype(...): inside a type, never evaluated
      const clang::Stmt* p = node.get<clang::Stmt>();
      if (p && readsThrough(cur, p)) return true;
    }
    return false;
  }
  bool readsThrough(const clang::Stmt* cur, const clang::Stmt* p) const {
    if (llvm::isa<clang::ParenExpr>(p)) return onlyRead(p);
    if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(p))
      return !m->isArrow() && m->getBase() == cur && llvm::isa<clang::FieldDecl>(m->getMemberDecl()) && onlyRead(p);
    if (const auto* a = llvm::dyn_cast<clang::ArraySubscriptExpr>(p)) return a->getBase() == cur && onlyRead(p);
    if (const auto* ic = llvm::dyn_cast<clang::ImplicitCastExpr>(p)) {
      switch (ic->getCastKind()) {
        case clang::CK_LValueToRValue: return true;
        case clang::CK_NoOp: return onlyRead(p);
        case clang::CK_ArrayToPointerDecay: {  // only as a subscript's base
          for (const auto& node : ctx_.getParents(*p))
            if (const auto* a = node.get<clang::ArraySubscriptExpr>(); a && a->getBase() == p && onlyRead(a)) return true;
          return false;
        }
        default: return false;
      }
    }
    if (const auto* ce = llvm::dyn_cast<clang::CXXConstructExpr>(p))
      return ce->getConstructor()->isCopyOrMoveConstructor() && ce->getConstructor()->isTrivial();
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(p)) {  // passed by const reference (a copy's source)
      const clang::FunctionDecl* fd = call->getDirectCallee();
      if (!fd) return false;
      const unsigned shift = llvm::isa<clang::CXXOperatorCallExpr>(call) && llvm::isa<clang::CXXMethodDecl>(fd) ? 1 : 0;
      for (unsigned i = shift; i < call->getNumArgs(); ++i) {
        if (call->getArg(i) != cur || i - shift >= fd->getNumParams()) continue;
        clang::QualType t = fd->getParamDecl(i - shift)->getType();
        return t->isReferenceType() && t->getPointeeType().isConstQualified();
      }
      return false;
    }
    return llvm::isa<clang::UnaryExprOrTypeTraitExpr>(p);
  }

  // -- the refusals, in a fixed order (the first one found is the reason)

  std::optional<Refusal> check() {
    if (!c_.asms.empty())
      return Refusal{"inline PTX (asm statement): the promotion cannot see what it computes" + at(c_.asms.front())};

    // half / bfloat16, anywhere in the body
    for (const clang::VarDecl* v : c_.vars)
      if (auto h = halfName(v->getType())) return Refusal{"half-precision type " + *h + ": no faithful promotion" + at(v)};
    for (const clang::Expr* e : c_.exprs)
      if (auto h = halfName(e->getType())) return Refusal{"half-precision type " + *h + ": no faithful promotion" + at(e)};

    // the variables: promoted storage, local pointers to float, dynamic shared memory
    for (const clang::VarDecl* v : c_.vars) {
      if (!isLocal(v)) continue;
      if (isFloat(elementOf(v->getType()))) {
        // The kernel's own `extern __shared__ float` array becomes doubles too: the runner launches
        // the oracle with twice the original's dynamic shared memory (docs/runner-job.md, "The oracle").
        promoted_.insert(v);
        continue;
      }
      clang::QualType t = v->getType().getCanonicalType();
      clang::QualType pointee;
      if (const auto* p = llvm::dyn_cast<clang::PointerType>(t.getTypePtr())) pointee = p->getPointeeType();
      else if (const auto* r = llvm::dyn_cast<clang::ReferenceType>(t.getTypePtr())) pointee = r->getPointeeType();
      if (!pointee.isNull() && isFloat(elementOf(pointee))) pointers_[v] = kNone;
    }
    for (const clang::DeclRefExpr* d : c_.refs) {
      const auto* v = llvm::dyn_cast<clang::VarDecl>(d->getDecl());
      if (v && !isLocal(v) && v->hasAttr<clang::CUDASharedAttr>() && v->hasExternalStorage() && isFloat(elementOf(v->getType())))
        return Refusal{"dynamic shared memory of float: the promoted kernel would need twice the launch's bytes (extern __shared__ " +
                       v->getNameAsString() + ", " + line(d->getBeginLoc()) + ")"};
    }
    // Where each local pointer points: its initializer and what is assigned to it, to a fixed point.
    std::map<const clang::VarDecl*, std::vector<const clang::Expr*>> sources;
    for (auto& [v, m] : pointers_)
      if (v->getInit()) sources[v].push_back(v->getInit());
    for (const clang::Expr* e : c_.exprs)
      if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e); b && b->getOpcode() == clang::BO_Assign)
        if (const auto* d = llvm::dyn_cast<clang::DeclRefExpr>(b->getLHS()->IgnoreParens()))
          if (const auto* v = llvm::dyn_cast<clang::VarDecl>(d->getDecl());
              v && pointers_.count(v) && !v->getType()->isReferenceType())  // a reference is never rebound
            sources[v].push_back(b->getRHS());
    for (bool changed = true; changed;) {
      changed = false;
      for (auto& [v, srcs] : sources) {
        unsigned m = pointers_[v];
        for (const clang::Expr* s : srcs) m |= memOf(s);
        if (m != pointers_[v]) {
          pointers_[v] = m;
          changed = true;
        }
      }
    }

    // float template arguments (cg::plus<float>, std::array<float, 4>): the promotion does not reach them
    if (!c_.float_template_args.empty()) {
      const auto& u = c_.float_template_args.front();
      return Refusal{"names " + u.type + ", a float template argument: the promotion does not reach into it (" +
                     line(u.loc) + ")"};
    }

    // calls
    for (const clang::CallExpr* call : c_.calls)
      if (auto r = checkCall(call)) return r;
    for (const clang::CXXConstructExpr* ce : c_.constructs) {
      const clang::CXXConstructorDecl* ctor = ce->getConstructor();
      if (!ctor || ctor->isImplicit() || ctor->isTrivial() || isLibrary(ctor)) continue;
      for (const clang::ParmVarDecl* p : ctor->parameters())
        if (floatingValue(p->getType()))
          return Refusal{"calls " + ctor->getParent()->getNameAsString() +
                         "'s constructor, which takes or returns float: the promotion does not reach into it" + at(ce)};
    }

    // casts of promoted storage to other pointer types; float views of dynamic shared memory
    for (const clang::CastExpr* ce : c_.casts) {
      clang::QualType to = ce->getType();
      bool pointer_cast = false;
      if (const auto* ex = llvm::dyn_cast<clang::ExplicitCastExpr>(ce)) {
        clang::QualType w = ex->getTypeAsWritten();
        pointer_cast = w->isPointerType() || w->isReferenceType() || w->isIntegralType(ctx_);
        to = w;
      } else {
        switch (ce->getCastKind()) {
          case clang::CK_BitCast: case clang::CK_LValueBitCast: case clang::CK_LValueToRValueBitCast:
          case clang::CK_PointerToIntegral: case clang::CK_AddressSpaceConversion:
            pointer_cast = true;
            break;
          default: break;
        }
      }
      if (!pointer_cast) continue;
      const clang::Expr* from = ce->getSubExpr();
      if (!(from->getType()->isPointerType() || from->getType()->isArrayType() || from->isGLValue())) continue;
      if (memOf(from) & kPromoted) {
        const clang::VarDecl* b = baseVar(from);
        return Refusal{"reinterprets float bits (cast of " + (b ? b->getNameAsString() : std::string("promoted storage")) +
                       " to " + to.getAsString() + "): the promoted storage holds doubles" + at(ce)};
      }
      if (llvm::isa<clang::ExplicitCastExpr>(ce) && to->isPointerType() && isFloat(to->getPointeeType()))
        if (const clang::VarDecl* b = baseVar(from); b && b->hasAttr<clang::CUDASharedAttr>() && b->hasExternalStorage())
          return Refusal{"dynamic shared memory of float: the promoted kernel would need twice the launch's bytes (extern __shared__ " +
                         b->getNameAsString() + " used as float, " + line(ce->getBeginLoc()) + ")"};
    }

    // static shared memory, doubled
    long long shared_bytes = 0, promoted_bytes = 0;
    std::set<const clang::VarDecl*> counted;
    auto count = [&](const clang::VarDecl* v) {
      if (!v->hasAttr<clang::CUDASharedAttr>() || v->hasExternalStorage() || !counted.insert(v).second) return;
      if (v->getType()->isIncompleteType() || v->getType()->isDependentType() || !v->getType()->isConstantSizeType()) return;
      const long long bytes = ctx_.getTypeSizeInChars(v->getType()).getQuantity();
      shared_bytes += promoted_.count(v) ? 2 * bytes : bytes;
      if (promoted_.count(v)) promoted_bytes += bytes;
    };
    for (const clang::VarDecl* v : c_.vars) count(v);
    for (const clang::DeclRefExpr* d : c_.refs)
      if (const auto* v = llvm::dyn_cast<clang::VarDecl>(d->getDecl())) count(v);
    if (promoted_bytes > 0 && shared_bytes > 48 * 1024)
      return Refusal{"promoted shared memory would exceed 48 KiB (" + std::to_string(shared_bytes) +
                     " bytes of static shared memory once its float arrays are double)"};

    // float vector (and other record) locals written after their initialization
    for (const clang::VarDecl* v : c_.vars) {
      if (!isLocal(v)) continue;
      const auto* rd = elementOf(v->getType())->getAsRecordDecl();
      if (!rd || !recordHolds(rd, false)) continue;
      for (const clang::DeclRefExpr* d : c_.refs) {
        if (d->getDecl() != v || onlyRead(d)) continue;
        const std::string type = rd->getNameAsString();
        if (isFloatVector(v->getType()))
          return Refusal{"accumulates in the " + type + " local " + v->getNameAsString() +
                         ": its components would stay float" + at(d)};
        return Refusal{"writes the " + type + " local " + v->getNameAsString() +
                       " after its initialization: its float fields would stay float" + at(d)};
      }
    }

    // pointers into both kinds of memory
    for (const clang::VarDecl* v : c_.vars)
      if (auto it = pointers_.find(v); it != pointers_.end() && it->second == (kPromoted | kFloatMem))
        return Refusal{"pointer " + v->getNameAsString() + " points into both promoted and float memory" + at(v)};

    // float parameters written (they keep their type: a float accumulator)
    for (const clang::DeclRefExpr* d : c_.refs) {
      const auto* p = llvm::dyn_cast<clang::ParmVarDecl>(d->getDecl());
      if (!p || p->getDeclContext() != kernel_ || !isFloat(p->getType())) continue;
      if (!onlyRead(d))
        return Refusal{"writes the float parameter " + p->getNameAsString() +
                       ": parameters keep their type, so it would round to float there" + at(d)};
    }

    // sizeof / alignof of what the promotion widens
    for (const clang::UnaryExprOrTypeTraitExpr* s : c_.sizeofs) {
      if (s->isArgumentType()) continue;
      const clang::Expr* arg = s->getArgumentExpr();
      if (!isFloat(elementOf(arg->getType()))) continue;
      if (!arg->isGLValue() || (memOf(arg) & kPromoted)) {
        const clang::VarDecl* b = baseVar(arg);
        return Refusal{"takes the size of " + (b ? b->getNameAsString() : std::string("a float value")) +
                       ", which the promotion widens" + at(s)};
      }
    }

    // brace-initialized float records from computed values would narrow from double
    for (const clang::InitListExpr* il : c_.init_lists) {
      const auto* rd = il->getType()->getAsRecordDecl();
      if (!rd) continue;
      for (const clang::Expr* e : il->inits()) {
        if (!e || !isFloat(e->getType()) || e->isValueDependent() || e->isEvaluatable(ctx_)) continue;
        const auto* read = llvm::dyn_cast<clang::ImplicitCastExpr>(e->IgnoreParens());
        if (read && read->getCastKind() == clang::CK_LValueToRValue && memOf(read->getSubExpr()) == kFloatMem)
          continue;  // a float copied from float memory: stays float, no narrowing
        return Refusal{"brace-initializes a " + (rd->getName().empty() ? std::string("record") : rd->getNameAsString()) +
                       " from computed floats: the promoted values would narrow from double" + at(il)};
      }
    }

    // something to promote
    bool float_work = !promoted_.empty() || !planned_calls_.empty();
    bool double_work = false;
    for (const clang::FloatingLiteral* l : c_.literals) {
      if (isFloat(l->getType())) float_work = true;
      if (isDouble(l->getType())) double_work = true;
    }
    for (const clang::VarDecl* v : c_.vars)
      if (isLocal(v) && isDouble(elementOf(v->getType()))) double_work = true;
    for (const clang::Expr* e : c_.exprs) {
      clang::QualType t;
      if (const auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(e)) t = ca->getComputationResultType();
      else if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e))
        t = b->isComparisonOp() ? b->getLHS()->getType() : (b->isAssignmentOp() || b->isCommaOp() ? clang::QualType() : b->getType());
      else if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u && (u->isArithmeticOp() || u->isIncrementDecrementOp()))
        t = u->getType();
      else if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e); call && call->getDirectCallee() &&
                                                                     !call->getDirectCallee()->getBuiltinID())
        t = call->getType();
      if (isFloat(t)) float_work = true;
      if (isDouble(t)) double_work = true;
    }
    if (!float_work) {
      if (double_work) return Refusal{"computes in double: no wider type on the GPU"};
      return Refusal{"no floating-point arithmetic to promote"};
    }
    return std::nullopt;
  }

  // What a library call becomes.
  enum class CallPlan { Keep, Rename, Helper, WrapResult };
  struct PlannedCall {
    const clang::CallExpr* call;
    CallPlan plan;
    std::string to;  // new name (Rename, Helper), helper text in helper_text
    std::string helper_text;
  };
  std::vector<PlannedCall> planned_calls_;

  // Whether t (a library function's parameter or result) carries float: float itself, or behind
  // pointers and references.
  static bool carriesFloat(clang::QualType t) { return isFloat(innermost(t)); }

  // A declaration of fd's name, in fd's own scope, with double where fd has float (a template that
  // deduces from its arguments counts): overload resolution follows the promoted arguments to it.
  bool hasDoubleTwin(const clang::FunctionDecl* fd) const {
    const clang::DeclContext* dc = fd->getDeclContext()->getRedeclContext();
    auto paired = [](clang::QualType a, clang::QualType b) {
      a = a.getCanonicalType();
      b = b.getCanonicalType();
      while (true) {
        if (a->isPointerType() && b->isPointerType()) {
          a = a->getPointeeType().getCanonicalType();
          b = b->getPointeeType().getCanonicalType();
        } else if (a->isReferenceType() && b->isReferenceType()) {
          a = a->getPointeeType().getCanonicalType();
          b = b->getPointeeType().getCanonicalType();
        } else {
          break;
        }
      }
      return !isFloat(a) || isDouble(b);
    };
    for (clang::NamedDecl* nd : dc->lookup(fd->getDeclName())) {
      if (const auto* us = llvm::dyn_cast<clang::UsingShadowDecl>(nd)) nd = us->getTargetDecl();
      if (llvm::isa<clang::FunctionTemplateDecl>(nd)) return true;
      const auto* g = llvm::dyn_cast<clang::FunctionDecl>(nd);
      if (!g || g->getCanonicalDecl() == fd->getCanonicalDecl() || g->getNumParams() != fd->getNumParams()) continue;
      bool ok = paired(fd->getReturnType(), g->getReturnType());
      for (unsigned i = 0; ok && i < fd->getNumParams(); ++i) ok = paired(fd->getParamDecl(i)->getType(), g->getParamDecl(i)->getType());
      if (ok) return true;
    }
    return false;
  }

  std::optional<Refusal> checkCall(const clang::CallExpr* call) {
    const clang::FunctionDecl* fd = call->getDirectCallee();
    if (!fd) {
      const clang::Expr* callee = call->getCallee();
      if (callee && (floatingValue(call->getType()) || [&] {
            for (const clang::Expr* a : call->arguments())
              if (floatingValue(a->getType())) return true;
            return false;
          }()))
        return Refusal{"calls through a function pointer, which takes or returns float: the promotion does not reach into it" +
                       at(call)};
      return std::nullopt;
    }
    const std::string name = fd->getNameAsString();
    if (!isLibrary(fd)) {
      // An implicit member (a record's copy or assignment) is the record's business: see the locals.
      if (fd->isImplicit() || fd->isDefaulted()) return std::nullopt;
      bool takes = floatingValue(fd->getReturnType());
      for (const clang::ParmVarDecl* p : fd->parameters()) takes = takes || floatingValue(p->getType());
      if (takes)
        return Refusal{"calls " + calleeLabel(fd) + ", which takes or returns float: the promotion does not reach into it" + at(call)};
      return std::nullopt;
    }
    if (reinterpretsBits(name)) return Refusal{"reinterprets float bits (" + name + ")" + at(call)};
    if (auto kind = intrinsicKind(calleeName(call)); kind && *kind == IntrinsicKind::Atomic) {
      for (const clang::Expr* a : call->arguments()) {
        clang::QualType t = a->getType();
        if (!t->isPointerType() || !isFloat(t->getPointeeType())) continue;
        if (memOf(a) != kPromoted)
          return Refusal{"accumulates into float memory through " + name + ": the oracle would round there too" + at(call)};
        if (name.rfind("atomicAdd", 0) != 0)
          return Refusal{"calls " + name + " on promoted storage: no double counterpart known" + at(call)};
        break;
      }
      return std::nullopt;
    }
    bool involves = carriesFloat(fd->getReturnType());
    bool by_value = false;
    for (const clang::ParmVarDecl* p : fd->parameters()) {
      involves = involves || carriesFloat(p->getType());
      by_value = by_value || isFloat(p->getType().getNonReferenceType());
    }
    if (!involves) return std::nullopt;
    if (auto it = renames().find(name); it != renames().end()) {
      planned_calls_.push_back({call, CallPlan::Rename, it->second, ""});
      if (isFloat(call->getType())) renamed_.insert(call);
      return std::nullopt;
    }
    if (auto it = helpers().find(name); it != helpers().end()) {
      planned_calls_.push_back({call, CallPlan::Helper, it->second.name, it->second.text});
      renamed_.insert(call);
      return std::nullopt;
    }
    if (buildsFloatVector(name)) return std::nullopt;
    if (isFloat(call->getType()) && !by_value) {
      // a load (__ldg, a texture fetch, curand) or a constant (INFINITY, numeric_limits): its value
      // stays what it is, converted to double where it is read
      if (!floatConstantBuiltin(name)) planned_calls_.push_back({call, CallPlan::WrapResult, "", ""});
      return std::nullopt;
    }
    const auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts());
    if (fd->getPrimaryTemplate() && !(dre && dre->hasExplicitTemplateArgs())) return std::nullopt;  // deduces double
    if (hasDoubleTwin(fd)) return std::nullopt;
    return Refusal{"calls " + name + ": no double counterpart known" + at(call)};
  }

  // -- the edits

  // The written float type of a declaration or cast: through qualifiers, arrays and (when asked)
  // one pointer or reference. `at_spec` is the type expected there (auto's written type is not the
  // one it deduces). std::nullopt: none found; an empty range: nothing to edit (auto deducing a
  // pointer follows its initializer).
  std::optional<clang::SourceRange> floatSpec(clang::TypeLoc tl, bool through_pointer, clang::QualType at_spec) const {
    while (!tl.isNull()) {
      if (auto q = tl.getAs<clang::QualifiedTypeLoc>()) tl = q.getUnqualifiedLoc();
      else if (auto a = tl.getAs<clang::ArrayTypeLoc>()) tl = a.getElementLoc();
      else if (auto p = tl.getAs<clang::ParenTypeLoc>()) tl = p.getInnerLoc();
      else if (auto at = tl.getAs<clang::AttributedTypeLoc>()) tl = at.getModifiedLoc();
      else if (auto pt = tl.getAs<clang::PointerTypeLoc>(); pt && through_pointer) {
        tl = pt.getPointeeLoc();
        through_pointer = false;
      } else if (auto rt = tl.getAs<clang::ReferenceTypeLoc>(); rt && through_pointer) {
        tl = rt.getPointeeLoc();
        through_pointer = false;
      } else {
        break;
      }
    }
    if (tl.isNull()) return std::nullopt;
    if (tl.getAs<clang::AutoTypeLoc>()) {
      if (through_pointer) return clang::SourceRange();  // auto deducing a pointer or reference
      return isFloat(at_spec) ? std::optional<clang::SourceRange>(tl.getSourceRange()) : std::nullopt;
    }
    if (!isFloat(tl.getType())) return std::nullopt;
    if (tl.getAs<clang::BuiltinTypeLoc>() || tl.getAs<clang::TypedefTypeLoc>() || tl.getAs<clang::ElaboratedTypeLoc>() ||
        tl.getAs<clang::UsingTypeLoc>() || tl.getAs<clang::DecltypeTypeLoc>())
      return tl.getSourceRange();
    return std::nullopt;
  }

  // Whether a float value read here needs no conversion of its own: it is converted to a wider
  // type or an integer anyway, initializes a promoted variable, is stored as it is, or is cast to
  // float (which becomes double).
  bool convertedAnyway(const clang::Expr* e) const {
    const clang::Stmt* cur = e;
    const clang::Stmt* p = parent(cur);
    while (p && llvm::isa<clang::ParenExpr>(p)) {
      cur = p;
      p = parent(p);
    }
    if (const clang::VarDecl* v = initialized(cur)) return promoted_.count(v) > 0;
    if (!p) return false;
    if (const auto* c = llvm::dyn_cast<clang::CastExpr>(p)) {
      switch (c->getCastKind()) {
        case clang::CK_FloatingCast: return !isFloat(c->getType());
        case clang::CK_FloatingToIntegral: case clang::CK_FloatingToBoolean: return true;
        case clang::CK_NoOp:
          return llvm::isa<clang::ExplicitCastExpr>(c) && isFloat(llvm::cast<clang::ExplicitCastExpr>(c)->getTypeAsWritten());
        default: return false;
      }
    }
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(p); b && b->getOpcode() == clang::BO_Assign && b->getRHS() == cur)
      return isFloat(b->getLHS()->getType());
    if (const auto* il = llvm::dyn_cast<clang::InitListExpr>(p); il && il->getType()->isRecordType())
      return true;  // a float4 built from float memory: a copy
    return false;
  }

  // Whether e's value is a double once the edits are made: promoted storage read, a literal or cast
  // the pass rewrites, a renamed math call, a read already wrapped, or arithmetic on one of them.
  bool doubleAfter(const clang::Expr* e) const {
    e = e->IgnoreParens();
    if (isDouble(e->getType())) return true;
    if (!isFloat(e->getType())) return false;
    if (const auto* ic = llvm::dyn_cast<clang::ImplicitCastExpr>(e)) {
      if (ic->getCastKind() == clang::CK_LValueToRValue)
        return memOf(ic->getSubExpr()) == kPromoted || wrapped_reads_.count(ic) > 0;
      if (ic->getCastKind() == clang::CK_NoOp) return doubleAfter(ic->getSubExpr());
      return false;
    }
    if (const auto* l = llvm::dyn_cast<clang::FloatingLiteral>(e))
      return !l->getLocation().isMacroID() && src_.inFile(l->getLocation());
    if (const auto* ex = llvm::dyn_cast<clang::ExplicitCastExpr>(e)) return isFloat(ex->getTypeAsWritten());
    if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e)) return renamed_.count(call) > 0 || wrapped_loads_.count(call) > 0;
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
      if (b->isAdditiveOp() || b->isMultiplicativeOp()) return doubleAfter(b->getLHS()) || doubleAfter(b->getRHS());
      if (b->isCommaOp()) return doubleAfter(b->getRHS());
      return false;
    }
    if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e); u && (u->getOpcode() == clang::UO_Minus || u->getOpcode() == clang::UO_Plus))
      return doubleAfter(u->getSubExpr());
    if (const auto* co = llvm::dyn_cast<clang::ConditionalOperator>(e)) return doubleAfter(co->getTrueExpr()) || doubleAfter(co->getFalseExpr());
    return false;
  }

  // Whether a float read is an operand whose other operand is a double once the edits are made
  // (the usual arithmetic conversions widen it exactly), or the value added to promoted storage.
  bool widenedByOperator(const clang::Expr* e) const {
    const clang::Stmt* cur = e;
    const clang::Stmt* p = parent(cur);
    while (p && llvm::isa<clang::ParenExpr>(p)) {
      cur = p;
      p = parent(p);
    }
    if (!p) return false;
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(p)) {
      if (b->isCompoundAssignmentOp()) return b->getRHS() == cur && memOf(b->getLHS()) == kPromoted;
      if (b->isAdditiveOp() || b->isMultiplicativeOp() || b->isComparisonOp())
        return doubleAfter(b->getLHS() == cur ? b->getRHS() : b->getLHS());
      return false;
    }
    if (const auto* co = llvm::dyn_cast<clang::ConditionalOperator>(p)) {
      if (co->getTrueExpr() == cur) return doubleAfter(co->getFalseExpr());
      if (co->getFalseExpr() == cur) return doubleAfter(co->getTrueExpr());
    }
    return false;
  }

  void replace(unsigned b, unsigned e, std::string text) { replaces_.push_back({b, e, std::move(text)}); }

  std::optional<Refusal> plan() {
    // 1. declarations: the float type spec of promoted locals and of pointers into promoted storage
    struct SpecUse {
      const clang::VarDecl* v;
      bool change;
    };
    std::map<unsigned, std::pair<unsigned, std::vector<SpecUse>>> specs;
    for (const clang::VarDecl* v : c_.vars) {
      if (!isLocal(v)) continue;
      const bool is_pointer = pointers_.count(v) > 0;
      const bool change = promoted_.count(v) || (is_pointer && pointers_[v] == kPromoted);
      if (!promoted_.count(v) && !is_pointer) continue;
      const clang::TypeSourceInfo* tsi = v->getTypeSourceInfo();
      clang::QualType at_spec = elementOf(v->getType());
      if (is_pointer) at_spec = elementOf(v->getType()->getPointeeType());
      auto spec = tsi ? floatSpec(tsi->getTypeLoc(), is_pointer, at_spec) : std::nullopt;
      if (!spec) {
        if (change)
          return Refusal{"the float type of " + v->getNameAsString() + " is not written where it can be changed" + at(v)};
        continue;
      }
      if (spec->isInvalid()) continue;  // auto deducing a pointer: follows its initializer
      auto s = span(*spec);
      if (!s) {
        if (change)
          return Refusal{"the type of " + v->getNameAsString() + " is written " + throughMacro(spec->getBegin()) + at(v)};
        continue;
      }
      auto& entry = specs[s->first];
      entry.first = s->second;
      entry.second.push_back({v, change});
    }
    for (auto& [b, entry] : specs) {
      const auto& users = entry.second;
      const bool any = std::any_of(users.begin(), users.end(), [](const SpecUse& u) { return u.change; });
      const bool all = std::all_of(users.begin(), users.end(), [](const SpecUse& u) { return u.change; });
      if (any && !all) {
        const SpecUse& kept = *std::find_if(users.begin(), users.end(), [](const SpecUse& u) { return !u.change; });
        const SpecUse& changed = *std::find_if(users.begin(), users.end(), [](const SpecUse& u) { return u.change; });
        return Refusal{changed.v->getNameAsString() + " and " + kept.v->getNameAsString() +
                       " share one float type in their declaration, and only " + changed.v->getNameAsString() +
                       " is promoted: split the declaration" + at(kept.v)};
      }
      if (!any) continue;
      replace(b, entry.first, "double");
      n_locals_ += static_cast<unsigned>(users.size());
    }

    // 2. reads of float values that stay float in memory
    for (const clang::CastExpr* ce : c_.casts) {
      if (ce->getCastKind() != clang::CK_LValueToRValue || !isFloat(ce->getType())) continue;
      const clang::Expr* sub = ce->getSubExpr();
      if (memOf(sub) == kPromoted || convertedAnyway(ce) || widenedByOperator(ce)) continue;
      // inside its parentheses: `(v)` may be a macro body's, around an argument
      const clang::Expr* inner = sub->IgnoreParens();
      auto s = span(inner->getSourceRange());
      if (!s) return Refusal{"a float read is written " + throughMacro(inner->getBeginLoc()) + at(ce)};
      wrapped_reads_.insert(ce);
      if (wraps_.insert(*s).second) ++n_reads_;
    }

    // 3. explicit casts to float
    for (const clang::CastExpr* ce : c_.casts) {
      const auto* ex = llvm::dyn_cast<clang::ExplicitCastExpr>(ce);
      if (!ex || !isFloat(ex->getTypeAsWritten())) continue;
      const clang::TypeSourceInfo* tsi = ex->getTypeInfoAsWritten();
      auto spec = tsi ? floatSpec(tsi->getTypeLoc(), false, ex->getTypeAsWritten()) : std::nullopt;
      if (!spec || spec->isInvalid()) return Refusal{"the cast to float is not written where it can be changed" + at(ce)};
      auto s = span(*spec);
      if (!s) return Refusal{"a cast to float is written " + throughMacro(spec->getBegin()) + at(ce)};
      replace(s->first, s->second, "double");
      ++n_casts_;
    }

    // 4. float literals written in the file (those inside macro expansions are left alone)
    for (const clang::FloatingLiteral* l : c_.literals) {
      if (!isFloat(l->getType()) || l->getLocation().isMacroID() || !src_.inFile(l->getLocation())) continue;
      const unsigned b = src_.off(l->getLocation()), e = src_.tokEnd(l->getLocation());
      if (e <= b + 1 || (src_.text[e - 1] != 'f' && src_.text[e - 1] != 'F')) continue;
      replace(e - 1, e, "");
      ++n_literals_;
    }

    // 5. math calls
    for (const PlannedCall& pc : planned_calls_) {
      const clang::CallExpr* call = pc.call;
      if (pc.plan == CallPlan::WrapResult) {
        if (convertedAnyway(call) || widenedByOperator(call)) continue;
        auto s = span(call->getSourceRange());
        if (!s)
          return Refusal{"a call to " + call->getDirectCallee()->getNameAsString() + " is written " +
                         throughMacro(call->getBeginLoc()) + at(call)};
        wrapped_loads_.insert(call);
        if (wraps_.insert(*s).second) ++n_reads_;
        continue;
      }
      const auto* dre = llvm::dyn_cast<clang::DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts());
      const std::string name = call->getDirectCallee()->getNameAsString();
      if (!dre) return Refusal{"calls " + name + " in a form the pass cannot rename" + at(call)};
      auto s = span(clang::SourceRange(dre->getNameInfo().getLoc(), dre->getNameInfo().getLoc()));
      if (!s) return Refusal{"calls " + name + " " + throughMacro(dre->getNameInfo().getLoc()) + at(call)};
      replace(s->first, s->second, pc.to);
      // An argument that stays float (a literal inside a macro: `fmaxf(v, -FP16_MAX)`) next to a
      // promoted one would make a mixed (double, float) call, which picks the C++ library's
      // host-only template `fmax<T, U>` over CUDA's fmax(double, double): it is converted where
      // it is passed, exactly (float to double).
      if (pc.plan == CallPlan::Rename && call->getNumArgs() > 1) {
        auto asPassed = [](const clang::Expr* a) {  // the argument before its conversion to the parameter
          a = a->IgnoreParens();
          while (const auto* ic = llvm::dyn_cast<clang::ImplicitCastExpr>(a)) {
            if (ic->getCastKind() == clang::CK_LValueToRValue) break;
            a = ic->getSubExpr()->IgnoreParens();
          }
          return a;
        };
        const bool promoted_arg = std::any_of(call->arg_begin(), call->arg_end(),
                                              [&](const clang::Expr* a) { return doubleAfter(asPassed(a)); });
        for (const clang::Expr* a : call->arguments()) {
          const clang::Expr* w = asPassed(a);
          if (!promoted_arg || !isFloat(w->getType()) || doubleAfter(w)) continue;
          if (auto as = span(w->getSourceRange())) wraps_.insert(*as);
        }
      }
      if (pc.plan == CallPlan::Helper) {
        clang::IdentifierInfo& id = ctx_.Idents.get(pc.to);
        if (!ctx_.getTranslationUnitDecl()->lookup(clang::DeclarationName(&id)).empty())
          return Refusal{"the file already has a name " + pc.to};
        helpers_.insert(pc.helper_text);
      }
      ++n_calls_;
    }

    // Edits must not overlap (the same edit twice, from a macro argument used twice, is one).
    std::sort(replaces_.begin(), replaces_.end(), [](const Replace& a, const Replace& b) {
      return a.b != b.b ? a.b < b.b : a.e < b.e;
    });
    std::vector<Replace> unique;
    for (const Replace& r : replaces_) {
      if (!unique.empty() && unique.back().b == r.b && unique.back().e == r.e && unique.back().text == r.text) continue;
      if (!unique.empty() && r.b < unique.back().e) return Refusal{"two edits overlap at " + line(src_.at(r.b))};
      unique.push_back(r);
    }
    replaces_ = std::move(unique);
    if (replaces_.empty() && wraps_.empty()) return Refusal{"no floating-point arithmetic to promote"};
    return std::nullopt;
  }

  // Where the helpers go: the start of the line the kernel's declaration (its attributes and
  // __global__ included) begins on.
  unsigned kernelLineStart() const {
    clang::SourceLocation b = sm_.getExpansionLoc(kernel_->getOuterLocStart());
    unsigned o = src_.inFile(b) ? src_.off(b) : src_.off(sm_.getExpansionLoc(kernel_->getLocation()));
    for (const clang::Attr* a : kernel_->attrs()) {
      clang::SourceLocation l = sm_.getExpansionLoc(a->getLocation());
      if (src_.inFile(l)) o = std::min(o, src_.off(l));
    }
    return src_.lineStart(o);
  }

  TransformResult apply(clang::Rewriter& rw) {
    for (const Replace& r : replaces_)
      if (rw.ReplaceText(src_.at(r.b), r.e - r.b, r.text)) return TransformResult::no("the rewriter refused an edit");
    // Innermost first: an outer wrap's "(double)(" goes before, and its ")" after, an inner one's.
    std::vector<std::pair<unsigned, unsigned>> wraps(wraps_.begin(), wraps_.end());
    std::stable_sort(wraps.begin(), wraps.end(), [](const auto& a, const auto& b) { return a.second - a.first < b.second - b.first; });
    for (const auto& [b, e] : wraps) {
      if (rw.InsertTextBefore(src_.at(b), "(double)(") || rw.InsertTextAfter(src_.at(e), ")"))
        return TransformResult::no("the rewriter refused an edit");
    }
    if (!helpers_.empty()) {
      std::string text = "// promote-precision: double forms of float-only intrinsics\n";
      for (const std::string& h : helpers_) text += h + "\n";
      if (rw.InsertTextBefore(src_.at(kernelLineStart()), text)) return TransformResult::no("the rewriter refused an edit");
    }
    auto count = [](unsigned n, const char* what) {
      return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
    };
    std::string what = "promoted to double: " + count(n_locals_, "local") + ", " + count(n_reads_, "float read") + ", " +
                       count(n_calls_, "math call") + ", " + count(n_literals_, "literal") + ", " + count(n_casts_, "cast");
    return TransformResult::yes(what);
  }
};

class PromotePrecision : public Transform {
 public:
  std::string id() const override { return "promote-precision"; }
  std::string summary() const override {
    return "the kernel computing in double (float locals, literals, casts and math calls promoted; buffers kept): the gate's oracle";
  }

  TransformResult forward(TransformRequest& req) const override {
    const clang::FunctionDecl* k = req.kernel;
    if (k->getDescribedFunctionTemplate() || k->isTemplated() || k->isDependentContext())
      return TransformResult::no("template kernel: its types depend on template parameters, so the promotion cannot see "
                                 "which are float");
    if (!k->hasBody()) return TransformResult::no("the kernel has no body");
    Collected c;
    c.TraverseStmt(const_cast<clang::Stmt*>(k->getBody()));
    Promotion p(req.ctx, k, c);
    return p.run(req.rewriter);
  }

  TransformResult inverse(TransformRequest&) const override {
    return TransformResult::no("promote-precision has no inverse: the oracle is never a lineage step");
  }
};

}  // namespace

const Transform& promotePrecision() {
  static const PromotePrecision t;
  return t;
}

}  // namespace klineage
