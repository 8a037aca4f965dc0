// Workload expressions: small integer/float arithmetic over a kernel's scalar arguments, used for
// grid/block sizes and buffer lengths ("(n + 255) / 256"). Grammar:
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '%') unary)*
//   unary   := ('-' | '+') unary | primary
//   primary := number | name | name '(' expr ',' expr ')' | '(' expr ')'
// Functions: min, max, ceil_div. Numbers without '.' or exponent are integers. Like C, an operation
// on two integers is an integer operation (division truncates); any float operand makes it float.
// Integer overflow and division by zero are errors, not wrapped or infinite results.
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace klineage {

struct ExprValue {
  bool is_int = true;
  long long i = 0;  // when is_int
  double f = 0;     // when !is_int
  static ExprValue integer(long long v) { return {true, v, 0}; }
  static ExprValue real(double v) { return {false, 0, v}; }
  double toDouble() const { return is_int ? static_cast<double>(i) : f; }
  std::string str() const;  // "262144", "2.5"
};

// A syntax or evaluation error. `column` is 1-based within the expression text; `detail` says what
// was expected or what went wrong. what() is "column N: detail".
struct ExprError : std::runtime_error {
  unsigned column;
  std::string detail;
  ExprError(unsigned column_, std::string detail_)
      : std::runtime_error("column " + std::to_string(column_) + ": " + detail_),
        column(column_), detail(std::move(detail_)) {}
};

// Evaluates `text` with typed variables.
ExprValue evalExpr(std::string_view text, const std::map<std::string, ExprValue>& vars);

// Same, with plain double variables: a variable whose value is integral (and fits in 64 bits)
// counts as an integer, so "(n + 255) / 256" stays an integer division.
ExprValue evalExpr(std::string_view text, const std::map<std::string, double>& vars);

// Checks the syntax only and returns the variable names the expression uses (sorted, unique).
std::vector<std::string> exprNames(std::string_view text);

}  // namespace klineage
