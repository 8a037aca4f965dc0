#include "optimize.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "apply.h"
#include "core/diag.h"
#include "core/fs.h"
#include "core/skill.h"
#include "core/workload.h"
#include "gate/selection.h"
#include "setup.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

TransformParams paramsOf(const Skill& s) {
  TransformParams p;
  for (auto& [k, v] : s.params.items()) p[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return p;
}

std::string shortName(const std::string& path) { return fs::path(path).filename().string(); }

// The block size every launch uses: the workload's, and every launch site that clang can evaluate
// must agree; a launch site it cannot evaluate leaves it unknown.
std::optional<long long> commonBlockSize(const KernelInfo& k, const PreparedLaunch* pl) {
  std::optional<long long> b;
  if (pl) {
    if (pl->block.y != 1 || pl->block.z != 1) return std::nullopt;
    b = pl->block.x;
  }
  for (const auto& l : k.launches) {
    if (!l.block_value) return std::nullopt;
    if (b && *b != *l.block_value) return std::nullopt;
    b = l.block_value;
  }
  return b;
}

struct KernelPlan {
  const KernelInfo* info = nullptr;
  const WorkloadKernel* wk = nullptr;
  std::optional<PreparedLaunch> launch;
  std::optional<WorkloadFacts> facts;
  bool geometry_may_change = false;
};

std::string relUnder(const std::string& path, const std::string& base) {
  std::error_code ec;
  auto rel = fs::relative(path, base, ec);
  if (ec || rel.empty() || rel.string().rfind("..", 0) == 0) return "_ext/" + fnv1a64Hex(path).substr(0, 8) + "/" + shortName(path);
  return rel.string();
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

  // 3. Plan each kernel.
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
    if (!p.wk) {
      skip(k, workload ? "no [kernel." + k.name + "] entry in " + *cfg.workload + ": nothing to run it with"
                       : "no WORKLOAD given: nothing to run it with (declare one in klineage_optimize(... WORKLOAD file))");
      continue;
    }
    p.launch = prepareLaunch(*p.wk, k);
    p.facts = deriveFacts(*p.launch);
    bool launches_in_target = !k.launches.empty();
    for (const auto& l : k.launches) launches_in_target &= l.in_target_sources;
    p.geometry_may_change = launches_in_target;
    plans.push_back(p);
  }

  // 4. Variants: every set of applicable skills, each step re-parsed.
  std::vector<VariantReport> reports;
  Overlay originals;
  for (const auto& f : setup.originals) originals[f] = readFile(f);
  for (auto& plan : plans) {
    const KernelInfo& k = *plan.info;
    const std::string& file = k.range.file;
    TransformFacts tfacts;
    tfacts.block_size = commonBlockSize(k, plan.launch ? &*plan.launch : nullptr);
    VariantReport orig;
    orig.variant.id = k.name + "/original";
    orig.variant.kernel = k.name;
    orig.variant.kernel_file = file;
    orig.variant.source = file;
    orig.variant.mangled_name = k.mangled_name;
    orig.variant.is_original = true;
    reports.push_back(orig);

    struct State {
      Overlay overlay;
      std::vector<const Skill*> chain;
      GeometryChange geometry;
      KernelInfo info;
    };
    std::vector<State> frontier{{originals, {}, {}, k}};
    std::set<std::set<std::string>> seen;
    unsigned made = 0;
    std::set<std::string> refused_logged;
    while (!frontier.empty() && made < cfg.budget) {
      std::vector<State> next;
      for (const State& st : frontier) {
        for (const Skill& s : skills) {
          if (made >= cfg.budget) break;
          bool used = false;
          for (auto* c : st.chain) used |= c->id == s.id;
          if (used) continue;
          std::set<std::string> key;
          for (auto* c : st.chain) key.insert(c->id);
          key.insert(s.id);
          if (seen.count(key)) continue;
          std::string why;
          const WorkloadFacts* wf = plan.facts ? &*plan.facts : nullptr;
          if (!preconditionsHold(s, st.info, wf, &why)) {
            if (st.chain.empty() && refused_logged.insert(s.id).second)
              say("  " + k.name + ": skill " + s.id + " not applicable: " + why);
            continue;
          }
          const Transform* t = findTransform(s.transform);
          StepResult step = applyStep(st.overlay, setup.clang_args, file, k.name, *t, Direction::Forward, paramsOf(s), tfacts);
          if (!step.applied) {
            if (st.chain.empty() && refused_logged.insert(s.id).second)
              say("  " + k.name + ": skill " + s.id + " made no edit: " + step.reason +
                  (step.errors.empty() ? "" : " (" + step.errors[0] + ")"));
            continue;
          }
          GeometryChange g = st.geometry;
          g.compose(step.geometry);
          if (g.changes() && !plan.geometry_may_change) {
            if (refused_logged.insert(s.id + "/geometry").second)
              say("  " + k.name + ": skill " + s.id +
                  " needs a launch-geometry change, but the kernel is launched from outside the target's sources "
                  "(or no launch site was found): only geometry-preserving variants are gated");
            continue;
          }
          seen.insert(key);
          State ns{std::move(step.overlay), st.chain, g, step.kernel_after};
          ns.chain.push_back(&s);
          ++made;
          VariantReport rep;
          Variant& v = rep.variant;
          v.id = k.name + "/" + std::to_string(made);
          v.kernel = k.name;
          v.kernel_file = file;
          for (auto* c : ns.chain) {
            v.skills.push_back(c->id);
            v.transforms.push_back(c->transform);
          }
          v.geometry = g;
          v.mangled_name = ns.info.mangled_name;
          v.diff = describeDiff(originals.at(file), ns.overlay.at(file));
          fs::path dir = out / "variants" / k.name / std::to_string(made);
          v.source = (dir / shortName(file)).string();
          atomicWrite(v.source, ns.overlay.at(file));
          atomicWrite(dir / "variant.json", nlohmann::json(v).dump(2) + "\n");
          reports.push_back(rep);
          next.push_back(std::move(ns));
        }
      }
      frontier = std::move(next);
    }
  }

  // A hand-written variant (klineage gate --variant): gated exactly like the generated ones.
  if (!opt.extra_variant_source.empty()) {
    const KernelInfo* k = manifest.find(opt.extra_variant_kernel);
    if (!k) throw InputError(opt.extra_variant_source, 0, 0, "kernel '" + opt.extra_variant_kernel + "' is not in the manifest");
    std::string text = readFile(opt.extra_variant_source);
    Overlay o = originals;
    o[k->range.file] = text;
    Manifest vm = extractManifest(cfg.target, {{k->range.file, setup.clang_args.at(k->range.file)}}, o);
    const KernelInfo* vk = vm.find(k->name);
    if (!vk) throw InputError(opt.extra_variant_source, 0, 0, "no kernel '" + k->name + "' defined in the variant");
    VariantReport rep;
    rep.variant.id = k->name + "/hand-written";
    rep.variant.kernel = k->name;
    rep.variant.kernel_file = k->range.file;
    rep.variant.geometry.grid_x_divisor = opt.extra_variant_grid_divisor;
    rep.variant.mangled_name = vk->mangled_name;
    rep.variant.diff = describeDiff(originals.at(k->range.file), text);
    rep.variant.source = (out / "variants" / k->name / "hand-written" / shortName(k->range.file)).string();
    atomicWrite(rep.variant.source, text);
    reports.push_back(rep);
    bool have_orig = false;
    for (auto& r : reports) have_orig |= r.variant.is_original && r.variant.kernel == k->name;
    if (!have_orig) {
      VariantReport orig;
      orig.variant.id = k->name + "/original";
      orig.variant.kernel = k->name;
      orig.variant.kernel_file = k->range.file;
      orig.variant.source = k->range.file;
      orig.variant.mangled_name = k->mangled_name;
      orig.variant.is_original = true;
      reports.push_back(orig);
    }
  }

  // 5. Device, then compile everything for its architecture.
  std::unique_ptr<GpuRunner> own_runner;
  GpuRunner* runner = runner_in;
  if (!runner) {
    std::string path = cfg.runner.empty() ? "klineage-runner" : cfg.runner;
    own_runner = makeChildRunner(path);
    runner = own_runner.get();
  }
  DeviceProbe dev = runner->probe();
  std::string arch = dev.available && !dev.arch.empty() ? dev.arch : "";
  std::unique_ptr<Compiler> own_compiler;
  Compiler* compiler = compiler_in;
  if (!compiler) {
    own_compiler = makeProcessCompiler();
    compiler = own_compiler.get();
  }
  std::vector<CompileRequest> reqs;
  std::map<std::string, size_t> original_req;  // original file -> request index
  std::vector<size_t> req_of(reports.size(), SIZE_MAX);
  for (size_t i = 0; i < reports.size(); ++i) {
    auto& r = reports[i];
    const std::string& f = r.variant.kernel_file;
    const CudaFlags& flags = setup.nvcc_flags.at(f);
    std::string a = arch.empty() ? highestArch(flags) : arch;
    if (r.variant.is_original) {
      auto it = original_req.find(f);
      if (it != original_req.end()) {
        req_of[i] = it->second;
        continue;
      }
      std::string cubin = (out / "gate" / "original" / (fnv1a64Hex(f).substr(0, 8) + "-" + shortName(f) + ".cubin")).string();
      reqs.push_back({r.variant.id, nvccCubinArgs(cfg.nvcc, flags, a, f, cubin), cubin});
      original_req[f] = reqs.size() - 1;
      req_of[i] = reqs.size() - 1;
    } else {
      std::string cubin = (out / "gate" / r.variant.kernel / (fs::path(r.variant.source).parent_path().filename().string() + ".cubin")).string();
      reqs.push_back({r.variant.id,
                      nvccCubinArgs(cfg.nvcc, flags, a, r.variant.source, cubin, {fs::path(f).parent_path().string()}),
                      cubin});
      req_of[i] = reqs.size() - 1;
    }
  }
  unsigned jobs = opt.jobs ? opt.jobs : std::max(1u, std::thread::hardware_concurrency());
  say("klineage: compiling " + std::to_string(reqs.size()) + " translation units (" + std::to_string(jobs) + " at a time)");
  std::vector<CompileResult> compiled = compileAll(*compiler, reqs, jobs);
  std::map<std::string, bool> original_ok;
  for (size_t i = 0; i < reports.size(); ++i) {
    auto& r = reports[i];
    const CompileResult& c = compiled[req_of[i]];
    r.cubin = reqs[req_of[i]].cubin;
    r.compile_s = c.seconds;
    if (!c.ok) {
      r.outcome = Outcome::CompileFailed;
      r.reason = c.log.substr(0, 4000);
    }
    if (r.variant.is_original) original_ok[r.variant.kernel] = c.ok;
  }

  // 6. Run.
  bool gpu = dev.available;
  if (!gpu) {
    say("klineage: no CUDA device found (" + dev.reason + ").");
    say("klineage: extracted, rewrote and compiled the variants; kept the original kernels (nothing was gated).");
    for (auto& r : reports)
      if (r.outcome != Outcome::CompileFailed) {
        r.outcome = Outcome::NotRun;
        r.reason = "no CUDA device";
      }
  } else {
    say("klineage: gating on " + dev.device + " (" + dev.arch + ")");
  }
  for (const auto& plan : plans) {
    for (auto& r : reports) {
      if (r.variant.kernel != plan.info->name) continue;
      if (r.variant.is_original) {
        if (r.outcome == Outcome::CompileFailed) say(progressLine(r));
        continue;
      }
      if (gpu && r.outcome != Outcome::CompileFailed) {
        if (!original_ok[r.variant.kernel]) {
          r.outcome = Outcome::NotRun;
          r.reason = "the original kernel did not compile";
        } else {
          const VariantReport* orig = nullptr;
          for (auto& o : reports)
            if (o.variant.is_original && o.variant.kernel == r.variant.kernel) orig = &o;
          RunnerJob job;
          const PreparedLaunch& pl = *plan.launch;
          job.params = pl.params;
          job.tolerance = pl.tol;
          job.original = {orig->cubin, orig->variant.mangled_name, pl.grid, pl.block, pl.shmem};
          job.variant = {r.cubin, r.variant.mangled_name, applyGrid(r.variant.geometry, pl.grid),
                         applyBlock(r.variant.geometry, pl.block), pl.shmem};
          double timeout = plan.wk && plan.wk->timeout_s ? *plan.wk->timeout_s : cfg.timeout_s;
          std::string wd = (out / "gate" / r.variant.kernel / fs::path(r.cubin).stem()).string();
          recordRun(r, runner->run(job, wd, timeout));
        }
      }
      say(progressLine(r));
    }
  }
  // hand-written variants for kernels without a plan cannot run (no workload)
  for (auto& r : reports)
    if (!r.variant.is_original && r.outcome == Outcome::NotRun && r.reason.empty()) r.reason = "no workload for this kernel";

  // 7. Select and write.
  auto best = selectBest(reports);
  Selection sel;
  std::string gen = std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::system_clock::now().time_since_epoch()).count());
  fs::path sel_dir = out / "selected" / gen;
  if (gpu && opt.write_selection && !best.empty()) {
    Overlay o = originals;
    std::map<std::string, std::vector<std::string>> launch_edits;  // file -> kernels
    std::map<std::string, std::vector<SelectedKernel>> kernels_in;  // file -> kernels optimized
    for (const auto& [name, rep] : best) {
      const Variant& v = rep->variant;
      const KernelInfo* k = manifest.find(name);
      Overlay trial = o;
      bool ok = true;
      if (v.skills.empty()) {
        // hand-written: take its text for the kernel's file as a whole
        trial[v.kernel_file] = readFile(v.source);
      }
      for (const auto& sid : v.skills) {
        const Skill* s = nullptr;
        for (const auto& x : skills)
          if (x.id == sid) s = &x;
        TransformFacts tf;
        const KernelPlan* plan = nullptr;
        for (const auto& p : plans)
          if (p.info->name == name) plan = &p;
        tf.block_size = commonBlockSize(*k, plan && plan->launch ? &*plan->launch : nullptr);
        StepResult st = applyStep(trial, setup.clang_args, v.kernel_file, name, *findTransform(s->transform),
                                  Direction::Forward, paramsOf(*s), tf);
        if (!st.applied) {
          warn("re-applying " + sid + " to " + name + " for the selected source failed: " + st.reason + "; keeping the original");
          ok = false;
          break;
        }
        trial = std::move(st.overlay);
      }
      if (!ok) continue;
      if (trial.at(v.kernel_file) != readFile(v.source) && !v.skills.empty()) {
        // Other kernels of the file were rewritten first; the kernel itself must match what was gated.
        Manifest a = extractManifest(cfg.target, {{v.kernel_file, setup.clang_args.at(v.kernel_file)}}, trial);
        Overlay gated = originals;
        gated[v.kernel_file] = readFile(v.source);
        Manifest b = extractManifest(cfg.target, {{v.kernel_file, setup.clang_args.at(v.kernel_file)}}, gated);
        const KernelInfo* ka = a.find(name);
        const KernelInfo* kb = b.find(name);
        if (!ka || !kb || ka->source_hash != kb->source_hash) {
          warn("the selected source for " + name + " would differ from the gated variant; keeping the original");
          continue;
        }
      }
      std::string why;
      unsigned n = 0;
      Overlay before = trial;
      if (!rewriteLaunches(trial, setup.clang_args, name, v.geometry, &why, &n)) {
        warn("cannot rewrite the launches of " + name + ": " + why + "; keeping the original");
        continue;
      }
      for (const auto& [f, text] : trial)
        if (before.at(f) != text) launch_edits[f].push_back(name);
      o = std::move(trial);
      SelectedKernel sk{name, k->source_hash, v.id, v.skills, v.geometry, rep->speedup};
      kernels_in[v.kernel_file].push_back(sk);
    }
    for (const auto& f : setup.originals) {
      if (o.at(f) == originals.at(f)) continue;
      SelectedSource ss;
      ss.original = f;
      const SourcePair* sp = cfg.findOriginal(f);
      ss.selected = (sel_dir / relUnder(sp && !sp->materialized.empty() ? sp->materialized : f,
                                        (out / "src").string())).string();
      ss.kernels = kernels_in[f];
      ss.launches_rewritten_for = launch_edits[f];
      ss.depends_on[f] = fnv1a64Hex(originals.at(f));
      for (const auto& kn : ss.launches_rewritten_for) {
        const KernelInfo* k = manifest.find(kn);
        if (k) ss.depends_on[k->range.file] = fnv1a64Hex(originals.at(k->range.file));
      }
      atomicWrite(ss.selected, o.at(f));
      sel.sources.push_back(ss);
    }
  }
  // Report first, then the selection (what the build reads) last.
  nlohmann::json rep = {{"format", "klineage-report-1"}, {"target", cfg.target},
                        {"device", dev.available ? nlohmann::json(dev.device) : nlohmann::json(nullptr)},
                        {"device_reason", dev.reason}, {"arch", arch}, {"skipped", skipped}};
  rep["variants"] = nlohmann::json::array();
  for (const auto& r : reports) rep["variants"].push_back(r);
  rep["selected"] = nlohmann::json::object();
  for (const auto& [name, r] : best) rep["selected"][name] = {{"variant", r->variant.id}, {"speedup", r->speedup}, {"skills", r->variant.skills}};
  // `klineage gate` reports beside the optimize report, never over it.
  const fs::path report_path = out / (opt.write_selection ? "report.json" : "gate-report.json");
  atomicWrite(report_path, rep.dump(2) + "\n");
  if (opt.write_selection) {
    atomicWrite(out / "selection.json", nlohmann::json(sel).dump(2) + "\n");
    // previous generations of selected sources are no longer referenced
    std::error_code ec;
    if (fs::exists(out / "selected"))
      for (const auto& e : fs::directory_iterator(out / "selected", ec))
        if (e.path() != sel_dir) fs::remove_all(e.path(), ec);
  }

  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  unsigned counts[7] = {};
  for (const auto& r : reports)
    if (!r.variant.is_original) ++counts[static_cast<int>(r.outcome)];
  char buf[256];
  std::snprintf(buf, sizeof buf, "klineage: %zu variants: %u passed, %u slower, %u wrong-result, %u runtime-failed, %u timeout, %u compile-failed, %u not run (%.1f s)",
                reports.size() - std::count_if(reports.begin(), reports.end(), [](auto& r) { return r.variant.is_original; }),
                counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], secs);
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
