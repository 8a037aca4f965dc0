#include "core/manifest.h"

#include <cstdio>

namespace klineage {

const KernelInfo* Manifest::find(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name || k.qualified_name == name || k.mangled_name == name) return &k;
  for (const auto& k : kernels)
    for (const auto& m : k.instantiations)
      if (m == name) return &k;
  return nullptr;
}

KernelInfo instantiate(const KernelInfo& k, const TemplateInstance& ti) {
  KernelInfo out = k;
  out.mangled_name = ti.mangled;
  if (ti.params.size() == k.params.size()) out.params = ti.params;
  return out;
}

const TemplateInstance* workloadInstance(const KernelInfo& k) {
  if (k.instances.size() == 1) return &k.instances[0];
  for (const auto& l : k.launches)
    if (l.in_target_sources)
      for (const auto& ti : k.instances)
        if (ti.mangled == l.instantiation) return &ti;
  return k.instances.empty() ? nullptr : &k.instances[0];
}

std::string fnv1a64Hex(const std::string& text) {
  uint64_t h = 14695981039346656037ull;  // FNV-64 offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

const std::vector<std::string>& legacyFeatureIds() {
  static const std::vector<std::string> ids = {
      "all_pointers_restrict", "atomics", "barriers", "bounds_guard", "grid_stride_loop", "in_header",
      "launch_bounds", "loops", "pointer_params", "shared_memory", "shuffles", "template", "thread_index",
      "uses_block_geometry_outside_index"};
  return ids;
}

std::vector<std::string> legacyFeaturesOf(const KernelInfo& k) {
  const KernelFeatures& x = k.features;
  bool any_ptr = false, all_restrict = true;
  for (const auto& p : k.params)
    if (p.is_pointer) {
      any_ptr = true;
      all_restrict = all_restrict && p.is_restrict;
    }
  std::vector<std::string> ids;
  auto add = [&](bool present, const char* id) {
    if (present) ids.push_back(id);
  };
  add(any_ptr && all_restrict, "all_pointers_restrict");
  add(x.atomics, "atomics");
  add(x.barriers, "barriers");
  add(!x.bounds_guard.empty(), "bounds_guard");
  add(x.grid_stride_loop, "grid_stride_loop");
  add(k.in_header, "in_header");
  add(k.launch_bounds.has_value(), "launch_bounds");
  add(x.loops > 0, "loops");
  add(any_ptr, "pointer_params");
  add(x.shared_memory, "shared_memory");
  add(x.shuffles, "shuffles");
  add(k.is_template, "template");
  add(!x.thread_index.empty(), "thread_index");
  add(x.uses_block_geometry_outside_index, "uses_block_geometry_outside_index");
  return ids;
}

std::vector<std::string> featureIdsOf(const KernelInfo& k) { return k.feature_ids ? *k.feature_ids : legacyFeaturesOf(k); }

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SourceRange, file, begin_line, end_line, begin_offset, end_offset)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ParamInfo, name, type, is_pointer, pointee, pointee_const, is_restrict,
                                                size_bytes, written, read)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(KernelFeatures, thread_index, index_var, bounds_guard, grid_stride_loop,
                                                loops, shared_memory, barriers, atomics, shuffles,
                                                uses_block_geometry_outside_index)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ParseDiagnostic, file, errors)

void to_json(nlohmann::json& j, const TemplateInstance& t) {
  j = {{"mangled", t.mangled}, {"args", t.args}, {"params", t.params}};
}
void from_json(const nlohmann::json& j, TemplateInstance& t) {
  t.mangled = j.value("mangled", "");
  t.args = j.value("args", "");
  t.params = j.value("params", std::vector<ParamInfo>{});
}

void to_json(nlohmann::json& j, const LaunchSite& l) {
  j = {{"file", l.file}, {"line", l.line}, {"column", l.column}, {"grid", l.grid}, {"block", l.block},
       {"shmem", l.shmem}, {"stream", l.stream}, {"grid_type", l.grid_type}, {"block_type", l.block_type},
       {"args", l.args}, {"config_range", l.config_range}, {"in_target_sources", l.in_target_sources}};
  if (!l.instantiation.empty()) j["instantiation"] = l.instantiation;
  j["block_value"] = l.block_value ? nlohmann::json(*l.block_value) : nlohmann::json(nullptr);
  j["block_dims"] = l.block_dims;
  j["form"] = l.form;
  j["launcher"] = l.launcher;
  j["grid_expr"] = l.grid_expr;
  j["block_expr"] = l.block_expr;
  j["shmem_expr"] = l.shmem_expr ? nlohmann::json(*l.shmem_expr) : nlohmann::json(nullptr);
  for (const auto& [key, why] : {std::pair{"grid_unresolved", &l.grid_unresolved}, {"block_unresolved", &l.block_unresolved},
                                 {"shmem_unresolved", &l.shmem_unresolved}, {"not_rewritable", &l.not_rewritable}})
    if (!why->empty()) j[key] = *why;
}
void from_json(const nlohmann::json& j, LaunchSite& l) {
  l.file = j.value("file", "");
  l.line = j.value("line", 0u);
  l.column = j.value("column", 0u);
  l.grid = j.value("grid", "");
  l.block = j.value("block", "");
  l.shmem = j.value("shmem", "");
  l.stream = j.value("stream", "");
  l.grid_type = j.value("grid_type", "");
  l.block_type = j.value("block_type", "");
  l.args = j.value("args", std::vector<std::string>{});
  if (j.contains("config_range")) l.config_range = j.at("config_range").get<SourceRange>();
  l.in_target_sources = j.value("in_target_sources", true);
  l.instantiation = j.value("instantiation", "");
  if (j.contains("block_value") && !j.at("block_value").is_null()) l.block_value = j.at("block_value").get<long long>();
  l.block_dims = j.value("block_dims", std::vector<long long>{});
  l.form = j.value("form", "<<<>>>");
  l.launcher = j.value("launcher", "");
  l.grid_expr = j.value("grid_expr", std::vector<LaunchExpr>{});
  l.block_expr = j.value("block_expr", std::vector<LaunchExpr>{});
  if (j.contains("shmem_expr") && !j.at("shmem_expr").is_null()) l.shmem_expr = j.at("shmem_expr").get<LaunchExpr>();
  l.grid_unresolved = j.value("grid_unresolved", "");
  l.block_unresolved = j.value("block_unresolved", "");
  l.shmem_unresolved = j.value("shmem_unresolved", "");
  l.not_rewritable = j.value("not_rewritable", "");
}

void to_json(nlohmann::json& j, const KernelInfo& k) {
  j = {{"name", k.name}, {"qualified_name", k.qualified_name}, {"mangled_name", k.mangled_name},
       {"range", k.range}, {"in_header", k.in_header}, {"params", k.params}, {"features", k.features},
       {"launches", k.launches}, {"source_hash", k.source_hash}, {"is_template", k.is_template},
       {"instantiations", k.instantiations}, {"instances", k.instances}, {"units", k.units},
       {"included_from", k.included_from}, {"included_as", k.included_as}, {"declarations", k.declarations}, {"notes", k.notes}};
  j["launch_bounds"] = k.launch_bounds ? nlohmann::json(*k.launch_bounds) : nlohmann::json(nullptr);
  if (k.feature_ids) j["feature_ids"] = *k.feature_ids;
}
void from_json(const nlohmann::json& j, KernelInfo& k) {
  k.name = j.value("name", "");
  k.qualified_name = j.value("qualified_name", "");
  k.mangled_name = j.value("mangled_name", "");
  if (j.contains("range")) k.range = j.at("range").get<SourceRange>();
  k.in_header = j.value("in_header", false);
  k.params = j.value("params", std::vector<ParamInfo>{});
  if (j.contains("features")) k.features = j.at("features").get<KernelFeatures>();
  k.launches = j.value("launches", std::vector<LaunchSite>{});
  k.source_hash = j.value("source_hash", "");
  k.is_template = j.value("is_template", false);
  k.instantiations = j.value("instantiations", std::vector<std::string>{});
  k.instances = j.value("instances", std::vector<TemplateInstance>{});
  k.units = j.value("units", std::vector<std::string>{});
  k.included_from = j.value("included_from", "");
  k.included_as = j.value("included_as", "");
  k.declarations = j.value("declarations", 1u);
  k.notes = j.value("notes", std::vector<std::string>{});
  if (j.contains("launch_bounds") && !j.at("launch_bounds").is_null())
    k.launch_bounds = j.at("launch_bounds").get<std::string>();
  if (j.contains("feature_ids") && !j.at("feature_ids").is_null())
    k.feature_ids = j.at("feature_ids").get<std::vector<std::string>>();
}

void to_json(nlohmann::json& j, const Manifest& m) {
  j = {{"format", "klineage-manifest-1"}, {"target", m.target}, {"sources", m.sources},
       {"kernels", m.kernels}, {"diagnostics", m.diagnostics}, {"files", m.files}, {"includes", m.includes}};
}
void from_json(const nlohmann::json& j, Manifest& m) {
  m.target = j.value("target", "");
  m.sources = j.value("sources", std::vector<std::string>{});
  m.kernels = j.value("kernels", std::vector<KernelInfo>{});
  m.diagnostics = j.value("diagnostics", std::vector<ParseDiagnostic>{});
  m.files = j.value("files", std::vector<std::string>{});
  m.includes = j.value("includes", std::vector<IncludeEdge>{});
}

void to_json(nlohmann::json& j, const IncludeEdge& e) { j = {{"includer", e.includer}, {"file", e.file}, {"as", e.as}}; }
void from_json(const nlohmann::json& j, IncludeEdge& e) {
  e.includer = j.value("includer", "");
  e.file = j.value("file", "");
  e.as = j.value("as", "");
}

}  // namespace klineage
