#include "plan.h"

#include <algorithm>
#include <filesystem>

#include "context.h"
#include "core/capture_facts.h"
#include "core/launch_eval.h"
#include "gate_jobs.h"
#include "header_kernels.h"
#include "result_cache.h"
#include "transform.h"

namespace klineage {

namespace {

// The block size every launch uses: the gated launch's, and every launch site that clang can
// evaluate must agree; a launch site it cannot evaluate leaves it unknown.
// The block every launch of the kernel uses (the gated one, every captured one, every launch site
// as written), when they all agree; dim3(16, 16) literals count.
std::optional<Dim3> commonBlock(const KernelInfo& k, const Dim3& block, const std::vector<LaunchRecord>& recs) {
  for (const auto& r : recs)
    if (!(r.block == block)) return std::nullopt;
  for (const auto& l : k.launches) {
    if (l.block_dims.size() == 3) {
      if (!(Dim3{l.block_dims[0], l.block_dims[1], l.block_dims[2]} == block)) return std::nullopt;
    } else if (recs.empty()) {
      return std::nullopt;  // known only at run time, and no capture shows it
    }
  }
  return block;
}

// Where the launch facts come from, per launch site, for the report: what the source fixes for
// every call ("block is always 16 x 16"), and what only the capture shows (a block that is a
// parameter of the launching function).
void launchSiteNotes(KernelPlan& plan) {
  const KernelInfo& k = *plan.info;
  for (const auto& l : k.launches) {
    if (!l.in_target_sources) continue;
    const std::string at = std::filesystem::path(l.file).filename().string() + ":" + std::to_string(l.line);
    if (l.block_dims.size() == 3) {
      plan.notes.push_back("launch at " + at + ": block is always " + std::to_string(l.block_dims[0]) + " x " +
                           std::to_string(l.block_dims[1]) + " x " + std::to_string(l.block_dims[2]) +
                           " (from the source: " + describeResolved(l) + ")");
      continue;
    }
    std::string s = "launch at " + at + ": " + describeResolved(l);
    if (plan.facts && !plan.facts->captured_blocks.empty()) {
      const auto& b = plan.facts->captured_blocks;
      std::vector<std::string> params;
      for (const auto& e : l.block_expr)
        for (const auto& n : launchExprNames(e, LaunchExpr::Op::Param)) params.push_back(n);
      s += "; from the capture: " + std::to_string(plan.facts->captured_launches) + " captured launch(es) used " +
           (b.size() == 1 ? "block " + dimText(b[0]) : std::to_string(b.size()) + " different blocks");
      if (b.size() == 1 && !params.empty())
        s += "; a variant that rewrites the block assumes " + params[0] + " gives that block on every call";
    }
    plan.notes.push_back(s);
  }
}

const LaunchRecord& largest(const std::vector<LaunchRecord>& recs) {
  auto bytes = [](const LaunchRecord& r) {
    unsigned long long b = 0;
    for (const auto& a : r.allocations) b += a.size;
    return b;
  };
  const LaunchRecord* big = &recs[0];
  for (const auto& r : recs)
    if (bytes(r) > bytes(*big)) big = &r;
  return *big;
}

// Fidelity: the original, replayed, must reproduce what the program's run left in memory. Sets
// plan.replay (and the tolerance) when it does; returns why not otherwise.
std::string checkReplay(Pipeline& p, KernelPlan& plan, const LaunchRecord& big, const std::string& cubin) {
  const KernelInfo& k = *plan.info;
  if (cubin.empty()) return "the original did not compile";
  JobBundle b;
  b.id = k.name + "/fidelity";
  b.job.original = {cubin, k.mangled_name, big.grid, big.block, big.shmem, std::nullopt};
  b.job.variant = b.job.original;
  b.job.profile.enabled = false;
  if (plan.wk) b.job.tolerance = plan.wk->check;
  b.job.replay = replaySpec(k, big.dir, /*check_fidelity=*/true);
  // Atomics may add floats in another order every run. Two runs that happen to agree would hide
  // it, and the capture's own order would then read as "not replayable": more runs see it.
  if (k.features.atomics) b.job.replay->determinism_runs = kAtomicsDeterminismRuns;
  b.job.launch_timeout_s = p.cfg.timeout_s * 3;
  b.work_dir = p.layout.fidelityWork(k.name).string();
  b.timeout_s = runnerProcessLimit(b.job.launch_timeout_s);
  const Tolerance tol = b.job.tolerance;
  // The same check of the same launch on this device before (result_cache.h): its answer, no job.
  const std::string key = p.cache ? p.cache->runKey("fidelity", b.job) : "";
  const std::string what = b.id;
  std::optional<RunnerResult> cached;
  if (p.cache) cached = p.cache->restoreRun(key, what);
  RunnerResult fr = cached ? *cached : p.backend.runOne(std::move(b));
  if (cached) p.status.kernelNote(k.name, "the replay check of its captured launch: from the result cache");
  // Only a replay that reproduced the capture is kept: a failed check (float atomics make some
  // flaky) is made again next time.
  else if (p.cache && fr.status == RunStatus::Ok && fr.fidelity_ok && *fr.fidelity_ok) p.cache->storeRun(key, what, fr);
  if (fr.status == RunStatus::Error) return "the capture cannot be replayed: " + fr.reason;
  if (!fr.fidelity_ok || !*fr.fidelity_ok)
    return "not replayable: " + (fr.fidelity_reason.empty() ? fr.reason : fr.fidelity_reason);
  plan.replay = big;
  plan.tol = tol;
  if (fr.nondeterministic) {
    plan.tol.atol = std::max(plan.tol.atol, fr.widened_atol);
    plan.tol.rtol = std::max(plan.tol.rtol, fr.widened_rtol);
    plan.notes.push_back("the original differs from itself between runs; tolerance widened to rtol " +
                         std::to_string(plan.tol.rtol) + ", atol " + std::to_string(plan.tol.atol));
    p.status.kernelNote(k.name, plan.notes.back());
  }
  return "";
}

void useCapture(Pipeline& p, KernelPlan& plan) {
  const KernelInfo& k = *plan.info;
  plan.scalars = factsFromRecords({*plan.replay}, k).scalars;
  plan.facts = factsFromRecords(plan.records, k);
  plan.facts_source = "capture";
  plan.grid = plan.replay->grid;
  plan.block = plan.replay->block;
  plan.shmem = plan.replay->shmem;
  plan.timeout_s = plan.wk && plan.wk->timeout_s ? *plan.wk->timeout_s : p.cfg.timeout_s;
  p.status.kernelNote(k.name, "gated on its captured launch (" + describeFacts(*plan.facts) + ")");
}

void useWorkload(Pipeline& p, KernelPlan& plan) {
  const KernelInfo& k = *plan.info;
  plan.launch = prepareLaunch(*plan.wk, k);
  plan.facts = deriveFacts(*plan.launch);
  plan.facts_source = "workload";
  plan.grid = plan.launch->grid;
  plan.block = plan.launch->block;
  plan.shmem = plan.launch->shmem;
  plan.tol = plan.launch->tol;
  plan.timeout_s = plan.launch->timeout_s;
  plan.scalars = plan.launch->scalars;
  // Gate the launch the program compiles: its launch site, where that evaluates.
  std::string why;
  auto site = commonSiteGeometry(k, plan.scalars, Geometry{plan.grid, plan.block, plan.shmem}, &why);
  if (!site) {
    plan.notes.push_back("launch geometry from the workload (" + why + ")");
    return;
  }
  plan.site = site->first;
  const Geometry declared{plan.grid, plan.block, plan.shmem};
  if (site->second == declared) return;
  plan.notes.push_back(describeLaunchSite(k, site->first) + " launches grid " + dimText(site->second.grid) + ", block " +
                       dimText(site->second.block) + ", shmem " + std::to_string(site->second.shmem) +
                       " for these arguments, the workload declares grid " + dimText(plan.grid) + ", block " +
                       dimText(plan.block) + ": gated on the launch site's");
  p.status.kernelNote(k.name, plan.notes.back());
  plan.grid = site->second.grid;
  plan.block = site->second.block;
  plan.shmem = site->second.shmem;
}

// Why a kernel cannot be planned at all ("" when it can be).
std::string unplannable(const Pipeline& p, const KernelInfo& k) {
  if (k.is_template && k.instances.empty()) return "template kernel that no target source instantiates";
  if (!k.in_header) return "";
  if (k.units.empty()) return "defined in a header (" + k.range.file + ") that no target source includes";
  // One set of copies in one include directory serves every source that includes the header: the
  // same mirror for all (header_kernels.h).
  std::string why;
  const auto mirror = mirroredHeaders(p, k.units[0], k, &why);
  if (mirror.empty()) return why;
  for (const auto& u : k.units) {
    const auto here = mirroredHeaders(p, u, k, &why);
    if (here.empty()) return why;
    if (here != mirror)
      return "defined in a header (" + k.range.file + ") that " + k.units[0] + " and " + u +
             " reach by different include names: one rewritten copy could not stand in for both";
  }
  return "";
}

// The instantiation of a template kernel to gate: the one of the largest captured launch, else the
// workload's (workloadInstance). Null for a kernel that is not a template.
const TemplateInstance* gatedInstance(const KernelInfo& k, const std::vector<LaunchRecord>& recs) {
  if (!k.is_template) return nullptr;
  if (!recs.empty())
    for (const auto& ti : k.instances)
      if (ti.mangled == largest(recs).mangled) return &ti;
  return workloadInstance(k);
}

// The kernel as gated (KernelPlan::info): a template's instantiation, a header kernel's unit that
// launches it first. Records of other instantiations are dropped from the plan (they launch other
// code); the instantiations not gated are named so that no variant of the template is kept.
void instantiatePlan(Pipeline& p, KernelPlan& plan, const KernelInfo& k) {
  const TemplateInstance* ti = gatedInstance(k, plan.records);
  if (!ti && !k.in_header) return;
  auto own = std::make_shared<KernelInfo>(ti ? instantiate(k, *ti) : k);
  if (ti) {
    std::vector<LaunchRecord> same;
    for (const auto& r : plan.records)
      if (r.mangled == ti->mangled) same.push_back(r);
    plan.records = std::move(same);
    for (const auto& other : k.instances)
      if (other.mangled != ti->mangled) plan.ungated_instantiations.push_back(other.args.empty() ? other.mangled : other.args);
    plan.notes.push_back("template kernel: gated as " + k.name + "<" + ti->args + ">" +
                         (plan.ungated_instantiations.empty() ? "" : "; its other instantiations are not gated"));
  }
  if (k.in_header) {
    // The unit that launches the gated code compiles it (a template is instantiated there).
    for (const auto& l : k.launches) {
      if (!l.in_target_sources || (ti && l.instantiation != ti->mangled)) continue;
      auto it = std::find(own->units.begin(), own->units.end(), l.file);
      if (it != own->units.end()) std::rotate(own->units.begin(), it, it + 1);
      break;
    }
    plan.notes.push_back("defined in " + k.range.file + ": variants rewrite the header, compiled through " + own->units[0]);
  }
  for (const auto& n : plan.notes) p.status.kernelNote(k.name, n);
  plan.owned_info = own;
  plan.info = own.get();
}

}  // namespace

TransformFacts factsFor(const KernelPlan& plan, const GeometryChange& geometry) {
  TransformFacts tf;
  if (plan.block_shape) {
    tf.block = applyBlock(geometry, *plan.block_shape);
    tf.block_size = tf.block->x * tf.block->y * tf.block->z;
  } else if (plan.block_size && !geometry.block_x && !geometry.block_y) {
    tf.block_size = plan.block_size;  // a changed block of unknown shape has no known size
  }
  return tf;
}

Plans planKernels(Pipeline& p, const Manifest& manifest, const std::optional<Workload>& workload,
                  const std::map<std::string, std::vector<LaunchRecord>>& captured,
                  const std::map<std::string, std::string>& original_cubin, const std::string& only_kernel) {
  Plans out;
  auto skip = [&](const KernelInfo& k, const std::string& why) {
    p.status.kernelNote(k.name, "skipped: " + why);
    out.skipped.emplace_back(k.name, why);
  };
  for (const auto& k : manifest.kernels) {
    if (!only_kernel.empty() && k.name != only_kernel) continue;
    if (std::string why = unplannable(p, k); !why.empty()) {
      skip(k, why);
      continue;
    }
    KernelPlan plan;
    plan.info = &k;
    plan.wk = workload ? workload->find(k.name) : nullptr;
    plan.geometry_may_change = !k.launches.empty();
    for (const auto& l : k.launches) {
      const std::string at = std::filesystem::path(l.file).filename().string() + ":" + std::to_string(l.line);
      if (plan.geometry_fixed_why.empty() && !l.in_target_sources)
        plan.geometry_fixed_why = "it is launched from outside the target's sources (" + at + ")";
      if (plan.geometry_fixed_why.empty() && !l.not_rewritable.empty())
        plan.geometry_fixed_why = "its launch at " + at + " cannot be rewritten: " + l.not_rewritable;
    }
    plan.geometry_may_change &= plan.geometry_fixed_why.empty();
    std::string replay_problem;
    auto cit = captured.find(k.name);
    if (cit != captured.end()) plan.records = cit->second;
    instantiatePlan(p, plan, k);
    if (!plan.records.empty()) {
      // Gate on the largest captured launch; facts must hold for every captured launch.
      replay_problem = checkReplay(p, plan, largest(plan.records), original_cubin.at(unitOf(*plan.info)));
      if (!replay_problem.empty()) p.status.kernelNote(k.name, replay_problem);
    } else if (!captured.empty() || (!p.cfg.run_command.empty() && p.gpu)) {
      replay_problem = "the RUN program did not launch it";
    } else if (!p.cfg.run_command.empty()) {
      replay_problem = "the RUN program's launches are captured on a CUDA device, and there is none here";
    }
    if (plan.replay) {
      useCapture(p, plan);
    } else if (plan.wk) {
      if (!replay_problem.empty()) p.status.kernelNote(k.name, "falling back to the workload entry in " + *p.cfg.workload);
      useWorkload(p, plan);
    } else {
      skip(k, !replay_problem.empty() ? replay_problem + ", and no workload entry to fall back to"
              : workload ? "no [kernel." + k.name + "] entry in " + *p.cfg.workload + ": nothing to run it with"
                         : "no WORKLOAD or RUN given: nothing to run it with");
      continue;
    }
    if (plan.wk) plan.probes = probeLaunches(*plan.wk, *plan.info);
    plan.block_shape = commonBlock(*plan.info, plan.block, plan.records);
    if (plan.block_shape) plan.block_size = plan.block_shape->x * plan.block_shape->y * plan.block_shape->z;
    if (plan.notes.empty() && plan.replay && plan.records.size() > 1)
      plan.notes.push_back(std::to_string(plan.records.size()) + " launch shapes captured; gated on the largest");
    launchSiteNotes(plan);
    out.kernels.push_back(std::move(plan));
  }
  return out;
}

}  // namespace klineage
