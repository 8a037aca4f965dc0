#include "gate/judge.h"

#include <cstdio>

#include "core/stats.h"

namespace klineage {

namespace {
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
}  // namespace

Verdict judge(const RunnerResult& r) {
  if (r.status == RunStatus::Error) return {Outcome::NotRun, "the runner could not run the job: " + r.reason};
  if (r.status == RunStatus::NoDevice) return {Outcome::NotRun, "no CUDA device: " + r.reason};
  if (r.outcome != Outcome::Passed || !r.original_time || !r.variant_time) return {r.outcome, r.reason};
  double speedup = 0, noise = 0;
  const bool faster = fasterBeyondNoise(*r.original_time, *r.variant_time, &speedup, &noise);
  const std::string x = fmt("%.2fx", speedup), n = fmt("%.1f%%", 100 * noise);
  const std::string head = faster ? x + " (noise " + n + ")" : x + ", not faster beyond noise " + n;
  return {faster ? Outcome::Passed : Outcome::Slower, r.reason.empty() ? head : head + "; " + r.reason};
}

Verdict judgeCheck(const RunnerResult& r) {
  if (r.status != RunStatus::Ok) return {Outcome::RuntimeFailed, r.reason};
  if (r.outcome == Outcome::Passed) return {Outcome::Passed, r.reason};
  return {r.outcome == Outcome::NotRun ? Outcome::WrongResult : r.outcome, r.reason};
}

}  // namespace klineage
