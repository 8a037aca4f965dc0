// Variant generation (every applicable set of skills for one kernel, each step re-parsed) and the
// selected sources (the winners re-applied to the original files, launch sites rewritten).
#pragma once
#include <string>
#include <vector>

#include "core/skill.h"
#include "gate/selection.h"
#include "gate/variant.h"
#include "plan.h"
#include "setup.h"

namespace klineage {

// `refusals` gets one line per skill (and reason) that did not apply, for the report.
std::vector<VariantReport> generateVariants(const KernelPlan& plan, const std::vector<Skill>& skills,
                                            const TargetSetup& setup, const Overlay& originals,
                                            const std::string& out_dir, unsigned budget,
                                            std::vector<std::string>* refusals = nullptr);

// The winners applied together to the original files. Writes nothing; returns the selection
// entries and the new texts (by original path).
struct SelectedFiles {
  Selection selection;
  std::map<std::string, std::string> texts;  // original path -> selected text
};
SelectedFiles buildSelectedSources(const std::map<std::string, const VariantReport*>& best,
                                   const std::vector<KernelPlan>& plans, const std::vector<Skill>& skills,
                                   const TargetSetup& setup, const Manifest& manifest, const Overlay& originals,
                                   const std::string& selected_dir);

}  // namespace klineage
