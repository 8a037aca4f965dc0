// Launch expressions (core/launch_expr.h) and their evaluation at a launch site (core/launch_eval.h):
// the trees extraction resolves, printed for people, carried in manifest.json, evaluated with C's
// integer rules for a launch's arguments and the launcher's parameters.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/launch_eval.h"
#include "core/launch_expr.h"

using namespace klineage;
using Op = LaunchExpr::Op;

namespace {
LaunchExpr n() { return LaunchExpr::arg("n"); }
LaunchExpr c(long long v) { return LaunchExpr::constant(v); }
LaunchExpr bin(Op op, LaunchExpr a, LaunchExpr b) { return LaunchExpr::node(op, {std::move(a), std::move(b)}); }
}  // namespace

TEST_CASE("launch expressions print as C with the parentheses precedence needs", "[launch_expr]") {
  CHECK(launchExprText(bin(Op::Div, bin(Op::Add, n(), c(255)), c(256))) == "(n + 255) / 256");
  CHECK(launchExprText(bin(Op::Sub, n(), bin(Op::Sub, c(1), c(2)))) == "n - (1 - 2)");
  CHECK(launchExprText(bin(Op::Sub, bin(Op::Sub, n(), c(1)), c(2))) == "n - 1 - 2");
  auto clamp = LaunchExpr::node(Op::Select, {bin(Op::Gt, n(), c(0)), n(), c(1)});
  CHECK(launchExprText(clamp) == "n > 0 ? n : 1");
  CHECK(launchExprText(bin(Op::Mul, clamp, c(2))) == "(n > 0 ? n : 1) * 2");
  CHECK(launchExprText(bin(Op::Min, LaunchExpr::param("max_blocks"), n())) == "min(max_blocks, n)");
  CHECK(launchExprText(LaunchExpr::node(Op::Neg, {bin(Op::Add, n(), c(1))})) == "-(n + 1)");
}

TEST_CASE("launch expressions evaluate with C's integer rules, and errors name what is missing", "[launch_expr]") {
  LaunchBindings b{{{"n", 1000}}, {{"block_size", 128}}};
  std::string why;
  CHECK(evalLaunchExpr(bin(Op::Div, bin(Op::Add, n(), c(255)), c(256)), b, &why) == 4);
  CHECK(evalLaunchExpr(bin(Op::Div, c(-7), c(2)), b, &why) == -3);  // truncates toward zero
  CHECK(evalLaunchExpr(bin(Op::Mod, c(-7), c(2)), b, &why) == -1);
  CHECK(evalLaunchExpr(bin(Op::Shr, bin(Op::Add, n(), c(255)), c(8)), b, &why) == 4);
  CHECK(evalLaunchExpr(LaunchExpr::node(Op::Select, {bin(Op::Lt, n(), c(1024)), c(128), c(256)}), b, &why) == 128);
  CHECK(evalLaunchExpr(bin(Op::Max, c(1), bin(Op::Div, n(), c(2048))), b, &why) == 1);
  CHECK(evalLaunchExpr(LaunchExpr::param("block_size"), b, &why) == 128);
  // only the branch taken is evaluated, as in C: the other divides by zero
  CHECK(evalLaunchExpr(LaunchExpr::node(Op::Select, {c(1), c(5), bin(Op::Div, c(1), c(0))}), b, &why) == 5);
  CHECK(evalLaunchExpr(bin(Op::LAnd, c(0), bin(Op::Div, c(1), c(0))), b, &why) == 0);

  CHECK_FALSE(evalLaunchExpr(bin(Op::Div, n(), bin(Op::Sub, n(), n())), b, &why));
  CHECK_THAT(why, Catch::Contains("division by zero"));
  CHECK_FALSE(evalLaunchExpr(bin(Op::Mul, c(1ll << 62), c(4)), b, &why));
  CHECK_THAT(why, Catch::Contains("integer overflow"));
  CHECK_FALSE(evalLaunchExpr(LaunchExpr::arg("rows"), b, &why));
  CHECK_THAT(why, Catch::Contains("'rows', the kernel's argument"));
  CHECK_FALSE(evalLaunchExpr(LaunchExpr::param("threads"), b, &why));
  CHECK_THAT(why, Catch::Contains("'threads' is a parameter of the launching function"));
}

TEST_CASE("launch expressions fold constants and round-trip through JSON", "[launch_expr]") {
  auto e = bin(Op::Add, bin(Op::Mul, c(16), c(16)), n());
  CHECK(foldLaunchExpr(e) == bin(Op::Add, c(256), n()));
  CHECK(foldLaunchExpr(LaunchExpr::node(Op::Select, {c(0), n(), c(7)})) == c(7));
  auto div0 = bin(Op::Div, c(1), c(0));
  CHECK(foldLaunchExpr(div0) == div0);  // kept for the evaluation to report
  const auto tree = LaunchExpr::node(
      Op::Select, {bin(Op::Gt, n(), c(0)), bin(Op::Min, LaunchExpr::param("b"), n()), LaunchExpr::node(Op::Neg, {c(1)})});
  nlohmann::json j = tree;
  CHECK(j.get<LaunchExpr>() == tree);
  CHECK(nlohmann::json(c(256)).dump() == "256");
  CHECK(nlohmann::json(n()).dump() == R"({"arg":"n"})");
  CHECK_THROWS_AS((nlohmann::json::parse(R"({"op": "pow", "args": [1, 2]})").get<LaunchExpr>()), nlohmann::json::exception);
}

TEST_CASE("a launch site evaluates for a launch's arguments, its launcher parameters from a launched geometry",
          "[launch_expr]") {
  KernelInfo k;
  k.name = "row_softmax";
  ParamInfo x;
  x.name = "x";
  x.is_pointer = true;
  x.type = "float *";
  ParamInfo rows;
  rows.name = "rows";
  rows.type = "int";
  ParamInfo scale;
  scale.name = "scale";
  scale.type = "float";
  k.params = {x, rows, scale};
  LaunchSite l;
  l.grid = "grid_size";
  l.block = "block_size";
  auto bs = LaunchExpr::param("block_size");
  l.grid_expr = {bin(Op::Div, bin(Op::Sub, bin(Op::Add, LaunchExpr::arg("rows"), bs), c(1)), bs), c(1), c(1)};
  l.block_expr = {bs, c(1), c(1)};
  l.shmem_expr = bin(Op::Mul, bs, c(4));
  const std::map<std::string, double> scalars = {{"rows", 1000}, {"scale", 0.5}};
  CHECK(integerArgs(k, scalars) == std::map<std::string, long long>{{"rows", 1000}});
  std::string why;
  CHECK_FALSE(evalLaunchSite(l, k, scalars, &why));
  CHECK_THAT(why, Catch::Contains("the grid.x") && Catch::Contains("'block_size' is a parameter"));
  const auto launcher = launcherValues(l, Geometry{Dim3{4, 1, 1}, Dim3{256, 1, 1}, 1024});
  CHECK(launcher == std::map<std::string, long long>{{"block_size", 256}});
  auto g = evalLaunchSite(l, k, scalars, &why, launcher);
  REQUIRE(g);
  CHECK(g->grid == (Dim3{4, 1, 1}));
  CHECK(g->block == (Dim3{256, 1, 1}));
  CHECK(g->shmem == 1024);
  CHECK(describeResolved(l) ==
        "grid ((rows + block_size - 1) / block_size, 1, 1), block (block_size, 1, 1), shared memory block_size * 4");
  // An unresolved part says what the resolver refused.
  l.block_expr.clear();
  l.block_unresolved = "'tpb' is changed after its declaration (line 13: 'tpb *= 2')";
  CHECK_FALSE(evalLaunchSite(l, k, scalars, &why, launcher));
  CHECK_THAT(why, Catch::Contains("the block is not known: 'tpb' is changed"));
  // The same resolved geometry is the same launch, whatever the text.
  LaunchSite a = l, b2 = l;
  a.block_expr = b2.block_expr = {c(256), c(1), c(1)};
  a.grid = "grid_size";
  b2.grid = "(rows + block_size - 1) / block_size";
  CHECK(sameLaunch(a, b2));
  b2.block_expr = {c(128), c(1), c(1)};
  CHECK_FALSE(sameLaunch(a, b2));
}
