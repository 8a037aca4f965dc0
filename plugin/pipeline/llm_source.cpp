// Skills a language model materializes (materialize = "llm", or "transform+llm" where the
// transform makes no edit): the skill, the kernel's file, its launches and the facts it is gated
// on go into a prompt (the skill's `prompt` template or the default one, llm/prompt.cpp); the
// reply's code is a whole-file variant like a hand-written one (wholeFileVariant), refused when
// the kernel, its signature, its launches or the file's other kernels changed, and otherwise
// compiled and gated like every variant. A failed attempt is re-prompted with the gate's outcome
// and reason, up to cfg.llm.repair_rounds times (VariantSource::repairs). docs/llm.md.
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "core/launch_eval.h"
#include "apply.h"
#include "context.h"
#include "core/capture_facts.h"
#include "core/fs.h"
#include "llm/client.h"
#include "llm/prompt.h"
#include "select.h"
#include "variant_source.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

LlmOptions llmOptionsOf(const Config& cfg) {
  LlmOptions o;
  o.url = !env("KLINEAGE_LLM_URL").empty() ? env("KLINEAGE_LLM_URL") : cfg.llm.url;
  o.model = !env("KLINEAGE_LLM_MODEL").empty() ? env("KLINEAGE_LLM_MODEL") : cfg.llm.model;
  o.api_key = env("KLINEAGE_LLM_API_KEY");
  o.cache_dir = BuildTreeLayout{cfg.out_dir}.llmCache().string();
  o.connect_timeout_ms = static_cast<long>(cfg.llm.connect_timeout_s * 1000);
  o.timeout_ms = static_cast<long>(cfg.llm.timeout_s * 1000);
  o.max_retries = cfg.llm.retries;
  o.backoff_ms = static_cast<long>(cfg.llm.backoff_s * 1000);
  o.max_requests = cfg.llm.max_requests;
  o.max_tokens = cfg.llm.max_tokens;
  return o;
}

namespace {

std::string listOr(const std::vector<std::string>& v, const std::string& none) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? none : s;
}

std::string dim(const Dim3& d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

std::string signatureOf(const KernelInfo& k) {
  std::string s = "__global__ void " + k.name + "(";
  for (size_t i = 0; i < k.params.size(); ++i) {
    std::string t = k.params[i].type;
    while (!t.empty() && t.back() == ' ') t.pop_back();
    s += (i ? ", " : "") + t + (!t.empty() && (t.back() == '*' || t.back() == '&') ? "" : " ") + k.params[i].name;
  }
  return s + ")";
}

std::string launchesOf(const KernelInfo& k) {
  std::string s;
  for (const auto& l : k.launches) {
    s += "- " + fs::path(l.file).filename().string() + ":" + std::to_string(l.line) + ": " + k.name + "<<<" + l.grid +
         ", " + l.block + (l.shmem.empty() ? "" : ", " + l.shmem) + (l.stream.empty() ? "" : ", " + l.stream) + ">>>(";
    for (size_t i = 0; i < l.args.size(); ++i) s += (i ? ", " : "") + l.args[i];
    s += ")\n  resolved through " + (l.launcher.empty() ? std::string("the host code") : l.launcher + "()") + ": " +
         describeResolved(l) + "\n";
  }
  return s.empty() ? "(no launch site found in the target's sources)\n" : s;
}

std::string factsOf(const KernelPlan& plan) {
  std::string s = "gated on " + std::string(plan.replay ? "a launch captured from the program" : "the declared workload") +
                  ": grid " + dim(plan.grid) + ", block " + dim(plan.block) + ", dynamic shared memory " +
                  std::to_string(plan.shmem) + " bytes\n";
  for (const auto& [name, v] : plan.scalars) s += "- " + name + " = " + nlohmann::json(v).dump() + "\n";
  if (plan.facts) s += "facts: " + describeFacts(*plan.facts) + "\n";
  s += "results must match the original within rtol " + nlohmann::json(plan.tol.rtol).dump() + ", atol " +
       nlohmann::json(plan.tol.atol).dump() + "\n";
  if (!plan.probes.empty()) s += "it is also checked on " + std::to_string(plan.probes.size()) + " other problem sizes\n";
  for (const auto& n : plan.notes) s += "- " + n + "\n";
  return s;
}

bool repairable(Outcome o) {
  return o == Outcome::CompileFailed || o == Outcome::WrongResult || o == Outcome::RuntimeFailed || o == Outcome::Timeout;
}

class LlmSource : public VariantSource {
 public:
  LlmSource(const std::vector<Skill>& skills, const Config& cfg)
      : session_(llmOptionsOf(cfg)), repair_rounds_(cfg.llm.repair_rounds) {
    for (const Skill& s : skills)
      if (s.usesLlm()) skills_.push_back(s);
  }
  std::string name() const override { return "llm"; }

  std::vector<VariantReport> variants(Pipeline& p, const KernelPlan& plan, std::vector<std::string>* refusals) override {
    std::vector<VariantReport> out;
    const KernelInfo& k = *plan.info;
    auto refuse = [&](const std::string& line) {
      p.status.kernelNote(k.name, line);
      if (refusals) refusals->push_back(line);
    };
    for (const Skill& s : skills_) {
      std::string why;
      if (!preconditionsHold(s, k, plan.facts ? &*plan.facts : nullptr, &why)) {
        refuse("skill " + s.id + " not applicable: " + why);
        continue;
      }
      if (s.materialize == Materialize::TransformThenLlm && transformApplies(p, plan, s)) continue;  // the skill search's
      if (!session_.enabled()) {
        if (!told_no_url_) p.status.info("klineage: LLM skills not materialized: KLINEAGE_LLM_URL is not set");
        told_no_url_ = true;
        refuse("skill " + s.id + " not materialized: it needs a language model and KLINEAGE_LLM_URL is not set (docs/llm.md)");
        continue;
      }
      if (auto r = attempt(p, plan, s, 1, {}, refusals)) out.push_back(std::move(*r));
    }
    return out;
  }

  std::vector<VariantReport> repairs(Pipeline& p, const KernelPlan& plan, const std::vector<const VariantReport*>& failed,
                                     std::vector<std::string>* refusals) override {
    std::vector<VariantReport> out;
    for (const VariantReport* r : failed) {
      auto it = open_.find(r->variant.id);
      if (it == open_.end()) continue;  // not ours, or already repaired
      Attempt a = it->second;
      open_.erase(it);
      const bool ours_to_fix = repairable(r->outcome) || (r->outcome == Outcome::NotRun && refused_.count(r->variant.id));
      if (!ours_to_fix) continue;
      a.failures.push_back("attempt " + std::to_string(a.n) + " (" + r->variant.id + "): " + outcomeName(r->outcome) +
                           ": " + r->reason.substr(0, 3000));
      if (a.n > repair_rounds_) {
        const std::string line = "skill " + a.skill->id + ": " + std::to_string(a.n) +
                                 " LLM attempts failed the gate; no more repair rounds (LLM_REPAIR_ROUNDS " +
                                 std::to_string(repair_rounds_) + ")";
        p.status.kernelNote(plan.info->name, line);
        if (refusals) refusals->push_back(line);
        continue;
      }
      if (auto v = attempt(p, plan, *a.skill, a.n + 1, a.failures, refusals)) out.push_back(std::move(*v));
    }
    return out;
  }

 private:
  struct Attempt {
    const Skill* skill = nullptr;
    unsigned n = 1;
    std::vector<std::string> failures;  // of the earlier attempts, for the next prompt
  };
  std::vector<Skill> skills_;
  LlmSession session_;
  unsigned repair_rounds_;
  bool told_no_url_ = false;
  std::map<std::string, Attempt> open_;     // variant id -> its attempt, until the gate has judged it
  std::set<std::string> refused_;           // variants refused before the gate (contract), repairable
  std::map<std::string, Manifest> originals_by_file_;

  bool transformApplies(Pipeline& p, const KernelPlan& plan, const Skill& s) {
    const Transform* t = findTransform(s.transform);
    if (!t) return false;
    // The transform alone on the original: no earlier step has changed the launch.
    return applyStep(p.originals, p.setup.clang_args, plan.info->range.file, plan.info->name, *t, Direction::Forward,
                     paramsOf(s), factsFor(plan, GeometryChange{}))
        .applied;
  }

  std::map<std::string, std::string> fields(Pipeline& p, const KernelPlan& plan, const Skill& s,
                                            const std::vector<std::string>& failures) {
    const KernelInfo& k = *plan.info;
    std::string risks, fails;
    for (const auto& r : s.risks) risks += "- " + r.failure + " (avoided by: " + r.avoided_by + ")\n";
    for (const auto& f : failures) fails += "- " + f + "\n";
    std::string anchor = s.anchor_description;
    if (!s.requires_features.empty()) anchor += " (has: " + listOr(s.requires_features, "") + ")";
    if (!s.forbids_features.empty()) anchor += " (has none of: " + listOr(s.forbids_features, "") + ")";
    return {{"skill_id", s.id},
            {"intent", s.intent},
            {"anchor", anchor},
            {"preconditions", listOr(s.facts, "none beyond the code shape")},
            {"effect", s.expected_effect},
            {"risks", risks.empty() ? "- none listed\n" : risks},
            {"params", s.params.dump()},
            {"kernel", k.name},
            {"signature", signatureOf(k)},
            {"kernel_file", fs::path(k.range.file).filename().string()},
            {"kernel_source", p.originals.at(k.range.file)},
            {"launch_site", launchesOf(k)},
            {"facts", factsOf(plan)},
            {"failures", fails.empty() ? "none: this is the first attempt\n" : fails},
            {"example", s.example.empty() ? "none recorded\n" : "```diff\n" + s.example + "```\n"}};
  }

  // Why the variant's file changes more than the kernel ("" when it does not).
  std::string otherKernelsChanged(Pipeline& p, const KernelInfo& k, const Manifest& vm) {
    auto it = originals_by_file_.find(k.range.file);
    if (it == originals_by_file_.end())
      it = originals_by_file_
               .emplace(k.range.file,
                        extractManifest(p.cfg.target, {{k.range.file, p.setup.clang_args.at(k.range.file)}}, p.originals))
               .first;
    for (const auto& other : it->second.kernels) {
      if (other.name == k.name || other.range.file != k.range.file) continue;
      const KernelInfo* now = vm.find(other.name);
      if (!now) return "the reply removed kernel '" + other.name + "'; only '" + k.name + "' may change";
      if (now->source_hash != other.source_hash)
        return "the reply changed kernel '" + other.name + "'; only '" + k.name + "' may change";
    }
    return "";
  }

  std::optional<VariantReport> attempt(Pipeline& p, const KernelPlan& plan, const Skill& s, unsigned n,
                                       const std::vector<std::string>& failures, std::vector<std::string>* refusals) {
    const KernelInfo& k = *plan.info;
    const std::string tmpl = s.prompt.empty() ? defaultPromptTemplate() : s.prompt;
    const std::string prompt = renderPrompt(tmpl, fields(p, plan, s, failures));
    const LlmReply reply = session_.complete({{"system", llmSystemPrompt()}, {"user", prompt}});
    const std::string tag = "skill " + s.id + ", LLM attempt " + std::to_string(n);
    if (!reply.ok) {
      const std::string line = tag + ": " + (reply.refused ? "not sent: " : "failed: ") + session_.redact(reply.error);
      p.status.kernelNote(k.name, line);
      if (refusals) refusals->push_back(line);
      return std::nullopt;
    }
    p.status.kernelNote(k.name, tag + ": " +
                                    (reply.from_cache ? "reply from the cache (" + reply.cache_key.substr(0, 12) + ")"
                                                      : "reply from " + urlForMessages(session_.options().url) + " (" +
                                                            std::to_string(reply.total_tokens) + " tokens)"));
    const std::string name = "llm-" + s.id + "-" + std::to_string(n);
    WholeFileVariant w = wholeFileVariant(p, k, extractCode(session_.redact(reply.content)), name, "the LLM reply");
    VariantReport& rep = w.report;
    rep.variant.skills = {s.id};
    rep.variant.transforms = {"llm"};
    if (rep.reason.empty() && !rep.variant.own_launches.empty())
      rep.reason = "the LLM reply changed the launch of " + k.name + "; a variant from a language model keeps the launch "
                   "code as it is";
    if (rep.reason.empty()) rep.reason = otherKernelsChanged(p, k, w.manifest);
    if (!rep.reason.empty()) {
      rep.outcome = Outcome::NotRun;
      rep.variant.own_launches.clear();
      refused_.insert(rep.variant.id);
    }
    const fs::path dir = p.layout.variantDir(k.name, name);
    atomicWrite(dir / "variant.json", nlohmann::json(rep.variant).dump(2) + "\n");
    atomicWrite(dir / "prompt.md", session_.redact(prompt));
    atomicWrite(dir / "reply.md", session_.redact(reply.content));
    open_[rep.variant.id] = {&s, n, failures};
    return rep;
  }
};

}  // namespace

std::string launchSitesOf(const KernelInfo& k) { return launchesOf(k); }

std::unique_ptr<VariantSource> makeLlmSource(const std::vector<Skill>& skills, const Config& cfg) {
  return std::make_unique<LlmSource>(skills, cfg);
}

}  // namespace klineage
