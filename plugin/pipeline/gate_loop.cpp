#include "gate_loop.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>

#include "context.h"
#include "gate/judge.h"
#include "gate_jobs.h"
#include "result_cache.h"

namespace klineage {
namespace fs = std::filesystem;

const VariantReport* originalOf(const std::vector<VariantReport>& reports, const std::string& kernel) {
  for (const auto& o : reports)
    if (o.variant.is_original && o.variant.kernel == kernel) return &o;
  return nullptr;
}

namespace {

// One variant's way through the gate, as a sequence of jobs: for each of `repeat` trials, its
// job on the plan's shape (with the probes), then its misaligned replay (if any), then one job
// per other captured launch.
class GateTask {
 public:
  GateTask(Pipeline& p, const KernelPlan& plan, const VariantReport& orig, VariantReport& r, unsigned repeat)
      : plan_(plan), r_(r), repeat_(std::max(1u, repeat)) {
    std::string why;
    job_ = makeJob(plan, orig, r, &why);
    if (!job_) finish(Outcome::NotRun, why);
    wd_ = p.layout.gateWork(r.variant.kernel, fs::path(r.cubin).stem().string()).string();
    // A variant with a path for unaligned pointers runs it on the captured launch too.
    if (job_)
      if (auto m = misalignedReplay(plan, orig, r, *job_))
        others_.push_back({"on the captured launch " + plan.replay->dir +
                               " with its allocations 8 bytes past a 16-byte boundary",
                           std::move(*m)});
    for (const auto& other : plan.records) {
      if (done_ || !plan.replay || other.dir == plan.replay->dir) continue;
      auto check = jobOnRecord(plan, r.variant, *job_, other, &why);
      if (!check) finish(Outcome::NotRun, "on the captured launch " + other.dir + ": " + why);
      else others_.push_back({"on the captured launch " + other.dir, std::move(*check)});
    }
  }
  bool done() const { return done_; }
  VariantReport& report() { return r_; }
  // Every job it will run once: the plan's shape, then the checks (misaligned replay, other captured launches).
  std::vector<const RunnerJob*> jobs() const {
    std::vector<const RunnerJob*> j{&*job_};
    for (const auto& o : others_) j.push_back(&o.job);
    return j;
  }

  // The next job to run (only while !done()).
  JobBundle next() {
    JobBundle b;
    b.id = r_.variant.id + "#" + std::to_string(trial_) + "." + std::to_string(shape_);
    b.timeout_s = runnerProcessLimit(plan_.timeout_s);
    if (shape_ == 0) {
      b.job = *job_;
      b.work_dir = wd_;
      return b;
    }
    b.job = others_[shape_ - 1].job;
    b.work_dir = wd_ + "-shape" + std::to_string(shape_);
    return b;
  }

  void finished(const RunnerResult& res) {
    if (shape_ == 0 && dropProbe(res)) return;  // the same trial again, without the shape the original itself cannot run
    if (shape_ == 0) {
      trial_report_ = r_;
      recordRun(trial_report_, res);
      if (!accepted(trial_report_.outcome)) return reject(trial_report_.outcome, trial_report_.reason);
    } else {
      const Verdict v = judgeCheck(res);
      if (v.outcome != Outcome::Passed)
        return reject(v.outcome, others_[shape_ - 1].where + ": " + v.reason);
    }
    if (++shape_ <= others_.size()) return;
    // A trial passed every shape; the first trial's measurements are the variant's.
    if (trial_ == 0) {
      const std::vector<std::string> checks = r_.checks;
      r_ = trial_report_;
      r_.checks = checks;
    }
    shape_ = 0;
    if (++trial_ < repeat_) return;
    if (repeat_ > 1) r_.checks.push_back(std::to_string(repeat_) + " gate runs on fresh random inputs, none rejected it");
    done_ = true;
  }

 private:
  const KernelPlan& plan_;
  VariantReport& r_;
  unsigned repeat_;
  std::optional<RunnerJob> job_;
  std::string wd_;
  struct Check {
    std::string where;  // "on the captured launch <dir>": what a rejection names
    RunnerJob job;
  };
  std::vector<Check> others_;  // checks after the main job: misaligned replay, other captured launches
  VariantReport trial_report_;
  unsigned trial_ = 0;
  size_t shape_ = 0;
  bool done_ = false;

  // A probe shape the original itself cannot run is left out (gate_jobs.h); false when the result
  // names none of this job's probes.
  bool dropProbe(const RunnerResult& res) {
    const std::string note = dropOriginalFailedProbe(*job_, res);
    if (note.empty()) return false;
    r_.checks.push_back(note);
    return true;
  }

  void finish(Outcome o, const std::string& why) {
    r_.outcome = o;
    r_.reason = why;
    done_ = true;
  }
  void reject(Outcome o, const std::string& why) {
    if (trial_ == 0) {  // keep the measurements of the first trial
      const std::vector<std::string> checks = r_.checks;
      r_ = trial_report_;
      r_.checks = checks;
    }
    finish(o, trial_ > 0 ? "gate run " + std::to_string(trial_ + 1) + " of " + std::to_string(repeat_) + ": " + why : why);
  }
};

// Why a report is not gated at all ("" when it is to be gated).
std::string notGated(const Pipeline& p, const VariantReport& r, const VariantReport* orig) {
  if (!p.gpu) return "no CUDA device";
  if (!orig || orig->cubin.empty()) return "the original kernel did not compile";
  return "";
}

}  // namespace

void gateAll(Pipeline& p, const Plans& plans, std::vector<VariantReport>& reports, unsigned repeat) {
  std::deque<std::unique_ptr<GateTask>> waiting;
  size_t total = 0, finished = 0;
  for (auto& r : reports)
    if (!r.variant.is_original) ++total;
  auto report = [&](const VariantReport& r) { p.status.variantFinished(r, ++finished, total); };
  for (const auto& plan : plans.kernels) {
    const VariantReport* orig = originalOf(reports, plan.info->name);
    for (auto& r : reports) {
      if (r.variant.kernel != plan.info->name) continue;
      if (r.variant.is_original) {
        if (r.outcome == Outcome::CompileFailed) p.status.variantFinished(r, finished, total);
        continue;
      }
      const bool to_gate = r.outcome == Outcome::NotRun && r.reason.empty();
      if (to_gate) r.reason = notGated(p, r, orig);
      if (!to_gate || !r.reason.empty()) {
        report(r);
        continue;
      }
      auto t = std::make_unique<GateTask>(p, plan, *orig, r, repeat);
      if (t->done()) {
        report(r);
        continue;
      }
      // Gated before with everything the same (result_cache.h): that result, no job.
      if (p.cache) {
        r.cache_key = p.cache->gateKey(r, t->jobs(), repeat, p.cfg.sanitize);
        if (p.cache->restore(r)) {
          report(r);
          continue;
        }
      }
      waiting.push_back(std::move(t));
    }
  }
  // Every task has at most one job in flight; tasks take turns as the backend has room.
  std::map<std::string, std::unique_ptr<GateTask>> running;
  while (!waiting.empty() || !running.empty()) {
    while (!waiting.empty() && p.backend.canRunMore()) {
      JobBundle b = waiting.front()->next();
      running[b.id] = std::move(waiting.front());
      waiting.pop_front();
      p.backend.submit(std::move(b));
    }
    Finished f = p.backend.wait();
    auto it = running.find(f.id);
    if (it == running.end()) continue;
    std::unique_ptr<GateTask> t = std::move(it->second);
    running.erase(it);
    t->finished(f.result);
    if (t->done() && p.cache) p.cache->store(t->report());
    if (t->done()) report(t->report());
    else waiting.push_front(std::move(t));  // its next job goes first: a variant finishes before others start
  }
  for (auto& r : reports)
    if (!r.variant.is_original && r.outcome == Outcome::NotRun && r.reason.empty()) r.reason = "no workload for this kernel";
}

}  // namespace klineage
