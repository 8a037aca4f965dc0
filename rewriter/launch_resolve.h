// Kernel launches in host code, and their geometry resolved through the launching function with
// Clang: local variables and their initializers (dim3 constructors, auto, const), constexpr and
// const globals, enum constants and macros (folded by Clang's constant evaluator), inline helpers
// whose body is one `return` (ceil_div), ternaries, std::min/std::max, and the launcher's own
// parameters. The result (core/launch_expr.h) is an expression over the kernel's arguments and
// the launcher's parameters, or a constant; what cannot be resolved is refused with the construct.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include "core/launch_expr.h"

namespace klineage {

// One launch: `k<<<grid, block, shmem, stream>>>(args)`, `cudaLaunchKernel(k, grid, block, args,
// shmem, stream)` or `cudaLaunchKernelEx(&config, k, args...)`.
struct FoundLaunch {
  const clang::CallExpr* call = nullptr;
  const clang::FunctionDecl* kernel = nullptr;  // the primary template's pattern for a template kernel
  const clang::FunctionDecl* instance = nullptr;  // the specialization launched, when the kernel is a template
  std::string form;                              // "<<<>>>", "cudaLaunchKernel", "cudaLaunchKernelEx"
  // As passed (writtenArg: implicit conversions removed); null when absent. For
  // cudaLaunchKernelEx they are the config's fields' values, when found.
  const clang::Expr* grid = nullptr;
  const clang::Expr* block = nullptr;
  const clang::Expr* shmem = nullptr;
  const clang::Expr* stream = nullptr;
  std::vector<const clang::Expr*> args;  // the kernel's arguments, in parameter order (empty: unknown)
  std::string not_rewritable;            // why a geometry change cannot be written here ("" when it can)
  std::string config_why;                // cudaLaunchKernelEx: why the config's fields were not found
};

// Every launch in the unit's non-template code and in function-template patterns (instantiations
// are looked at by resolveGeometry), in source order.
std::vector<FoundLaunch> findLaunches(clang::ASTContext& ctx);

struct ResolvedGeometry {
  std::vector<LaunchExpr> grid, block;  // {x, y, z}, empty with *_why when not resolved
  std::optional<LaunchExpr> shmem;      // 0 when the launch gives none
  std::string grid_why, block_why, shmem_why;
  std::string launcher;                 // the launching function's name
};

ResolvedGeometry resolveGeometry(clang::ASTContext& ctx, const FoundLaunch& launch);

// The part of a launch's grid or block expression whose text can be replaced in the file: the
// expression itself, or inside parentheses a macro wrote around a macro argument
// (`k<<<(grid), (block)>>>` in a launch macro); null when none (the expression is made by a macro).
const clang::Expr* editableExpr(const clang::ASTContext& ctx, const clang::Expr* e);

// Why a geometry change cannot be written at this launch ("" when it can).
std::string notRewritable(const clang::ASTContext& ctx, const FoundLaunch& launch);

}  // namespace klineage
