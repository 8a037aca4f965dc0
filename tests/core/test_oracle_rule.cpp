// The oracle rule (core/compare.h, docs/runner-job.md "The oracle"): float outputs judged by their
// distance to a higher-precision oracle, the variant against the original's own error. The
// kernels' arithmetic is done here on the CPU, in the orders the GPU kernels use.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/compare.h"

using namespace klineage;

namespace {

constexpr int kRows = 64, kCols = 4096;

std::vector<float> randomRows(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> x(static_cast<size_t>(kRows) * kCols);
  for (auto& v : x) v = u(rng);
  return x;
}

// The naive row sum: one thread per row, a float accumulator, left to right.
std::vector<float> sequentialSums(const std::vector<float>& x) {
  std::vector<float> out(kRows);
  for (int r = 0; r < kRows; ++r) {
    float s = 0;
    for (int c = 0; c < kCols; ++c) s += x[static_cast<size_t>(r) * kCols + c];
    out[r] = s;
  }
  return out;
}

// The oracle: the same loop with a double accumulator, rounded once at the store.
std::vector<float> oracleSums(const std::vector<float>& x) {
  std::vector<float> out(kRows);
  for (int r = 0; r < kRows; ++r) {
    double s = 0;
    for (int c = 0; c < kCols; ++c) s += x[static_cast<size_t>(r) * kCols + c];
    out[r] = static_cast<float>(s);
  }
  return out;
}

// warp-per-row: 32 lanes each sum a strided part, then a shuffle tree (a reassociated sum).
std::vector<float> warpSums(const std::vector<float>& x) {
  std::vector<float> out(kRows);
  for (int r = 0; r < kRows; ++r) {
    float lane[32] = {};
    for (int c = 0; c < kCols; ++c) lane[c % 32] += x[static_cast<size_t>(r) * kCols + c];
    for (int off = 16; off > 0; off /= 2)
      for (int l = 0; l < off; ++l) lane[l] += lane[l + off];
    out[r] = lane[0];
  }
  return out;
}

// Kahan summation in float: more accurate than the naive loop.
std::vector<float> kahanSums(const std::vector<float>& x) {
  std::vector<float> out(kRows);
  for (int r = 0; r < kRows; ++r) {
    volatile float s = 0, comp = 0;  // volatile: no reassociation by the host compiler
    for (int c = 0; c < kCols; ++c) {
      const float y = x[static_cast<size_t>(r) * kCols + c] - comp;
      const float t = s + y;
      comp = (t - s) - y;
      s = t;
    }
    out[r] = s;
  }
  return out;
}

// A sum whose every partial result is rounded to half precision's 11-bit significand.
float toHalfPrecision(float v) {
  if (v == 0 || !std::isfinite(v)) return v;
  int e;
  const double m = std::frexp(v, &e);
  return static_cast<float>(std::ldexp(std::nearbyint(m * 2048) / 2048, e));
}
std::vector<float> halfSums(const std::vector<float>& x) {
  std::vector<float> out(kRows);
  for (int r = 0; r < kRows; ++r) {
    float s = 0;
    for (int c = 0; c < kCols; ++c) s = toHalfPrecision(s + toHalfPrecision(x[static_cast<size_t>(r) * kCols + c]));
    out[r] = s;
  }
  return out;
}

BufferCompare judge(const std::vector<float>& r, const std::vector<float>& o, const std::vector<float>& v,
                    OracleRule rule = {}) {
  REQUIRE(r.size() == o.size());
  REQUIRE(o.size() == v.size());
  return compareWithOracle("out", ElemType::F32, r.data(), o.data(), v.data(), r.size(), rule, Tolerance{});
}

float poisonFloat() {
  float f;
  poison(&f, sizeof f);
  return f;
}

}  // namespace

TEST_CASE("oracle rule: a reassociated row sum the old tolerance rejects passes", "[oracle]") {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const auto x = randomRows(seed);
    const auto orig = sequentialSums(x), oracle = oracleSums(x), warp = warpSums(x);
    // What the gate said before: not bit-close to the original.
    CHECK_FALSE(compareBuffers("out", ElemType::F32, orig.data(), warp.data(), kRows, Tolerance{}).ok);
    const BufferCompare c = judge(oracle, orig, warp);
    INFO(c.oracle_detail);
    CHECK(c.ok);
    REQUIRE(c.error_original);
    REQUIRE(c.error_variant);
    CHECK(c.error_original->max_rel > 0);
    CHECK(c.error_variant->max_rel <= c.error_original->max_rel);  // the shorter chains are more accurate
    CHECK(c.mismatches == 0);
  }
}

TEST_CASE("oracle rule: Kahan summation passes, half-precision sums fail", "[oracle]") {
  const auto x = randomRows(7);
  const auto orig = sequentialSums(x), oracle = oracleSums(x);
  const BufferCompare kahan = judge(oracle, orig, kahanSums(x));
  INFO(kahan.oracle_detail);
  CHECK(kahan.ok);
  CHECK(kahan.error_variant->l2_rel < kahan.error_original->l2_rel);

  const BufferCompare half = judge(oracle, orig, halfSums(x));
  INFO(half.oracle_detail);
  CHECK_FALSE(half.ok);
  CHECK(half.mismatches > 0);
  CHECK(half.error_variant->max_rel > 10 * half.error_original->max_rel);
  REQUIRE(half.first_mismatch);
  CHECK_THAT(half.oracle_detail, Catch::Contains("2x the original's"));
}

TEST_CASE("oracle rule: where the original equals the oracle, the floor of a few ulps decides", "[oracle]") {
  std::vector<float> r{1.0f, -2.5f, 3.0f, 0.125f};
  const std::vector<float> o = r;
  std::vector<float> v = r;
  v[1] = std::nextafter(v[1], 0.0f);  // one ulp off: within 4 ulps of the largest element
  BufferCompare c = judge(r, o, v);
  INFO(c.oracle_detail);
  CHECK(c.ok);
  CHECK(c.error_original->max_rel == 0);
  v[1] = -2.5f + 64 * FLT_EPSILON * 3.0f;  // 64 ulps of the scale: over the floor
  c = judge(r, o, v);
  CHECK_FALSE(c.ok);
  CHECK(c.mismatches == 1);
  CHECK(*c.first_mismatch == 1);
  CHECK(c.expected == "-2.5");
  // A larger k or floor moves the bound (both are the job's).
  CHECK(judge(r, o, v, OracleRule{2, 100}).ok);
}

TEST_CASE("oracle rule: the L2 norm fails a variant spread just under the worst element's bound", "[oracle]") {
  // The original is off the oracle by 10 units at one element only; the variant by 10 at every one:
  // no element is over 2x the original's worst, but the L2 norm is far over 2x the original's.
  const size_t n = 1000;
  std::vector<float> r(n), o(n), v(n);
  for (size_t i = 0; i < n; ++i) r[i] = 1000.0f + static_cast<float>(i);
  o = r;
  o[0] += 0.0078125f;
  for (size_t i = 0; i < n; ++i) v[i] = r[i] + 0.0078125f;
  const BufferCompare c = judge(r, o, v);
  INFO(c.oracle_detail);
  CHECK_FALSE(c.ok);
  CHECK(c.mismatches == 0);
  CHECK_THAT(c.oracle_detail, Catch::Contains("L2"));
}

TEST_CASE("oracle rule: NaN, infinity and unwritten elements", "[oracle]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf(""), unwritten = poisonFloat();
  SECTION("an element neither kernel wrote passes; one only the original wrote fails") {
    std::vector<float> r{1, unwritten, 3}, o{1, unwritten, 3}, v{1, unwritten, 3};
    CHECK(judge(r, o, v).ok);
    v[2] = unwritten;
    const BufferCompare c = judge(r, o, v);
    CHECK_FALSE(c.ok);
    CHECK(*c.first_mismatch == 2);
    CHECK(c.actual == "nan (unwritten)");
  }
  SECTION("a computed NaN fails even where the original computes the same one") {
    std::vector<float> r{1, 2}, o{1, nan}, v{1, nan};
    CHECK_FALSE(judge(r, o, v).ok);
  }
  SECTION("the same infinity passes, another value does not") {
    std::vector<float> r{1, inf}, o{1, inf}, v{1, inf};
    CHECK(judge(r, o, v).ok);
    v[1] = 3.0e38f;
    CHECK_FALSE(judge(r, o, v).ok);
  }
  SECTION("where only the oracle is not finite, the tolerance compares variant and original") {
    std::vector<float> r{1, inf}, o{1, 3.0e38f}, v{1, 3.0e38f * (1 + 1e-6f)};
    CHECK(judge(r, o, v).ok);  // within rtol 1e-5 of the original
    v[1] = 1.0e38f;
    CHECK_FALSE(judge(r, o, v).ok);
  }
}

TEST_CASE("oracle rule: a variant that flushes denormals passes unless the output is all denormal", "[oracle]") {
  // docs/runner-job.md: a flushed denormal's error is below the floor relative to the buffer's
  // largest element, so it passes where the output also holds normal values ...
  std::vector<float> r{1.0f, 1e-39f, 0.5f}, o = r, v = r;
  v[1] = 0.0f;
  CHECK(judge(r, o, v).ok);
  // ... and fails where every element is denormal (its scale is the denormals' own).
  std::vector<float> rd{1e-39f, 2e-39f}, od = rd, vd{0.0f, 0.0f};
  CHECK_FALSE(judge(rd, od, vd).ok);
}

TEST_CASE("oracle rule: stats merged over chunks give the one-pass verdict", "[oracle]") {
  const auto x = randomRows(11);
  const auto orig = sequentialSums(x), oracle = oracleSums(x), half = halfSums(x);
  const BufferCompare whole = judge(oracle, orig, half);
  OracleStats s = oracleStats(ElemType::F32, oracle.data(), orig.data(), half.data(), 40, Tolerance{});
  s.merge(oracleStats(ElemType::F32, oracle.data() + 40, orig.data() + 40, half.data() + 40, kRows - 40, Tolerance{}));
  BufferCompare a = oracleChunk("out", ElemType::F32, oracle.data(), orig.data(), half.data(), 40, s, OracleRule{}, Tolerance{});
  const BufferCompare b = oracleChunk("out", ElemType::F32, oracle.data() + 40, orig.data() + 40, half.data() + 40,
                                      kRows - 40, s, OracleRule{}, Tolerance{});
  a.mismatches += b.mismatches;
  oracleVerdict(a, ElemType::F32, s, OracleRule{});
  CHECK(a.ok == whole.ok);
  CHECK(a.mismatches == whole.mismatches);
  CHECK(a.error_variant->max_rel == whole.error_variant->max_rel);
  CHECK(a.error_variant->l2_rel == Approx(whole.error_variant->l2_rel));
}

TEST_CASE("oracle rule: double outputs use double's epsilon", "[oracle]") {
  std::vector<double> r{1.0, 2.0}, o = r, v = r;
  v[0] = 1.0 + 2 * DBL_EPSILON;
  CHECK(compareWithOracle("d", ElemType::F64, r.data(), o.data(), v.data(), 2, OracleRule{}, Tolerance{}).ok);
  v[0] = 1.0 + 1e-12;
  CHECK_FALSE(compareWithOracle("d", ElemType::F64, r.data(), o.data(), v.data(), 2, OracleRule{}, Tolerance{}).ok);
}

TEST_CASE("oracle rule: an oracle the original is far off is not trusted, the tolerance decides", "[oracle]") {
  // A broken oracle 1% off: the original's error would let a variant 1.5% off pass the rule.
  std::vector<float> o{10, -20, 30, 40}, r(4), v(4);
  for (int i = 0; i < 4; ++i) {
    r[i] = o[i] * 1.01f;
    v[i] = o[i] * 1.015f;
  }
  const BufferCompare c = judge(r, o, v);
  INFO(c.oracle_detail);
  CHECK_FALSE(c.ok);  // compareBuffers(o, v) under rtol 1e-5
  CHECK(c.mismatches == 4);
  CHECK_THAT(c.oracle_detail, Catch::StartsWith("the original is off the oracle by") && Catch::Contains("not trusted"));
  REQUIRE(c.error_original);
  CHECK(c.error_original->max_rel > 1e-3);
  // The same variant within the tolerance of the original passes (the tolerance's verdict).
  std::vector<float> close = o;
  close[0] = std::nextafter(o[0], 100.0f);
  CHECK(judge(r, o, close).ok);
}

TEST_CASE("oracle rule: in replays equal bits pass, a NaN the program left included", "[oracle]") {
  const float nan = std::nanf("");
  std::vector<float> r{1, nan}, o{1, nan}, v{1, nan};
  CHECK_FALSE(compareWithOracle("a", ElemType::F32, r.data(), o.data(), v.data(), 2, OracleRule{}, Tolerance{}).ok);
  CHECK(compareWithOracle("a", ElemType::F32, r.data(), o.data(), v.data(), 2, OracleRule{}, Tolerance{}, true).ok);
  v[1] = 2.0f;  // a NaN the original keeps, overwritten by the variant
  CHECK_FALSE(compareWithOracle("a", ElemType::F32, r.data(), o.data(), v.data(), 2, OracleRule{}, Tolerance{}, true).ok);
}
