// Small helpers over Clang's AST shared by extraction and the transforms.
#pragma once
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/Basic/SourceManager.h>

namespace klineage {

// The text of a range as written (macro expansions resolved to their expansion site).
std::string sourceText(const clang::ASTContext& ctx, clang::SourceRange range);
clang::CharSourceRange fileRange(const clang::ASTContext& ctx, clang::SourceRange range);

// Whitespace-free text, used to compare index expressions independent of formatting.
std::string squeeze(const std::string& s);

// The absolute path of the file a range begins in (macro expansions resolved to where they are
// written; the real path when the file system knows it).
std::string fileOf(const clang::ASTContext& ctx, clang::SourceRange range);

// The global thread index and the grid stride are recognized on the AST: see
// features/cuda_matchers.h (isGlobalThreadIndex, isGridStride, isGridStrideLoop).

// The __global__ kernel definition whose name matches, written in the main file, or in `file` when
// given (a header of the unit). For a template kernel, the template's pattern (its FunctionDecl).
const clang::FunctionDecl* findKernel(clang::ASTContext& ctx, const std::string& name, const std::string& file = "");

// Whether statement s refers to d anywhere.
bool usesDecl(const clang::Stmt* s, const clang::ValueDecl* d);

// Every reference to d under s.
std::vector<const clang::DeclRefExpr*> refsTo(const clang::Stmt* s, const clang::ValueDecl* d);

// The statement directly above s: nullptr at the top of a body or where s is part of a declaration
// (a variable's initializer), which callers that climb expressions treat as "not followed".
const clang::Stmt* parentStmtOf(clang::ASTContext& ctx, const clang::Stmt& s);

// Whether every use of v under s only reads it (an lvalue-to-rvalue conversion, through parentheses):
// no assignment, increment, address taken or reference bound.
bool onlyReads(clang::ASTContext& ctx, const clang::Stmt* s, const clang::VarDecl* v);

// An index at a loop's counter c: `c` (then *offset is null), or `R + c` / `c + R` with R the same
// in every iteration and wherever it is written: no memory, no calls, no side effects, no variable
// the kernel writes or the loop's body declares (row transforms read `out[row * C + c]` so).
bool counterIndex(clang::ASTContext& ctx, const clang::Stmt* kernel_body, const clang::Stmt* loop_body,
                  const clang::Expr* idx, const clang::VarDecl* c, const clang::Expr** offset);

// A VarDecl or ParmVarDecl referenced by expression e (after ignoring parens/casts), or null.
const clang::ValueDecl* referencedDecl(const clang::Expr* e);

// Every CUDA kernel launch (k<<<...>>>(...)) in the translation unit.
std::vector<const clang::CUDAKernelCallExpr*> kernelCalls(clang::ASTContext& ctx);

// The function a callee or function-pointer expression names (`k`, `&k`, `(void*)k`, `reduce<512>`,
// an unresolved overload set's first), as its template pattern when it is an instantiation (then
// *instance, when given, is the instantiation); null when it names none.
const clang::FunctionDecl* kernelFromCallee(const clang::Expr* e, const clang::FunctionDecl** instance = nullptr);

// The callee kernel of a launch (the primary template for an instantiation).
const clang::FunctionDecl* launchedKernel(const clang::CUDAKernelCallExpr* call);

// The argument as the user wrote it (implicit conversions to dim3 and default arguments removed);
// null for a defaulted argument.
const clang::Expr* writtenArg(const clang::Expr* e);

// Mangled name of a kernel (as the device module names it).
std::string mangledName(clang::ASTContext& ctx, const clang::FunctionDecl* fd);

bool isBuiltinGeometry(const std::string& name);  // threadIdx, blockIdx, blockDim, gridDim

}  // namespace klineage
