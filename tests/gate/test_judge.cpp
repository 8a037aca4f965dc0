// judge(): the one place a runner's measurements become an outcome.
#include <catch2/catch.hpp>

#include <set>

#include "gate/judge.h"

using namespace klineage;

namespace {
RunnerResult measured(double original_ms, double variant_ms, double spread) {
  RunnerResult r;
  r.outcome = Outcome::Passed;
  r.reason = "outputs match on 3 input set(s)";
  r.original_time = TimingStats{original_ms, original_ms * (1 - spread), original_ms * (1 + spread), original_ms, 50};
  r.variant_time = TimingStats{variant_ms, variant_ms * (1 - spread), variant_ms * (1 + spread), variant_ms, 50};
  return r;
}
}  // namespace

TEST_CASE("judge: faster beyond the measured noise is passed, anything else correct is slower", "[gate][judge]") {
  Verdict v = judge(measured(1.0, 0.8, 0.01));
  CHECK(v.outcome == Outcome::Passed);
  CHECK(v.reason == "1.25x (noise 1.0%); outputs match on 3 input set(s)");
  // the same speedup inside a 30% spread is not believed
  v = judge(measured(1.0, 0.8, 0.3));
  CHECK(v.outcome == Outcome::Slower);
  CHECK(v.reason.rfind("1.25x, not faster beyond noise 30.0%", 0) == 0);
  CHECK(judge(measured(1.0, 1.005, 0.001)).outcome == Outcome::Slower);
  // with profiling off there are no timings: a correct variant is passed
  RunnerResult unprofiled;
  unprofiled.outcome = Outcome::Passed;
  unprofiled.reason = "outputs match; not profiled";
  CHECK(judge(unprofiled).outcome == Outcome::Passed);
}

TEST_CASE("judge: failed checks keep their outcome, a job that could not run is not-run", "[gate][judge]") {
  for (Outcome o : {Outcome::WrongResult, Outcome::RuntimeFailed, Outcome::Timeout}) {
    RunnerResult r = measured(1.0, 0.1, 0.01);  // fast, but wrong
    r.outcome = o;
    r.reason = "y[7] differs";
    CHECK(judge(r).outcome == o);
    CHECK(judge(r).reason == "y[7] differs");
    CHECK(judgeCheck(r).outcome == o);
  }
  RunnerResult bad;
  bad.status = RunStatus::Error;
  bad.reason = "no function f";
  CHECK(judge(bad).outcome == Outcome::NotRun);
  CHECK(judge(bad).reason == "the runner could not run the job: no function f");
  CHECK(judgeCheck(bad).outcome == Outcome::RuntimeFailed);  // after it was accepted once: a rejection
  RunnerResult none;
  none.status = RunStatus::NoDevice;
  CHECK(judge(none).outcome == Outcome::NotRun);
  RunnerResult nothing;  // compared nothing
  CHECK(judgeCheck(nothing).outcome == Outcome::WrongResult);
  CHECK(accepted(Outcome::Slower));
  CHECK_FALSE(accepted(Outcome::NotRun));
}

TEST_CASE("gate exit codes: one per rejection, documented in --help and docs/gate.md", "[gate][judge]") {
  std::set<int> codes;
  for (Outcome o : kAllOutcomes) {
    const int c = gateExitCode(o);
    if (accepted(o)) CHECK(c == 0);
    else CHECK(codes.insert(c).second);  // distinct
    CHECK(c != 1);                       // 1 and 2 are KLineage's own failure and bad input
    CHECK(c != 2);
  }
  CHECK(codes.size() == 5);
}
