#include "core/launch_eval.h"

#include <cctype>
#include <filesystem>
#include <regex>

#include "core/expr.h"

namespace klineage {

namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::optional<unsigned> sizeOfType(const std::string& t) {
  static const std::map<std::string, unsigned> vectors = {
      {"float2", 8}, {"float4", 16}, {"double2", 16}, {"int2", 8}, {"int4", 16}, {"uint2", 8}, {"uint4", 16},
      {"half", 2}, {"__half", 2}, {"half2", 4}, {"__half2", 4}, {"__nv_bfloat16", 2}};
  auto it = vectors.find(t);
  if (it != vectors.end()) return it->second;
  if (auto e = elemTypeFromCType(t)) return elemSize(*e);
  return std::nullopt;
}

// sizeof(T) -> its size, 256u -> 256; false (why) for a sizeof it does not know.
bool rewriteForEval(std::string* text, std::string* why) {
  static const std::regex size_of(R"(sizeof\s*\(\s*([A-Za-z_][A-Za-z0-9_: ]*?)\s*\))");
  std::smatch m;
  std::string s = *text;
  while (std::regex_search(s, m, size_of)) {
    auto n = sizeOfType(m[1].str());
    if (!n) {
      *why = "sizeof(" + m[1].str() + ") is not a type it knows the size of";
      return false;
    }
    s = m.prefix().str() + std::to_string(*n) + m.suffix().str();
  }
  static const std::regex suffix(R"(\b([0-9]+)[uUlL]+\b)");
  *text = std::regex_replace(s, suffix, "$1");
  return true;
}

// "dim3(a, b)" -> {"a", "b"}; anything else -> {text}.
std::vector<std::string> dimParts(const std::string& text) {
  std::string t = trim(text);
  for (const char* open : {"dim3(", "dim3{"}) {
    const std::string o = open;
    if (t.rfind(o, 0) != 0) continue;
    const char close = o.back() == '(' ? ')' : '}';
    if (t.back() != close) break;
    std::string inner = t.substr(o.size(), t.size() - o.size() - 1);
    std::vector<std::string> parts;
    int depth = 0;
    std::string cur;
    for (char c : inner) {
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if (c == ',' && depth == 0) {
        parts.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    parts.push_back(cur);
    return parts;
  }
  return {t};
}

std::optional<long long> evalPart(const std::string& part, const std::map<std::string, ExprValue>& vars,
                                  const std::string& what, std::string* why) {
  std::string text = part;
  if (!rewriteForEval(&text, why)) return std::nullopt;
  try {
    for (const std::string& name : exprNames(text))
      if (!vars.count(name) && name != "min" && name != "max" && name != "ceil_div") {
        *why = what + " uses '" + name + "', which is not an argument passed to the kernel by name";
        return std::nullopt;
      }
    ExprValue v = evalExpr(text, vars);
    if (!v.is_int) {
      *why = what + " '" + part + "' is not an integer";
      return std::nullopt;
    }
    return v.i;
  } catch (const ExprError& e) {
    *why = what + " '" + part + "' cannot be evaluated: " + e.detail;
    return std::nullopt;
  }
}

std::optional<Dim3> evalDim(const std::string& text, const std::map<std::string, ExprValue>& vars,
                            const std::string& what, std::string* why) {
  std::vector<std::string> parts = dimParts(text);
  if (parts.empty() || parts.size() > 3) {
    *why = what + " '" + text + "' has " + std::to_string(parts.size()) + " dimensions";
    return std::nullopt;
  }
  long long d[3] = {1, 1, 1};
  for (size_t i = 0; i < parts.size(); ++i) {
    auto v = evalPart(parts[i], vars, what, why);
    if (!v) return std::nullopt;
    d[i] = *v;
  }
  return Dim3{d[0], d[1], d[2]};
}

}  // namespace

std::optional<Geometry> evalLaunchSite(const LaunchSite& l, const KernelInfo& k,
                                       const std::map<std::string, double>& scalars, std::string* why) {
  std::map<std::string, ExprValue> vars;
  for (size_t i = 0; i < l.args.size() && i < k.params.size(); ++i) {
    const std::string a = trim(l.args[i]);
    auto v = scalars.find(k.params[i].name);
    if (!isIdentifier(a) || v == scalars.end()) continue;
    const bool integral = !elemTypeFromCType(k.params[i].type) || !isFloat(*elemTypeFromCType(k.params[i].type));
    vars[a] = integral ? ExprValue::integer(static_cast<long long>(v->second)) : ExprValue::real(v->second);
  }
  Geometry g;
  auto grid = evalDim(l.grid, vars, "the grid", why);
  if (!grid) return std::nullopt;
  auto block = evalDim(l.block, vars, "the block", why);
  if (!block) return std::nullopt;
  g.grid = *grid;
  g.block = *block;
  if (!trim(l.shmem).empty()) {
    auto s = evalPart(l.shmem, vars, "the shared-memory size", why);
    if (!s) return std::nullopt;
    if (*s < 0 || *s > 0xFFFFFFFFll) {
      *why = "the shared-memory size is " + std::to_string(*s);
      return std::nullopt;
    }
    g.shmem = static_cast<unsigned>(*s);
  }
  return g;
}

std::string describeLaunchSite(const KernelInfo& k, const LaunchSite& l) {
  std::string cfg = l.grid + ", " + l.block + (l.shmem.empty() ? "" : ", " + l.shmem);
  return k.name + "<<<" + cfg + ">>> at " + std::filesystem::path(l.file).filename().string() + ":" +
         std::to_string(l.line);
}

bool sameLaunchText(const LaunchSite& a, const LaunchSite& b) {
  return squeeze(a.grid) == squeeze(b.grid) && squeeze(a.block) == squeeze(b.block) &&
         squeeze(a.shmem) == squeeze(b.shmem);
}

}  // namespace klineage
