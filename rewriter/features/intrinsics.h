// The one list of CUDA calls that synchronize or communicate between threads: barriers (and
// block fences), atomics, and warp collectives (shuffles, votes, matches, warp reductions).
// Extraction's features (barriers, atomics, shuffles) and the transforms' refusals both read it;
// nothing else in the rewriter or the plugin keeps its own list of such names.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace clang {
class CallExpr;
class QualType;
}

namespace klineage {

enum class IntrinsicKind { Barrier, Atomic, WarpCollective };

// What a call to `callee` (a plain function or member name, as calleeName() gives it) is, if it is
// one of the listed intrinsics. Matching is by name: exact names, prefixes (`__syncthreads*`,
// `atomic*`, `__shfl*`, ...) and the `*_sync` suffix every other warp-mask intrinsic has.
std::optional<IntrinsicKind> intrinsicKind(const std::string& callee);

// "a barrier", "an atomic", "a warp collective" (for refusal reasons).
std::string describe(IntrinsicKind kind);

// The name a call is made by: the callee's name, a member call's method name (cooperative groups:
// block.sync(), tile.shfl_down()), or the name of a call a template leaves unresolved. "" when the
// callee has no name (a call through a pointer).
std::string calleeName(const clang::CallExpr* call);

// Whether __shfl_down_sync / __shfl_xor_sync take a value of type t as the shuffle transforms emit
// them: float, double, int, unsigned int, long long, unsigned long long (canonical types, so
// typedefs count). Other types (half, char, structs) are refused by the transforms that shuffle.
bool shuffleTakes(const clang::QualType& t);

// The list itself, for documentation and tests: {pattern, how it matches, kind}.
struct IntrinsicPattern {
  const char* pattern;
  enum Match { Exact, Prefix, Suffix } match;
  IntrinsicKind kind;
  const char* note;
};
const std::vector<IntrinsicPattern>& intrinsicPatterns();

}  // namespace klineage
