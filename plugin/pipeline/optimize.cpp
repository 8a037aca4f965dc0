#include "optimize.h"

#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "canonical/canonical.h"
#include "captures.h"
#include "compile.h"
#include "context.h"
#include "core/capture_facts.h"
#include "core/diag.h"
#include "core/fs.h"
#include "core/workload.h"
#include "effect_history.h"
#include "features/feature.h"
#include "gate/judge.h"
#include "gate/selection.h"
#include "gate_loop.h"
#include "header_kernels.h"
#include "identical.h"
#include "oracle.h"
#include "per_kernel.h"
#include "report.h"
#include "report_html.h"
#include "result_cache.h"
#include "run_setup.h"
#include "run_key.h"
#include "select.h"
#include "variant_source.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

// Where a run's time goes (report.json "stages"): each lap is the time since the one before.
class StageClock {
 public:
  void lap(const std::string& stage) {
    const auto now = std::chrono::steady_clock::now();
    stages_.push_back({stage, std::chrono::duration<double>(now - last_).count()});
    last_ = now;
  }
  // Seconds from the start to the last lap (the sum of the laps).
  double total() const { return std::chrono::duration<double>(last_ - start_).count(); }
  const std::vector<std::pair<std::string, double>>& stages() const { return stages_; }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
  std::vector<std::pair<std::string, double>> stages_;
};

}  // namespace

std::unique_ptr<GpuBackend> makeBackend(const Config& cfg, const std::string& staging_dir) {
  if (cfg.backend == "slurm") {
    SlurmOptions o;
    o.partition = cfg.slurm.partition;
    o.account = cfg.slurm.account;
    o.gres = cfg.slurm.gres;
    o.max_jobs = cfg.slurm.max_jobs;
    o.runner = cfg.slurm.runner;
    o.extra_args = cfg.slurm.args;
    o.staging_dir = staging_dir;
    return makeSlurmBackend(o);
  }
  return makeLocalChildBackend(cfg.runner.empty() ? "klineage-runner" : cfg.runner);
}

namespace {

Manifest extractStage(Pipeline& p) {
  unsigned reused = 0;
  Manifest manifest = extractManifest(p.cfg.target, p.setup.toParse(), {}, nullptr, p.jobs,
                                      p.layout.extractMemo().string(), &reused);
  if (reused) p.status.info("klineage: " + std::to_string(reused) + " of " + std::to_string(manifest.sources.size()) +
                            " sources unchanged since the last extraction: not parsed again");
  p.includes = manifest.includes;
  atomicWrite(p.layout.manifest(), nlohmann::json(manifest).dump(2) + "\n");
  for (const auto& d : manifest.diagnostics) {
    p.status.warning("clang could not fully parse " + d.file + "; kernels it could not read are skipped. First errors:");
    for (size_t i = 0; i < d.errors.size() && i < 5; ++i) p.status.warning("  " + d.errors[i]);
  }
  p.status.info("klineage: " + std::to_string(manifest.kernels.size()) + " kernels in the manifest (" +
                p.layout.manifest().string() + ")");
  return manifest;
}

// The originals' reports, then every source's variants of every planned kernel (several kernels
// at once: per_kernel.h).
std::vector<VariantReport> collectVariants(Pipeline& p, const Plans& plans, const OriginalCubins& originals,
                                           const std::vector<std::unique_ptr<VariantSource>>& sources,
                                           std::map<std::string, std::vector<std::string>>& refusals) {
  std::vector<KernelAnswer> answers =
      askPerKernel(p, plans.kernels.size(), sources,
                   [&](VariantSource& s, Pipeline& q, size_t k, std::vector<std::string>* refused) {
                     return s.variants(q, plans.kernels[k], refused);
                   });
  std::vector<VariantReport> reports;
  for (size_t i = 0; i < plans.kernels.size(); ++i) {
    const KernelInfo& k = *plans.kernels[i].info;
    VariantReport orig;
    orig.variant = {k.name + "/original", k.name, k.range.file, {}, {}, {}, k.range.file, k.mangled_name, "", true, {}, {}};
    orig.cubin = originals.cubin.at(unitOf(k));
    if (orig.cubin.empty()) {
      orig.outcome = Outcome::CompileFailed;
      orig.reason = originals.log.at(unitOf(k)).substr(0, 4000);
    }
    reports.push_back(orig);
    for (auto& r : answers[i].reports) reports.push_back(std::move(r));
    auto& refused = refusals[k.name];
    refused.insert(refused.end(), answers[i].refusals.begin(), answers[i].refusals.end());
  }
  return reports;
}

Report makeReport(const Pipeline& p, const Plans& plans, std::vector<VariantReport> reports,
                  const std::map<std::string, const VariantReport*>& best,
                  std::map<std::string, std::vector<std::string>>& refusals) {
  Report rep;
  rep.target = p.cfg.target;
  if (p.gpu) rep.device = p.device.device;
  rep.device_reason = p.device.reason;
  rep.arch = p.gpu ? p.device.arch : "";
  rep.driver = p.gpu ? p.device.driver : "";
  rep.backend = p.backend.name();
  rep.skipped = plans.skipped;
  for (const auto& k : plans.kernels) {
    // What the normal form did to the kernel is a note; the rest are the skills' refusals.
    std::vector<std::string> notes = k.notes, not_applied;
    for (const std::string& line : refusals[k.info->name])
      (line.rfind(kNormalFormNote, 0) == 0 ? notes : not_applied).push_back(line);
    rep.kernels.push_back({k.info->name, k.replay ? "capture" : "workload", k.replay ? k.replay->dir : "",
                           k.facts ? describeFacts(*k.facts) : "", notes, not_applied, k.grid, k.block});
  }
  for (const auto& [name, r] : best) rep.selected[name] = {r->variant.id, r->speedup, r->variant.skills};
  rep.variants = std::move(reports);
  return rep;
}

// `klineage ci`: for each planned kernel, the text of its file as the build compiles it (what
// `klineage materialize` decides: the selected copy when fresh, else the original), written
// under ci/built/ and gated as a hand-written variant of the kernel.
void addBuiltSources(Pipeline& p, const Plans& plans, std::vector<std::unique_ptr<VariantSource>>& sources) {
  const Selection sel = loadSelection(p.layout.selection().string());
  for (const auto& plan : plans.kernels) {
    const std::string& file = plan.info->range.file;
    // A header's selected copy is looked up among the selected headers.
    const MaterializeDecision d = plan.info->in_header
                                      ? decideHeader(sel, file, [](const std::string& f) { return readFile(f); })
                                      : decideMaterialize(sel, file, [](const std::string& f) { return readFile(f); });
    const std::string text = d.use_selected ? readFile(d.entry->selected) : p.originals.at(file);
    const fs::path built = p.layout.root / "ci" / "built" / plan.info->name / ("built" + fs::path(file).extension().string());
    atomicWrite(built, text);
    sources.push_back(makeHandWritten(plan.info->name, {built.string()}));
  }
}

// Repair rounds (docs/pipeline.md): each source is shown the kernel's variants the gate did not
// accept and may propose follow-ups (the LLM source re-prompts with the outcome and reason); they
// are compiled and gated like the first round, until no source proposes any. Every source bounds
// its own rounds; kMaxRounds is only a backstop.
void repairRounds(Pipeline& p, const Plans& plans, const std::vector<std::unique_ptr<VariantSource>>& sources,
                  std::vector<VariantReport>& reports, std::map<std::string, std::vector<std::string>>& refusals,
                  unsigned repeat, bool skip_identical) {
  constexpr unsigned kMaxRounds = 16;
  for (unsigned round = 1; round <= kMaxRounds; ++round) {
    // Each kernel's variants so far, and those the gate did not accept; the kernels still asked.
    std::vector<size_t> asked;
    std::vector<std::vector<const VariantReport*>> gated, failed;
    for (size_t i = 0; i < plans.kernels.size(); ++i) {
      const VariantReport* orig = originalOf(reports, plans.kernels[i].info->name);
      if (!orig || orig->cubin.empty()) continue;
      asked.push_back(i);
      gated.emplace_back();
      failed.emplace_back();
      for (const auto& r : reports) {
        if (r.variant.kernel != plans.kernels[i].info->name || r.variant.is_original) continue;
        gated.back().push_back(&r);
        if (!accepted(r.outcome)) failed.back().push_back(&r);
      }
    }
    std::atomic<bool> repairing{false};
    std::vector<KernelAnswer> answers =
        askPerKernel(p, asked.size(), sources, [&](VariantSource& s, Pipeline& q, size_t a, std::vector<std::string>* refused) {
          const KernelPlan& plan = plans.kernels[asked[a]];
          std::vector<VariantReport> more = s.followUps(q, plan, gated[a], refused);
          if (failed[a].empty()) return more;
          std::vector<VariantReport> fixes = s.repairs(q, plan, failed[a], refused);
          if (!fixes.empty()) repairing = true;
          for (auto& r : fixes) more.push_back(std::move(r));
          return more;
        });
    std::vector<VariantReport> next;  // each kernel's original, then its follow-ups
    for (size_t a = 0; a < asked.size(); ++a) {
      const std::string& name = plans.kernels[asked[a]].info->name;
      auto& refused = refusals[name];
      refused.insert(refused.end(), answers[a].refusals.begin(), answers[a].refusals.end());
      if (answers[a].reports.empty()) continue;
      next.push_back(*originalOf(reports, name));
      for (auto& r : answers[a].reports) next.push_back(std::move(r));
    }
    if (next.empty()) return;
    size_t count = 0;
    for (const auto& r : next) count += r.variant.is_original ? 0 : 1;
    if (repairing) p.status.info("klineage: repair round " + std::to_string(round));
    else
      p.status.info("klineage: round " + std::to_string(round + 1) + ": " + std::to_string(count) +
                    " variant(s) chosen from the last round's results");
    if (skip_identical) skipSameSource(p.originals, next, reports);
    compileVariants(p, next);
    if (skip_identical) skipSameCode(next, reports);
    gateAll(p, plans, next, repeat);
    for (auto& r : next)
      if (!r.variant.is_original) reports.push_back(std::move(r));
  }
}

// `klineage gate`: the exit code of the first hand-written variant that was not accepted.
int gateExit(const std::vector<VariantReport>& reports) {
  for (const auto& r : reports)
    if (!r.variant.is_original && !accepted(r.outcome)) return gateExitCode(r.outcome);
  return kExitOk;
}

int finish(Pipeline& p, const OptimizeOptions& opt, const Manifest& manifest, const Plans& plans,
           const std::vector<Skill>& skills, std::vector<VariantReport>& reports,
           std::map<std::string, std::vector<std::string>>& refusals, StageClock& clock) {
  if (opt.measure_build) {
    Report rep = makeReport(p, plans, reports, {}, refusals);
    clock.lap("report");
    rep.seconds = clock.total();
    rep.stages = clock.stages();
    if (opt.report_out) *opt.report_out = std::move(rep);
    return kExitOk;
  }
  std::vector<bool> was_rechecked;
  for (const auto& r : reports) was_rechecked.push_back(r.rechecked);
  const std::string gen = std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                             std::chrono::system_clock::now().time_since_epoch()).count());
  Selected sel = selectAndBuild(p, plans, reports, skills, manifest, p.layout.selectedDir(gen).string(), opt.write_selection);
  const auto& best = sel.best;
  SelectedFiles& selected = sel.files;
  // A winner's re-check (or the rejection it found) is part of its result from now on.
  if (p.cache)
    for (size_t i = 0; i < reports.size(); ++i)
      if (!was_rechecked[i] && reports[i].rechecked) p.cache->store(reports[i]);
  Report rep = makeReport(p, plans, reports, best, refusals);
  clock.lap("select");  // the winners' re-checks and their sources
  rep.seconds = clock.total();
  rep.stages = clock.stages();
  // `klineage gate` reports beside the optimize report, never over it; the selection (what the
  // build reads) is written last.
  const std::string report_path = p.layout.report(!opt.write_selection).string();
  writeJsonReport(rep, report_path);
  const std::string html_path = p.layout.reportHtml(!opt.write_selection).string();
  const nlohmann::json rep_json = reportJson(rep);
  writeHtmlReport(&rep_json, nullptr, html_path);
  if (opt.write_selection) writeSelection(p, selected, gen);
  writeSummary(rep, report_path, p.status, html_path);
  if (!p.gpu && (opt.require_gpu || p.cfg.require_gpu)) {
    p.status.error("no CUDA device and KLINEAGE_REQUIRE_GPU is ON");
    return kExitFailure;
  }
  if (!opt.write_selection && plans.kernels.empty() && !plans.skipped.empty()) {
    p.status.error(plans.skipped[0].first + " was not gated: " + plans.skipped[0].second);
    return gateExitCode(Outcome::NotRun);
  }
  return opt.write_selection ? kExitOk : gateExit(reports);
}

// The device the gate would run on, for the no-op check, probed once: a local backend probes
// every GPU when it starts, so only klineage-runner's own probe is asked here (the backend is made
// only when the run goes on). A Slurm backend is made now and asked.
DeviceProbe probeOnce(const PipelineSeams& seams, const Config& cfg, const BuildTreeLayout& layout, OwnedSeams& own) {
  if (seams.backend) return seams.backend->probe();
  if (seams.runner) return seams.runner->probe();
  if (cfg.backend == "local") return makeChildRunner(cfg.runner.empty() ? "klineage-runner" : cfg.runner)->probe();
  own.backend = makeBackend(cfg, layout.staging().string());
  return own.backend->probe();
}

// The no-op path: the last run succeeded with every input it read the same as now (the files its
// extraction read, the config, flags, skills, tools, device) and its outputs are in place.
bool nothingChanged(const TargetSetup& setup, const BuildTreeLayout& layout, const DeviceProbe& device,
                    const std::string& options, Status& status) {
  const std::optional<LastRun> last = loadLastRun(layout.lastRun(), status);
  if (!last || runKey(setup, last->files, device, options) != last->key) return false;
  const std::string missing = missingOutputs(layout);
  if (!missing.empty()) {
    status.info("klineage: nothing changed since the last run, but " + missing + " is missing; running again");
    return false;
  }
  char when[32] = "?";
  const std::time_t t = static_cast<std::time_t>(last->finished);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M", std::localtime(&t));
  status.info("klineage: nothing changed since the last run (" + std::string(when) + ", " + last->device + "; " +
              std::to_string(last->files.size()) +
              " source files, the config, flags, skills, tools and device are the same); kept the selection");
  status.info("klineage: report: " + layout.report(false).string() + " (of that run)");
  return true;
}

}  // namespace

int runOptimize(const OptimizeOptions& opt, const PipelineSeams& seams) {
  StageClock clock;
  TargetSetup setup = loadTargetSetup(opt.config);
  OwnedSeams own;
  const BuildTreeLayout layout{setup.config.out_dir};
  Status& status = seams.status ? *seams.status : own.quiet;
  // Only `klineage optimize` reads and writes the caches and skips identical variants: `klineage
  // gate` and `klineage ci` measure what they are given, every time.
  const bool optimizing = opt.write_selection && !opt.measure_build && opt.extra_variant_sources.empty();
  const bool caching = optimizing && opt.result_cache && setup.config.result_cache;
  const std::string options = "kernel=" + opt.only_kernel + " require_gpu=" + std::to_string(opt.require_gpu) +
                              " repeat=" + std::to_string(opt.repeat);
  DeviceProbe first_probe;
  if (caching) {
    first_probe = probeOnce(seams, setup.config, layout, own);
    if (nothingChanged(setup, layout, first_probe, options, status)) return kExitOk;
  }
  if (optimizing) {  // until this run succeeds, no record says its outputs are current
    std::error_code ec;
    fs::remove(layout.lastRun(), ec);
  }
  Pipeline p = makePipeline(setup, layout, seams, own);
  p.jobs = opt.jobs ? opt.jobs : std::max(1u, std::thread::hardware_concurrency());
  fs::create_directories(layout.root);
  p.status.info("klineage: optimizing target '" + p.cfg.target + "' (" + std::to_string(p.cfg.sources.size()) +
                " CUDA sources)");
  clock.lap("setup");
  const Manifest manifest = extractStage(p);
  clock.lap("extract");
  // The whole-run key over the files as this extraction read them, saved once the run succeeded.
  const std::vector<std::string> run_files = runFiles(setup, manifest);
  const std::string run_key = caching ? runKey(setup, run_files, first_probe, options) : "";
  std::vector<Skill> skills;
  if (!opt.skip_skills && !opt.measure_build) skills = loadSkills(p.cfg.skills, transformIds(), featureIds());
  std::optional<Workload> workload;
  if (p.cfg.workload) {
    workload = loadWorkload(*p.cfg.workload);
    validateWorkload(*workload, manifest);
  }
  if (!opt.extra_variant_sources.empty() && !manifest.find(opt.extra_variant_kernel))
    throw InputError(opt.extra_variant_sources[0], 0, 0, "kernel '" + opt.extra_variant_kernel + "' is not in the manifest");
  p.device = p.backend.probe();
  p.gpu = p.device.available;
  std::optional<ResultCache> cache;
  if (caching) {
    std::map<std::string, std::string> skill_files;
    for (const auto& s : skills) skill_files[s.id] = s.path.empty() ? "" : fnv1a64Hex(readFile(s.path));
    cache.emplace(layout.resultCache(), status, std::move(skill_files), p.device);
    p.cache = &*cache;
  }
  readOriginals(p, manifest);
  clock.lap("load");  // skills, workload, the device probe
  const auto captured = capturedLaunches(p, manifest);
  if (!captured) return kExitFailure;
  clock.lap("capture");
  const OriginalCubins originals = compileOriginals(p, manifest, opt.only_kernel);
  clock.lap("compile-originals");
  Plans plans = planKernels(p, manifest, workload, *captured, originals.cubin, opt.only_kernel);
  clock.lap("plan");  // the originals' replays checked on the GPU
  prepareOracles(p, plans);
  clock.lap("oracles");
  // The effect history the planner orders skills by (effect_history.h): the skill directories'
  // effects.json only, so a kernel's plan (and which of its variants the result cache holds) does
  // not change because other kernels were gated; what this run learns goes to the build tree.
  EffectHistory history;
  for (const auto& dir : p.cfg.skills) history.load(fs::path(dir) / "effects.json", &p.status);
  std::vector<std::unique_ptr<VariantSource>> sources;
  if (!opt.skip_skills && !opt.measure_build)
    sources.push_back(p.cfg.search == "subsets" ? makeSkillSearch(skills, p.cfg.budget, makeSubsetSearch())
                                                : makePlannedSearch(skills, p.cfg.budget, &history, p.cfg.search_width));
  if (opt.measure_build) addBuiltSources(p, plans, sources);
  if (!opt.extra_variant_sources.empty())
    sources.push_back(makeHandWritten(opt.extra_variant_kernel, opt.extra_variant_sources));
  if (!opt.skip_skills && !opt.measure_build) sources.push_back(makeLlmSource(skills, p.cfg));
  std::map<std::string, std::vector<std::string>> refusals;  // kernel -> skills that did not apply, why
  std::vector<VariantReport> reports = collectVariants(p, plans, originals, sources, refusals);
  if (optimizing) skipSameSource(p.originals, reports, {});
  clock.lap("rewrite");
  compileVariants(p, reports);
  if (optimizing) skipSameCode(reports, {});
  clock.lap("compile-variants");
  if (!p.gpu) {
    p.status.info("klineage: no CUDA device found (" + p.device.reason + ").");
    p.status.info("klineage: extracted, rewrote and compiled the variants; kept the original kernels (nothing was gated).");
  } else {
    p.status.info("klineage: gating on " + p.device.device + " (" + p.device.arch + ")" +
                  (p.device.count > 1 ? ", " + std::to_string(p.device.count) + " at a time" : "") +
                  (p.backend.name() == "local" ? "" : " through " + p.backend.name()));
  }
  gateAll(p, plans, reports, opt.repeat);
  repairRounds(p, plans, sources, reports, refusals, opt.repeat, optimizing);
  if (optimizing && p.gpu) {
    EffectHistory learned;  // this build tree's records, and this run's
    learned.load(layout.effects(), &p.status);
    for (const auto& s : sources) s->finished(p, reports, &learned);
    learned.save(layout.effects());
  }
  clock.lap("gate");  // every round: the later rounds' rewrites and compiles too
  const int rc = finish(p, opt, manifest, plans, skills, reports, refusals, clock);
  if (cache) cache->prune();  // every entry this run used stays; the least recently used beyond the cap go
  if (caching && rc == kExitOk) {
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
    saveLastRun(layout.lastRun(), {run_key, run_files, now.count(), p.gpu ? p.device.device : "no CUDA device"});
  }
  return rc;
}

}  // namespace klineage
