// The skill search: chains of skills applied one step at a time to a kernel, each step
// re-parsed, its skill's preconditions checked on the kernel as it is then.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "apply.h"
#include "context.h"
#include "core/fs.h"
#include "header_kernels.h"
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

struct State {
  Overlay overlay;
  std::vector<const Skill*> chain;
  GeometryChange geometry;
  KernelInfo info;
};

class SkillSearch : public VariantSource {
 public:
  // Skills without a transform (materialize = "llm") are the LLM source's (llm_source.cpp).
  SkillSearch(const std::vector<Skill>& skills, unsigned budget, std::unique_ptr<SearchStrategy> s)
      : budget_(budget), strategy_(std::move(s)) {
    for (const Skill& sk : skills)
      if (sk.hasTransform()) skills_.push_back(sk);
    rankSkills(skills_);
  }
  std::string name() const override { return "skills (" + strategy_->name() + ")"; }

  std::vector<VariantReport> variants(Pipeline& p, const KernelPlan& plan, std::vector<std::string>* refusals) override {
    Run run{p, plan, refusals, {}, {}, 0};
    strategy_->reset();
    std::vector<State> frontier{{p.originals, {}, {}, *plan.info}};
    std::set<std::string> refused_on_original;
    bool first = true;
    while (!frontier.empty() && run.made < budget_) {
      std::vector<State> next;
      for (const State& st : frontier)
        for (const Skill* s : strategy_->next(st.chain, skills_)) {
          if (run.made >= budget_) break;
          // `made` is marked when a chain is applied, so an order that fails leaves the set to another.
          auto ns = step(run, st, *s);
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
        for (size_t i = 0; i < singles && run.made < budget_; ++i) {
          State copy = next[i];
          extendEnabled(run, copy, refused_on_original, next);
        }
      }
      frontier = std::move(next);
    }
    return std::move(run.reports);
  }

 private:
  std::vector<Skill> skills_;
  unsigned budget_;
  std::unique_ptr<SearchStrategy> strategy_;

  struct Run {
    Pipeline& p;
    const KernelPlan& plan;
    std::vector<std::string>* refusals;
    std::set<std::string> logged;
    std::vector<VariantReport> reports;
    unsigned made;
    // Once per skill and reason: after other skills a different precondition may be the one that
    // fails (vectorize needs a grid-stride loop first, then aligned pointers).
    void note(const std::string& key, const std::string& line) {
      if (!logged.insert(key).second) return;
      p.status.kernelNote(plan.info->name, line);
      if (refusals) refusals->push_back(line);
    }
  };

  // Depth first along the skills that were refused on the original kernel but apply after `st`.
  void extendEnabled(Run& run, const State& st, const std::set<std::string>& refused, std::vector<State>& out) {
    for (const Skill* s : strategy_->next(st.chain, skills_)) {
      if (run.made >= budget_) return;
      if (!refused.count(s->id)) continue;
      if (auto ns = step(run, st, *s)) {
        out.push_back(std::move(*ns));
        State copy = out.back();  // `out` may grow below
        extendEnabled(run, copy, refused, out);
      }
    }
  }

  std::optional<State> step(Run& run, const State& st, const Skill& s) {
    const KernelInfo& k = *run.plan.info;
    std::string why;
    if (!preconditionsHold(s, st.info, run.plan.facts ? &*run.plan.facts : nullptr, &why)) {
      std::string after;
      for (auto* c : st.chain) after += (after.empty() ? " (after " : "+") + c->id;
      if (!after.empty()) after += ")";
      run.note(s.id + "/" + why, "skill " + s.id + " not applicable" + after + ": " + why);
      return std::nullopt;
    }
    TransformFacts tfacts;
    tfacts.block_size = run.plan.block_size;
    tfacts.block = run.plan.block_shape;
    StepResult r = applyStep(st.overlay, run.p.setup.clang_args, k.range.file, k.name, *findTransform(s.transform),
                             Direction::Forward, paramsOf(s), tfacts, k.in_header ? unitOf(k) : "");
    if (!r.applied) {
      if (st.chain.empty())
        run.note(s.id, "skill " + s.id + " made no edit: " + r.reason + (r.errors.empty() ? "" : " (" + r.errors[0] + ")"));
      return std::nullopt;
    }
    GeometryChange g = st.geometry;
    g.compose(r.geometry);
    if (g.changes() && !run.plan.geometry_may_change) {
      run.note(s.id + "/geometry", "skill " + s.id +
                                       " needs a launch-geometry change, but the kernel is launched from outside the "
                                       "target's sources (or no launch site was found): only geometry-preserving "
                                       "variants are gated");
      return std::nullopt;
    }
    State ns{std::move(r.overlay), st.chain, g, r.kernel_after};
    // What describes the kernel's place in the target (launch sites, prototypes, header or not)
    // comes from extraction of the whole target, not from re-parsing one file.
    ns.info.launches = k.launches;
    ns.info.declarations = k.declarations;
    ns.info.in_header = k.in_header;
    ns.info.units = k.units;
    if (k.is_template) keepInstanceTypes(ns.info, k);
    ns.chain.push_back(&s);
    strategy_->made(ns.chain);
    run.reports.push_back(write(run, ns, ++run.made));
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

}  // namespace klineage
