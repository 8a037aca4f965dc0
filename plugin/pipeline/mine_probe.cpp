#include "mine_probe.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>

#include "context.h"
#include "core/precondition_probes.h"
#include "gate_jobs.h"

namespace klineage {

namespace {

std::string fixed2(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", x);
  return b;
}

// One probe job: the parent (variant) against the simplified version (original) on a probe.
struct Pending {
  LineageStep* step;
  size_t index;          // its StepProbe in step->probes
  const SkillStep* ss;
  RunnerJob job;
  std::string work;      // work directory name
};

// The job for one probe, or the outcome it gets instead (not-run, unprobed) with why.
std::optional<RunnerJob> probeJob(const KernelPlan& plan, const Geometry& gated, const PreconditionProbe& pr,
                                  const SkillStep& ss, const VersionBuild& s, const VersionBuild& par,
                                  const Tolerance& tol, StepProbe* instead) {
  const PreparedLaunch& l = pr.launch;
  const Geometry declared{l.grid, l.block, l.shmem};
  const Geometry og = pr.own_geometry ? declared : originalGeometry(plan, declared, l.scalars);
  Variant sv, pv;
  sv.geometry = ss.child->geometry;
  pv.geometry = ss.parent->geometry;
  std::string why;
  auto sg = variantGeometry(plan, sv, og, l.scalars, &why);
  auto pg = sg ? variantGeometry(plan, pv, og, l.scalars, &why) : std::nullopt;
  if (!sg || !pg) {
    instead->outcome = "not-run";
    instead->reason = "the launch on this probe cannot be worked out: " + why;
    return std::nullopt;
  }
  if (pr.own_geometry && sg->block == applyBlock(ss.child->geometry, gated.block)) {
    instead->outcome = "unprobed";
    instead->reason = "the simplified version's launch sets its own block (" + geometryText(ss.child->geometry) +
                      "): another block for the expert does not change it";
    return std::nullopt;
  }
  RunnerJob job;
  job.original = {s.cubin, s.function, sg->grid, sg->block, sg->shmem, std::nullopt};
  job.variant = {par.cubin, par.function, pg->grid, pg->block, pg->shmem, std::nullopt};
  job.params = l.params;
  job.tolerance = tol;
  job.launch_timeout_s = plan.timeout_s;
  job.profile.enabled = pr.timed;
  return job;
}

// Every job on the backend at once (as it has room); results in the jobs' order.
std::vector<RunnerResult> runAll(Pipeline& p, const std::string& kernel, const std::vector<Pending*>& jobs,
                                 const std::string& suffix) {
  std::vector<JobBundle> bundles;
  for (const Pending* j : jobs) {
    JobBundle b;
    b.id = "mine-probe/" + j->work + suffix;
    b.job = j->job;
    b.work_dir = p.layout.gateWork(kernel, j->work + suffix).string();
    b.timeout_s = runnerProcessLimit(b.job.launch_timeout_s);
    bundles.push_back(std::move(b));
  }
  return p.backend.runAll(std::move(bundles));
}

bool originalFailed(const RunnerResult& r) {
  return (r.outcome == Outcome::RuntimeFailed || r.outcome == Outcome::Timeout) &&
         r.reason.find("the original") != std::string::npos;
}

// The outcome of one probe job (before the control run a wrong result gets).
void classify(StepProbe& sp, const RunnerResult& r, const SkillStep& ss, bool timed) {
  if (r.status != RunStatus::Ok) {
    sp.outcome = "not-run";
    sp.reason = r.reason.empty() ? runStatusName(r.status) : r.reason;
  } else if (originalFailed(r)) {
    sp.outcome = "inconclusive";
    sp.reason = "the simplified version itself fails on this probe: " + r.reason;
  } else if (r.outcome != Outcome::Passed) {
    sp.outcome = "breaks-correctness";
    sp.reason = std::string(outcomeName(r.outcome)) + ": " + r.reason;
  } else if (timed && r.speedup > 0) {
    sp.speedup = r.speedup;
    const bool pays = r.speedup >= kMinedSkillGain;
    sp.outcome = pays ? "holds" : "breaks-speed";
    sp.reason = "same results; the forward step is " + fixed2(r.speedup) + "x here (" + fixed2(ss.speedup) +
                "x on the gated launch)" + (pays ? "" : ": it pays only with the precondition");
  } else {
    sp.outcome = "holds";
    sp.reason = "same results (correctness only, not timed)";
  }
}

}  // namespace

unsigned probePreconditions(Pipeline& p, const KernelPlan& plan, Lineage& lin,
                            const std::map<std::string, VersionBuild>& builds) {
  const std::vector<SkillStep> steps = skillSteps(lin);
  if (steps.empty()) {
    p.status.info("klineage mine: --probe: no step becomes a skill, nothing to probe");
    return 0;
  }
  const KernelInfo& k = *plan.info;
  std::optional<PreparedLaunch> base;
  std::string no_base;
  if (!plan.wk) {
    no_base = "no workload entry for " + k.name + " (gated on a captured launch only): no declared launch to vary";
  } else {
    try {
      base = prepareLaunch(*plan.wk, k);
    } catch (const std::exception& e) {
      no_base = std::string("the workload entry does not give a launch: ") + e.what();
    }
  }
  Geometry gated;
  Tolerance tol = plan.tol;
  if (base) {
    gated = originalGeometry(plan, {base->grid, base->block, base->shmem}, base->scalars);
    base->grid = gated.grid;
    base->block = gated.block;
    base->shmem = gated.shmem;
    tol.rtol = std::max(tol.rtol, base->tol.rtol);
    tol.atol = std::max(tol.atol, base->tol.atol);
  }

  // Every probe of every step first, then run them all.
  std::deque<Pending> pending;  // stable addresses
  for (size_t n = 0; n < steps.size(); ++n) {
    const SkillStep& ss = steps[n];
    // skillSteps hands out views into `lin`, which is ours to change.
    LineageStep& step = const_cast<LineageStep&>(*ss.step);
    step.probes.clear();
    const std::vector<std::string> pres = probedPreconditions(ss.child->facts);
    if (!base) {
      for (const auto& pre : pres) step.probes.push_back({pre, "", "unprobed", no_base, std::nullopt});
      continue;
    }
    const PreconditionProbes probes = preconditionProbes(*plan.wk, k, *base, pres);
    for (const auto& pre : pres)
      if (auto it = probes.unprobed.find(pre); it != probes.unprobed.end())
        step.probes.push_back({pre, "", "unprobed", it->second, std::nullopt});
    auto sb = builds.find(ss.child->id), pb = builds.find(ss.parent->id);
    for (const PreconditionProbe& pr : probes.probes) {
      StepProbe sp{pr.precondition, pr.name, "not-run", "", std::nullopt};
      std::optional<RunnerJob> job;
      if (!p.gpu) sp.reason = "no CUDA device";
      else if (sb == builds.end() || pb == builds.end() || sb->second.cubin.empty() || pb->second.cubin.empty())
        sp.reason = "no compiled module for " + ss.child->id + " or " + ss.parent->id;
      else job = probeJob(plan, gated, pr, ss, sb->second, pb->second, tol, &sp);
      step.probes.push_back(sp);
      if (job)
        pending.push_back({&step, step.probes.size() - 1, &ss, std::move(*job),
                           "mine-probe-" + std::to_string(n) + "-" + ss.child->id + "-" + ss.parent->id + "-" +
                               std::to_string(step.probes.size())});
    }
  }
  std::vector<Pending*> all;
  for (Pending& q : pending) all.push_back(&q);
  const std::vector<RunnerResult> results = runAll(p, k.name, all, "");
  // A wrong result counts only when the simplified version agrees with itself on the probe: racy
  // on an aliased launch, or wrong at another block size, it differs between runs of its own. The
  // control repeats the runs that found the difference: a difference first seen in a timed run
  // (e.g. shared memory left by an earlier run) needs the control's timed runs too; one seen on
  // the input sets does not, and the control then skips the timing.
  std::vector<Pending*> controls;
  for (size_t i = 0; i < all.size(); ++i) {
    Pending& q = *all[i];
    classify(q.step->probes[q.index], results[i], *q.ss, q.job.profile.enabled);
    if (results[i].status != RunStatus::Ok || results[i].outcome != Outcome::WrongResult) continue;
    q.job.variant = q.job.original;
    q.job.profile.enabled = q.job.profile.enabled && results[i].reason.rfind("timed run ", 0) == 0;
    controls.push_back(&q);
  }
  const std::vector<RunnerResult> control = runAll(p, k.name, controls, "-control");
  for (size_t i = 0; i < controls.size(); ++i) {
    StepProbe& sp = controls[i]->step->probes[controls[i]->index];
    if (control[i].status == RunStatus::Ok && control[i].outcome == Outcome::Passed) continue;
    sp.outcome = "inconclusive";
    sp.reason = "the simplified version does not agree with itself on this probe (" +
                (control[i].reason.empty() ? std::string(runStatusName(control[i].status)) : control[i].reason) +
                "), so its difference from the parent says nothing: " + sp.reason;
  }
  for (const SkillStep& ss : steps)
    for (const StepProbe& sp : ss.step->probes)
      p.status.info("klineage mine: probe " + ss.child->id + " -> " + ss.parent->id + "  " + sp.precondition + "  " +
                    (sp.probe.empty() ? "(no probe)" : sp.probe) + "  " + sp.outcome +
                    (sp.speedup ? "  " + fixed2(*sp.speedup) + "x" : "") +
                    (sp.outcome == "holds" || sp.reason.empty() ? "" : "  " + sp.reason.substr(0, 160)));
  return static_cast<unsigned>(all.size() + controls.size());
}

}  // namespace klineage
