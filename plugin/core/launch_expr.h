// A launch's geometry as Clang resolved it through the host code (rewriter/launch_resolve.h): a
// small expression tree over the kernel's arguments and the launching function's own parameters,
// or a constant. It is plain data (manifest.json carries it) and is evaluated here without Clang,
// for a workload's or a captured launch's values. Integer arithmetic only, as C does it on 64-bit
// signed values: division truncates; overflow and division by zero are errors, not wrapped values.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace klineage {

struct LaunchExpr {
  enum class Op {
    Const,  // value
    Arg,    // name: the kernel's parameter of that name, i.e. the value passed to it at this launch
    Param,  // name: a parameter of the launching function not passed to the kernel ("grid.x" for a dim3's part)
    Add, Sub, Mul, Div, Mod, Shl, Shr, BitAnd, BitOr, BitXor,
    Lt, Le, Gt, Ge, Eq, Ne, LAnd, LOr,
    Neg, Not, BitNot,
    Select,  // args[0] ? args[1] : args[2]
    Min, Max,
  };
  Op op = Op::Const;
  long long value = 0;
  std::string name;
  std::vector<LaunchExpr> args;

  static LaunchExpr constant(long long v) { return {Op::Const, v, {}, {}}; }
  static LaunchExpr arg(std::string n) { return {Op::Arg, 0, std::move(n), {}}; }
  static LaunchExpr param(std::string n) { return {Op::Param, 0, std::move(n), {}}; }
  static LaunchExpr node(Op op, std::vector<LaunchExpr> args) { return {op, 0, {}, std::move(args)}; }

  bool isConst() const { return op == Op::Const; }
  bool operator==(const LaunchExpr& o) const {
    return op == o.op && value == o.value && name == o.name && args == o.args;
  }
};

// C-like text for people ("(n + 255) / 256", "block_size", "n > 0 ? n : 1").
std::string launchExprText(const LaunchExpr& e);

// The kernel arguments (Arg) and launcher parameters (Param) it reads, sorted, unique.
std::vector<std::string> launchExprNames(const LaunchExpr& e, LaunchExpr::Op which);

// Folds constant subtrees (what the resolver builds from helper bodies and ternaries over constants).
LaunchExpr foldLaunchExpr(LaunchExpr e);

struct LaunchBindings {
  std::map<std::string, long long> args;    // kernel parameter name -> value passed at this launch
  std::map<std::string, long long> params;  // launcher parameter -> value, where known
};

// The value for these bindings; nullopt and why (naming the missing name, the overflow or the
// division by zero) when it cannot be evaluated.
std::optional<long long> evalLaunchExpr(const LaunchExpr& e, const LaunchBindings& b, std::string* why);

void to_json(nlohmann::json& j, const LaunchExpr& e);    // 256 | {"arg": "n"} | {"param": "b"} | {"op": "+", "args": [...]}
void from_json(const nlohmann::json& j, LaunchExpr& e);  // throws nlohmann::json::exception on a malformed tree

}  // namespace klineage
