#include "report.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "status.h"

namespace klineage {

std::map<Outcome, unsigned> Report::counts() const {
  std::map<Outcome, unsigned> c;
  for (Outcome o : kAllOutcomes) c[o] = 0;
  for (const auto& v : variants)
    if (!v.variant.is_original) ++c[v.outcome];
  return c;
}

size_t Report::variantCount() const {
  size_t n = 0;
  for (const auto& v : variants) n += v.variant.is_original ? 0 : 1;
  return n;
}

nlohmann::json reportJson(const Report& r) {
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& [k, why] : r.skipped) skipped.push_back({{"kernel", k}, {"reason", why}});
  nlohmann::json j = {{"format", "klineage-report-1"}, {"target", r.target},
                      {"device", r.device ? nlohmann::json(*r.device) : nlohmann::json(nullptr)},
                      {"device_reason", r.device_reason}, {"arch", r.arch}, {"driver", r.driver}, {"backend", r.backend},
                      {"skipped", skipped}, {"seconds", r.seconds}};
  j["stages"] = nlohmann::json::array();
  for (const auto& [stage, sec] : r.stages) j["stages"].push_back({{"stage", stage}, {"seconds", sec}});
  j["kernels"] = nlohmann::json::array();
  for (const auto& k : r.kernels)
    j["kernels"].push_back({{"kernel", k.kernel}, {"gated_on", k.gated_on}, {"record", k.record}, {"facts", k.facts},
                            {"notes", k.notes}, {"skills_not_applied", k.skills_not_applied}, {"grid", k.grid},
                            {"block", k.block}});
  j["variants"] = nlohmann::json::array();
  for (const auto& v : r.variants) j["variants"].push_back(v);
  j["counts"] = nlohmann::json::object();
  for (const auto& [o, n] : r.counts()) j["counts"][outcomeName(o)] = n;
  unsigned identical = 0, cached = 0;
  for (const auto& v : r.variants)
    if (!v.variant.is_original) {
      identical += !v.same_as.empty();
      cached += v.cached;
    }
  j["not_gated_identical"] = identical;
  j["from_result_cache"] = cached;
  j["selected"] = nlohmann::json::object();
  for (const auto& [name, s] : r.selected)
    j["selected"][name] = {{"variant", s.variant}, {"speedup", s.speedup}, {"skills", s.skills}};
  return j;
}

void writeJsonReport(const Report& r, const std::string& path) { atomicWrite(path, reportJson(r).dump(2) + "\n"); }

void writeSummary(const Report& r, const std::string& report_path, Status& status, const std::string& html_path) {
  std::string line = "klineage: " + std::to_string(r.variantCount()) + " variants:";
  bool first = true;
  for (const auto& [o, n] : r.counts()) {
    line += std::string(first ? " " : ", ") + std::to_string(n) + " " + (o == Outcome::NotRun ? "not run" : outcomeName(o));
    first = false;
  }
  // Variants not gated in this run: the same code as another (identical.h), or a result reused
  // from the result cache.
  unsigned identical = 0, cached = 0;
  for (const auto& v : r.variants)
    if (!v.variant.is_original) {
      identical += !v.same_as.empty();
      cached += v.cached;
    }
  if (identical) line += "; " + std::to_string(identical) + " not gated: the same code as another variant or the original";
  if (cached) line += "; " + std::to_string(cached) + " from the result cache";
  char buf[64];
  std::snprintf(buf, sizeof buf, " (%.1f s)", r.seconds);
  status.info(line + buf);
  if (!r.stages.empty()) {
    std::string t = "klineage: time:";
    for (const auto& [stage, sec] : r.stages) {
      std::snprintf(buf, sizeof buf, " %.1f s,", sec);
      t += " " + stage + buf;
    }
    t.pop_back();
    status.info(t);
  }
  for (const auto& [name, s] : r.selected) {
    std::snprintf(buf, sizeof buf, "%.2fx", s.speedup);
    std::string chain;
    for (const auto& k : s.skills) chain += (chain.empty() ? "" : "+") + k;
    status.info("klineage: selected " + name + ": " + (chain.empty() ? s.variant : chain) + " (" + buf + ")");
  }
  if (r.device && r.selected.empty())
    status.info("klineage: no variant beat the original beyond noise; the original kernels are kept");
  status.info("klineage: report: " + report_path);
  if (!html_path.empty()) status.info("klineage: report page: " + html_path);
}

}  // namespace klineage
