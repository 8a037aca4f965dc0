#include "core/stats.h"

#include <algorithm>

namespace klineage {

namespace {
// Linear interpolation at rank q * (n - 1) of sorted, non-empty samples.
double quantile(const std::vector<double>& sorted, double q) {
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(rank);
  if (below + 1 >= sorted.size()) return sorted.back();
  const double frac = rank - static_cast<double>(below);
  return sorted[below] + frac * (sorted[below + 1] - sorted[below]);
}
}  // namespace

TimingStats summarize(std::vector<double> ms) {
  TimingStats t;
  if (ms.empty()) return t;
  const size_t keep = std::min<size_t>(ms.size(), kMaxTimingSamples);
  for (size_t i = 0; i < keep; ++i) t.samples_ms.push_back(ms[i * ms.size() / keep]);
  std::sort(ms.begin(), ms.end());
  t.runs = static_cast<unsigned>(ms.size());
  t.min_ms = ms.front();
  t.median_ms = quantile(ms, 0.5);
  t.p10_ms = quantile(ms, 0.1);
  t.p90_ms = quantile(ms, 0.9);
  return t;
}

double relativeNoise(const TimingStats& t) {
  if (t.median_ms <= 0) return 0;
  return (t.p90_ms - t.p10_ms) / (2 * t.median_ms);
}

bool fasterBeyondNoise(const TimingStats& original, const TimingStats& variant, double* speedup, double* noise) {
  const double n = std::max({relativeNoise(original), relativeNoise(variant), kNoiseFloor});
  const double s = (original.median_ms > 0 && variant.median_ms > 0) ? original.median_ms / variant.median_ms : 0;
  if (speedup) *speedup = s;
  if (noise) *noise = n;
  return s > 1 + n;
}

}  // namespace klineage
