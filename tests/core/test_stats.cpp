#include <catch2/catch.hpp>

#include <vector>

#include "core/stats.h"

using namespace klineage;

TEST_CASE("stats: median and percentiles of known samples", "[stats]") {
  // 1..11 shuffled: rank q*10, so p10 = 2, median = 6, p90 = 10
  TimingStats t = summarize({7, 3, 11, 1, 9, 5, 2, 10, 4, 8, 6});
  CHECK(t.runs == 11);
  CHECK(t.min_ms == 1);
  CHECK(t.median_ms == 6);
  CHECK(t.p10_ms == Approx(2));
  CHECK(t.p90_ms == Approx(10));

  // even count: interpolated between the middle samples
  TimingStats e = summarize({4, 1, 3, 2});
  CHECK(e.median_ms == Approx(2.5));
  CHECK(e.p10_ms == Approx(1.3));  // rank 0.3
  CHECK(e.p90_ms == Approx(3.7));  // rank 2.7

  TimingStats one = summarize({0.5});
  CHECK(one.runs == 1);
  CHECK(one.median_ms == 0.5);
  CHECK(one.p10_ms == 0.5);
  CHECK(one.p90_ms == 0.5);

  CHECK(summarize({}).runs == 0);
}

TEST_CASE("stats: the samples behind the median are kept in run order, thinned evenly past the cap", "[stats]") {
  TimingStats t = summarize({7, 3, 11});
  CHECK(t.samples_ms == std::vector<double>{7, 3, 11});
  std::vector<double> many;
  for (int i = 0; i < 2000; ++i) many.push_back(i);
  TimingStats m = summarize(many);
  REQUIRE(m.samples_ms.size() == kMaxTimingSamples);
  CHECK(m.samples_ms.front() == 0);
  CHECK(m.samples_ms[1] == 4);  // every 4th run of 2000
  CHECK(m.samples_ms.back() == 1996);
  CHECK(m.runs == 2000);
}

TEST_CASE("stats: relative noise is half the 10-90 spread over the median", "[stats]") {
  TimingStats t = summarize({7, 3, 11, 1, 9, 5, 2, 10, 4, 8, 6});
  CHECK(relativeNoise(t) == Approx((10.0 - 2.0) / (2 * 6.0)));
  CHECK(relativeNoise(TimingStats{}) == 0);
}

TEST_CASE("stats: faster only beyond the noise", "[stats]") {
  const std::vector<double> steady_orig(50, 1.0);
  TimingStats orig = summarize(steady_orig);
  double speedup = 0, noise = 0;

  SECTION("steady and 30% faster: faster, noise at the 1% floor") {
    CHECK(fasterBeyondNoise(orig, summarize(std::vector<double>(50, 1.0 / 1.3)), &speedup, &noise));
    CHECK(speedup == Approx(1.3));
    CHECK(noise == Approx(kNoiseFloor));
  }
  SECTION("0.5% faster is inside the floor: not faster") {
    CHECK_FALSE(fasterBeyondNoise(orig, summarize(std::vector<double>(50, 1.0 / 1.005)), &speedup, &noise));
    CHECK(speedup == Approx(1.005));
  }
  SECTION("10% faster but the variant's timings spread 30%: not faster") {
    std::vector<double> noisy(10, 0.6);  // median 0.909, p10 0.6, p90 1.3
    noisy.insert(noisy.end(), 30, 0.909);
    noisy.insert(noisy.end(), 10, 1.3);
    TimingStats v = summarize(noisy);
    REQUIRE(v.median_ms == Approx(0.909));
    CHECK_FALSE(fasterBeyondNoise(orig, v, &speedup, &noise));
    CHECK(noise == Approx(relativeNoise(v)));
    CHECK(noise > 0.1);
  }
  SECTION("slower: not faster, speedup below 1") {
    CHECK_FALSE(fasterBeyondNoise(orig, summarize(std::vector<double>(50, 1.25)), &speedup, &noise));
    CHECK(speedup == Approx(0.8));
  }
  SECTION("no timings: not faster, speedup 0") {
    CHECK_FALSE(fasterBeyondNoise(orig, TimingStats{}, &speedup, &noise));
    CHECK(speedup == 0);
  }
}
