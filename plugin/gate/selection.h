// selection.json: which sources have an optimized version in the build tree, the kernels in it
// and the file contents (by hash) it was made from. `klineage materialize` reads it at build time
// to decide, per source, between the selected copy and the original (stale => original + warning).
// Headers that define optimized kernels are listed apart (`headers`): the same decision, made for
// each source that includes one, puts the selected header ahead of the original on the include
// path (<out_dir>/include/<include_name>) or takes it away.
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
  // Headers only: the name the target's sources include it by, and the sources that include it.
  std::string include_name;
  std::vector<std::string> included_by;
  // Headers only: the unchanged headers the selected copy needs beside it (include name -> original):
  // those between the source and a nested header, and what they include beside themselves.
  std::map<std::string, std::string> companions;
};

struct Selection {
  std::vector<SelectedSource> sources;
  std::vector<SelectedSource> headers;
  const SelectedSource* find(const std::string& original) const;
  const SelectedSource* findHeader(const std::string& original) const;
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

// The same decision for a selected header (Selection::headers).
MaterializeDecision decideHeader(const Selection& sel, const std::string& header,
                                 const std::function<std::string(const std::string&)>& read);

// The selected headers `unit` includes, with their decisions.
std::vector<MaterializeDecision> decideHeadersOf(const Selection& sel, const std::string& unit,
                                                 const std::function<std::string(const std::string&)>& read);

// What `klineage materialize` does for the selected headers `unit` includes, in include_dir
// (<out_dir>/include, first on the target's CUDA include path): a fresh header's selected text is
// written there under its include name; a stale one is removed, so the original is found.
struct HeaderPlacement {
  std::vector<const SelectedSource*> used;   // fresh: the selected header is compiled
  std::vector<MaterializeDecision> stale;    // changed since optimize: the original is compiled
  std::vector<std::string> depends_on;       // the headers' originals (the build reruns materialize on a change)
  // Appended to the source's copy: it changes whenever the headers the source gets change, so the
  // source recompiles although its own text did not.
  std::string marker;
};
HeaderPlacement placeHeaders(const Selection& sel, const std::string& unit, const std::string& include_dir,
                             const std::function<std::string(const std::string&)>& read);

// Text written for a source that is built as is: a #line directive keeps diagnostics and debug
// info pointing at the user's file.
std::string originalWithLineDirective(const std::string& original_path, const std::string& text);

}  // namespace klineage
