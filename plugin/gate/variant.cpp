#include "gate/variant.h"

#include <algorithm>

namespace klineage {

void to_json(nlohmann::json& j, const Variant& v) {
  j = {{"id", v.id}, {"kernel", v.kernel}, {"kernel_file", v.kernel_file}, {"skills", v.skills},
       {"transforms", v.transforms}, {"geometry", v.geometry}, {"source", v.source},
       {"mangled_name", v.mangled_name}, {"diff", v.diff}, {"is_original", v.is_original},
       {"own_launches", v.own_launches}, {"divisible_by", v.divisible_by}};
  if (!v.unit.empty()) {
    j["unit"] = v.unit;
    j["unit_source"] = v.unit_source;
    j["include_dir"] = v.include_dir;
  }
}
void from_json(const nlohmann::json& j, Variant& v) {
  v.id = j.value("id", "");
  v.kernel = j.value("kernel", "");
  v.kernel_file = j.value("kernel_file", "");
  v.skills = j.value("skills", std::vector<std::string>{});
  v.transforms = j.value("transforms", std::vector<std::string>{});
  if (j.contains("geometry")) v.geometry = j["geometry"].get<GeometryChange>();
  v.source = j.value("source", "");
  v.mangled_name = j.value("mangled_name", "");
  v.diff = j.value("diff", "");
  v.is_original = j.value("is_original", false);
  v.own_launches = j.value("own_launches", std::vector<LaunchSite>{});
  v.divisible_by = j.value("divisible_by", std::map<std::string, long long>{});
  v.unit = j.value("unit", "");
  v.unit_source = j.value("unit_source", "");
  v.include_dir = j.value("include_dir", "");
}
nlohmann::json errorSummary(const RunnerResult& run) {
  // The output whose variant error is largest against its bound's base (the original's error).
  const BufferCompare* worst = nullptr;
  auto ratio = [](const BufferCompare& c) {
    return c.error_variant->max_rel / std::max(c.error_original->max_rel, 1e-300);
  };
  for (const auto& c : run.compares)
    if (c.error_original && c.error_variant && (!worst || ratio(c) > ratio(*worst))) worst = &c;
  nlohmann::json e = {{"oracle", run.oracle}};
  if (worst) {
    e["original"] = *worst->error_original;
    e["variant"] = *worst->error_variant;
    e["output"] = worst->param;
  } else {
    e["original"] = nullptr;
    e["variant"] = nullptr;
  }
  return e;
}

void to_json(nlohmann::json& j, const VariantReport& r) {
  j = {{"variant", r.variant}, {"outcome", outcomeName(r.outcome)}, {"reason", r.reason}, {"cubin", r.cubin},
       {"compile_s", r.compile_s}, {"speedup", r.speedup}, {"variant_ms", r.variant_ms},
       {"original_ms", r.original_ms}, {"rechecked", r.rechecked}, {"checks", r.checks}};
  j["run"] = r.run ? nlohmann::json(*r.run) : nlohmann::json(nullptr);
  if (r.run && !r.run->oracle.empty()) j["error"] = errorSummary(*r.run);
  if (!r.cache_key.empty()) j["cache_key"] = r.cache_key;
  if (r.cached) j["cached"] = true;
  if (!r.same_as.empty()) j["same_as"] = r.same_as;
}

std::map<std::string, const VariantReport*> selectBest(const std::vector<VariantReport>& reports) {
  std::map<std::string, const VariantReport*> best;
  for (const auto& r : reports) {
    if (r.variant.is_original || r.outcome != Outcome::Passed || r.speedup <= 0) continue;
    auto it = best.find(r.variant.kernel);
    if (it == best.end()) {
      best[r.variant.kernel] = &r;
      continue;
    }
    const VariantReport* cur = it->second;
    double a = r.speedup, b = cur->speedup;
    bool tie = std::abs(a - b) <= 0.005 * std::max(a, b);
    if (tie ? r.variant.transforms.size() < cur->variant.transforms.size() : a > b) it->second = &r;
  }
  return best;
}

}  // namespace klineage
