#include "core/probes.h"

#include <algorithm>
#include <set>

#include "core/diag.h"
#include "core/expr.h"

namespace klineage {

std::vector<std::string> sizeArguments(const WorkloadKernel& wk, const KernelInfo& k) {
  std::set<std::string> used;
  auto add = [&](const WorkloadExpr& e) {
    try {
      for (const auto& n : exprNames(e.text)) used.insert(n);
    } catch (const std::exception&) {  // validated elsewhere
    }
  };
  for (const auto& e : wk.grid) add(e);
  for (const auto& e : wk.block) add(e);
  add(wk.shmem);
  for (const auto& a : wk.args)
    if (a.is_buffer) {
      add(a.elements);
      add(a.offset);
    }
  std::vector<std::string> out;
  for (const auto& p : k.params) {
    if (p.is_pointer || !used.count(p.name)) continue;
    const WorkloadArg* a = wk.findArg(p.name);
    if (a && a->is_int) out.push_back(p.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Probe> probeLaunches(const WorkloadKernel& wk, const KernelInfo& k,
                                 const std::map<std::string, long long>& divisible_by) {
  const std::vector<std::string> sizes = sizeArguments(wk, k);
  std::vector<std::map<std::string, long long>> candidates;
  for (const auto& s : sizes) candidates.push_back({{s, wk.findArg(s)->ivalue + 1}});
  for (long long cap : {1013LL, 37LL}) {
    std::map<std::string, long long> c;
    for (const auto& s : sizes) {
      const long long v = wk.findArg(s)->ivalue;
      if (v - 1 >= 1) c[s] = std::min(v - 1, cap);
    }
    if (!c.empty()) candidates.push_back(c);
  }

  std::vector<Probe> out;
  std::set<std::map<std::string, long long>> seen;
  for (const auto& c : candidates) {
    if (out.size() >= kMaxProbes) break;
    bool allowed = seen.insert(c).second;
    for (const auto& [arg, d] : divisible_by) {
      auto it = c.find(arg);
      if (it != c.end() && d > 0 && it->second % d != 0) allowed = false;
    }
    if (!allowed) continue;
    WorkloadKernel w = wk;
    std::string name;
    for (auto& a : w.args) {
      auto it = c.find(a.name);
      if (it == c.end()) continue;
      a.ivalue = it->second;
      name += (name.empty() ? "" : ", ") + a.name + " = " + std::to_string(it->second);
    }
    try {
      out.push_back({name, prepareLaunch(w, k)});
    } catch (const InputError&) {  // a size that does not evaluate (below 1, overflow): not a probe
    }
  }
  return out;
}

}  // namespace klineage
