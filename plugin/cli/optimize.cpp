#include "optimize.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "apply.h"
#include "capture.h"
#include "gate_jobs.h"
#include "core/capture_facts.h"
#include "core/diag.h"
#include "core/fs.h"
#include "core/launch_eval.h"
#include "core/launch_record.h"
#include "core/skill.h"
#include "core/workload.h"
#include "gate/selection.h"
#include "setup.h"
#include "variants.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

std::string shortName(const std::string& path) { return fs::path(path).filename().string(); }

// The block size every launch uses: the gated launch's, and every launch site that clang can
// evaluate must agree; a launch site it cannot evaluate leaves it unknown.
std::optional<long long> commonBlockSize(const KernelInfo& k, const Dim3& block, const std::vector<LaunchRecord>& recs) {
  if (block.y != 1 || block.z != 1) return std::nullopt;
  long long b = block.x;
  for (const auto& r : recs)
    if (r.block.x != b || r.block.y != 1 || r.block.z != 1) return std::nullopt;
  for (const auto& l : k.launches)
    if (!l.block_value || *l.block_value != b) return std::nullopt;
  return b;
}

struct CaptureFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Captures (or reuses) the RUN program's launches. Key: the kernels' source hashes, the program's
// bytes and its command line, so a capture is reused until one of them changes.
std::map<std::string, std::vector<LaunchRecord>> obtainCaptures(const Config& cfg, const Manifest& manifest,
                                                               const fs::path& out) {
  std::string key_text;
  for (const auto& k : manifest.kernels) key_text += k.mangled_name + "=" + k.source_hash + ";";
  for (const auto& a : cfg.run_command) key_text += a + "\x1f";
  std::string program_hash = "(none)";
  if (!cfg.run_command.empty() && fs::exists(cfg.run_command[0])) program_hash = fnv1a64Hex(readFile(cfg.run_command[0]));
  key_text += program_hash;
  const fs::path root = out / "captures";
  const fs::path dir = root / fnv1a64Hex(key_text);

  auto load = [&]() {
    CaptureSummary sum = nlohmann::json::parse(readFile(dir / "capture.json")).get<CaptureSummary>();
    // A capture of a failed run (kept for its log) is never reused.
    if (sum.exit_code != 0 || sum.records.empty())
      throw std::runtime_error("it is the capture of a failed run (exit " + std::to_string(sum.exit_code) + ", " +
                               std::to_string(sum.records.size()) + " launches)");
    std::map<std::string, std::vector<LaunchRecord>> by_kernel;
    for (const auto& rel : sum.records) {
      LaunchRecord r = loadRecord((dir / rel).string());
      const KernelInfo* k = manifest.find(r.mangled);
      if (k) by_kernel[k->name].push_back(std::move(r));
    }
    return by_kernel;
  };
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (fs::exists(dir / "capture.json")) {
      try {
        auto recs = load();
        say("klineage: reusing the capture in " + dir.string());
        return recs;
      } catch (const std::exception& e) {
        warn(std::string("the capture in ") + dir.string() + " is corrupt (" + e.what() + "); capturing again");
        fs::remove_all(dir);
      }
    }
    // Old captures (other programs, older kernels) are no longer useful.
    std::error_code ec;
    if (fs::exists(root))
      for (const auto& e : fs::directory_iterator(root, ec))
        if (e.path() != dir) fs::remove_all(e.path(), ec);
    CaptureOptions co;
    co.out_dir = dir.string();
    co.command = cfg.run_command;
    for (const auto& k : manifest.kernels)
      if (!k.is_template) {
        co.kernels_mangled.push_back(k.mangled_name);
        co.kernels_names.push_back(k.name);
      } else {
        for (const auto& m : k.instantiations) {
          co.kernels_mangled.push_back(m);
          co.kernels_names.push_back(k.name);
        }
      }
    co.max_shapes = cfg.capture_max_shapes;
    co.max_bytes = cfg.capture_max_bytes;
    co.timeout_s = cfg.capture_timeout_s;
    co.library = findCaptureLibrary();
    std::string cmd;
    for (const auto& a : cfg.run_command) cmd += (cmd.empty() ? "" : " ") + a;
    say("klineage: capturing the launches of: " + cmd);
    CaptureSummary sum;
    int rc = runCapture(co, &sum);
    if (rc != 0) throw CaptureFailed("capturing `" + cmd + "` failed (see above); nothing was selected");
    try {
      return load();
    } catch (const std::exception& e) {
      throw CaptureFailed(std::string("the capture just written cannot be read back: ") + e.what());
    }
  }
  return load();
}

// Why a variant's kernel cannot stand in for the original's: a parameter added, dropped or of
// another type ("" when the signatures agree; names and qualifiers such as const or __restrict__
// may differ).
std::string signatureChange(const KernelInfo& orig, const KernelInfo& var) {
  auto describe = [](const ParamInfo& p) { return p.type + " " + p.name; };
  if (orig.params.size() != var.params.size())
    return "the variant's kernel " + var.name + " has " + std::to_string(var.params.size()) + " parameters, the original " +
           std::to_string(orig.params.size());
  for (size_t i = 0; i < orig.params.size(); ++i) {
    const ParamInfo &a = orig.params[i], &b = var.params[i];
    const bool same = a.is_pointer == b.is_pointer && a.size_bytes == b.size_bytes &&
                      (a.is_pointer ? a.pointee == b.pointee : elemTypeFromCType(a.type) == elemTypeFromCType(b.type));
    if (!same)
      return "parameter " + std::to_string(i + 1) + " of kernel " + orig.name + " is '" + describe(b) +
             "' in the variant, '" + describe(a) + "' in the original: a variant must keep the kernel's signature";
  }
  return "";
}

// A hand-written variant (klineage gate --variant): its kernel, and its own launch sites when
// its launch code differs from the original's. Outcome not-run with the reason when its kernel
// is missing or its signature changed (an input error, not a wrong result).
VariantReport handWrittenVariant(const KernelInfo& k, const std::string& path, const TargetSetup& setup,
                                 const Overlay& originals, const fs::path& out) {
  const std::string text = readFile(path);
  Overlay o = originals;
  o[k.range.file] = text;
  Manifest vm = extractManifest(setup.config.target, {{k.range.file, setup.clang_args.at(k.range.file)}}, o);
  const std::string stem = fs::path(path).stem().string();
  VariantReport rep;
  rep.variant.id = k.name + "/hand-written-" + stem;
  rep.variant.kernel = k.name;
  rep.variant.kernel_file = k.range.file;
  rep.variant.diff = describeDiff(originals.at(k.range.file), text);
  rep.variant.source = (out / "variants" / k.name / ("hand-written-" + stem) / shortName(k.range.file)).string();
  atomicWrite(rep.variant.source, text);
  const KernelInfo* vk = vm.find(k.name);
  std::string bad = !vk ? path + ": no kernel '" + k.name + "' defined in the variant" : signatureChange(k, *vk);
  if (!bad.empty()) {
    rep.outcome = Outcome::NotRun;
    rep.reason = (vk ? path + ": " : "") + bad;
    rep.variant.mangled_name = vk ? vk->mangled_name : "";
    return rep;
  }
  rep.variant.mangled_name = vk->mangled_name;
  std::vector<const LaunchSite*> here;  // the original's launches in the file the variant replaces
  for (const auto& l : k.launches)
    if (l.file == k.range.file) here.push_back(&l);
  bool same = vk->launches.size() == here.size();
  for (size_t i = 0; same && i < here.size(); ++i) same = sameLaunchText(*here[i], vk->launches[i]);
  if (!same)
    for (const auto& l : vk->launches)
      if (l.in_target_sources) rep.variant.own_launches.push_back(l);
  if (!same && rep.variant.own_launches.empty()) {
    rep.outcome = Outcome::NotRun;
    rep.reason = path + ": the variant has no launch of " + k.name + "; the gate runs only the launch that would be compiled";
  }
  return rep;
}

bool accepted(const VariantReport& r) { return r.outcome == Outcome::Passed || r.outcome == Outcome::Slower; }

// The outcome a correctness check that did not pass gives the variant: a run that could not be
// made is runtime-failed, one that compared nothing (not-run) counts as wrong.
Outcome rejection(const RunnerResult& res) {
  if (res.status != "ok") return Outcome::RuntimeFailed;
  return res.outcome == Outcome::NotRun ? Outcome::WrongResult : res.outcome;
}

// Timed on the largest captured launch; the other captured shapes must give the same results
// too (a variant may be right for one n and wrong for another).
void checkOtherRecords(const KernelPlan& plan, VariantReport& r, const RunnerJob& job, GpuRunner& runner,
                       const std::string& wd) {
  unsigned n = 0;
  for (const auto& other : plan.records) {
    if (other.dir == plan.replay->dir) continue;
    std::string why;
    auto check = jobOnRecord(plan, r.variant, job, other, &why);
    RunnerResult cr;
    if (check) cr = runner.run(*check, wd + "-shape" + std::to_string(++n), runnerProcessLimit(plan.timeout_s));
    if (check && cr.outcome == Outcome::Passed && cr.status == "ok") continue;
    r.outcome = check ? rejection(cr) : Outcome::NotRun;
    r.reason = "on the captured launch " + other.dir + ": " + (check ? cr.reason : why);
    return;
  }
}

// One variant through the gate: its job on the plan's shape (with the probes), then every other
// captured launch; `repeat` times (klineage gate --repeat), each run on fresh random inputs, and
// the first rejection counts.
void gateVariant(const KernelPlan& plan, const VariantReport& orig, VariantReport& r, GpuRunner& runner,
                 const fs::path& out, unsigned repeat) {
  std::string why;
  auto job = makeJob(plan, orig, r, &why);
  if (!job) {
    r.outcome = Outcome::NotRun;
    r.reason = why;
    return;
  }
  const std::string wd = (out / "gate" / r.variant.kernel / fs::path(r.cubin).stem()).string();
  repeat = std::max(1u, repeat);
  unsigned done = 0;
  for (; done < repeat; ++done) {
    VariantReport trial = r;
    recordRun(trial, runner.run(*job, wd, runnerProcessLimit(plan.timeout_s)));
    if (accepted(trial) && plan.replay) checkOtherRecords(plan, trial, *job, runner, wd);
    if (done == 0 || !accepted(trial)) r = trial;
    if (!accepted(trial)) {
      if (done > 0) r.reason = "gate run " + std::to_string(done + 1) + " of " + std::to_string(repeat) + ": " + r.reason;
      return;
    }
  }
  if (repeat > 1) r.checks.push_back(std::to_string(repeat) + " gate runs on fresh random inputs, none rejected it");
}

// Where compute-sanitizer is: beside nvcc, else on the PATH.
std::string sanitizerPath(const Config& cfg) {
  const fs::path beside = fs::path(cfg.nvcc).parent_path() / "compute-sanitizer";
  std::error_code ec;
  return fs::exists(beside, ec) ? beside.string() : "compute-sanitizer";
}

// Before a winner is kept it is gated once more, on two input sets no earlier run used (and the
// probes), and with SANITIZE run once under compute-sanitizer; one that fails either is dropped
// and the next best is checked the same way.
std::map<std::string, const VariantReport*> selectChecked(const std::vector<KernelPlan>& plans,
                                                          std::vector<VariantReport>& reports, GpuRunner& runner,
                                                          const fs::path& out, const Config& cfg) {
  for (;;) {
    std::map<std::string, const VariantReport*> best = selectBest(reports);
    bool dropped = false;
    for (const auto& [name, chosen] : best) {
      VariantReport& r = reports[static_cast<size_t>(chosen - reports.data())];
      if (r.rechecked) continue;
      r.rechecked = true;
      const KernelPlan* plan = nullptr;
      for (const auto& p : plans)
        if (p.info->name == name) plan = &p;
      const VariantReport* orig = nullptr;
      for (const auto& o : reports)
        if (o.variant.is_original && o.variant.kernel == name) orig = &o;
      std::string why;
      auto job = makeJob(*plan, *orig, r, &why);  // it was made once already, so it is made again
      const std::string wd = (out / "gate" / name / fs::path(r.cubin).stem()).string();
      auto fail = [&](Outcome o, const std::string& reason) {
        r.outcome = o;
        r.reason = reason;
        dropped = true;
        say("  " + name + ": " + r.variant.id + " dropped: " + reason);
      };
      if (!job) {
        fail(Outcome::NotRun, why);
        continue;
      }
      job->profile.enabled = false;
      job->seeds.clear();
      job->random_seeds = 2;
      RunnerResult res = runner.run(*job, wd + "-recheck", runnerProcessLimit(plan->timeout_s));
      if (res.status != "ok" || res.outcome != Outcome::Passed) {
        fail(rejection(res), "re-checked before keeping it, on fresh inputs: " + res.reason);
        continue;
      }
      r.checks.push_back("re-checked on 2 fresh random input sets" +
                         (res.probes_checked ? " and " + std::to_string(res.probes_checked) + " probe shape(s)" : std::string()));
      if (cfg.sanitize.empty()) continue;
      RunnerJob sj = *job;
      sj.guard_bytes = 0;  // the sanitizer sees the exact bounds of every allocation
      sj.probes.clear();
      sj.random_seeds = 1;
      sj.launch_timeout_s *= 30;  // kernels run tens of times slower under the sanitizer
      res = runner.sanitize(sj, wd + "-" + cfg.sanitize, runnerProcessLimit(sj.launch_timeout_s), sanitizerPath(cfg),
                            cfg.sanitize);
      if (res.status != "ok" || res.outcome != Outcome::Passed) {
        fail(Outcome::RuntimeFailed, "compute-sanitizer --tool " + cfg.sanitize + ": " + res.reason);
        continue;
      }
      r.checks.push_back("compute-sanitizer --tool " + cfg.sanitize + ": no error reported");
    }
    if (!dropped) return best;
  }
}

}  // namespace

int runOptimize(const OptimizeOptions& opt, Compiler* compiler_in, GpuRunner* runner_in) {
  auto t0 = std::chrono::steady_clock::now();
  TargetSetup setup = loadTargetSetup(opt.config);
  const Config& cfg = setup.config;
  bool require_gpu = opt.require_gpu || cfg.require_gpu;
  const fs::path out = cfg.out_dir;
  fs::create_directories(out);
  say("klineage: optimizing target '" + cfg.target + "' (" + std::to_string(cfg.sources.size()) + " CUDA sources)");

  // 1. Extract.
  Manifest manifest = extractManifest(cfg.target, setup.toParse());
  atomicWrite(out / "manifest.json", nlohmann::json(manifest).dump(2) + "\n");
  for (const auto& d : manifest.diagnostics) {
    warn("clang could not fully parse " + d.file + "; kernels it could not read are skipped. First errors:");
    for (size_t i = 0; i < d.errors.size() && i < 5; ++i) std::cerr << "  " << d.errors[i] << "\n";
  }
  say("klineage: " + std::to_string(manifest.kernels.size()) + " kernels in the manifest (" +
      (out / "manifest.json").string() + ")");

  // 2. Skills and workload.
  std::vector<Skill> skills;
  if (!opt.skip_skills) skills = loadSkills(cfg.skills, transformIds());
  std::optional<Workload> workload;
  if (cfg.workload) {
    workload = loadWorkload(*cfg.workload);
    validateWorkload(*workload, manifest);
  }

  // 3. Device, and the launches the RUN program makes.
  std::unique_ptr<GpuRunner> own_runner;
  GpuRunner* runner = runner_in;
  if (!runner) {
    own_runner = makeChildRunner(cfg.runner.empty() ? "klineage-runner" : cfg.runner);
    runner = own_runner.get();
  }
  DeviceProbe dev = runner->probe();
  const bool gpu = dev.available;
  std::map<std::string, std::vector<LaunchRecord>> captured;
  if (!cfg.run_command.empty()) {
    if (!gpu) {
      say("klineage: no CUDA device: the RUN program cannot be captured; using the workload where there is one");
    } else {
      try {
        captured = obtainCaptures(cfg, manifest, out);
      } catch (const CaptureFailed& e) {
        std::cerr << "klineage: error: " << e.what() << std::endl;
        return kExitFailure;
      }
    }
  }

  // 4. Compile the original translation units (replay fidelity and every variant need them).
  std::unique_ptr<Compiler> own_compiler;
  Compiler* compiler = compiler_in;
  if (!compiler) {
    own_compiler = makeProcessCompiler();
    compiler = own_compiler.get();
  }
  const std::string arch = gpu && !dev.arch.empty() ? dev.arch : "";
  const unsigned jobs = opt.jobs ? opt.jobs : std::max(1u, std::thread::hardware_concurrency());
  auto archFor = [&](const std::string& f) { return arch.empty() ? highestArch(setup.nvcc_flags.at(f)) : arch; };
  std::map<std::string, std::string> original_cubin;  // kernel file -> cubin ("" when it failed)
  std::map<std::string, std::string> original_log;
  {
    std::vector<CompileRequest> reqs;
    std::set<std::string> files;
    for (const auto& k : manifest.kernels)
      if (!k.is_template && !k.in_header && (opt.only_kernel.empty() || k.name == opt.only_kernel)) files.insert(k.range.file);
    for (const auto& f : files) {
      std::string cubin = (out / "gate" / "original" / (fnv1a64Hex(f).substr(0, 8) + "-" + shortName(f) + ".cubin")).string();
      reqs.push_back({f, nvccCubinArgs(cfg.nvcc, setup.nvcc_flags.at(f), archFor(f), f, cubin), cubin});
    }
    auto res = compileAll(*compiler, reqs, jobs);
    for (size_t i = 0; i < reqs.size(); ++i) {
      original_cubin[reqs[i].id] = res[i].ok ? reqs[i].cubin : "";
      original_log[reqs[i].id] = res[i].log;
    }
  }

  // 5. Plan each kernel: a captured launch that replays faithfully, else the declared workload.
  std::vector<KernelPlan> plans;
  std::vector<nlohmann::json> skipped;
  auto skip = [&](const KernelInfo& k, const std::string& why) {
    say("  " + k.name + ": skipped: " + why);
    skipped.push_back({{"kernel", k.name}, {"reason", why}});
  };
  for (const auto& k : manifest.kernels) {
    if (!opt.only_kernel.empty() && k.name != opt.only_kernel) continue;
    if (k.is_template) { skip(k, "template kernel (transforms skip templates for now)"); continue; }
    if (k.in_header) { skip(k, "defined in a header (" + k.range.file + "); only kernels in the target's sources are rewritten"); continue; }
    KernelPlan p;
    p.info = &k;
    p.wk = workload ? workload->find(k.name) : nullptr;
    bool launches_in_target = !k.launches.empty();
    for (const auto& l : k.launches) launches_in_target &= l.in_target_sources;
    p.geometry_may_change = launches_in_target;
    std::string replay_problem;
    auto cit = captured.find(k.name);
    if (cit != captured.end() && !cit->second.empty()) {
      p.records = cit->second;
      // Gate on the largest captured launch; facts must hold for every captured launch.
      const LaunchRecord* big = &p.records[0];
      auto bytes = [](const LaunchRecord& r) {
        unsigned long long b = 0;
        for (const auto& a : r.allocations) b += a.size;
        return b;
      };
      for (const auto& r : p.records)
        if (bytes(r) > bytes(*big)) big = &r;
      if (original_cubin[k.range.file].empty()) {
        replay_problem = "the original did not compile";
      } else {
        // Fidelity: the original, replayed, must reproduce what the program's run left in memory.
        RunnerJob job;
        job.original = {original_cubin[k.range.file], k.mangled_name, big->grid, big->block, big->shmem};
        job.variant = job.original;
        job.profile.enabled = false;
        if (p.wk) job.tolerance = p.wk->check;
        job.replay = replaySpec(k, big->dir, /*check_fidelity=*/true);
        job.launch_timeout_s = cfg.timeout_s * 3;
        RunnerResult fr = runner->run(job, (out / "gate" / k.name / "fidelity").string(),
                                      runnerProcessLimit(job.launch_timeout_s));
        if (fr.status == "error") {
          replay_problem = "the capture cannot be replayed: " + fr.reason;
        } else if (fr.fidelity_ok && *fr.fidelity_ok) {
          p.replay = *big;
          p.tol = job.tolerance;
          if (fr.nondeterministic) {
            p.tol.atol = std::max(p.tol.atol, fr.widened_atol);
            p.tol.rtol = std::max(p.tol.rtol, fr.widened_rtol);
            p.notes.push_back("the original differs from itself between runs; tolerance widened to rtol " +
                              std::to_string(p.tol.rtol) + ", atol " + std::to_string(p.tol.atol));
            say("  " + k.name + ": " + p.notes.back());
          }
        } else {
          replay_problem = "not replayable: " + (fr.fidelity_reason.empty() ? fr.reason : fr.fidelity_reason);
        }
      }
      if (!replay_problem.empty()) say("  " + k.name + ": " + replay_problem);
    } else if (!captured.empty() || (!cfg.run_command.empty() && gpu)) {
      replay_problem = "the RUN program did not launch it";
    }
    if (p.replay) {
      p.scalars = factsFromRecords({*p.replay}, k).scalars;
      p.facts = factsFromRecords(p.records, k);
      p.facts_source = "capture";
      p.grid = p.replay->grid;
      p.block = p.replay->block;
      p.shmem = p.replay->shmem;
      p.timeout_s = p.wk && p.wk->timeout_s ? *p.wk->timeout_s : cfg.timeout_s;
      say("  " + k.name + ": gated on its captured launch (" + describeFacts(*p.facts) + ")");
    } else if (p.wk) {
      if (!replay_problem.empty()) say("  " + k.name + ": falling back to the workload entry in " + *cfg.workload);
      p.launch = prepareLaunch(*p.wk, k);
      p.facts = deriveFacts(*p.launch);
      p.facts_source = "workload";
      p.grid = p.launch->grid;
      p.block = p.launch->block;
      p.shmem = p.launch->shmem;
      p.tol = p.launch->tol;
      p.timeout_s = p.launch->timeout_s;
      p.scalars = p.launch->scalars;
      // Gate the launch the program compiles: its launch site, where that evaluates.
      std::string why;
      if (auto site = commonSiteGeometry(k, p.scalars, &why)) {
        p.site = site->first;
        const Geometry declared{p.grid, p.block, p.shmem};
        if (!(site->second == declared)) {
          p.notes.push_back(describeLaunchSite(k, site->first) + " launches grid " + dimText(site->second.grid) +
                            ", block " + dimText(site->second.block) + ", shmem " + std::to_string(site->second.shmem) +
                            " for these arguments, the workload declares grid " + dimText(p.grid) + ", block " +
                            dimText(p.block) + ": gated on the launch site's");
          say("  " + k.name + ": " + p.notes.back());
          p.grid = site->second.grid;
          p.block = site->second.block;
          p.shmem = site->second.shmem;
        }
      } else {
        p.notes.push_back("launch geometry from the workload (" + why + ")");
      }
    } else {
      std::string why = !replay_problem.empty() ? replay_problem + ", and no workload entry to fall back to"
                        : workload ? "no [kernel." + k.name + "] entry in " + *cfg.workload + ": nothing to run it with"
                                   : "no WORKLOAD or RUN given: nothing to run it with";
      skip(k, why);
      continue;
    }
    if (p.wk) p.probes = probeLaunches(*p.wk, k);
    p.block_size = commonBlockSize(k, p.block, p.records);
    if (p.notes.empty() && p.replay && p.records.size() > 1)
      p.notes.push_back(std::to_string(p.records.size()) + " launch shapes captured; gated on the largest");
    plans.push_back(std::move(p));
  }

  // 6. Variants.
  Overlay originals;
  for (const auto& f : setup.originals) originals[f] = readFile(f);
  std::vector<VariantReport> reports;
  std::map<std::string, std::vector<std::string>> refusals;  // kernel -> skills that did not apply, why
  for (const auto& plan : plans) {
    VariantReport orig;
    orig.variant = {plan.info->name + "/original", plan.info->name, plan.info->range.file, {}, {}, {},
                    plan.info->range.file, plan.info->mangled_name, "", true};
    orig.cubin = original_cubin[plan.info->range.file];
    if (orig.cubin.empty()) {
      orig.outcome = Outcome::CompileFailed;
      orig.reason = original_log[plan.info->range.file].substr(0, 4000);
    }
    reports.push_back(orig);
    if (!opt.skip_skills)
      for (auto& r : generateVariants(plan, skills, setup, originals, out.string(), cfg.budget, &refusals[plan.info->name]))
        reports.push_back(std::move(r));
  }
  // Hand-written variants (klineage gate --variant): gated exactly like the generated ones.
  if (!opt.extra_variant_sources.empty()) {
    const KernelInfo* k = manifest.find(opt.extra_variant_kernel);
    if (!k) throw InputError(opt.extra_variant_sources[0], 0, 0, "kernel '" + opt.extra_variant_kernel + "' is not in the manifest");
    for (const auto& path : opt.extra_variant_sources) reports.push_back(handWrittenVariant(*k, path, setup, originals, out));
  }

  // 7. Compile the variants.
  std::vector<CompileRequest> reqs;
  std::vector<size_t> req_of;
  for (size_t i = 0; i < reports.size(); ++i) {
    auto& r = reports[i];
    if (r.variant.is_original || r.outcome != Outcome::NotRun || !r.reason.empty()) continue;  // refused already
    const std::string& f = r.variant.kernel_file;
    std::string cubin = (out / "gate" / r.variant.kernel / (fs::path(r.variant.source).parent_path().filename().string() + ".cubin")).string();
    reqs.push_back({r.variant.id,
                    nvccCubinArgs(cfg.nvcc, setup.nvcc_flags.at(f), archFor(f), r.variant.source, cubin,
                                  {fs::path(f).parent_path().string()}),
                    cubin});
    req_of.push_back(i);
  }
  say("klineage: compiling " + std::to_string(reqs.size()) + " variants (" + std::to_string(jobs) + " at a time)");
  std::vector<CompileResult> compiled = compileAll(*compiler, reqs, jobs);
  for (size_t j = 0; j < reqs.size(); ++j) {
    auto& r = reports[req_of[j]];
    r.cubin = reqs[j].cubin;
    r.compile_s = compiled[j].seconds;
    if (!compiled[j].ok) {
      r.outcome = Outcome::CompileFailed;
      r.reason = compiled[j].log.substr(0, 4000);
    }
  }

  // 8. Run.
  if (!gpu) {
    say("klineage: no CUDA device found (" + dev.reason + ").");
    say("klineage: extracted, rewrote and compiled the variants; kept the original kernels (nothing was gated).");
  } else {
    say("klineage: gating on " + dev.device + " (" + dev.arch + ")");
  }
  for (const auto& plan : plans) {
    const VariantReport* orig = nullptr;
    for (const auto& o : reports)
      if (o.variant.is_original && o.variant.kernel == plan.info->name) orig = &o;
    for (auto& r : reports) {
      if (r.variant.kernel != plan.info->name) continue;
      if (r.variant.is_original) {
        if (r.outcome == Outcome::CompileFailed) say(progressLine(r));
        continue;
      }
      if (r.outcome != Outcome::CompileFailed && r.reason.empty()) {
        if (!gpu) {
          r.outcome = Outcome::NotRun;
          r.reason = "no CUDA device";
        } else if (orig->cubin.empty()) {
          r.outcome = Outcome::NotRun;
          r.reason = "the original kernel did not compile";
        } else {
          gateVariant(plan, *orig, r, *runner, out, opt.repeat);
        }
      }
      say(progressLine(r));
    }
  }
  for (auto& r : reports)
    if (!r.variant.is_original && r.outcome == Outcome::NotRun && r.reason.empty()) r.reason = "no workload for this kernel";

  // 9. Select and write: the report first, the selection (what the build reads) last.
  auto best = gpu ? selectChecked(plans, reports, *runner, out, cfg) : std::map<std::string, const VariantReport*>{};
  std::string gen = std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::system_clock::now().time_since_epoch()).count());
  const fs::path sel_dir = out / "selected" / gen;
  SelectedFiles selected;
  if (opt.write_selection && !best.empty()) {
    selected = buildSelectedSources(best, plans, skills, setup, manifest, originals, sel_dir.string());
    for (const auto& s : selected.selection.sources) atomicWrite(s.selected, selected.texts.at(s.original));
  }
  nlohmann::json rep = {{"format", "klineage-report-1"}, {"target", cfg.target},
                        {"device", gpu ? nlohmann::json(dev.device) : nlohmann::json(nullptr)},
                        {"device_reason", dev.reason}, {"arch", arch}, {"skipped", skipped}};
  rep["kernels"] = nlohmann::json::array();
  for (const auto& p : plans)
    rep["kernels"].push_back({{"kernel", p.info->name}, {"gated_on", p.replay ? "capture" : "workload"},
                              {"record", p.replay ? p.replay->dir : ""},
                              {"facts", p.facts ? describeFacts(*p.facts) : ""}, {"notes", p.notes},
                              {"skills_not_applied", refusals[p.info->name]},
                              {"grid", p.grid}, {"block", p.block}});
  rep["variants"] = nlohmann::json::array();
  for (const auto& r : reports) rep["variants"].push_back(r);
  rep["selected"] = nlohmann::json::object();
  for (const auto& [name, r] : best)
    rep["selected"][name] = {{"variant", r->variant.id}, {"speedup", r->speedup}, {"skills", r->variant.skills}};
  // `klineage gate` reports beside the optimize report, never over it.
  const fs::path report_path = out / (opt.write_selection ? "report.json" : "gate-report.json");
  atomicWrite(report_path, rep.dump(2) + "\n");
  if (opt.write_selection) {
    atomicWrite(out / "selection.json", nlohmann::json(selected.selection).dump(2) + "\n");
    std::error_code ec;
    if (fs::exists(out / "selected"))
      for (const auto& e : fs::directory_iterator(out / "selected", ec))
        if (e.path() != sel_dir) fs::remove_all(e.path(), ec);
  }

  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  unsigned counts[7] = {};
  size_t n_variants = 0;
  for (const auto& r : reports)
    if (!r.variant.is_original) {
      ++counts[static_cast<int>(r.outcome)];
      ++n_variants;
    }
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "klineage: %zu variants: %u passed, %u slower, %u wrong-result, %u runtime-failed, %u timeout, "
                "%u compile-failed, %u not run (%.1f s)",
                n_variants, counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], secs);
  say(buf);
  for (const auto& [name, r] : best) {
    std::snprintf(buf, sizeof buf, "%.2fx", r->speedup);
    std::string chain;
    for (auto& s : r->variant.skills) chain += (chain.empty() ? "" : "+") + s;
    say("klineage: selected " + name + ": " + (chain.empty() ? r->variant.id : chain) + " (" + buf + ")");
  }
  if (gpu && best.empty()) say("klineage: no variant beat the original beyond noise; the original kernels are kept");
  say("klineage: report: " + report_path.string());
  if (!gpu && require_gpu) {
    std::cerr << "klineage: error: no CUDA device and KLINEAGE_REQUIRE_GPU is ON" << std::endl;
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace klineage
