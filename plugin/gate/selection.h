// selection.json: which sources have an optimized version in the build tree, the kernels in it
// and the file contents (by hash) it was made from. `klineage materialize` reads it at build time
// to decide, per source, between the selected copy and the original (stale => original + warning).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/job.h"

namespace klineage {

struct SelectedKernel {
  std::string name;
  std::string kernel_hash;     // manifest source_hash of the original kernel
  std::string variant_id;
  std::vector<std::string> skills;
  GeometryChange geometry;
  double speedup = 0;
};

struct SelectedSource {
  std::string original;
  std::string selected;        // build-tree file with the optimized code
  std::vector<SelectedKernel> kernels;        // kernels defined here that were optimized
  std::vector<std::string> launches_rewritten_for;  // kernels whose launch sites here were changed
  std::map<std::string, std::string> depends_on;    // file -> content hash when optimized
};

struct Selection {
  std::vector<SelectedSource> sources;
  const SelectedSource* find(const std::string& original) const;
};

void to_json(nlohmann::json& j, const Selection& s);
Selection selectionFromJson(const nlohmann::json& j);
Selection loadSelection(const std::string& path);  // missing file => empty selection

struct MaterializeDecision {
  bool use_selected = false;
  const SelectedSource* entry = nullptr;
  std::vector<std::string> changed_files;  // depends_on entries whose content changed
};
// `read` returns a file's current content (injectable for tests).
MaterializeDecision decideMaterialize(const Selection& sel, const std::string& original,
                                      const std::function<std::string(const std::string&)>& read);

// Text written for a source that is built as is: a #line directive keeps diagnostics and debug
// info pointing at the user's file.
std::string originalWithLineDirective(const std::string& original_path, const std::string& text);

}  // namespace klineage
