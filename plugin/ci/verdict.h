// The CI verdict of one kernel: its time now against the committed baseline, scaled by how fast
// this machine runs the unchanged original (timed interleaved in the same process), with a
// threshold that is relative, absolute and widened by the measured noise. Pure, for tests.
#pragma once
#include <string>

#include "baseline.h"

namespace klineage {

enum class CiVerdict { Faster, Same, Slower, Wrong, New, NotMeasured };
const char* ciVerdictName(CiVerdict v);  // "faster", "same", "slower", "wrong", "new", "not-measured"

struct CiThresholds {
  double max_slowdown = 0.05;   // --max-slowdown: relative
  double min_ms = 0.005;        // --min-ms: a change smaller than this is never a verdict
  double noise_scale = 2.0;     // the threshold is at least this many times the measured noise
};

struct CiMeasurement {
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
  double original_median_ms = 0, original_p10_ms = 0, original_p90_ms = 0;
  std::string kernel_hash;
};

struct KernelCiResult {
  CiVerdict verdict = CiVerdict::NotMeasured;
  std::string reason;
  double expected_ms = 0;  // the baseline's time, as this machine would run it
  double threshold = 0;    // relative, as used
  double noise = 0;        // relative, the largest of now's, the original's and the baseline's
  bool scaled = false;     // expected_ms was scaled by the original's time now / in the baseline
};

// `base` null: New. Does not decide Wrong (the gate's outcome does).
KernelCiResult compareToBaseline(const CiMeasurement& now, const BaselineEntry* base, const CiThresholds& t);

}  // namespace klineage
