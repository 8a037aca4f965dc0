// Timing summaries and the gate's "faster" rule.
//
// summarize: median and the 10th / 90th percentiles use linear interpolation between the sorted
// samples (rank q * (runs - 1), numpy's default), so they are defined for any number of runs.
//
// The rule: a variant is faster only when its speedup clears the measurement noise.
//   speedup = original.median / variant.median
//   noise   = max(relativeNoise(original), relativeNoise(variant), 0.01)
//   relativeNoise(t) = (t.p90 - t.p10) / (2 * t.median)   (half the 10-90 spread, relative)
//   faster  iff speedup > 1 + noise
// The 1% floor keeps a very steady pair of kernels from "winning" on clock jitter alone.
#pragma once
#include <vector>

#include "core/job.h"

namespace klineage {

constexpr double kNoiseFloor = 0.01;

// Runs == 0 (and every field 0) for an empty vector.
TimingStats summarize(std::vector<double> ms);

// 0 when the median is not positive (nothing to be relative to).
double relativeNoise(const TimingStats& t);

// speedup and noise are written when non-null (speedup 0 when a median is not positive, and then
// the variant is not faster).
bool fasterBeyondNoise(const TimingStats& original, const TimingStats& variant, double* speedup, double* noise);

}  // namespace klineage
