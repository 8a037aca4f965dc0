#include "core/launch_eval.h"

#include <cctype>
#include <cmath>
#include <filesystem>

namespace klineage {

namespace {

std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

std::optional<Dim3> evalDim(const std::vector<LaunchExpr>& parts, const std::string& unresolved, const LaunchBindings& b,
                            const std::string& what, std::string* why) {
  if (parts.size() != 3) {
    *why = what + " is not known: " + (unresolved.empty() ? "it was not resolved" : unresolved);
    return std::nullopt;
  }
  long long d[3];
  static const char* axis[] = {".x", ".y", ".z"};
  for (int i = 0; i < 3; ++i) {
    std::string w;
    auto v = evalLaunchExpr(parts[i], b, &w);
    if (!v) {
      *why = what + axis[i] + " (" + launchExprText(parts[i]) + ") cannot be evaluated: " + w;
      return std::nullopt;
    }
    d[i] = *v;
  }
  return Dim3{d[0], d[1], d[2]};
}

std::string dimsText(const std::vector<LaunchExpr>& parts) {
  std::string s = "(";
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + launchExprText(parts[i]);
  return s + ")";
}

bool resolved(const LaunchSite& l) { return l.grid_expr.size() == 3 && l.block_expr.size() == 3 && l.shmem_expr; }

}  // namespace

std::map<std::string, long long> integerArgs(const KernelInfo& k, const std::map<std::string, double>& scalars) {
  std::map<std::string, long long> out;
  for (const auto& prm : k.params) {
    auto it = scalars.find(prm.name);
    if (prm.is_pointer || it == scalars.end()) continue;
    auto t = elemTypeFromCType(prm.type);
    if (t && isFloat(*t)) continue;
    if (!std::isfinite(it->second) || std::trunc(it->second) != it->second || std::fabs(it->second) > 9.2e18) continue;
    out[prm.name] = static_cast<long long>(it->second);
  }
  return out;
}

std::optional<Geometry> evalLaunchSite(const LaunchSite& l, const KernelInfo& k,
                                       const std::map<std::string, double>& scalars, std::string* why,
                                       const std::map<std::string, long long>& launcher) {
  LaunchBindings b{integerArgs(k, scalars), launcher};
  Geometry g;
  auto grid = evalDim(l.grid_expr, l.grid_unresolved, b, "the grid", why);
  if (!grid) return std::nullopt;
  auto block = evalDim(l.block_expr, l.block_unresolved, b, "the block", why);
  if (!block) return std::nullopt;
  g.grid = *grid;
  g.block = *block;
  if (!l.shmem_expr) {
    *why = "the shared-memory size is not known: " + (l.shmem_unresolved.empty() ? "it was not resolved" : l.shmem_unresolved);
    return std::nullopt;
  }
  std::string w;
  auto s = evalLaunchExpr(*l.shmem_expr, b, &w);
  if (!s) {
    *why = "the shared-memory size (" + launchExprText(*l.shmem_expr) + ") cannot be evaluated: " + w;
    return std::nullopt;
  }
  if (*s < 0 || *s > 0xFFFFFFFFll) {
    *why = "the shared-memory size is " + std::to_string(*s);
    return std::nullopt;
  }
  g.shmem = static_cast<unsigned>(*s);
  return g;
}

std::map<std::string, long long> launcherValues(const LaunchSite& l, const Geometry& launched) {
  std::map<std::string, long long> out;
  auto take = [&](const std::vector<LaunchExpr>& parts, const Dim3& d) {
    const long long v[3] = {d.x, d.y, d.z};
    for (size_t i = 0; i < parts.size() && i < 3; ++i)
      if (parts[i].op == LaunchExpr::Op::Param) out.emplace(parts[i].name, v[i]);
  };
  take(l.grid_expr, launched.grid);
  take(l.block_expr, launched.block);
  if (l.shmem_expr && l.shmem_expr->op == LaunchExpr::Op::Param) out.emplace(l.shmem_expr->name, launched.shmem);
  return out;
}

std::string describeLaunchSite(const KernelInfo& k, const LaunchSite& l) {
  std::string cfg = l.grid + ", " + l.block + (l.shmem.empty() ? "" : ", " + l.shmem);
  const std::string where = std::filesystem::path(l.file).filename().string() + ":" + std::to_string(l.line);
  if (l.form == "<<<>>>" || l.form.empty()) return k.name + "<<<" + cfg + ">>> at " + where;
  return l.form + "(" + k.name + ", " + cfg + ") at " + where;
}

std::string describeResolved(const LaunchSite& l) {
  std::string s = "grid " + (l.grid_expr.size() == 3 ? dimsText(l.grid_expr) : "unknown (" + l.grid_unresolved + ")");
  s += ", block " + (l.block_expr.size() == 3 ? dimsText(l.block_expr) : "unknown (" + l.block_unresolved + ")");
  if (!l.shmem_expr) s += ", shared memory unknown (" + l.shmem_unresolved + ")";
  else if (!(l.shmem_expr->isConst() && l.shmem_expr->value == 0)) s += ", shared memory " + launchExprText(*l.shmem_expr);
  return s;
}

bool sameLaunch(const LaunchSite& a, const LaunchSite& b) {
  if (resolved(a) && resolved(b))
    return a.grid_expr == b.grid_expr && a.block_expr == b.block_expr && a.shmem_expr == b.shmem_expr;
  return squeeze(a.grid) == squeeze(b.grid) && squeeze(a.block) == squeeze(b.block) &&
         squeeze(a.shmem) == squeeze(b.shmem);
}

}  // namespace klineage
