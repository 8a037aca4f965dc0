#include "gate/selection.h"

#include <algorithm>
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

const SelectedSource* Selection::findHeader(const std::string& original) const {
  for (const auto& s : headers)
    if (s.original == original) return &s;
  return nullptr;
}

namespace {

nlohmann::json entriesJson(const std::vector<SelectedSource>& entries) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& src : entries) {
    nlohmann::json ks = nlohmann::json::array();
    for (const auto& k : src.kernels)
      ks.push_back({{"name", k.name}, {"kernel_hash", k.kernel_hash}, {"variant_id", k.variant_id},
                    {"skills", k.skills}, {"geometry", k.geometry}, {"speedup", k.speedup}});
    arr.push_back({{"original", src.original}, {"selected", src.selected}, {"kernels", ks},
                   {"launches_rewritten_for", src.launches_rewritten_for}, {"depends_on", src.depends_on}});
    if (!src.include_name.empty()) {
      arr.back()["include_name"] = src.include_name;
      arr.back()["included_by"] = src.included_by;
      if (!src.companions.empty()) arr.back()["companions"] = src.companions;
    }
  }
  return arr;
}

std::vector<SelectedSource> entriesFromJson(const nlohmann::json& entries) {
  std::vector<SelectedSource> out;
  for (const auto& x : entries) {
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
    src.include_name = x.value("include_name", "");
    src.included_by = x.value("included_by", std::vector<std::string>{});
    src.companions = x.value("companions", std::map<std::string, std::string>{});
    out.push_back(src);
  }
  return out;
}

MaterializeDecision decide(const SelectedSource* entry, const std::function<std::string(const std::string&)>& read) {
  MaterializeDecision d;
  d.entry = entry;
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

}  // namespace

void to_json(nlohmann::json& j, const Selection& s) {
  j = {{"format", "klineage-selection-1"}, {"sources", entriesJson(s.sources)}};
  if (!s.headers.empty()) j["headers"] = entriesJson(s.headers);
}

Selection selectionFromJson(const nlohmann::json& j) {
  Selection s;
  s.sources = entriesFromJson(j.value("sources", nlohmann::json::array()));
  s.headers = entriesFromJson(j.value("headers", nlohmann::json::array()));
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
  return decide(sel.find(original), read);
}

MaterializeDecision decideHeader(const Selection& sel, const std::string& header,
                                 const std::function<std::string(const std::string&)>& read) {
  return decide(sel.findHeader(header), read);
}

std::vector<MaterializeDecision> decideHeadersOf(const Selection& sel, const std::string& unit,
                                                 const std::function<std::string(const std::string&)>& read) {
  std::vector<MaterializeDecision> out;
  for (const auto& h : sel.headers)
    if (std::find(h.included_by.begin(), h.included_by.end(), unit) != h.included_by.end()) out.push_back(decide(&h, read));
  return out;
}

HeaderPlacement placeHeaders(const Selection& sel, const std::string& unit, const std::string& include_dir,
                             const std::function<std::string(const std::string&)>& read) {
  HeaderPlacement out;
  // What each name under include_dir gets: a fresh selected copy wins over a companion (the
  // original text another selected header needs beside it), which wins over removal.
  std::map<std::string, std::pair<int, std::string>> place;  // name -> (rank, text); rank 0 removes
  auto want = [&](const std::string& name, int rank, const std::function<std::string()>& text) {
    auto it = place.find(name);
    if (it == place.end() || it->second.first < rank) place[name] = {rank, rank ? text() : ""};
  };
  for (MaterializeDecision& d : decideHeadersOf(sel, unit, read)) {
    const SelectedSource& h = *d.entry;
    out.depends_on.push_back(h.original);
    for (const auto& [name, original] : h.companions) out.depends_on.push_back(original);
    if (h.include_name.empty()) continue;  // nowhere to put it: the original is used
    if (!d.use_selected) {
      want(h.include_name, 0, nullptr);
      for (const auto& [name, original] : h.companions) want(name, 0, nullptr);
      out.stale.push_back(std::move(d));
      continue;
    }
    for (const auto& [name, original] : h.companions) {
      const std::string& o = original;
      want(name, 1, [&] { return read(o); });
    }
    want(h.include_name, 2, [&] { return read(h.selected); });
    out.used.push_back(&h);
  }
  for (const auto& [name, what] : place) {
    const std::filesystem::path copy = std::filesystem::path(include_dir) / name;
    std::error_code ec;
    if (what.first == 0) {
      std::filesystem::remove(copy, ec);
      continue;
    }
    // Unchanged content: leave the file (and its timestamp) alone so nothing recompiles.
    bool same = false;
    try {
      same = std::filesystem::exists(copy) && read(copy.string()) == what.second;
    } catch (...) {
    }
    if (!same) atomicWrite(copy, what.second);
    if (what.first == 2) out.marker += "// klineage: " + name + " is the optimized copy " + fnv1a64Hex(what.second) + "\n";
  }
  return out;
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
