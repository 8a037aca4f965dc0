// `klineage mine` (mine.h, docs/lineage.md): the expert's lineage, breadth first. Each level's new
// versions go through the same stages as `klineage gate`'s hand-written variants and the skill
// search's chains (compileVariants, then gateAll against the expert's cubin with the expert's
// plan: captured launches or workload, probes, interleaved timing).
#include "mine.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <numeric>
#include <set>
#include <thread>

#include <clang/Lex/Lexer.h>
#include <nlohmann/json.hpp>

#include "apply.h"
#include "captures.h"
#include "compile.h"
#include "context.h"
#include "core/capture_facts.h"
#include "core/diag.h"
#include "core/fs.h"
#include "core/skill.h"
#include "core/workload.h"
#include "features/feature.h"
#include "gate/judge.h"
#include "gate_loop.h"
#include "header_kernels.h"
#include "llm/client.h"
#include "llm/prompt.h"
#include "mine_probe.h"
#include "run_setup.h"
#include "select.h"
#include "variant_source.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

// The step name of a language model's simplification (it has no transform).
const char* kLlmProposed = "llm-proposed";

std::vector<std::string> factsHeld(const KernelPlan& plan, const KernelInfo& k, const GeometryChange& g) {
  std::vector<std::string> held;
  if (!plan.facts) return held;
  WorkloadFacts wf = *plan.facts;
  wf.grid = applyGrid(g, wf.grid);
  wf.block = applyBlock(g, wf.block);
  wf.block_threads = wf.block.x * wf.block.y * wf.block.z;
  for (const char* f : {"aligned16(all pointers)", "no-overlap", "uniform-block-size"})
    if (isKnownFact(f) && factHolds(f, k, wf, nullptr)) held.push_back(f);
  return held;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

// An inverse step as one parameter set made it, before it is merged or made a version.
struct Candidate {
  StepResult r;
  GeometryChange g;
  LineageStep step;
  std::string key;      // source text + launch change
  std::string dropped;  // why the forward step does not give the parent back ("" when it does)
};

std::string paramsText(const TransformParams& params) {
  if (params.empty()) return "the default parameters";
  std::string s;
  for (const auto& [key, v] : params) s += (s.empty() ? "" : ", ") + key + "=" + v;
  return s;
}

// Why the forward step with `params`, applied to the simplified version (`child`, launched with
// `g`), does not give the parent's text back ("" when it does, whitespace aside). The mined skill
// passes the step's parameters to the forward, and an inverse ignores the ones that only shape the
// forward's form (unroll, vector_width): a parameter set the expert never had must not be credited
// with its measurement.
// The launch counts too: the inverse's own change (`step_g`) followed by the forward's must give the
// parent's launch back (the grid factors cancel, a block the forward sets is the parent's), since a
// parameter may shape only the launch (coarsen-rows' block_x) and the text then matches.
std::string forwardMismatch(const Pipeline& p, const KernelPlan& plan, const KernelInfo& k, const std::string& file,
                            const std::string& unit, const Transform& t, const TransformParams& params,
                            const Overlay& child, const GeometryChange& g, const GeometryChange& parent_g,
                            const GeometryChange& step_g, const std::string& parent_text, const std::string& parent_id) {
  const StepResult f =
      applyStep(child, p.setup.clang_args, file, k.name, t, Direction::Forward, params, factsFor(plan, g), unit);
  if (!f.applied) return "forward with " + paramsText(params) + " refuses the simplified version (" + f.reason + ")";
  if (!sameUpToTransformNames(f.overlay.at(file), parent_text))
    return "forward with " + paramsText(params) + " does not give " + parent_id + " back";
  if (!restoresLaunch(step_g, f.geometry, factsFor(plan, parent_g).block))
    return "forward with " + paramsText(params) + " gives " + parent_id + "'s text back with another launch (" +
           geometryText(composeGeometry(step_g, f.geometry)) + ")";
  return "";
}

struct Node {
  size_t version;        // index in the lineage
  Overlay overlay;       // every source with this version's kernel text
  GeometryChange geometry;
  KernelInfo info;
  double rel_speed = 1;  // expert time / this version's time (1 for the expert; 0 unknown)
};

}  // namespace

// `later` after `g`, with common factors of each multiplier and divisor cancelled: ceil(G * a*k /
// (b*k)) is ceil(G * a / b), so an inverse that undoes a forward leaves no change.
GeometryChange composeGeometry(GeometryChange g, const GeometryChange& later) {
  g.compose(later);
  auto reduce = [](unsigned& mul, unsigned& div) {
    const unsigned c = std::gcd(mul ? mul : 1, div ? div : 1);
    if (c > 1) mul /= c, div /= c;
  };
  reduce(g.grid_x_multiplier, g.grid_x_divisor);
  reduce(g.grid_y_multiplier, g.grid_y_divisor);
  return g;
}

// The facts the mined skill's forward step may require, kept when the workload proves them for
// the simplified version (its launch as the path changed it).
// Every parameter set the inverse of each transform runs with: those of the skills naming it (the
// mined skill passes them on to the forward), or the defaults when no skill names it.
std::map<std::string, std::vector<TransformParams>> inverseParamSets(const std::vector<Skill>& skills) {
  std::map<std::string, std::vector<TransformParams>> sets;
  for (const Skill& s : skills) {
    if (!s.hasTransform() || !findTransform(s.transform)) continue;
    auto& v = sets[s.transform];
    TransformParams p = paramsOf(s);
    if (std::find(v.begin(), v.end(), p) == v.end()) v.push_back(p);
  }
  for (const Transform* t : allTransforms())
    if (!sets.count(t->id())) sets[t->id()].push_back({});
  return sets;
}

// The text with runs of whitespace removed, except one blank between two identifier characters.
std::string normalizedText(const std::string& s) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  bool gap = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      gap = true;
      continue;
    }
    if (gap && !out.empty() && word(out.back()) && word(c)) out += ' ';
    gap = false;
    out += c;
  }
  return out;
}

namespace {
// The tokens of a source text, comments dropped (clang's raw lexer: no preprocessing, so a
// `#pragma unroll` is its three tokens).
std::vector<std::string> tokensOf(const std::string& text) {
  clang::LangOptions lo;
  lo.CPlusPlus = lo.CPlusPlus11 = lo.CPlusPlus14 = lo.CPlusPlus17 = true;
  lo.CUDA = true;
  clang::Lexer lex(clang::SourceLocation(), lo, text.data(), text.data(), text.data() + text.size());
  lex.SetCommentRetentionState(false);
  std::vector<std::string> out;
  clang::Token tok;
  while (true) {
    lex.LexFromRawLexer(tok);
    if (tok.is(clang::tok::eof)) break;
    // The lexer was given no file: a token's location encodes its offset in `text`.
    out.push_back(text.substr(tok.getLocation().getRawEncoding(), tok.getLength()));
  }
  return out;
}
}  // namespace

bool restoresLaunch(const GeometryChange& inverse_g, const GeometryChange& forward_g, const std::optional<Dim3>& parent_block) {
  const GeometryChange net = composeGeometry(inverse_g, forward_g);
  bool same = net.grid_x_multiplier == net.grid_x_divisor && net.grid_y_multiplier == net.grid_y_divisor;
  if (net.block_x) same = same && parent_block && parent_block->x == *net.block_x;
  if (net.block_y) same = same && parent_block && parent_block->y == *net.block_y;
  return same;
}

bool sameUpToTransformNames(const std::string& forward, const std::string& parent) {
  if (normalizedText(forward) == normalizedText(parent)) return true;
  const std::vector<std::string> a = tokensOf(forward), b = tokensOf(parent);
  if (a.size() != b.size()) return false;
  std::map<std::string, std::string> to, from;
  for (size_t k = 0; k < a.size(); ++k) {
    const bool ours = a[k].rfind("kl_", 0) == 0;
    if (!ours) {
      if (a[k] != b[k] || from.count(b[k])) return false;  // b[k] already stands for a kl_ name
      continue;
    }
    auto [it, fresh] = to.emplace(a[k], b[k]);
    if (!fresh && it->second != b[k]) return false;
    auto [jt, fresh2] = from.emplace(b[k], a[k]);
    if (!fresh2 && jt->second != a[k]) return false;
  }
  // A parent name a kl_ name stands for must not also appear where forward has that name itself.
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k].rfind("kl_", 0) != 0 && from.count(a[k])) return false;
  return true;
}

int runMine(const MineOptions& opt, const PipelineSeams& seams) {
  TargetSetup setup = loadTargetSetup(opt.config);
  OwnedSeams own;
  const BuildTreeLayout layout{setup.config.out_dir};
  Pipeline p = makePipeline(setup, layout, seams, own);
  fs::create_directories(layout.root);
  const Manifest manifest = extractManifest(p.cfg.target, p.setup.toParse());
  p.includes = manifest.includes;
  if (!manifest.find(opt.kernel)) {
    std::string names;
    for (const auto& k : manifest.kernels) names += (names.empty() ? "" : ", ") + k.name;
    throw InputError(opt.config, 0, 0, "--kernel " + opt.kernel + ": no such kernel in target '" + p.cfg.target +
                                           "'; expected one of: " + (names.empty() ? "(none)" : names));
  }
  const std::vector<Skill> skills = loadSkills(p.cfg.skills, transformIds(), featureIds());
  std::optional<Workload> workload;
  if (p.cfg.workload) {
    workload = loadWorkload(*p.cfg.workload);
    validateWorkload(*workload, manifest);
  }
  p.device = p.backend.probe();
  p.gpu = p.device.available;
  p.jobs = opt.jobs ? opt.jobs : std::max(1u, std::thread::hardware_concurrency());
  readOriginals(p, manifest);
  const auto captured = capturedLaunches(p, manifest);
  if (!captured) return kExitFailure;
  const OriginalCubins originals = compileOriginals(p, manifest, opt.kernel);
  const Plans plans = planKernels(p, manifest, workload, *captured, originals.cubin, opt.kernel);
  const KernelPlan* plan = plans.find(opt.kernel);
  if (!plan) {
    std::string why = "it was not planned";
    for (const auto& [k, w] : plans.skipped)
      if (k == opt.kernel) why = w;
    p.status.error("klineage mine: the expert " + opt.kernel + " cannot be gated: " + why);
    return kExitFailure;
  }
  const KernelInfo& k = *plan->info;
  const std::string file = k.range.file;
  const std::string unit = k.in_header ? unitOf(k) : "";
  if (!p.gpu) p.status.warning("klineage mine: no CUDA device (" + p.device.reason + "): versions are made, not gated");

  VariantReport orig;
  orig.variant.id = k.name + "/original";
  orig.variant.kernel = k.name;
  orig.variant.kernel_file = file;
  orig.variant.source = file;
  orig.variant.mangled_name = k.mangled_name;
  orig.variant.is_original = true;
  orig.cubin = originals.cubin.at(unitOf(k));
  if (orig.cubin.empty()) {
    p.status.error("klineage mine: the expert's source does not compile: " + originals.log.at(unitOf(k)).substr(0, 2000));
    return kExitFailure;
  }

  std::map<std::string, VersionBuild> builds{{"v0", {orig.cubin, orig.variant.mangled_name}}};  // for --probe
  const fs::path out = opt.out_dir.empty() ? layout.root / "mine" / k.name : fs::path(opt.out_dir);
  const std::string ext = fs::path(file).extension().string();
  Lineage lin;
  lin.target = p.cfg.target;
  lin.kernel = k.name;
  lin.expert_file = file;
  lin.workload = plan->replay ? "capture " + plan->replay->dir
                              : "workload " + (p.cfg.workload ? *p.cfg.workload : std::string("(none)"));
  lin.shape = "grid " + dimText(plan->grid) + " block " + dimText(plan->block);
  lin.gpu = p.gpu ? p.device.device : "";
  lin.arch = p.gpu ? p.device.arch : "";
  lin.cuda = p.gpu ? p.device.driver : "";
  lin.date = today();
  lin.max_depth = opt.max_depth;
  lin.budget = opt.budget;
  {
    LineageVersion e;
    e.id = "v0";
    e.source = "versions/v0" + ext;
    e.outcome = "expert";
    e.accepted = true;
    e.features = featureIdsOf(k);
    e.facts = factsHeld(*plan, k, {});
    atomicWrite(out / e.source, p.originals.at(file));
    lin.versions.push_back(std::move(e));
  }
  const auto param_sets = inverseParamSets(skills);
  std::map<std::string, size_t> seen;  // source text + launch change -> version
  seen[p.originals.at(file) + "\n" + nlohmann::json(GeometryChange{}).dump()] = 0;
  std::vector<Node> frontier{{0, p.originals, {}, k, 1}};
  std::vector<Node> nodes_by_version{frontier[0]};
  unsigned made = 0;
  bool budget_hit = false;
  double expert_ms = 0;
  // LLM-proposed simplifications, beside the inverses, when an endpoint is configured.
  std::optional<LlmSession> llm;
  if (opt.llm_steps > 0) {
    LlmOptions lo = llmOptionsOf(p.cfg);
    if (!lo.url.empty()) llm.emplace(std::move(lo));
  }

  // A new version made from `n` by `step` (an inverse, or a language model's simplification): its
  // source written, its variant queued for this level's gate.
  std::vector<VariantReport> round;
  std::vector<Node> fresh;
  auto addVersion = [&](const Node& n, const std::string& parent_id, const LineageStep& step, const std::string& text,
                        Overlay overlay, const GeometryChange& g, const KernelInfo& kernel_after, const std::string& label) {
    if (made >= opt.budget) {
      budget_hit = true;
      return;
    }
    ++made;
    LineageVersion v;
    v.id = "v" + std::to_string(lin.versions.size());
    v.parent = parent_id;
    v.depth = lin.versions[n.version].depth + 1;
    v.step = step;
    v.source = "versions/" + v.id + ext;
    v.geometry = g;
    KernelInfo after = kernel_after;
    after.launches = k.launches;
    after.declarations = k.declarations;
    after.in_header = k.in_header;
    after.units = k.units;
    v.features = featureIdsOf(after);
    v.facts = factsHeld(*plan, after, g);
    atomicWrite(out / v.source, text);
    seen[text + "\n" + nlohmann::json(g).dump()] = lin.versions.size();

    VariantReport rep;
    Variant& var = rep.variant;
    var.id = k.name + "/mine-" + v.id;
    var.kernel = k.name;
    var.kernel_file = file;
    var.transforms = {step.transform == kLlmProposed ? std::string("llm") : step.transform};
    var.skills = {label + " (" + v.id + " <- " + parent_id + ")"};
    var.geometry = g;
    var.mangled_name = k.is_template ? k.mangled_name : after.mangled_name;
    var.diff = describeDiff(p.originals.at(file), text);
    writeVariantFiles(p, k, layout.variantDir(k.name, "mine-" + v.id), text, var);
    round.push_back(std::move(rep));
    fresh.push_back({lin.versions.size(), std::move(overlay), g, after, 0});
    lin.versions.push_back(std::move(v));
  };
  // The language model's simplifications of version `n` (docs/lineage.md, "LLM-proposed
  // simplifications"): one prompt each, the reply a whole-file version gated like an inverse's;
  // refused when it changes the kernel's signature or launches, or does not parse.
  auto llmSteps = [&](const Node& n, const std::string& parent_id, std::vector<std::string>& taken) {
    for (unsigned q = 1; q <= opt.llm_steps && !budget_hit; ++q) {
      std::string done;
      for (const auto& t : taken) done += "- " + t + "\n";
      const std::string prompt = renderPrompt(simplificationPromptTemplate(),
                                              {{"kernel", k.name},
                                               {"kernel_file", fs::path(file).filename().string()},
                                               {"kernel_source", n.overlay.at(file)},
                                               {"launch_site", launchSitesOf(k)},
                                               {"taken", done.empty() ? "- none\n" : done}});
      const LlmReply reply = llm->complete({{"system", llmSystemPrompt()}, {"user", prompt}});
      const std::string tag = "LLM simplification " + std::to_string(q) + " of " + parent_id;
      if (!reply.ok) {
        p.status.kernelNote(k.name, tag + ": " + (reply.refused ? "not sent: " : "failed: ") + llm->redact(reply.error));
        return;
      }
      p.status.kernelNote(k.name, tag + ": " +
                                      (reply.from_cache ? "reply from the cache (" + reply.cache_key.substr(0, 12) + ")"
                                                        : "reply from " + urlForMessages(llm->options().url) + " (" +
                                                              std::to_string(reply.total_tokens) + " tokens)"));
      const std::string code = extractCode(llm->redact(reply.content));
      const std::string what = simplificationOf(code);
      taken.push_back("a simplification a language model proposed: " + (what.empty() ? std::string("(unnamed)") : what));
      WholeFileVariant w = wholeFileVariant(p, k, code, "mine-llm-" + parent_id + "-" + std::to_string(q), "the LLM reply");
      std::string why = w.report.reason;
      if (why.empty() && !w.report.variant.own_launches.empty())
        why = "the LLM reply changed the launch of " + k.name + "; a simplification keeps the launch code as it is";
      const KernelInfo* after = w.manifest.find(k.name);
      if (why.empty() && !after) why = "the LLM reply defines no kernel " + k.name;
      if (!why.empty()) {
        p.status.kernelNote(k.name, tag + ": not a version: " + why.substr(0, 300));
        continue;
      }
      Overlay overlay = n.overlay;
      overlay[file] = code;
      auto it = seen.find(code + "\n" + nlohmann::json(n.geometry).dump());
      LineageStep step{kLlmProposed, nlohmann::json::object(),
                       what.empty() ? std::string("a simplification a language model proposed") : what};
      step.materialize = "llm";
      step.forward = "no transform: a language model proposed the step";
      step.example = describeDiff(code, n.overlay.at(file), 2);
      if (it != seen.end()) {
        if (it->second != n.version) lin.versions[it->second].also_from.emplace_back(parent_id, step);
        continue;
      }
      addVersion(n, parent_id, step, code, std::move(overlay), n.geometry, *after, "llm-proposed");
    }
  };
  for (unsigned depth = 1; depth <= opt.max_depth && !frontier.empty() && !budget_hit; ++depth) {
    round = {orig};
    fresh.clear();
    for (const Node& n : frontier) {
      const std::string parent_id = lin.versions[n.version].id;
      std::vector<std::string> taken;  // what the inverses did from this version (the model is told)
      for (const Transform* t : allTransforms()) {
        // Every parameter set first: one whose forward step does not give the parent back must not
        // become the version's step because it came first (block-reduce-atomic-unrolled's skill
        // loads before block-reduce-atomic's).
        std::vector<Candidate> cands;
        for (const TransformParams& params : param_sets.at(t->id())) {
          StepResult r = applyStep(n.overlay, p.setup.clang_args, file, k.name, *t, Direction::Inverse, params,
                                   factsFor(*plan, n.geometry), unit);
          if (!r.applied) {
            // An inverse that edited but left code that does not parse is worth a line; refusals are not.
            if (!r.errors.empty())
              p.status.kernelNote(k.name, "-" + t->id() + " from " + parent_id + ": " + r.reason + " (" + r.errors[0] + ")");
            continue;
          }
          const GeometryChange g = composeGeometry(n.geometry, r.geometry);
          LineageStep step{t->id(), nlohmann::json::object(), r.reason};
          for (const auto& [key, v] : params) step.params[key] = v;
          if (g.changes() && !plan->geometry_may_change) {
            p.status.kernelNote(k.name, "-" + t->id() + " from " + parent_id +
                                            " needs a launch change, but the kernel is launched from outside the target's "
                                            "sources: not followed");
            continue;
          }
          std::string key = r.overlay.at(file) + "\n" + nlohmann::json(g).dump();
          std::string why = forwardMismatch(p, *plan, k, file, unit, *t, params, r.overlay, g, n.geometry, r.geometry,
                                            n.overlay.at(file), parent_id);
          cands.push_back({std::move(r), g, std::move(step), std::move(key), std::move(why)});
        }
        std::stable_partition(cands.begin(), cands.end(), [](const Candidate& c) { return c.dropped.empty(); });
        // No parameter set's forward gives the parent back: the step is still the expert's (the gate
        // judges the version as any other), but its skill is one a language model applies from the
        // expert's own forward diff (materialize = "llm"); parameters only the transform reads go.
        const bool rewriter_reproduces = !cands.empty() && cands.front().dropped.empty();
        for (Candidate& c : cands) {
          if (rewriter_reproduces || c.dropped.empty()) continue;
          c.step.materialize = "llm";
          c.step.forward = std::move(c.dropped);
          c.step.params = nlohmann::json::object();
          c.step.example = describeDiff(c.r.overlay.at(file), n.overlay.at(file), 2);
          c.dropped.clear();
        }
        for (Candidate& c : cands) {
          StepResult& r = c.r;
          const GeometryChange& g = c.g;
          const LineageStep& step = c.step;
          const std::string& key = c.key;
          const std::string& text = r.overlay.at(file);
          auto it = seen.find(key);
          if (!c.dropped.empty()) {
            // Not a step of any version (nor a skill): kept in the lineage with the reason. The
            // version it reached stays when another parameter set reproduces the parent.
            const std::string reached = it != seen.end() ? lin.versions[it->second].id : "";
            lin.dropped.push_back({parent_id, step, c.dropped, reached});
            p.status.kernelNote(k.name, "-" + t->id() + " from " + parent_id + ": " + c.dropped +
                                            (reached.empty() ? ": not followed" : ": dropped from " + reached + "'s steps"));
            continue;
          }
          if (it != seen.end()) {
            if (it->second != n.version) lin.versions[it->second].also_from.emplace_back(parent_id, step);
            continue;
          }
          addVersion(n, parent_id, step, text, std::move(r.overlay), g, r.kernel_after, "-" + t->id());
          taken.push_back("-" + t->id() + ": " + step.what);
        }
      }
      if (llm) llmSteps(n, parent_id, taken);
    }
    if (fresh.empty()) break;
    compileVariants(p, round);
    gateAll(p, plans, round, 1);
    std::vector<Node> next;
    for (size_t i = 1; i < round.size(); ++i) {
      const VariantReport& r = round[i];
      Node& n = fresh[i - 1];
      LineageVersion& v = lin.versions[n.version];
      builds[v.id] = {r.cubin, r.variant.mangled_name};
      v.outcome = outcomeName(r.outcome);
      v.reason = r.reason;
      v.accepted = accepted(r.outcome);
      if (r.variant_ms > 0) v.time_ms = r.variant_ms;
      if (r.original_ms > 0 && expert_ms <= 0) expert_ms = r.original_ms;
      n.rel_speed = r.speedup > 0 && r.variant_ms > 0 ? r.speedup : 0;
      const Node* parent = nullptr;
      for (const Node& c : nodes_by_version)
        if (lin.versions[c.version].id == v.parent) parent = &c;
      if (parent && parent->rel_speed > 0 && n.rel_speed > 0) v.parent_speedup = parent->rel_speed / n.rel_speed;
      for (const Probe& pr : plan->probes) {
        if (v.accepted) v.probes.push_back({pr.name, true});
        else if (r.reason.find(pr.name) != std::string::npos) v.probes.push_back({pr.name, false});
      }
      nodes_by_version.push_back(n);
      p.status.info("klineage mine: " + lineageLine(lin, v));
      if (v.accepted) next.push_back(n);
    }
    frontier = std::move(next);
    if (expert_ms > 0) lin.versions[0].time_ms = expert_ms;
    saveLineage((out / "lineage.json").string(), lin);  // after every level: a long run leaves what it has
  }
  if (budget_hit)
    p.status.warning("klineage mine: the budget of " + std::to_string(opt.budget) +
                     " versions is spent; versions beyond it were not made (--budget)");
  const std::string lineage_path = (out / "lineage.json").string();
  if (opt.probe) {  // docs/lineage.md, "Probing preconditions": the evidence goes into the steps and skills
    const unsigned jobs = probePreconditions(p, *plan, lin, builds);
    p.status.info("klineage mine: --probe: " + std::to_string(jobs) + " probe jobs run");
  }
  saveLineage(lineage_path, lin);
  unsigned accepted_steps = 0;
  for (const auto& v : lin.versions) accepted_steps += v.accepted && v.step ? 1 : 0;
  p.status.info("klineage mine: " + std::to_string(lin.versions.size() - 1) + " simplified versions of " + k.name + ", " +
                std::to_string(accepted_steps) + " accepted; lineage written to " + lineage_path);
  if (!opt.emit_skills_dir.empty()) {
    const auto files = emitMinedSkills(lin, lineage_path, opt.emit_skills_dir, transformNeeds(skills));
    for (const auto& f : files) p.status.info("klineage mine: skill " + f);
    if (files.empty()) p.status.info("klineage mine: no accepted step, no skill written");
  }
  if (opt.lineage_out) *opt.lineage_out = lin;
  return kExitOk;
}

}  // namespace klineage
