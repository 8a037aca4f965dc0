// Where variants come from. Each source writes its variants under the build tree (variants/
// <kernel>/<name>/) and hands back reports still to be gated (or refused, with the reason).
//   SkillSearch: the skill library, chains chosen by a SearchStrategy;
//   HandWritten: files a person wrote (`klineage gate --variant`).
//   LlmSource: skills a language model materializes (llm_source.cpp, docs/llm.md).
// The lineage miner is a further source of the same shape.
#pragma once
#include "llm/client.h"
#include <memory>
#include <string>
#include <vector>

#include "core/skill.h"
#include "gate/config.h"
#include "gate/variant.h"
#include "plan.h"

namespace klineage {

struct Pipeline;
class EffectHistory;

class VariantSource {
 public:
  virtual ~VariantSource() = default;
  virtual std::string name() const = 0;
  // The variants of one planned kernel. `refusals` gets one line per way that did not apply.
  virtual std::vector<VariantReport> variants(Pipeline& p, const KernelPlan& plan, std::vector<std::string>* refusals) = 0;
  // Repair rounds (docs/pipeline.md): after a round is gated, the kernel's variants that were not
  // accepted (`failed`, of every source: pick your own by id); follow-up variants to compile and
  // gate in the next round. runOptimize asks again after every round until no source has any,
  // so a source bounds its own rounds (the LLM source: LLM_REPAIR_ROUNDS). Default: none.
  virtual std::vector<VariantReport> repairs(Pipeline& p, const KernelPlan& plan,
                                             const std::vector<const VariantReport*>& failed,
                                             std::vector<std::string>* refusals) {
    (void)p, (void)plan, (void)failed, (void)refusals;
    return {};
  }
  // Follow-up rounds (the planner): after a round is gated, every gated variant of the kernel so far
  // (of every source); the next variants to compile and gate, chosen from their results. Asked
  // after every round with repairs(), until no source has any. Default: none.
  virtual std::vector<VariantReport> followUps(Pipeline& p, const KernelPlan& plan,
                                               const std::vector<const VariantReport*>& gated,
                                               std::vector<std::string>* refusals) {
    (void)p, (void)plan, (void)gated, (void)refusals;
    return {};
  }
  // Whether variants() and followUps() / repairs() may run for several kernels at once, on other
  // threads (each with a Pipeline of its own whose Status holds the lines until the kernel's turn).
  // A source that says so keeps no state shared between kernels, or guards it. Default: no.
  virtual bool kernelsAtOnce() const { return false; }
  // Every round is gated: `reports` is every report of the run. A source may record what it
  // learned in the effect history (`history`, nullptr when none is kept).
  virtual void finished(Pipeline& p, const std::vector<VariantReport>& reports, EffectHistory* history) {
    (void)p, (void)reports, (void)history;
  }
};

// Which chains of skills the search tries, in what order.
class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  virtual std::string name() const = 0;
  // A new kernel's search starts: forget the chains made for the last one.
  virtual void reset() = 0;
  // The skills to try next on top of `chain` (the skills applied so far), in order.
  virtual std::vector<const Skill*> next(const std::vector<const Skill*>& chain, const std::vector<Skill>& skills) = 0;
  // `chain` was applied and made a variant.
  virtual void made(const std::vector<const Skill*>& chain) = 0;
};

// Every set of skills once (in the first order that applies), breadth first: single skills, then
// pairs, ... (today's search).
// The order the skill search tries skills in: the lower search_rank first, then the larger recorded
// effect (geomean of a skill's [[effect.measured]] speedups, 1.0 when none), then the narrower
// anchor, then the id.
double measuredSpeedup(const Skill& s);
void rankSkills(std::vector<Skill>& skills);

std::unique_ptr<SearchStrategy> makeSubsetSearch();

// The planner (the default search, docs/pipeline.md): `width` variants a round per kernel, each
// round chosen from the gate's results of the last; candidates ordered by `history` (may be
// nullptr) for kernels with the same features. At most `budget` variants per kernel.
std::unique_ptr<VariantSource> makePlannedSearch(const std::vector<Skill>& skills, unsigned budget,
                                                 const EffectHistory* history, unsigned width = 3);

// At most `budget` variants per kernel, breadth first over the strategy's chains; every step is
// re-parsed and its skill's preconditions checked on the kernel as it is then.
std::unique_ptr<VariantSource> makeSkillSearch(const std::vector<Skill>& skills, unsigned budget,
                                               std::unique_ptr<SearchStrategy> strategy);

// Hand-written copies of the kernel's source file, each gated on its own; one whose kernel is
// missing, whose signature changed, or that has no launch of the kernel is refused as not-run.
std::unique_ptr<VariantSource> makeHandWritten(const std::string& kernel, const std::vector<std::string>& paths);

// A whole replacement text of the kernel's source file as the variant variants/<kernel>/<name>/
// (written there), re-extracted: a missing kernel or a changed signature is refused (not-run, the
// reason starting with `label`); a changed launch of the kernel becomes the variant's own
// launches (Variant::own_launches), and no launch at all a reason. What hand-written variants and
// LLM replies go through.
struct WholeFileVariant {
  VariantReport report;  // reason "" when it is to be compiled and gated
  Manifest manifest;     // the variant's file, extracted
};
WholeFileVariant wholeFileVariant(Pipeline& p, const KernelInfo& k, const std::string& text, const std::string& name,
                                  const std::string& label);

// Skills a language model materializes (materialize = "llm" or "transform+llm"; docs/llm.md),
// through an OpenAI-compatible chat-completions server; each reply is a whole-file variant, and
// a failed one is re-prompted with the gate's outcome in up to `cfg.llm.repair_rounds` repairs.
// Without a URL (config or KLINEAGE_LLM_URL) nothing is sent; the skills are refusals.
std::unique_ptr<VariantSource> makeLlmSource(const std::vector<Skill>& skills, const Config& cfg);
// The LLM client's options for a target: its config's LLM_* settings, KLINEAGE_LLM_URL,
// KLINEAGE_LLM_MODEL and KLINEAGE_LLM_API_KEY over them, the cache under its build tree.
LlmOptions llmOptionsOf(const Config& cfg);
// The kernel's launch sites as the LLM prompts show them ({{launch_site}}).
std::string launchSitesOf(const KernelInfo& k);

// Why a variant's kernel cannot stand in for the original's ("" when the signatures agree;
// names and qualifiers such as const or __restrict__ may differ).
std::string signatureChange(const KernelInfo& orig, const KernelInfo& var);

}  // namespace klineage
