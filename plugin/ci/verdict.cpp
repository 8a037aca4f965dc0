#include "verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/stats.h"

namespace klineage {

const char* ciVerdictName(CiVerdict v) {
  switch (v) {
    case CiVerdict::Faster: return "faster";
    case CiVerdict::Same: return "same";
    case CiVerdict::Slower: return "slower";
    case CiVerdict::Wrong: return "wrong";
    case CiVerdict::New: return "new";
    case CiVerdict::NotMeasured: return "not-measured";
  }
  return "?";
}

namespace {
double relNoise(double median, double p10, double p90) { return median > 0 ? (p90 - p10) / (2 * median) : 0; }
std::string fmt(const char* f, double a, double b = 0, double c = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}
}  // namespace

KernelCiResult compareToBaseline(const CiMeasurement& now, const BaselineEntry* base, const CiThresholds& t) {
  KernelCiResult r;
  r.noise = std::max({relNoise(now.median_ms, now.p10_ms, now.p90_ms),
                      relNoise(now.original_median_ms, now.original_p10_ms, now.original_p90_ms), kNoiseFloor});
  if (!base) {
    r.verdict = CiVerdict::New;
    r.threshold = std::max(t.max_slowdown, t.noise_scale * r.noise);
    r.reason = "not in the baseline (klineage ci --update-baseline records it)";
    return r;
  }
  r.noise = std::max(r.noise, base->noise);
  r.threshold = std::max(t.max_slowdown, t.noise_scale * r.noise);
  std::string how;
  // The same original kernel timed in both runs says how fast this machine is today: a slower
  // machine (clocks, a busy neighbour) slows the original as much as the kept kernel.
  if (!base->kernel_hash.empty() && base->kernel_hash == now.kernel_hash && base->original_median_ms > 0 &&
      now.original_median_ms > 0) {
    const double scale = now.original_median_ms / base->original_median_ms;
    r.expected_ms = base->median_ms * scale;
    r.scaled = true;
    how = fmt("baseline %.4f ms x %.3f (the original runs at %.3fx its baseline time here)", base->median_ms, scale, scale);
  } else {
    r.expected_ms = base->median_ms;
    how = fmt("baseline %.4f ms, unscaled", base->median_ms) +
          (base->kernel_hash.empty() || base->kernel_hash == now.kernel_hash
               ? std::string(" (no original time to scale by)")
               : std::string(" (the original kernel changed since the baseline)"));
  }
  const double diff = now.median_ms - r.expected_ms;
  const double rel = r.expected_ms > 0 ? diff / r.expected_ms : 0;
  const std::string figures = fmt("%.4f ms vs expected %.4f ms (%+.1f%%", now.median_ms, r.expected_ms, 100 * rel) +
                              fmt("; threshold %.1f%%, noise %.1f%%); ", 100 * r.threshold, 100 * r.noise) + how;
  if (rel > r.threshold && diff > t.min_ms) {
    r.verdict = CiVerdict::Slower;
    r.reason = "slower: " + figures;
  } else if (rel < -r.threshold && -diff > t.min_ms) {
    r.verdict = CiVerdict::Faster;
    r.reason = "faster: " + figures;
  } else {
    r.verdict = CiVerdict::Same;
    r.reason = "within the threshold: " + figures;
  }
  return r;
}

}  // namespace klineage
