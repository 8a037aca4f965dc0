// Choosing what the build compiles: the fastest passing variant per kernel, re-checked before it
// is kept, then the winners re-applied to the original files with their launch sites rewritten.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "apply.h"
#include "core/skill.h"
#include "gate/selection.h"
#include "gate/variant.h"
#include "plan.h"

namespace klineage {

struct Pipeline;

// The fastest passing variant per kernel, each gated once more before it is kept: on two input
// sets no earlier run used (and the probes), and with SANITIZE once under compute-sanitizer. One
// that fails is dropped (its outcome says why) and the next best is checked the same way.
std::map<std::string, const VariantReport*> selectChecked(Pipeline& p, const Plans& plans,
                                                          std::vector<VariantReport>& reports);

// The winners applied together to the original files. Writes nothing; returns the selection
// entries and the new texts (by original path). A winner whose re-applied code differs from the
// gated variant, or whose launches cannot be rewritten, is left out (the original is kept).
struct SelectedFiles {
  Selection selection;
  std::map<std::string, std::string> texts;  // original path -> selected text
};
SelectedFiles buildSelectedSources(Pipeline& p, const std::map<std::string, const VariantReport*>& best,
                                   const Plans& plans, const std::vector<Skill>& skills, const Manifest& manifest,
                                   const std::string& selected_dir);

// selectChecked and, when `build`, buildSelectedSources of its winners; the sources are built
// while the winners are re-checked, and built again only if a re-check drops one.
struct Selected {
  std::map<std::string, const VariantReport*> best;
  SelectedFiles files;
};
Selected selectAndBuild(Pipeline& p, const Plans& plans, std::vector<VariantReport>& reports, const std::vector<Skill>& skills,
                        const Manifest& manifest, const std::string& selected_dir, bool build);

// Writes the selected sources under selected/<generation>/ and selection.json (what the build
// reads) last; removes older generations.
void writeSelection(Pipeline& p, const SelectedFiles& files, const std::string& generation);

// A skill's params as the transform takes them.
TransformParams paramsOf(const Skill& s);

}  // namespace klineage
