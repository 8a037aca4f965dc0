#include "gate/selection.h"

#include <filesystem>
#include <functional>

#include "core/diag.h"
#include "core/fs.h"
#include "core/manifest.h"

namespace klineage {

const SelectedSource* Selection::find(const std::string& original) const {
  for (const auto& s : sources)
    if (s.original == original) return &s;
  return nullptr;
}

void to_json(nlohmann::json& j, const Selection& s) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& src : s.sources) {
    nlohmann::json ks = nlohmann::json::array();
    for (const auto& k : src.kernels)
      ks.push_back({{"name", k.name}, {"kernel_hash", k.kernel_hash}, {"variant_id", k.variant_id},
                    {"skills", k.skills}, {"geometry", k.geometry}, {"speedup", k.speedup}});
    arr.push_back({{"original", src.original}, {"selected", src.selected}, {"kernels", ks},
                   {"launches_rewritten_for", src.launches_rewritten_for}, {"depends_on", src.depends_on}});
  }
  j = {{"format", "klineage-selection-1"}, {"sources", arr}};
}

Selection selectionFromJson(const nlohmann::json& j) {
  Selection s;
  for (const auto& x : j.value("sources", nlohmann::json::array())) {
    SelectedSource src;
    src.original = x.value("original", "");
    src.selected = x.value("selected", "");
    for (const auto& k : x.value("kernels", nlohmann::json::array())) {
      SelectedKernel sk;
      sk.name = k.value("name", "");
      sk.kernel_hash = k.value("kernel_hash", "");
      sk.variant_id = k.value("variant_id", "");
      sk.skills = k.value("skills", std::vector<std::string>{});
      if (k.contains("geometry")) sk.geometry = k["geometry"].get<GeometryChange>();
      sk.speedup = k.value("speedup", 0.0);
      src.kernels.push_back(sk);
    }
    src.launches_rewritten_for = x.value("launches_rewritten_for", std::vector<std::string>{});
    src.depends_on = x.value("depends_on", std::map<std::string, std::string>{});
    s.sources.push_back(src);
  }
  return s;
}

Selection loadSelection(const std::string& path) {
  if (!std::filesystem::exists(path)) return {};
  try {
    return selectionFromJson(nlohmann::json::parse(readFile(path)));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, 0, 0, std::string("not a valid selection file: ") + e.what());
  }
}

MaterializeDecision decideMaterialize(const Selection& sel, const std::string& original,
                                      const std::function<std::string(const std::string&)>& read) {
  MaterializeDecision d;
  d.entry = sel.find(original);
  if (!d.entry) return d;
  for (const auto& [file, hash] : d.entry->depends_on) {
    std::string now;
    try {
      now = fnv1a64Hex(read(file));
    } catch (...) {
      now = "(missing)";
    }
    if (now != hash) d.changed_files.push_back(file);
  }
  d.use_selected = d.changed_files.empty() && !d.entry->selected.empty();
  return d;
}

std::string originalWithLineDirective(const std::string& original_path, const std::string& text) {
  std::string escaped;
  for (char c : original_path) {
    if (c == '\\' || c == '"') escaped += '\\';
    escaped += c;
  }
  return "#line 1 \"" + escaped + "\"\n" + text;
}

}  // namespace klineage
