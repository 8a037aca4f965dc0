// `klineage mine` (docs/lineage.md): walks an expert kernel of a configured target backward. Every
// transform's inverse is applied to it, one step at a time in every order that applies (a tree;
// versions with the same source and launch are merged), and each simplified version is gated
// against the expert with the same harness as `klineage gate` (captured launches or the workload,
// probe shapes, interleaved timing). Accepted versions (passed or slower: still correct) are
// expanded further; rejected ones stay in the tree with their reason. Writes <out>/lineage.json and
// <out>/versions/<id>.<ext>; with emit_skills_dir, the mined skills (schema 2) too.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/lineage.h"
#include "core/skill.h"
#include "optimize.h"
#include "rewriter/transform.h"

namespace klineage {

struct MineOptions {
  std::string config;   // the target's config.json
  std::string kernel;   // the expert kernel (a kernel of that target)
  std::string out_dir;  // "": <out_dir of the target>/mine/<kernel>
  unsigned max_depth = 8;
  unsigned budget = 48;          // versions gated at most (the expert not counted)
  std::string emit_skills_dir;   // "": no skills
  // Probe the preconditions of every step that becomes a skill (mine_probe.h): one more runner job
  // per precondition probe of each such step (and a control run for each wrong result).
  bool probe = false;
  unsigned jobs = 0;             // parallel compiles (0: hardware threads)
  // LLM-proposed simplifications (docs/lineage.md): with an endpoint configured (LLM_URL or
  // KLINEAGE_LLM_URL), the model is asked this many times per version for one simplification of
  // it, beside the transforms' inverses; each reply is a version gated like the others. 0: never.
  unsigned llm_steps = 1;
  Lineage* lineage_out = nullptr;  // tests: the lineage as written
};

// Mining's step rules, shared with the tests that walk the mineable experts back on the CPU
// (tests/pipeline/test_mine_experts.cpp):
// `later` after `g`, with common factors of each multiplier and divisor cancelled (an inverse that
// undoes a forward leaves no change).
GeometryChange composeGeometry(GeometryChange g, const GeometryChange& later);
// Every parameter set the inverse of each transform runs with: those of the skills naming it, or
// the defaults when no skill names it.
std::map<std::string, std::vector<TransformParams>> inverseParamSets(const std::vector<Skill>& skills);
// The text with runs of whitespace removed, except one blank between two identifier characters: a
// step is kept when the forward gives the parent back in this form.
std::string normalizedText(const std::string& s);
// Whether `forward` (a forward step's text) is `parent` up to comments, whitespace and the names a
// transform introduces: every `kl_` identifier of forward stands for one identifier of parent and
// each such parent identifier for that one name only (a consistent renaming of the transform's
// own locals: `for (int kl_r = 0; ...)` is an expert's `for (int r = 0; ...)`). Every other token
// must be equal.
bool sameUpToTransformNames(const std::string& forward, const std::string& parent);
// Whether an inverse step's launch change followed by its forward's gives the parent's launch back:
// the grid factors cancel, and a block the forward sets is the parent's (unknown: not the same).
bool restoresLaunch(const GeometryChange& inverse_g, const GeometryChange& forward_g, const std::optional<Dim3>& parent_block);

// Returns the process exit code: kExitOk when the lineage was written (whatever the outcomes),
// kExitFailure when the expert could not be gated at all; InputError for a kernel not in the target.
int runMine(const MineOptions& opt, const PipelineSeams& seams);

}  // namespace klineage
