// The skill search: chains of skills applied one step at a time to a kernel, each step
// re-parsed, its skill's preconditions checked on the kernel as it is then.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>

#include <nlohmann/json.hpp>

#include "apply.h"
#include "canonical/canonical.h"
#include "step_memo.h"
#include "context.h"
#include "core/fs.h"
#include "effect_history.h"
#include "gate/judge.h"
#include "header_kernels.h"
#include "plan.h"
#include "variant_source.h"

namespace klineage {
namespace fs = std::filesystem;

TransformParams paramsOf(const Skill& s) {
  TransformParams p;
  for (auto& [k, v] : s.params.items()) p[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return p;
}

namespace {

// A rewritten template pattern describes its parameters as dependent (`const T*`); the skills'
// preconditions see the gated instantiation's types, with what the rewrite changed (restrict).
void keepInstanceTypes(KernelInfo& after, const KernelInfo& gated) {
  after.mangled_name = gated.mangled_name;
  if (after.params.size() != gated.params.size()) return;
  for (size_t i = 0; i < after.params.size(); ++i) {
    const bool restrict_now = after.params[i].is_restrict;
    const bool read = after.params[i].read, written = after.params[i].written;
    after.params[i] = gated.params[i];
    after.params[i].is_restrict = restrict_now;
    after.params[i].read = read;
    after.params[i].written = written;
  }
}

class SubsetSearch : public SearchStrategy {
 public:
  std::string name() const override { return "subsets"; }
  void reset() override { seen_.clear(); }
  std::vector<const Skill*> next(const std::vector<const Skill*>& chain, const std::vector<Skill>& skills) override {
    std::set<std::string> used;
    for (auto* c : chain) used.insert(c->id);
    std::vector<const Skill*> out;
    for (const Skill& s : skills) {
      if (used.count(s.id)) continue;
      std::set<std::string> key = used;
      key.insert(s.id);
      if (!seen_.count(key)) out.push_back(&s);
    }
    return out;
  }
  void made(const std::vector<const Skill*>& chain) override {
    std::set<std::string> key;
    for (auto* c : chain) key.insert(c->id);
    seen_.insert(key);
  }

 private:
  std::set<std::set<std::string>> seen_;
};

// Feature ids that only declare something about a kernel (its pointers do not alias, its largest
// block), not what it does: what an enabler step may add (PlannedSearch::enablers).
const std::set<std::string> kDeclarations{"all_pointers_restrict", "launch_bounds"};

// "a+b+c"
std::string chainText(const std::vector<const Skill*>& chain) {
  std::string t;
  for (auto* c : chain) t += (t.empty() ? "" : "+") + c->id;
  return t;
}

struct State {
  Overlay overlay;
  std::vector<const Skill*> chain;
  GeometryChange geometry;
  KernelInfo info;
  std::string variant_id;  // the variant this chain made ("" for the original)
};

// What both searches share: applying one skill to a kernel as a chain left it (re-parsed, the
// skill's preconditions checked on the kernel as it is then), and writing the variant.
class ChainSearch : public VariantSource {
 public:
  // Skills without a transform (materialize = "llm") are the LLM source's (llm_source.cpp).
  ChainSearch(const std::vector<Skill>& skills, unsigned budget) : budget_(budget) {
    for (const Skill& sk : skills)
      if (sk.hasTransform()) skills_.push_back(sk);
    rankSkills(skills_);
  }

 protected:
  std::vector<Skill> skills_;
  unsigned budget_;

  struct Run {
    Pipeline& p;
    const KernelPlan& plan;
    std::vector<std::string>* refusals;
    std::set<std::string>* logged;
    std::vector<VariantReport> reports;
    unsigned* made;
    bool trial = false;  // steps tried only for what they enable: a step that makes no edit is not noted
    // Once per skill and reason: after other skills a different precondition may be the one that
    // fails (vectorize needs a grid-stride loop first, then aligned pointers).
    void note(const std::string& key, const std::string& line) {
      if (!logged->insert(key).second) return;
      p.status.kernelNote(plan.info->name, line);
      if (refusals) refusals->push_back(line);
    }
  };

  // Where every chain starts: the kernel in normal form (canonical.h), each pass applied said in
  // the kernel's notes. The original's features decide nothing a transform sees: the normal form's do.
  State start(Run& run) {
    const KernelInfo& k = *run.plan.info;
    CanonicalForm c = memoCanonical(run.p, run.p.originals, k.range.file, k.name, k, k.in_header ? unitOf(k) : "");
    for (const std::string& a : c.applied) {
      run.p.status.kernelNote(k.name, kNormalFormNote + a);
      if (run.refusals) run.refusals->push_back(kNormalFormNote + a);  // the report files it under notes
    }
    return State{std::move(c.overlay), {}, {}, std::move(c.info), ""};
  }

  // `made(chain)` is told of every chain applied, before its variant is written. `veto`, when
  // given, may keep the new state from being written: nullopt keeps it; a text drops it with that
  // note ("made the same code and launch as ..."), "" drops it silently; `*vetoed` says so.
  using Veto = std::function<std::optional<std::string>(const State&)>;
  std::optional<State> step(Run& run, const State& st, const Skill& s,
                            const std::function<void(const std::vector<const Skill*>&)>& made,
                            const Veto& veto = {}, bool* vetoed = nullptr) {
    const KernelInfo& k = *run.plan.info;
    std::string why;
    if (!preconditionsHold(s, st.info, run.plan.facts ? &*run.plan.facts : nullptr, &why)) {
      const std::string after = st.chain.empty() ? "" : " (after " + chainText(st.chain) + ")";
      run.note(s.id + "/" + why, "skill " + s.id + " not applicable" + after + ": " + why);
      return std::nullopt;
    }
    // The block the transform sees is the one the chain so far launches with.
    const TransformFacts tfacts = factsFor(run.plan, st.geometry);
    StepResult r = memoStep(run.p, st.overlay, k.range.file, k.name, *findTransform(s.transform), Direction::Forward,
                            paramsOf(s), tfacts, k.in_header ? unitOf(k) : "");
    if (!r.applied) {
      if (st.chain.empty() && !run.trial)
        run.note(s.id, "skill " + s.id + " made no edit: " + r.reason + (r.errors.empty() ? "" : " (" + r.errors[0] + ")"));
      return std::nullopt;
    }
    GeometryChange g = st.geometry;
    g.compose(r.geometry);
    if (g.changes() && !run.plan.geometry_may_change) {
      run.note(s.id + "/geometry", "skill " + s.id + " needs a launch-geometry change, but " +
                                       (run.plan.geometry_fixed_why.empty()
                                            ? std::string("no launch site of the kernel was found")
                                            : run.plan.geometry_fixed_why) +
                                       ": only geometry-preserving variants are gated");
      return std::nullopt;
    }
    State ns{std::move(r.overlay), st.chain, g, r.kernel_after, ""};
    // What describes the kernel's place in the target (launch sites, prototypes, header or not)
    // comes from extraction of the whole target, not from re-parsing one file.
    ns.info.launches = k.launches;
    ns.info.declarations = k.declarations;
    ns.info.in_header = k.in_header;
    ns.info.units = k.units;
    if (k.is_template) keepInstanceTypes(ns.info, k);
    ns.chain.push_back(&s);
    made(ns.chain);
    if (veto) {
      if (const std::optional<std::string> why_not = veto(ns)) {
        if (!why_not->empty())
          run.note(s.id + "/veto/" + chainText(st.chain),
                   "skill " + s.id + (st.chain.empty() ? "" : " (after " + chainText(st.chain) + ")") + " " + *why_not);
        if (vetoed) *vetoed = true;
        return std::nullopt;
      }
    }
    run.reports.push_back(write(run, ns, ++*run.made));
    ns.variant_id = run.reports.back().variant.id;
    return ns;
  }

  VariantReport write(Run& run, const State& ns, unsigned n) {
    const KernelInfo& k = *run.plan.info;
    VariantReport rep;
    Variant& v = rep.variant;
    v.id = k.name + "/" + std::to_string(n);
    v.kernel = k.name;
    v.kernel_file = k.range.file;
    for (auto* c : ns.chain) {
      v.skills.push_back(c->id);
      v.transforms.push_back(c->transform);
    }
    v.geometry = ns.geometry;
    // A template's pattern has no mangled name: the runner loads the gated instantiation, which a
    // rewrite of the pattern keeps (the signature does not change).
    v.mangled_name = k.is_template ? k.mangled_name : ns.info.mangled_name;
    v.diff = describeDiff(run.p.originals.at(k.range.file), ns.overlay.at(k.range.file));
    const fs::path dir = run.p.layout.variantDir(k.name, std::to_string(n));
    writeVariantFiles(run.p, k, dir, ns.overlay.at(k.range.file), v);
    atomicWrite(dir / "variant.json", nlohmann::json(v).dump(2) + "\n");
    return rep;
  }
};

class SkillSearch : public ChainSearch {
 public:
  SkillSearch(const std::vector<Skill>& skills, unsigned budget, std::unique_ptr<SearchStrategy> s)
      : ChainSearch(skills, budget), strategy_(std::move(s)) {}
  std::string name() const override { return "skills (" + strategy_->name() + ")"; }

  std::vector<VariantReport> variants(Pipeline& p, const KernelPlan& plan, std::vector<std::string>* refusals) override {
    std::set<std::string> logged;
    unsigned made = 0;
    Run run{p, plan, refusals, &logged, {}, &made};
    strategy_->reset();
    std::vector<State> frontier{start(run)};
    std::set<std::string> refused_on_original;
    bool first = true;
    while (!frontier.empty() && made < budget_) {
      std::vector<State> next;
      for (const State& st : frontier)
        for (const Skill* s : strategy_->next(st.chain, skills_)) {
          if (made >= budget_) break;
          // `made` is marked when a chain is applied, so an order that fails leaves the set to another.
          auto ns = stepMarked(run, st, *s);
          if (!ns) {
            if (first) refused_on_original.insert(s->id);
            continue;
          }
          next.push_back(std::move(*ns));
          // A step that makes a refused skill applicable (grid-stride-loop before vectorize-float4)
          // is followed by that skill at once, before the budget goes to other single skills.
          State copy = next.back();
          extendEnabled(run, copy, refused_on_original, next);
        }
      if (first) {
        // Singles tried before a later single was refused: offer them that one too.
        first = false;
        const size_t singles = next.size();
        for (size_t i = 0; i < singles && made < budget_; ++i) {
          State copy = next[i];
          extendEnabled(run, copy, refused_on_original, next);
        }
      }
      frontier = std::move(next);
    }
    return std::move(run.reports);
  }

 private:
  std::unique_ptr<SearchStrategy> strategy_;

  std::optional<State> stepMarked(Run& run, const State& st, const Skill& s) {
    return step(run, st, s, [this](const std::vector<const Skill*>& c) { strategy_->made(c); });
  }

  // Depth first along the skills that were refused on the original kernel but apply after `st`.
  void extendEnabled(Run& run, const State& st, const std::set<std::string>& refused, std::vector<State>& out) {
    for (const Skill* s : strategy_->next(st.chain, skills_)) {
      if (*run.made >= budget_) return;
      if (!refused.count(s->id)) continue;
      if (auto ns = stepMarked(run, st, *s)) {
        out.push_back(std::move(*ns));
        State copy = out.back();  // `out` may grow below
        extendEnabled(run, copy, refused, out);
      }
    }
  }
};

// The planner (docs/pipeline.md, "The planner"): a few steps at a time, each round chosen from the
// gate's results of the last. Round 1: the `width` most promising single skills (and what each
// enables at once: grid-stride-loop, then vectorize). Then only chains whose last step paid
// (>= kMinGain over the chain before it) are extended, best first; a kernel none of whose chains
// paid gets the next singles. Candidates are ordered by what they did on kernels with the same
// features (the effect history), then by rank and recorded effect; a skill that never paid on
// such kernels is not tried. Without a GPU (nothing is gated) only round 1 is made.
class PlannedSearch : public ChainSearch {
 public:
  static constexpr double kMinGain = 1.02;  // a step within 2% of its chain is noise on the H200 (METHOD.md)

  PlannedSearch(const std::vector<Skill>& skills, unsigned budget, const EffectHistory* history, unsigned width)
      : ChainSearch(skills, budget), history_(history), width_(std::max(1u, width)) {}
  std::string name() const override { return "skills (planned)"; }
  // A kernel's search is its own KernelSearch; the skills and the history are only read.
  bool kernelsAtOnce() const override { return true; }

  std::vector<VariantReport> variants(Pipeline& p, const KernelPlan& plan, std::vector<std::string>* refusals) override {
    KernelSearch& ks = search(plan.info->name);
    ks = KernelSearch{};
    ks.gpu = p.gpu ? p.device.device : "";
    Run run{p, plan, refusals, &ks.logged, {}, &ks.made};
    ks.nodes.push_back({start(run), -1});
    ks.nodes[0].s = 1.0;
    ks.nodes[0].judged = true;
    // Which skills the original does not meet the preconditions of, said once; a step that makes
    // one of them applicable is followed by it at once.
    const WorkloadFacts* facts = plan.facts ? &*plan.facts : nullptr;
    for (const Skill& s : skills_) {
      std::string why;
      if (preconditionsHold(s, ks.nodes[0].st.info, facts, &why)) continue;
      ks.refused_on_original.insert(s.id);
      ks.unmet_on_original.insert(s.id);
      run.note(s.id + "/" + why, "skill " + s.id + " not applicable: " + why);
    }
    singles(run, ks);
    enablers(run, ks);
    return std::move(run.reports);
  }

  std::vector<VariantReport> followUps(Pipeline& p, const KernelPlan& plan, const std::vector<const VariantReport*>& gated,
                                       std::vector<std::string>* refusals) override {
    KernelSearch* found = searched(plan.info->name);
    if (!found || !p.gpu) return {};
    KernelSearch& ks = *found;
    const bool j = judge(ks, gated);
    if (!j) return {};  // some of its variants are not gated yet
    Run run{p, plan, refusals, &ks.logged, {}, &ks.made};
    const unsigned before = ks.made;
    extendPaying(run, ks);
    if (ks.made == before && !ks.any_paid) singles(run, ks);
    return std::move(run.reports);
  }

  // Every judged step becomes a record of the effect history: its gain over the chain before it,
  // and the best reached through it.
  void finished(Pipeline& p, const std::vector<VariantReport>& reports, EffectHistory* out) override {
    if (!out || !p.gpu) return;
    for (auto& [kernel, ks] : kernels_) {
      std::vector<const VariantReport*> mine;
      for (const auto& r : reports)
        if (r.variant.kernel == kernel) mine.push_back(&r);
      judge(ks, mine);
      for (size_t i = 1; i < ks.nodes.size(); ++i) {
        const Node& n = ks.nodes[i];
        if (!n.judged || n.duplicate) continue;
        const Node& parent = ks.nodes[static_cast<size_t>(n.parent)];
        if (!parent.judged || parent.s <= 0) continue;
        std::string after;
        for (auto* c : parent.st.chain) after += (after.empty() ? "" : "+") + c->id;
        out->add({n.st.chain.back()->id, featureSignature(parent.st.info), ks.gpu, kernel, after, n.s / parent.s,
                  bestThrough(ks, i) / parent.s});
      }
    }
  }

 private:
  const EffectHistory* history_;
  unsigned width_;

  struct Node {
    State st;
    int parent;
    double s = 0;           // speedup over the original (0: rejected or not gated)
    bool judged = false;    // the gate's result is in
    bool duplicate = false; // not gated: the same code as another variant
    std::set<std::string> tried;  // skills tried on top of it
    unsigned unknown_tried = 0;   // of those, how many with no recorded effect
  };
  struct KernelSearch {
    std::vector<Node> nodes;  // [0]: the original
    std::set<std::set<std::string>> seen;
    std::set<std::string> refused_on_original, logged;
    std::set<std::string> unmet_on_original;  // of those, the ones whose preconditions the original does not meet
    size_t next_single = 0;
    unsigned made = 0;
    bool any_paid = false;
    std::string gpu;
  };
  std::map<std::string, KernelSearch> kernels_;  // an entry stays where it is as others are added
  std::mutex kernels_mutex_;                       // kernels are searched on several threads

  // The kernel's search, made (empty) if there is none yet.
  KernelSearch& search(const std::string& kernel) {
    std::lock_guard<std::mutex> lock(kernels_mutex_);
    return kernels_[kernel];
  }
  // The kernel's search, or nullptr when variants() has not searched it.
  KernelSearch* searched(const std::string& kernel) {
    std::lock_guard<std::mutex> lock(kernels_mutex_);
    auto it = kernels_.find(kernel);
    return it == kernels_.end() ? nullptr : &it->second;
  }

  // What the history says `s` does to a kernel like `st`'s (nullopt: nothing recorded).
  std::optional<EffectHistory::Expectation> expected(const KernelSearch& ks, const State& st, const Skill& s) const {
    if (!history_) return std::nullopt;
    return history_->expected(s.id, featureSignature(st.info), ks.gpu);
  }

  // The skills to try on top of `st`, most promising first: what they did on kernels with the
  // same features (median best), then the library's order (rankSkills). Those that never reached
  // kMinGain there are left out, with a note.
  std::vector<const Skill*> candidates(Run& run, const KernelSearch& ks, const State& st) {
    std::vector<std::pair<double, const Skill*>> ranked;
    std::set<std::string> used;
    for (auto* c : st.chain) used.insert(c->id);
    for (const Skill& s : skills_) {
      if (used.count(s.id)) continue;
      if (s.first_step && !st.chain.empty()) continue;  // its premise is the user's code (skill.h)
      const auto e = expected(ks, st, s);
      if (e && e->best < kMinGain) {
        char b[32];
        std::snprintf(b, sizeof b, "%.2fx", e->best);
        run.note(s.id + "/history", "skill " + s.id + " not tried: on " + std::to_string(e->n) +
                                        " kernel(s) with the same features it reached at best " + b +
                                        (e->same_gpu ? "" : " (on another GPU)") + " (effect history)");
        continue;
      }
      ranked.push_back({e ? e->best : 0.0, &s});
    }
    // Known winners first (by what they reached), then the rest in the library's order.
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<const Skill*> out;
    for (auto& [score, s] : ranked) out.push_back(s);
    return out;
  }

  static std::set<std::string> ids(const std::vector<const Skill*>& chain, const Skill* plus = nullptr) {
    std::set<std::string> k;
    for (auto* c : chain) k.insert(c->id);
    if (plus) k.insert(plus->id);
    return k;
  }

  // Applies `s` on node `from`; the new node's index, or -1. With `only_if_enabling`, the step is
  // kept only when it makes a skill refused on the original applicable (enablers()).
  int apply(Run& run, KernelSearch& ks, size_t from, const Skill& s, bool only_if_enabling = false) {
    if (ks.made >= budget_) return -1;
    if (ks.seen.count(ids(ks.nodes[from].st.chain, &s))) return -1;
    ks.nodes[from].tried.insert(s.id);
    const bool unknown = !expected(ks, ks.nodes[from].st, s);
    const State base = ks.nodes[from].st;  // nodes may grow (and move) below
    bool vetoed = false;
    auto veto = [&](const State& n) -> std::optional<std::string> {
      const std::string same = sameCode(ks, n);
      if (!same.empty()) return "made the same code and launch as " + same + ": not a variant of its own";
      if (only_if_enabling && enabledBy(run, ks, n).empty()) return std::string();
      return std::nullopt;
    };
    auto ns = step(run, base, s, [&ks](const std::vector<const Skill*>& c) { ks.seen.insert(ids(c)); }, veto, &vetoed);
    if (!ns) {
      if (from == 0 && !vetoed) ks.refused_on_original.insert(s.id);
      return -1;
    }
    if (unknown) ++ks.nodes[from].unknown_tried;  // only variants made count against the cap
    ks.nodes.push_back({std::move(*ns), static_cast<int>(from)});
    const size_t idx = ks.nodes.size() - 1;
    enabled(run, ks, idx);
    return static_cast<int>(idx);
  }

  // The variant (or "the original") of this kernel with the same code in every file and the same
  // launch as `n`; "" when none. Such a chain (two mined skills that differ only in their anchor,
  // a skill that undoes another) is not written, so it neither takes a place of BUDGET nor is
  // extended beside the one it equals.
  static std::string sameCode(const KernelSearch& ks, const State& n) {
    const std::string geometry = nlohmann::json(n.geometry).dump();
    for (const Node& o : ks.nodes)
      if (o.st.overlay == n.overlay && nlohmann::json(o.st.geometry).dump() == geometry)
        return o.st.variant_id.empty() ? "the original" : o.st.variant_id + " (" + chainText(o.st.chain) + ")";
    return "";
  }

  // Features a step may add and still only declare something about the kernel (its pointers do not
  // alias, its largest block) without changing what it does: an enabler's step must add only these.
  static bool onlyDeclarations(const KernelInfo& before, const KernelInfo& after) {
    std::vector<std::string> b = featureIdsOf(before), a = featureIdsOf(after);
    const std::set<std::string> had(b.begin(), b.end());
    bool added = false;
    for (const auto& f : a)
      if (!had.count(f)) {
        if (!kDeclarations.count(f)) return false;
        added = true;
      }
    return added;
  }

  // The skills whose preconditions the original does not meet and `n` does, when the steps to `n`
  // only added declarations (onlyDeclarations): a grid-stride loop also "enables" every skill that
  // needs a loop, which is not what an enabler is for.
  std::vector<std::string> enabledBy(const Run& run, const KernelSearch& ks, const State& n) const {
    std::vector<std::string> out;
    if (!onlyDeclarations(ks.nodes[0].st.info, n.info)) return out;
    const WorkloadFacts* facts = run.plan.facts ? &*run.plan.facts : nullptr;
    for (const Skill& r : skills_) {
      if (!ks.unmet_on_original.count(r.id) || ids(n.chain).count(r.id)) continue;
      std::string why;
      if (preconditionsHold(r, n.info, facts, &why)) out.push_back(r.id);
    }
    return out;
  }

  // A skill the effect history leaves out (it never paid on such kernels) is still tried on the
  // original when its step only adds a declaration that a refused skill lacks: restrict-pointers
  // before a mined skill whose anchor, the expert's version, had `__restrict__`. Only such a step is written, and
  // what it enables follows at once; the history then records what was reached through it.
  void enablers(Run& run, KernelSearch& ks) {
    // Only where a skill is refused for a declaration the original lacks (each trial is a parse).
    const std::vector<std::string> have = featureIdsOf(ks.nodes[0].st.info);
    bool wanted = false;
    for (const Skill& r : skills_)
      if (ks.unmet_on_original.count(r.id))
        for (const auto& f : r.requires_features)
          wanted = wanted || (kDeclarations.count(f) && std::find(have.begin(), have.end(), f) == have.end());
    if (!wanted) return;
    for (const Skill& s : skills_) {
      if (ks.made >= budget_) return;
      if (ks.nodes[0].tried.count(s.id) || ks.refused_on_original.count(s.id)) continue;
      const auto e = expected(ks, ks.nodes[0].st, s);
      if (!e || e->best >= kMinGain) continue;  // tried (or not) as any other skill
      run.trial = true;
      const int idx = apply(run, ks, 0, s, /*only_if_enabling=*/true);
      run.trial = false;  // what it enables is noted as any step
      if (idx < 0) continue;
      std::string which;
      for (const auto& r : enabledBy(run, ks, ks.nodes[static_cast<size_t>(idx)].st)) which += (which.empty() ? "" : ", ") + r;
      run.note(s.id + "/enabler", "skill " + s.id + " tried although the effect history left it out: it makes " + which +
                                      " applicable");
    }
  }

  // A step that makes a skill refused on the original applicable is followed by it at once.
  void enabled(Run& run, KernelSearch& ks, size_t idx) {
    for (const Skill* s : candidates(run, ks, ks.nodes[idx].st))
      if (ks.refused_on_original.count(s->id) && !ks.nodes[idx].tried.count(s->id)) apply(run, ks, idx, *s);
  }

  // The next `width` single skills that apply to the original.
  void singles(Run& run, KernelSearch& ks) {
    const std::vector<const Skill*> c = candidates(run, ks, ks.nodes[0].st);
    unsigned made_singles = 0;
    while (ks.next_single < c.size() && made_singles < width_ && ks.made < budget_) {
      const Skill* s = c[ks.next_single++];
      if (ks.nodes[0].tried.count(s->id)) continue;
      if (apply(run, ks, 0, *s) >= 0) ++made_singles;
    }
    // Singles applied before a later single was refused: offer them that one (as the subset search).
    for (size_t i = 1; i < ks.nodes.size() && ks.made < budget_; ++i)
      if (ks.nodes[i].parent == 0) enabled(run, ks, i);
  }

  // Up to `width` extensions of the chains whose last step paid, the fastest chain first; each
  // chain gets at most `width` skills with no recorded effect.
  void extendPaying(Run& run, KernelSearch& ks) {
    std::vector<size_t> paying;
    for (size_t i = 1; i < ks.nodes.size(); ++i)
      if (paid(ks, i)) paying.push_back(i);
    std::stable_sort(paying.begin(), paying.end(), [&](size_t a, size_t b) { return ks.nodes[a].s > ks.nodes[b].s; });
    unsigned made_now = 0;
    for (size_t i : paying) {
      for (const Skill* s : candidates(run, ks, ks.nodes[i].st)) {
        if (made_now >= width_ || ks.made >= budget_) return;
        if (ks.nodes[i].tried.count(s->id)) continue;
        if (!expected(ks, ks.nodes[i].st, *s) && ks.nodes[i].unknown_tried >= width_) continue;
        if (apply(run, ks, i, *s) >= 0) ++made_now;
      }
    }
  }

  bool paid(const KernelSearch& ks, size_t i) const {
    const Node& n = ks.nodes[i];
    if (!n.judged || n.duplicate || n.s <= 0) return false;
    const Node& parent = ks.nodes[static_cast<size_t>(n.parent)];
    return parent.judged && n.s >= parent.s * kMinGain;
  }

  // The gate's results onto the nodes; false while a node of this kernel has none yet.
  bool judge(KernelSearch& ks, const std::vector<const VariantReport*>& gated) {
    std::map<std::string, const VariantReport*> by_id;
    for (const VariantReport* r : gated) by_id[r->variant.id] = r;
    bool all = true;
    for (size_t i = 1; i < ks.nodes.size(); ++i) {
      Node& n = ks.nodes[i];
      auto it = by_id.find(n.st.variant_id);
      if (it == by_id.end()) {
        all = all && n.judged;
        continue;
      }
      const VariantReport& r = *it->second;
      n.judged = true;
      n.duplicate = !r.same_as.empty();
      n.s = accepted(r.outcome) ? r.speedup : 0;
      if (paid(ks, i)) ks.any_paid = true;
    }
    return all;
  }

  double bestThrough(const KernelSearch& ks, size_t i) const {
    double best = ks.nodes[i].s;
    for (size_t j = i + 1; j < ks.nodes.size(); ++j)
      if (ks.nodes[j].parent == static_cast<int>(i)) best = std::max(best, bestThrough(ks, j));
    return best;
  }
};

}  // namespace

double measuredSpeedup(const Skill& s) {
  if (s.measured.empty()) return 1.0;
  double log_sum = 0;
  for (const MeasuredEffect& m : s.measured) log_sum += std::log(std::max(m.speedup, 1e-6));
  return std::exp(log_sum / static_cast<double>(s.measured.size()));
}

void rankSkills(std::vector<Skill>& skills) {
  // The skill's search_rank first (block-size tuning after the rewrites that restructure code), then
  // the measured effect (geomean over the skill's recorded workloads), then the narrower anchor
  // (more required features: a pattern-specific rewrite before a generic one), then by id.
  std::stable_sort(skills.begin(), skills.end(), [](const Skill& a, const Skill& b) {
    if (a.search_rank != b.search_rank) return a.search_rank < b.search_rank;
    double ea = measuredSpeedup(a), eb = measuredSpeedup(b);
    if (ea != eb) return ea > eb;
    if (a.requires_features.size() != b.requires_features.size())
      return a.requires_features.size() > b.requires_features.size();
    return a.id < b.id;
  });
}

std::unique_ptr<SearchStrategy> makeSubsetSearch() { return std::make_unique<SubsetSearch>(); }

std::unique_ptr<VariantSource> makeSkillSearch(const std::vector<Skill>& skills, unsigned budget,
                                               std::unique_ptr<SearchStrategy> strategy) {
  return std::make_unique<SkillSearch>(skills, budget, std::move(strategy));
}

std::unique_ptr<VariantSource> makePlannedSearch(const std::vector<Skill>& skills, unsigned budget,
                                                 const EffectHistory* history, unsigned width) {
  return std::make_unique<PlannedSearch>(skills, budget, history, width);
}

}  // namespace klineage
