#include "core/launch_expr.h"

#include <climits>
#include <set>

#include <nlohmann/json.hpp>

namespace klineage {

namespace {

using Op = LaunchExpr::Op;

struct OpInfo {
  Op op;
  const char* text;  // operator, or function name for Min/Max
  int prec;          // C precedence for printing: higher binds tighter
  unsigned arity;
};

const std::vector<OpInfo>& ops() {
  static const std::vector<OpInfo> v = {
      {Op::Mul, "*", 13, 2},   {Op::Div, "/", 13, 2},   {Op::Mod, "%", 13, 2},   {Op::Add, "+", 12, 2},
      {Op::Sub, "-", 12, 2},   {Op::Shl, "<<", 11, 2},  {Op::Shr, ">>", 11, 2},  {Op::Lt, "<", 10, 2},
      {Op::Le, "<=", 10, 2},   {Op::Gt, ">", 10, 2},    {Op::Ge, ">=", 10, 2},   {Op::Eq, "==", 9, 2},
      {Op::Ne, "!=", 9, 2},    {Op::BitAnd, "&", 8, 2}, {Op::BitXor, "^", 7, 2}, {Op::BitOr, "|", 6, 2},
      {Op::LAnd, "&&", 5, 2},  {Op::LOr, "||", 4, 2},   {Op::Select, "?:", 3, 3}, {Op::Neg, "-", 14, 1},
      {Op::Not, "!", 14, 1},   {Op::BitNot, "~", 14, 1}, {Op::Min, "min", 15, 2}, {Op::Max, "max", 15, 2},
  };
  return v;
}

const OpInfo* infoOf(Op op) {
  for (const auto& i : ops())
    if (i.op == op) return &i;
  return nullptr;
}

const OpInfo* infoOf(const std::string& text, size_t arity) {
  for (const auto& i : ops())
    if (text == i.text && i.arity == arity) return &i;
  return nullptr;
}

int precOf(const LaunchExpr& e) {
  if (e.op == Op::Const || e.op == Op::Arg || e.op == Op::Param) return 16;
  return infoOf(e.op)->prec;
}

std::string text(const LaunchExpr& e, int outer) {
  std::string s;
  switch (e.op) {
    case Op::Const: return std::to_string(e.value);
    case Op::Arg:
    case Op::Param: return e.name;
    case Op::Min:
    case Op::Max: return std::string(infoOf(e.op)->text) + "(" + text(e.args[0], 0) + ", " + text(e.args[1], 0) + ")";
    case Op::Select:
      s = text(e.args[0], 4) + " ? " + text(e.args[1], 3) + " : " + text(e.args[2], 3);
      break;
    case Op::Neg:
    case Op::Not:
    case Op::BitNot: s = std::string(infoOf(e.op)->text) + text(e.args[0], 14); break;
    default: {
      const int p = precOf(e);
      // left-associative: the right operand of the same precedence needs parentheses
      s = text(e.args[0], p) + " " + infoOf(e.op)->text + " " + text(e.args[1], p + 1);
    }
  }
  return precOf(e) < outer ? "(" + s + ")" : s;
}

void names(const LaunchExpr& e, Op which, std::set<std::string>& out) {
  if (e.op == which) out.insert(e.name);
  for (const auto& a : e.args) names(a, which, out);
}

bool fail(std::string* why, const std::string& w) {
  if (why) *why = w;
  return false;
}

bool eval(const LaunchExpr& e, const LaunchBindings& b, long long* out, std::string* why) {
  switch (e.op) {
    case Op::Const: *out = e.value; return true;
    case Op::Arg: {
      auto it = b.args.find(e.name);
      if (it == b.args.end()) return fail(why, "'" + e.name + "', the kernel's argument, has no known integer value");
      *out = it->second;
      return true;
    }
    case Op::Param: {
      auto it = b.params.find(e.name);
      if (it == b.params.end())
        return fail(why, "'" + e.name + "' is a parameter of the launching function that is not passed to the kernel: "
                         "its value is not known here");
      *out = it->second;
      return true;
    }
    case Op::Select: {
      long long c;
      if (!eval(e.args[0], b, &c, why)) return false;
      return eval(e.args[c ? 1 : 2], b, out, why);
    }
    case Op::LAnd:
    case Op::LOr: {  // short-circuit, as C does
      long long l;
      if (!eval(e.args[0], b, &l, why)) return false;
      if ((e.op == Op::LAnd) != (l != 0)) {
        *out = l != 0;
        return true;
      }
      long long r;
      if (!eval(e.args[1], b, &r, why)) return false;
      *out = r != 0;
      return true;
    }
    default: break;
  }
  std::vector<long long> v(e.args.size());
  for (size_t i = 0; i < e.args.size(); ++i)
    if (!eval(e.args[i], b, &v[i], why)) return false;
  const std::string at = " in '" + launchExprText(e) + "'";
  bool overflow = false;
  switch (e.op) {
    case Op::Neg: overflow = __builtin_sub_overflow(0LL, v[0], out); break;
    case Op::Not: *out = !v[0]; break;
    case Op::BitNot: *out = ~v[0]; break;
    case Op::Add: overflow = __builtin_add_overflow(v[0], v[1], out); break;
    case Op::Sub: overflow = __builtin_sub_overflow(v[0], v[1], out); break;
    case Op::Mul: overflow = __builtin_mul_overflow(v[0], v[1], out); break;
    case Op::Div:
    case Op::Mod:
      if (v[1] == 0) return fail(why, "division by zero" + at);
      if (v[0] == LLONG_MIN && v[1] == -1) overflow = true;
      else *out = e.op == Op::Div ? v[0] / v[1] : v[0] % v[1];
      break;
    case Op::Shl:
    case Op::Shr:
      if (v[1] < 0 || v[1] > 62) return fail(why, "shift by " + std::to_string(v[1]) + at);
      if (e.op == Op::Shr) *out = v[0] >> v[1];
      else overflow = __builtin_mul_overflow(v[0], 1LL << v[1], out);
      break;
    case Op::BitAnd: *out = v[0] & v[1]; break;
    case Op::BitOr: *out = v[0] | v[1]; break;
    case Op::BitXor: *out = v[0] ^ v[1]; break;
    case Op::Lt: *out = v[0] < v[1]; break;
    case Op::Le: *out = v[0] <= v[1]; break;
    case Op::Gt: *out = v[0] > v[1]; break;
    case Op::Ge: *out = v[0] >= v[1]; break;
    case Op::Eq: *out = v[0] == v[1]; break;
    case Op::Ne: *out = v[0] != v[1]; break;
    case Op::Min: *out = std::min(v[0], v[1]); break;
    case Op::Max: *out = std::max(v[0], v[1]); break;
    default: return fail(why, "unknown operation");
  }
  if (overflow) return fail(why, "integer overflow" + at);
  return true;
}

}  // namespace

std::string launchExprText(const LaunchExpr& e) { return text(e, 0); }

std::vector<std::string> launchExprNames(const LaunchExpr& e, LaunchExpr::Op which) {
  std::set<std::string> out;
  names(e, which, out);
  return {out.begin(), out.end()};
}

LaunchExpr foldLaunchExpr(LaunchExpr e) {
  bool all_const = !e.args.empty();
  for (auto& a : e.args) {
    a = foldLaunchExpr(std::move(a));
    all_const &= a.isConst();
  }
  if (e.op == Op::Select && e.args[0].isConst()) return e.args[e.args[0].value ? 1 : 2];
  if (!all_const) return e;
  long long v;
  if (eval(e, {}, &v, nullptr)) return LaunchExpr::constant(v);
  return e;  // an error (division by zero) stays for the evaluation to report
}

std::optional<long long> evalLaunchExpr(const LaunchExpr& e, const LaunchBindings& b, std::string* why) {
  long long v;
  if (!eval(e, b, &v, why)) return std::nullopt;
  return v;
}

void to_json(nlohmann::json& j, const LaunchExpr& e) {
  switch (e.op) {
    case Op::Const: j = e.value; return;
    case Op::Arg: j = {{"arg", e.name}}; return;
    case Op::Param: j = {{"param", e.name}}; return;
    default: j = {{"op", infoOf(e.op)->text}, {"args", e.args}};
  }
}

void from_json(const nlohmann::json& j, LaunchExpr& e) {
  if (j.is_number_integer()) {
    e = LaunchExpr::constant(j.get<long long>());
    return;
  }
  if (j.contains("arg")) {
    e = LaunchExpr::arg(j.at("arg").get<std::string>());
    return;
  }
  if (j.contains("param")) {
    e = LaunchExpr::param(j.at("param").get<std::string>());
    return;
  }
  const auto& args = j.at("args");
  const OpInfo* i = infoOf(j.at("op").get<std::string>(), args.size());
  if (!i) throw nlohmann::json::other_error::create(501, "unknown launch expression operation " + j.at("op").dump(), &j);
  e = LaunchExpr::node(i->op, args.get<std::vector<LaunchExpr>>());
}

}  // namespace klineage
