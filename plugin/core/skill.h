// Skills: one optimization each, as data (skills/*.toml, schema v1 documented in skills/README.md).
// A skill names the C++ transform that implements it, the code shape it applies to (kernel features
// from the manifest) and the workload facts it needs to be sound; the gate then measures whether it
// pays.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/workload.h"

namespace klineage {

struct MeasuredEffect {
  std::string workload, gpu;
  double speedup = 0;
  std::string expert, step;  // schema 2, mined skills: "<file>:<kernel>" and "v3 -> v1" of its lineage
};

// The skill file schema versions this KLineage reads (skills/README.md).
constexpr int kSkillSchemaMin = 1, kSkillSchemaMax = 2;

struct SkillRisk {
  std::string failure, avoided_by;
};

// Schema 2, a mined skill probed by `klineage mine --probe` (docs/lineage.md): one probe that broke
// one precondition, and what the step's forward direction did there ([[preconditions.probes]]).
struct PreconditionEvidence {
  std::string precondition;  // a fact, or "divisible-sizes" / "block-size"
  std::string probe;         // "misaligned: x +4 bytes, y +4 bytes"; "" for an unprobed precondition
  std::string outcome;       // breaks-correctness, breaks-speed, holds, inconclusive, not-run, unprobed
  std::string reason;
  std::string step;          // "v3 -> v1" of its lineage
  std::optional<double> speedup;
};
// The preconditions a probe may name besides facts (core/precondition_probes.h).
bool isImplicitPrecondition(const std::string& p);

// How a skill is materialized on a kernel (`materialize` in the skill file, skills/README.md):
//   Transform: by its C++ transform (the default);
//   Llm: by a language model (docs/llm.md): the skill has no transform;
//   TransformThenLlm ("transform+llm"): by its transform, and by the model on kernels where the
//   transform makes no edit.
enum class Materialize { Transform, Llm, TransformThenLlm };
const char* materializeName(Materialize m);
// The {{name}}s a skill's `prompt` may use (docs/llm.md); the loader rejects any other.
const std::vector<std::string>& promptPlaceholders();

struct Skill {
  int schema = 1;
  std::string id, intent, transform;                  // transform: "" when materialize is Llm
  Materialize materialize = Materialize::Transform;
  int search_rank = 0;                                // the skill search tries lower ranks first
  std::string prompt;                                 // the LLM prompt template ("": the default one)
  // An LLM skill's worked example ({{example}}): a mined step the rewriter cannot reproduce carries
  // its forward diff on the expert it came from (docs/lineage.md).
  std::string example;
  nlohmann::json params = nlohmann::json::object();  // transform parameters, TOML values as JSON
  std::string anchor_description;
  std::vector<std::string> requires_features, forbids_features;
  // anchor.first_step: tried only on the kernel as the user wrote it (its normal form), never after
  // another step: its premise is about the user's code or launch (vectorize-float4-keep-grid keeps a
  // grid the launcher capped; after grid-stride-loop the grid is one thread per element again).
  bool first_step = false;
  std::vector<std::string> facts;                     // preconditions on the workload
  // Schema 2, probed mined skills: which preconditions a probe showed to be needed (verified), which
  // none could break (unverified; both kinds of facts stay in `facts`), which the step did without
  // (not_required: not in `facts`), and the probes' evidence.
  std::vector<std::string> verified, unverified, not_required;
  std::vector<PreconditionEvidence> precondition_probes;
  std::string expected_effect;
  std::vector<MeasuredEffect> measured;
  std::vector<SkillRisk> risks;
  std::string provenance_kind;                        // "hand-written" or "mined"
  std::string provenance_source;                      // optional: where a mined skill came from
  // Schema 2 (mined skills, docs/lineage.md): the expert "<file>:<kernel>", its lineage.json (relative
  // to the skill file as written; lineagePath() resolves it), the version of the lineage the forward
  // step applies to, and where it was measured.
  std::string mined_from, lineage, lineage_version, gpu, cuda, date;
  std::string lineagePath() const;  // "" when the skill names no lineage
  std::string path;                                   // the file it was loaded from

  bool hasTransform() const { return materialize != Materialize::Llm; }
  bool usesLlm() const { return materialize != Materialize::Transform; }
};

// Reads every *.toml of each directory (sorted by name), one skill per file. Throws InputError on
// syntax errors, missing or wrong-typed keys, unknown keys, transforms, features or facts, and on a
// skill id defined twice; unknown ids are reported at their file and line with the valid ones.
// `known_transforms` is the rewriter's transformIds(), `known_features` its featureIds()
// (rewriter/features/feature.h): core has no Clang, so the registries' ids are passed in.
std::vector<Skill> loadSkills(const std::vector<std::string>& dirs, const std::vector<std::string>& known_transforms,
                              const std::vector<std::string>& known_features);
// Without the feature registry's ids: accepts the features featureNames() lists.
std::vector<Skill> loadSkills(const std::vector<std::string>& dirs, const std::vector<std::string>& known_transforms);

// The features a manifest describes even without feature ids (legacyFeatureIds(), core/manifest.h);
// every one is also in the rewriter's feature registry.
const std::vector<std::string>& featureNames();
// Whether the kernel has the feature, by id: KernelInfo::feature_ids from extraction, or for a
// manifest without them the features derived from KernelFeatures. False for unknown ids.
bool kernelHasFeature(const KernelInfo& k, const std::string& feature);

// Fact vocabulary: the registry of core/facts/ (core/facts/fact.h), by the names skills write.
const std::vector<std::string>& factForms();  // for messages: "aligned<N>(all pointers) with N ...", "no-overlap", ...
bool isKnownFact(const std::string& fact);
// Whether the workload proves `fact` for kernel `k`; `why_not` says what failed ("<fact>: <why>").
bool factHolds(const std::string& fact, const KernelInfo& k, const WorkloadFacts& facts, std::string* why_not);

// All required features present, no forbidden one, and every fact proven. Without WorkloadFacts, a
// skill with fact preconditions does not hold (nothing proves them).
bool preconditionsHold(const Skill& s, const KernelInfo& k, const WorkloadFacts* facts, std::string* why_not);

nlohmann::json skillToJson(const Skill& s);

}  // namespace klineage
