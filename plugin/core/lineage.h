// The lineage of an expert kernel (docs/lineage.md): the tree of simplified versions `klineage
// mine` made by applying transforms' inverses to it, each gated against the expert, written as
// <out>/lineage.json; and the mined skills (schema 2, skills/README.md) made from its accepted
// steps, reversed. Plain data: no Clang here (the miner, plugin/pipeline/mine.cpp, fills it).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/job.h"
#include "core/skill.h"

namespace klineage {

constexpr const char* kLineageFormat = "klineage-lineage-1";

// One inverse step: the transform whose inverse made the version from its parent, with the
// parameters it ran with (the same as its forward's: the mined skill passes them on).
struct LineageStep {
  std::string transform;
  nlohmann::json params = nlohmann::json::object();  // string values, as skills pass them
  std::string what;                                  // what the inverse said it did
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

  std::string minedFrom() const { return expert_file + ":" + kernel; }
  const LineageVersion* find(const std::string& id) const;
  // The versions from the expert down to `id` (empty when unknown).
  std::vector<const LineageVersion*> pathTo(const std::string& id) const;
};

void to_json(nlohmann::json& j, const Lineage& l);
void from_json(const nlohmann::json& j, Lineage& l);

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
std::vector<std::string> emitMinedSkills(const Lineage& l, const std::string& lineage_path, const std::string& out_dir);

// For `klineage skills show`: the lineage a mined skill came from (its provenance.lineage), the path
// from the expert to the version its forward step applies to ("" when the skill names no lineage).
// Throws InputError when the lineage file cannot be read or lacks the version.
std::string minedSkillLineage(const Skill& s);

}  // namespace klineage
