// klineage-baseline.json: the committed timings `klineage ci` compares against, per kernel and
// shape (format klineage-baseline-1, docs/ci.md). Written only by `klineage ci --update-baseline`,
// atomically.
#pragma once
#include <string>
#include <vector>

namespace klineage {

struct BaselineEntry {
  std::string kernel, shape;     // shape: "grid 262144 x block 256"
  std::string variant;           // the variant the build kept ("saxpy/original" when none)
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
  unsigned runs = 0;
  double noise = 0;              // relative: half the p10-p90 spread over the median
  double original_median_ms = 0; // the original kernel, timed interleaved in the same process
  std::string kernel_hash;       // the original kernel's source hash (manifest source_hash)
};

struct Baseline {
  std::string target, gpu, arch, driver, cuda, recorded;  // recorded: UTC time, ISO 8601
  std::vector<BaselineEntry> kernels;
  const BaselineEntry* find(const std::string& kernel, const std::string& shape) const;
};

// Throws InputError naming the file (and the entry) when it is not a klineage-baseline-1 file.
Baseline loadBaseline(const std::string& path);
void saveBaseline(const Baseline& b, const std::string& path);  // atomic
std::string baselineText(const Baseline& b);

// "" when timings on `now` can be compared with the baseline's, else why not (a different GPU
// or driver).
std::string notComparable(const Baseline& base, const std::string& gpu, const std::string& driver);

}  // namespace klineage
