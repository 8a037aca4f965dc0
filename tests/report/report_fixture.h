// A real report.json (runOptimize on a copy of examples/quickstart with a fake compiler and a fake
// GPU runner whose timings have run-to-run spread) and a klineage-ci-1 document, for the HTML
// report's tests: the Catch2 ones and the headless-Chromium one (which gets its page from the
// hidden "[.make-report]" test case).
#pragma once
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "optimize.h"
#include "support/pipeline_project.h"

namespace klineage::test {

// What the fake reports: a vectorized variant (smaller grid) 1.30x faster and passed; of the
// others, the first and every third after it is wrong (with a reason full of HTML), every fourth
// run slower, the rest 1.05x.
struct SpreadRunner : GpuRunner {
  unsigned calls = 0, plain_calls = 0;  // all runs; those of variants that are not vectorized
  DeviceProbe probe() override {
    DeviceProbe d;
    d.available = true;
    d.device = "Fake GPU";
    d.arch = "sm_90";
    return d;
  }
  static TimingStats spread(double median, unsigned seed) {
    TimingStats t{median, median * 0.99, median * 1.01, median * 0.985, 40, {}};
    for (unsigned i = 0; i < t.runs; ++i)
      t.samples_ms.push_back(median * (1 + 0.012 * std::sin(i * 1.7 + seed) + 0.004 * std::cos(i * 5.3)));
    return t;
  }
  RunnerResult run(const RunnerJob& job, const std::string&, double) override {
    ++calls;
    RunnerResult r;
    r.device = "Fake GPU";
    const bool vectorized = job.variant.grid.x < job.original.grid.x;
    double s = vectorized ? 1.30 : calls % 4 == 0 ? 0.97 : 1.05;
    // Counted among the plain variants alone, so that the first of them is wrong whatever order
    // the planner (and the skill library's effect history) gates them in.
    const bool wrong = !vectorized && plain_calls++ % 3 == 0;
    r.outcome = wrong ? Outcome::WrongResult : Outcome::Passed;
    if (r.outcome == Outcome::WrongResult) r.reason = "y[7]: expected 1, got 2 <script>alert('x')</script> & \"more\"";
    r.speedup = s;
    r.noise = 0.01;
    r.original_time = spread(0.24, calls);
    r.variant_time = spread(0.24 / s, calls + 7);
    return r;
  }
};

// The report.json of one optimize run with the fakes.
inline nlohmann::json makeReportJson() {
  Project p(6);
  p.libraryWithoutHistory();  // its variants, whatever the shipped records leave out
  FakeCompiler cc;
  SpreadRunner gpu;
  OptimizeOptions opt;
  opt.config = p.config;
  if (runOptimize(opt, &cc, &gpu) != 0) throw std::runtime_error("runOptimize failed");
  return p.report();
}

// A klineage-ci-1 document (the contract `klineage ci` writes).
inline nlohmann::json makeCiJson() {
  auto samples = [](double m, unsigned seed) {
    nlohmann::json a = nlohmann::json::array();
    for (unsigned i = 0; i < 30; ++i) a.push_back(m * (1 + 0.01 * std::sin(i * 2.1 + seed)));
    return a;
  };
  nlohmann::json k1 = {{"kernel", "saxpy"}, {"shape", "n=67108864"}, {"variant", "saxpy/3"}, {"verdict", "faster"},
                       {"reason", "1.29x over the original, baseline 0.186 ms"}, {"median_ms", 0.185},
                       {"original_ms", 0.24}, {"baseline_ms", 0.186}, {"expected_ms", 0.186}, {"threshold", 0.05},
                       {"noise", 0.01}, {"samples_ms", samples(0.185, 1)}, {"original_samples_ms", samples(0.24, 2)}};
  nlohmann::json k2 = {{"kernel", "relu"}, {"shape", "n=1048576"}, {"variant", "relu/original"}, {"verdict", "slower"},
                       {"reason", "12% slower than the baseline <b>beyond</b> the 5% threshold"}, {"median_ms", 0.112},
                       {"original_ms", 0.112}, {"baseline_ms", 0.1}, {"expected_ms", nullptr}, {"threshold", 0.05},
                       {"noise", 0.02}, {"samples_ms", samples(0.112, 3)}, {"original_samples_ms", samples(0.112, 4)}};
  return {{"format", "klineage-ci-1"}, {"target", "kernels"}, {"device", "Fake GPU (sm_90)"}, {"driver", "13.0"},
          {"cuda", "12.8"}, {"baseline", "/tmp/baseline/ci.json"}, {"comparable", true}, {"not_comparable_reason", ""},
          {"verdict", "regression"}, {"exit_code", 1}, {"kernels", {k1, k2}}};
}

}  // namespace klineage::test
