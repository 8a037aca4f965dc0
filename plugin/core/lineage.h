// The lineage of an expert kernel (docs/lineage.md): the tree of simplified versions `klineage
// mine` made by applying transforms' inverses to it, each gated against the expert, written as
// <out>/lineage.json; and the mined skills (schema 2, skills/README.md) made from its accepted
// steps, reversed. Plain data: no Clang here (the miner, plugin/pipeline/mine.cpp, fills it).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/job.h"
#include "core/skill.h"

namespace klineage {

constexpr const char* kLineageFormat = "klineage-lineage-1";

// What one precondition probe (`klineage mine --probe`, core/precondition_probes.h) showed about
// a step's forward direction: the parent gated against the simplified version on a launch that
// breaks one precondition.
struct StepProbe {
  std::string precondition;  // a fact the mined skill would carry, or divisible-sizes / block-size
  std::string probe;         // the probe's name ("misaligned: x +4 bytes, y +4 bytes"); "" when none
  // breaks-correctness: the parent's results differ from the simplified version's (or it fails);
  // breaks-speed: the same results, but the forward step does not pay (< kMinedSkillGain);
  // holds: the same results, and it pays (or was not timed);
  // inconclusive: the simplified version itself fails, or differs from itself, on the probe;
  // not-run: the probe could not be run (no GPU, a launch the gate cannot evaluate);
  // unprobed: no probe breaks this precondition (the reason says why).
  std::string outcome;
  std::string reason;
  std::optional<double> speedup;  // the forward step's on the probe, when timed
};
const std::vector<std::string>& stepProbeOutcomes();

// One inverse step: the transform whose inverse made the version from its parent, with the
// parameters it ran with (the same as its forward's: the mined skill passes them on).
struct LineageStep {
  std::string transform;
  nlohmann::json params = nlohmann::json::object();  // string values, as skills pass them
  std::string what;                                  // what the inverse said it did
  // `klineage mine --probe`: the forward step's precondition probes (empty: not probed).
  std::vector<StepProbe> probes;
  // "rewriter": the transform's forward step gives the parent back from the version (the mined
  // skill names the transform); "llm": no parameter set's forward does (`forward` says why), so the
  // mined skill is one a language model materializes from `example`, the forward diff.
  std::string materialize = "rewriter";
  std::string forward;
  std::string example;
};

// An inverse step `klineage mine` did not keep (docs/lineage.md): the forward step with the step's
// parameters, applied to the simplified version, does not give the parent's text back (an inverse
// ignores what only shapes the forward's form: unroll, vector_width), or refuses it. Never a step of
// a version, so never a mined skill.
struct DroppedStep {
  std::string parent;
  LineageStep step;
  std::string reason;   // "forward with coarsen=16, unroll=4 does not give v0 back"
  std::string version;  // the version it reached (made from another step); "" when none was made
};

// A probe shape of the gate (core/probes.h) the version was checked on.
struct LineageProbe {
  std::string name;  // "n = 1013"
  bool passed = false;
};

struct LineageVersion {
  std::string id;      // "v0" is the expert; then v1, v2, ... in the order they were made
  std::string parent;  // "" for the expert
  unsigned depth = 0;
  std::optional<LineageStep> step;  // none for the expert
  std::string source;               // the version's source file, relative to lineage.json's folder
  GeometryChange geometry;          // its launch relative to the expert's
  std::string outcome;              // "expert", or the gate's outcome (passed, slower, wrong-result, ...)
  std::string reason;
  bool accepted = false;            // still correct (passed or slower): expanded further
  double time_ms = 0;               // median gate time (0: not measured)
  // Time of this version / time of its parent: how much faster the parent's forward step made it
  // (> 1: the forward step pays). Unset when either was not timed.
  std::optional<double> parent_speedup;
  std::vector<std::string> features;  // the kernel's feature ids (the mined skill's anchor)
  std::vector<std::string> facts;     // workload facts that held (the mined skill's preconditions)
  // The gate's probe shapes and whether this version passed them (empty when none ran: a rejected
  // version, or no GPU). A rejected version's probes are not known one by one.
  std::vector<LineageProbe> probes;
  // Other (parent, step) pairs that reached the same source and launch: merged into this version.
  std::vector<std::pair<std::string, LineageStep>> also_from;
};

// A mined step becomes a skill only when its forward direction is at least this much faster
// (beyond the gate's usual noise of 1-2%).
constexpr double kMinedSkillGain = 1.03;

struct Lineage {
  std::string format = kLineageFormat;
  std::string target, kernel, expert_file;
  std::string workload;  // how it was gated: "capture <dir>" or "workload <file>"
  std::string shape;     // the expert's gated launch, "grid [4096,1,1] block 256"
  std::string gpu, arch, cuda, date;
  unsigned max_depth = 0, budget = 0;
  std::vector<LineageVersion> versions;
  std::vector<DroppedStep> dropped;  // the inverse steps not kept, in the order tried

  std::string minedFrom() const { return expert_file + ":" + kernel; }
  const LineageVersion* find(const std::string& id) const;
  // The versions from the expert down to `id` (empty when unknown).
  std::vector<const LineageVersion*> pathTo(const std::string& id) const;
};

void to_json(nlohmann::json& j, const Lineage& l);
void from_json(const nlohmann::json& j, Lineage& l);

// The accepted steps whose forward direction pays (>= kMinedSkillGain): what the mined skills are
// made of (emitMinedSkills) and what `klineage mine --probe` probes. Each: the simplified version,
// the version the forward step turns it into, the step (the version's own, or one of its also_from).
struct SkillStep {
  const LineageVersion* child;
  const LineageVersion* parent;
  const LineageStep* step;
  double speedup;  // the forward step's
};
std::vector<SkillStep> skillSteps(const Lineage& l);

// What the probes of one or more steps say about each precondition (every probe's precondition):
// "required" (a probe broke the step's correctness or speed: verified), "not-required" (probes ran
// and the step stayed right and paying), "unverified" (no probe could break it, or none ran
// conclusively). Empty when the steps were not probed.
std::map<std::string, std::string> preconditionVerdicts(const std::vector<const LineageStep*>& steps);

// Throws InputError naming the file on a file that is not a lineage (or of another format).
Lineage loadLineage(const std::string& path);
void saveLineage(const std::string& path, const Lineage& l);  // atomically

// "v2 <- v0  -restrict-pointers  passed  0.412 ms  (parent 1.08x faster)": one line per version.
std::string lineageLine(const Lineage& l, const LineageVersion& v);
// The path from the expert to `id`, one line per version (lineageLine), for `klineage skills show`.
std::string lineagePathText(const Lineage& l, const std::string& id);

// Skills from the lineage (skills/README.md, schema 2): each accepted step, reversed. One skill per
// transform, parameters and anchor (steps that share them add measured effects). Written as
// <out_dir>/<id>.toml; `lineage_path` is where the lineage file is (named relative to each skill).
// Returns the paths written.
//
// The anchor: a step a forward transform applies requires the simplified version's features that
// the library's hand-written skills of that transform all require (`transform_needs`, from
// transformNeeds); the version's other features (`__launch_bounds__`, `__restrict__`, loops the
// expert happened to have) are where it was measured, not what the step needs, and would keep the
// skill off naive kernels. A transform no hand-written skill names, and an `llm` step, keep every
// feature of the version.
std::vector<std::string> emitMinedSkills(const Lineage& l, const std::string& lineage_path, const std::string& out_dir,
                                         const std::map<std::string, std::vector<std::string>>& transform_needs = {});

// For each transform the hand-written skills of `library` name: the features every one of them
// requires (their intersection).
std::map<std::string, std::vector<std::string>> transformNeeds(const std::vector<Skill>& library);

// For `klineage skills show`: the lineage a mined skill came from (its provenance.lineage), the path
// from the expert to the version its forward step applies to ("" when the skill names no lineage).
// Throws InputError when the lineage file cannot be read or lacks the version.
std::string minedSkillLineage(const Skill& s);
// For `klineage skills show`: a mined skill's precondition evidence (skill.h, Skill::precondition_probes), one
// line per precondition and probe ("" when the skill was not probed).
std::string preconditionEvidenceText(const Skill& s);

}  // namespace klineage
