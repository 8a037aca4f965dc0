// The one place that decides a variant's outcome from what the runner measured. The runner only
// reports what it found (a failed check, or every check passed with the timings); whether that
// is passed (faster beyond the measured noise) or slower is decided here.
#pragma once
#include <string>

#include "core/job.h"
#include "core/outcome.h"

namespace klineage {

struct Verdict {
  Outcome outcome = Outcome::NotRun;
  std::string reason;
};

// A variant run: a runner that could not run the job is not-run (the harness's problem, not the
// variant's); a failed check is its outcome; all checks passed with timings is passed when faster
// beyond noise, else slower; all checks passed without timings (an unprofiled check) is passed.
Verdict judge(const RunnerResult& r);

// A correctness-only check of a variant that was accepted once (other captured shapes, the
// winner's re-check): anything but all checks passed rejects it; a job that could not run counts
// as runtime-failed and one that compared nothing as wrong-result.
Verdict judgeCheck(const RunnerResult& r);

inline bool accepted(Outcome o) { return o == Outcome::Passed || o == Outcome::Slower; }

}  // namespace klineage
