#include "core/expr.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace klineage {

std::string ExprValue::str() const {
  if (is_int) return std::to_string(i);
  // Shortest text that reads back as the same double.
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, f);
    if (std::strtod(buf, nullptr) == f) break;
  }
  return buf;
}

namespace {

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string joinNames(const std::map<std::string, ExprValue>& vars) {
  if (vars.empty()) return "(none)";
  std::string s;
  for (const auto& [k, v] : vars) s += (s.empty() ? "" : ", ") + k;
  return s;
}

// Recursive descent over the text. With `evaluate` false it only checks syntax and records names,
// so that a workload can be checked before the values are known.
class Parser {
 public:
  Parser(std::string_view text, const std::map<std::string, ExprValue>* vars)
      : text_(text), vars_(vars) {}

  ExprValue parseAll() {
    skipSpace();
    if (pos_ >= text_.size()) fail("expected an expression, found nothing");
    ExprValue v = parseExpr();
    skipSpace();
    if (pos_ < text_.size())
      fail(std::string("expected an operator (+ - * / %) or the end of the expression, found '") + text_[pos_] + "'");
    return v;
  }
  std::set<std::string> names;

 private:
  std::string_view text_;
  const std::map<std::string, ExprValue>* vars_;  // null: syntax check only
  size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what, size_t at) const {
    throw ExprError(static_cast<unsigned>(at + 1), what);
  }
  [[noreturn]] void fail(const std::string& what) const { fail(what, pos_); }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string found() const {
    return pos_ < text_.size() ? std::string("'") + text_[pos_] + "'" : "the end of the expression";
  }
  void expect(char c, const char* context) {
    if (!accept(c)) fail(std::string("expected '") + c + "' " + context + ", found " + found());
  }

  ExprValue parseExpr() {
    ExprValue v = parseTerm();
    for (;;) {
      skipSpace();
      if (pos_ >= text_.size()) return v;
      char op = text_[pos_];
      if (op != '+' && op != '-') return v;
      size_t at = pos_++;
      ExprValue r = parseTerm();
      v = binary(op, v, r, at);
    }
  }

  ExprValue parseTerm() {
    ExprValue v = parseUnary();
    for (;;) {
      skipSpace();
      if (pos_ >= text_.size()) return v;
      char op = text_[pos_];
      if (op != '*' && op != '/' && op != '%') return v;
      size_t at = pos_++;
      ExprValue r = parseUnary();
      v = binary(op, v, r, at);
    }
  }

  ExprValue parseUnary() {
    skipSpace();
    size_t at = pos_;
    if (accept('-')) {
      ExprValue v = parseUnary();
      if (!vars_) return v;
      if (!v.is_int) return ExprValue::real(-v.f);
      long long out;
      if (__builtin_sub_overflow(0LL, v.i, &out)) fail("integer overflow in negation", at);
      return ExprValue::integer(out);
    }
    if (accept('+')) return parseUnary();
    return parsePrimary();
  }

  ExprValue parsePrimary() {
    skipSpace();
    if (pos_ >= text_.size()) fail("expected a number, a name or '(', found the end of the expression");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      ExprValue v = parseExpr();
      expect(')', "to close the parenthesis");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && pos_ + 1 < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_ + 1]))))
      return parseNumber();
    if (isIdentStart(c)) return parseName();
    fail("expected a number, a name or '(', found " + found());
  }

  ExprValue parseNumber() {
    size_t start = pos_;
    bool is_float = false;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_float = true;
      ++pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      is_float = true;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_])))
        fail("expected digits after the exponent of the number");
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    // "12abc" is a typo, not the number 12 followed by a name.
    if (pos_ < text_.size() && isIdentChar(text_[pos_]))
      fail(std::string("expected an operator after the number, found '") + text_[pos_] + "'");
    std::string lit(text_.substr(start, pos_ - start));
    errno = 0;
    if (is_float) return ExprValue::real(std::strtod(lit.c_str(), nullptr));
    long long v = std::strtoll(lit.c_str(), nullptr, 10);
    if (errno == ERANGE) fail("integer literal " + lit + " does not fit in 64 bits", start);
    return ExprValue::integer(v);
  }

  ExprValue parseName() {
    size_t start = pos_;
    while (pos_ < text_.size() && isIdentChar(text_[pos_])) ++pos_;
    std::string name(text_.substr(start, pos_ - start));
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      if (name != "min" && name != "max" && name != "ceil_div")
        fail("unknown function '" + name + "'; known functions: ceil_div, max, min", start);
      ++pos_;
      ExprValue a = parseExpr();
      expect(',', "between the two arguments of " + name);
      size_t bpos = pos_;
      ExprValue b = parseExpr();
      expect(')', ("after the second argument of " + name).c_str());
      return call(name, a, b, start, bpos);
    }
    names.insert(name);
    if (!vars_) return ExprValue::integer(1);
    auto it = vars_->find(name);
    if (it == vars_->end()) fail("unknown name '" + name + "'; known names: " + joinNames(*vars_), start);
    return it->second;
  }
  void expect(char c, const std::string& context) { expect(c, context.c_str()); }

  ExprValue call(const std::string& fn, ExprValue a, ExprValue b, size_t at, size_t bpos) {
    if (!vars_) return ExprValue::integer(1);
    if (fn == "min" || fn == "max") {
      bool pick_a = fn == "min" ? a.toDouble() <= b.toDouble() : a.toDouble() >= b.toDouble();
      if (a.is_int && b.is_int) return pick_a ? a : b;
      return ExprValue::real(pick_a ? a.toDouble() : b.toDouble());
    }
    // ceil_div
    if (a.is_int && b.is_int) {
      if (b.i == 0) fail("division by zero in ceil_div (the second argument is 0)", bpos);
      if (a.i == LLONG_MIN && b.i == -1) fail("integer overflow in ceil_div", at);
      long long q = a.i / b.i;
      if (a.i % b.i != 0 && ((a.i < 0) == (b.i < 0))) ++q;
      return ExprValue::integer(q);
    }
    if (b.toDouble() == 0) fail("division by zero in ceil_div (the second argument is 0)", bpos);
    return ExprValue::real(std::ceil(a.toDouble() / b.toDouble()));
  }

  ExprValue binary(char op, ExprValue a, ExprValue b, size_t at) {
    if (!vars_) return ExprValue::integer(1);
    if (a.is_int && b.is_int) {
      long long out = 0;
      bool overflow = false;
      switch (op) {
        case '+': overflow = __builtin_add_overflow(a.i, b.i, &out); break;
        case '-': overflow = __builtin_sub_overflow(a.i, b.i, &out); break;
        case '*': overflow = __builtin_mul_overflow(a.i, b.i, &out); break;
        case '/':
        case '%':
          if (b.i == 0) fail(std::string("division by zero (right operand of '") + op + "' is 0)", at);
          if (a.i == LLONG_MIN && b.i == -1) overflow = true;
          else out = op == '/' ? a.i / b.i : a.i % b.i;
          break;
      }
      if (overflow) fail(std::string("integer overflow in '") + op + "'", at);
      return ExprValue::integer(out);
    }
    double x = a.toDouble(), y = b.toDouble();
    switch (op) {
      case '+': return ExprValue::real(x + y);
      case '-': return ExprValue::real(x - y);
      case '*': return ExprValue::real(x * y);
      default:
        if (y == 0) fail(std::string("division by zero (right operand of '") + op + "' is 0)", at);
        return ExprValue::real(op == '/' ? x / y : std::fmod(x, y));
    }
  }
};

}  // namespace

ExprValue evalExpr(std::string_view text, const std::map<std::string, ExprValue>& vars) {
  Parser p(text, &vars);
  return p.parseAll();
}

ExprValue evalExpr(std::string_view text, const std::map<std::string, double>& vars) {
  std::map<std::string, ExprValue> typed;
  for (const auto& [k, v] : vars) {
    bool integral = std::isfinite(v) && std::trunc(v) == v && std::fabs(v) < 9.2e18;
    typed[k] = integral ? ExprValue::integer(static_cast<long long>(v)) : ExprValue::real(v);
  }
  return evalExpr(text, typed);
}

std::vector<std::string> exprNames(std::string_view text) {
  Parser p(text, nullptr);
  p.parseAll();
  return {p.names.begin(), p.names.end()};
}

}  // namespace klineage
