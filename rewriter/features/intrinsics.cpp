#include "rewriter/features/intrinsics.h"

#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Type.h>

namespace klineage {

const std::vector<IntrinsicPattern>& intrinsicPatterns() {
  using P = IntrinsicPattern;
  // First match wins: the barriers come before the `*_sync` suffix that would call them collectives.
  static const std::vector<IntrinsicPattern> list = {
      {"__syncthreads", P::Prefix, IntrinsicKind::Barrier, "__syncthreads, _count, _and, _or"},
      {"__syncwarp", P::Exact, IntrinsicKind::Barrier, "warp barrier"},
      {"__barrier", P::Prefix, IntrinsicKind::Barrier, "named barriers (__barrier_sync, ...)"},
      {"barrier_sync", P::Exact, IntrinsicKind::Barrier, "cooperative groups"},
      {"sync", P::Exact, IntrinsicKind::Barrier, "cooperative groups: block.sync(), grid.sync()"},
      {"grid_sync", P::Exact, IntrinsicKind::Barrier, "cooperative groups"},
      {"__threadfence_block", P::Exact, IntrinsicKind::Barrier, "block-scope fence"},
      {"atomic", P::Prefix, IntrinsicKind::Atomic, "atomicAdd, atomicCAS, atomicAdd_block, ..."},
      {"__atomic", P::Prefix, IntrinsicKind::Atomic, "GCC-style __atomic_* builtins"},
      {"fetch_", P::Prefix, IntrinsicKind::Atomic, "cuda::atomic(_ref)::fetch_add, ..."},
      {"__shfl", P::Prefix, IntrinsicKind::WarpCollective, "__shfl_sync, __shfl_down_sync, ..."},
      {"shfl", P::Prefix, IntrinsicKind::WarpCollective, "cooperative groups: tile.shfl_down(), ..."},
      {"reduce", P::Exact, IntrinsicKind::WarpCollective, "cooperative groups: cg::reduce"},
      {"__ballot", P::Prefix, IntrinsicKind::WarpCollective, "warp vote"},
      {"__any", P::Prefix, IntrinsicKind::WarpCollective, "warp vote"},
      {"__all", P::Prefix, IntrinsicKind::WarpCollective, "warp vote"},
      {"__match", P::Prefix, IntrinsicKind::WarpCollective, "__match_any_sync, __match_all_sync"},
      {"__reduce", P::Prefix, IntrinsicKind::WarpCollective, "__reduce_add_sync, ..."},
      {"_sync", P::Suffix, IntrinsicKind::WarpCollective, "any other intrinsic taking a warp mask"},
  };
  return list;
}

std::optional<IntrinsicKind> intrinsicKind(const std::string& name) {
  if (name.empty()) return std::nullopt;
  for (const IntrinsicPattern& p : intrinsicPatterns()) {
    std::string pat = p.pattern;
    bool hit = false;
    switch (p.match) {
      case IntrinsicPattern::Exact: hit = name == pat; break;
      case IntrinsicPattern::Prefix: hit = name.rfind(pat, 0) == 0; break;
      case IntrinsicPattern::Suffix:
        hit = name.size() > pat.size() && name.compare(name.size() - pat.size(), pat.size(), pat) == 0;
        break;
    }
    if (hit) return p.kind;
  }
  return std::nullopt;
}

std::string describe(IntrinsicKind kind) {
  switch (kind) {
    case IntrinsicKind::Barrier: return "a barrier";
    case IntrinsicKind::Atomic: return "an atomic";
    case IntrinsicKind::WarpCollective: return "a warp collective";
  }
  return "an intrinsic";
}

bool shuffleTakes(const clang::QualType& t) {
  const auto* bt = t.getCanonicalType()->getAs<clang::BuiltinType>();
  if (!bt) return false;
  switch (bt->getKind()) {
    case clang::BuiltinType::Float:
    case clang::BuiltinType::Double:
    case clang::BuiltinType::Int:
    case clang::BuiltinType::UInt:
    case clang::BuiltinType::ULongLong:
    case clang::BuiltinType::LongLong:
      return true;
    default:
      return false;
  }
}

std::string calleeName(const clang::CallExpr* c) {
  if (!c) return "";
  if (auto* mce = llvm::dyn_cast<clang::CXXMemberCallExpr>(c))
    if (auto* md = mce->getMethodDecl()) return md->getNameAsString();
  if (auto* fd = c->getDirectCallee()) return fd->getNameAsString();
  const clang::Expr* callee = c->getCallee();
  if (!callee) return "";
  callee = callee->IgnoreParenImpCasts();
  if (auto* ule = llvm::dyn_cast<clang::UnresolvedLookupExpr>(callee)) return ule->getName().getAsString();
  if (auto* ume = llvm::dyn_cast<clang::UnresolvedMemberExpr>(callee)) return ume->getMemberName().getAsString();
  if (auto* dme = llvm::dyn_cast<clang::CXXDependentScopeMemberExpr>(callee)) return dme->getMember().getAsString();
  if (auto* me = llvm::dyn_cast<clang::MemberExpr>(callee)) return me->getMemberDecl()->getNameAsString();
  return "";
}

}  // namespace klineage
