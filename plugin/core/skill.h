// Skills: one optimization each, as data (skills/*.toml, schema v1 documented in skills/README.md).
// A skill names the C++ transform that implements it, the code shape it applies to (kernel features
// from the manifest) and the workload facts it needs to be sound; the gate then measures whether it
// pays.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/workload.h"

namespace klineage {

struct MeasuredEffect {
  std::string workload, gpu;
  double speedup = 0;
};

struct SkillRisk {
  std::string failure, avoided_by;
};

struct Skill {
  int schema = 1;
  std::string id, intent, transform;
  nlohmann::json params = nlohmann::json::object();  // transform parameters, TOML values as JSON
  std::string anchor_description;
  std::vector<std::string> requires_features, forbids_features;
  std::vector<std::string> facts;                     // preconditions on the workload
  std::string expected_effect;
  std::vector<MeasuredEffect> measured;
  std::vector<SkillRisk> risks;
  std::string provenance_kind;                        // "hand-written" or "mined"
  std::string provenance_source;                      // optional: where a mined skill came from
  std::string path;                                   // the file it was loaded from
};

// Reads every *.toml of each directory (sorted by name), one skill per file. Throws InputError on
// syntax errors, missing or wrong-typed keys, unknown keys, transforms, features or facts, and on a
// skill id defined twice.
std::vector<Skill> loadSkills(const std::vector<std::string>& dirs, const std::vector<std::string>& known_transforms);

// Feature vocabulary: KernelFeatures' booleans plus a few derived from KernelInfo.
const std::vector<std::string>& featureNames();
bool kernelHasFeature(const KernelInfo& k, const std::string& feature);  // false for unknown names

// Fact vocabulary (exact names; alignedN takes N in 2..256, a power of two).
const std::vector<std::string>& factForms();  // for messages: "no-overlap", "aligned<N>(all pointers)", ...
bool isKnownFact(const std::string& fact);
// Whether the workload proves `fact` for kernel `k`; `why_not` says what failed.
bool factHolds(const std::string& fact, const KernelInfo& k, const WorkloadFacts& facts, std::string* why_not);

// All required features present, no forbidden one, and every fact proven. Without WorkloadFacts, a
// skill with fact preconditions does not hold (nothing proves them).
bool preconditionsHold(const Skill& s, const KernelInfo& k, const WorkloadFacts* facts, std::string* why_not);

nlohmann::json skillToJson(const Skill& s);

}  // namespace klineage
