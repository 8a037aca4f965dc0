#include <catch2/catch.hpp>

#include "core/expr.h"

using namespace klineage;

namespace {
ExprValue ev(const std::string& text, std::map<std::string, double> vars = {}) { return evalExpr(text, vars); }

ExprError exprError(const std::string& text, std::map<std::string, double> vars = {}) {
  try {
    evalExpr(text, vars);
  } catch (const ExprError& e) {
    return e;
  }
  FAIL("expected an ExprError for \"" << text << "\"");
  throw;  // not reached: FAIL throws
}
}  // namespace

TEST_CASE("expressions: the saxpy grid stays an integer division", "[expr]") {
  ExprValue v = ev("(n + 255) / 256", {{"n", 67108864}});
  REQUIRE(v.is_int);
  CHECK(v.i == 262144);
  // One more element needs one more block: truncation, not rounding to nearest.
  CHECK(ev("(n + 255) / 256", {{"n", 67108865}}).i == 262145);
}

TEST_CASE("expressions: precedence, unary minus and integer semantics", "[expr]") {
  CHECK(ev("2 + 3 * 4").i == 14);
  CHECK(ev("(2 + 3) * 4").i == 20);
  CHECK(ev("-(2 + 3) * 2").i == -10);
  CHECK(ev("10 - 4 - 3").i == 3);  // left associative
  CHECK(ev("7 / 2").i == 3);
  CHECK(ev("-7 / 2").i == -3);     // truncates toward zero, like C
  CHECK(ev("7 % 3").i == 1);
  ExprValue f = ev("7 / 2.0");
  REQUIRE_FALSE(f.is_int);
  CHECK(f.f == Approx(3.5));
  CHECK(ev("1e3").f == Approx(1000));
  CHECK(ev("7.5 % 2").f == Approx(1.5));
}

TEST_CASE("expressions: min, max, ceil_div", "[expr]") {
  CHECK(ev("min(3, n)", {{"n", 5}}).i == 3);
  CHECK(ev("max(3, n)", {{"n", 5}}).i == 5);
  CHECK(ev("ceil_div(10, 4)").i == 3);
  CHECK(ev("ceil_div(8, 4)").i == 2);
  CHECK(ev("ceil_div(-7, 2)").i == -3);
  CHECK(ev("min(ceil_div(n, 256), 65535)", {{"n", 67108864}}).i == 65535);
  ExprValue m = ev("max(1, 2.5)");
  REQUIRE_FALSE(m.is_int);
  CHECK(m.f == Approx(2.5));
}

TEST_CASE("expressions: variable types", "[expr]") {
  // Plain doubles: integral values act as integers, others as floats.
  CHECK(ev("a * 2", {{"a", 1.5}}).f == Approx(3.0));
  CHECK(ev("a / 4", {{"a", 2.0}}).i == 0);
  // Typed variables keep a float parameter's value a float even when integral.
  std::map<std::string, ExprValue> typed{{"a", ExprValue::real(2.0)}};
  ExprValue v = evalExpr("a / 4", typed);
  REQUIRE_FALSE(v.is_int);
  CHECK(v.f == Approx(0.5));
  CHECK(ExprValue::real(2.5).str() == "2.5");
  CHECK(ExprValue::integer(-3).str() == "-3");
}

TEST_CASE("expressions: errors give the column and what was expected", "[expr]") {
  ExprError e = exprError("n +", {{"n", 1}});
  CHECK(e.column == 4);
  CHECK_THAT(e.detail, Catch::Contains("expected a number, a name or '('"));

  e = exprError("(n + 1", {{"n", 1}});
  CHECK(e.column == 7);
  CHECK_THAT(e.detail, Catch::Contains("expected ')'"));

  e = exprError("m + 1", {{"n", 1}, {"a", 2}});
  CHECK(e.column == 1);
  CHECK_THAT(e.detail, Catch::Contains("unknown name 'm'"));
  CHECK_THAT(e.detail, Catch::Contains("known names: a, n"));

  e = exprError("n / (n - n)", {{"n", 3}});
  CHECK(e.column == 3);
  CHECK_THAT(e.detail, Catch::Contains("division by zero"));

  e = exprError("foo(1, 2)");
  CHECK_THAT(e.detail, Catch::Contains("unknown function 'foo'"));
  CHECK_THAT(e.detail, Catch::Contains("ceil_div, max, min"));

  e = exprError("2 3");
  CHECK(e.column == 3);
  CHECK_THAT(e.detail, Catch::Contains("expected an operator"));

  e = exprError("min(1)");
  CHECK_THAT(e.detail, Catch::Contains("expected ','"));

  CHECK_THAT(exprError("9223372036854775807 + 1").detail, Catch::Contains("integer overflow"));
  CHECK_THAT(exprError("  ").detail, Catch::Contains("expected an expression"));
  CHECK_THAT(exprError("12abc").detail, Catch::Contains("expected an operator after the number"));
  CHECK(std::string(exprError("n +", {{"n", 1}}).what()) == "column 4: expected a number, a name or '(', found the end of the expression");
}

TEST_CASE("expressions: names are collected without values", "[expr]") {
  CHECK(exprNames("ceil_div(n, b) + n * 2") == std::vector<std::string>{"b", "n"});
  CHECK(exprNames("256").empty());
  CHECK_THROWS_AS(exprNames("n +"), ExprError);
  // No evaluation, so no division by zero when the values are not known yet.
  CHECK(exprNames("n / 0") == std::vector<std::string>{"n"});
}
