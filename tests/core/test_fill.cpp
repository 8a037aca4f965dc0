#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "core/compare.h"
#include "core/fill.h"

using namespace klineage;

namespace {
InitSpec uniform(double lo, double hi) {
  InitSpec s;
  s.kind = InitSpec::Uniform;
  s.lo = lo;
  s.hi = hi;
  return s;
}
}  // namespace

TEST_CASE("fill: the same seed gives the same bytes, another seed or param other bytes", "[fill]") {
  const size_t n = 4096;
  std::vector<float> a(n), b(n), c(n), d(n);
  fillBuffer(a.data(), ElemType::F32, n, uniform(-1, 1), 7, 0);
  fillBuffer(b.data(), ElemType::F32, n, uniform(-1, 1), 7, 0);
  fillBuffer(c.data(), ElemType::F32, n, uniform(-1, 1), 8, 0);
  fillBuffer(d.data(), ElemType::F32, n, uniform(-1, 1), 7, 1);
  CHECK(std::memcmp(a.data(), b.data(), n * sizeof(float)) == 0);
  size_t same_c = 0, same_d = 0;
  for (size_t i = 0; i < n; ++i) {
    same_c += a[i] == c[i];
    same_d += a[i] == d[i];
  }
  CHECK(same_c < 10);
  CHECK(same_d < 10);
}

TEST_CASE("fill: the generator is the documented splitmix64 construction", "[fill]") {
  // Reference computed independently from the formula in fill.h.
  auto mix = [](uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  const uint64_t G = 0x9E3779B97F4A7C15ull;
  for (uint64_t seed : {0ull, 1ull, 123456789ull})
    for (unsigned p : {0u, 3u})
      for (unsigned long long i : {0ull, 1ull, 999999ull}) CHECK(fillBits(seed, p, i) == mix(mix(seed + G * (p + 1)) + G * (i + 1)));
  // A prefix of a longer fill equals the shorter fill: elements do not depend on n.
  std::vector<double> shortb(10), longb(1000);
  fillBuffer(shortb.data(), ElemType::F64, 10, uniform(0, 1), 3, 2);
  fillBuffer(longb.data(), ElemType::F64, 1000, uniform(0, 1), 3, 2);
  CHECK(std::memcmp(shortb.data(), longb.data(), 10 * sizeof(double)) == 0);
}

TEST_CASE("fill: uniform floats stay in [lo, hi] and spread over it", "[fill]") {
  const size_t n = 100000;
  std::vector<float> v(n);
  fillBuffer(v.data(), ElemType::F32, n, uniform(2.0, 3.0), 1, 0);
  float lo = 10, hi = -10;
  double sum = 0;
  for (float x : v) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    sum += x;
  }
  CHECK(lo >= 2.0f);
  CHECK(hi <= 3.0f);
  CHECK(lo < 2.01f);
  CHECK(hi > 2.99f);
  CHECK(sum / n == Approx(2.5).epsilon(0.01));
}

TEST_CASE("fill: uniform integers hit every integer of [lo, hi] and nothing else", "[fill]") {
  const size_t n = 10000;
  std::vector<int16_t> v(n);
  fillBuffer(v.data(), ElemType::I16, n, uniform(-3.5, 4.2), 5, 1);  // integers -3..4
  std::set<int> seen(v.begin(), v.end());
  CHECK(seen == std::set<int>{-3, -2, -1, 0, 1, 2, 3, 4});

  std::vector<uint64_t> w(1000);
  fillBuffer(w.data(), ElemType::U64, w.size(), uniform(0, 18446744073709551615.0), 5, 1);
  CHECK(std::set<uint64_t>(w.begin(), w.end()).size() > 990);  // full range: distinct values
}

TEST_CASE("fill: iota, constant, zeros and poison", "[fill]") {
  InitSpec iota;
  iota.kind = InitSpec::Iota;
  std::vector<int32_t> i(5);
  fillBuffer(i.data(), ElemType::I32, 5, iota, 9, 0);
  CHECK(i == std::vector<int32_t>{0, 1, 2, 3, 4});
  std::vector<float> f(4);
  fillBuffer(f.data(), ElemType::F32, 4, iota, 9, 0);
  CHECK(f == std::vector<float>{0, 1, 2, 3});
  std::vector<uint8_t> u(300);
  fillBuffer(u.data(), ElemType::U8, 300, iota, 9, 0);
  CHECK(u[255] == 255);
  CHECK(u[256] == 0);  // wraps at the type's width

  InitSpec c;
  c.kind = InitSpec::Constant;
  c.value = 2.6;
  fillBuffer(i.data(), ElemType::I32, 5, c, 9, 0);
  CHECK(i == std::vector<int32_t>(5, 3));  // rounded
  fillBuffer(f.data(), ElemType::F32, 4, c, 9, 0);
  CHECK(f == std::vector<float>(4, 2.6f));

  InitSpec z;  // default: zeros
  fillBuffer(f.data(), ElemType::F32, 4, z, 9, 0);
  CHECK(f == std::vector<float>(4, 0.0f));

  InitSpec p;
  p.kind = InitSpec::Poison;
  fillBuffer(f.data(), ElemType::F32, 4, p, 9, 0);
  for (float& x : f) CHECK(isPoison(&x, 4));
}

TEST_CASE("fill: checkInit explains specs that cannot fill a type", "[fill]") {
  CHECK(checkInit(uniform(-1, 1), ElemType::F32).empty());
  CHECK(checkInit(uniform(0, 255), ElemType::U8).empty());
  CHECK(checkInit(uniform(1, 0), ElemType::F32) == "uniform range [1, 0] has hi < lo");
  CHECK(checkInit(uniform(0.2, 0.8), ElemType::I32) == "uniform range [0.2, 0.8] holds no integer");
  CHECK(checkInit(uniform(0, 256), ElemType::U8) == "uniform range [0, 256] does not fit u8");
  CHECK(checkInit(uniform(-1, 1), ElemType::U32) == "uniform range [-1, 1] does not fit u32");
  CHECK(checkInit(uniform(0, 1e39), ElemType::F32) == "uniform range [0, 1e+39] does not fit f32");
  InitSpec c;
  c.kind = InitSpec::Constant;
  c.value = 300;
  CHECK(checkInit(c, ElemType::U8) == "constant 300 does not fit u8");
  CHECK(checkInit(c, ElemType::I16).empty());
}

TEST_CASE("fill: filling in ranges gives the bytes of one fillBuffer call", "[fill]") {
  for (ElemType t : {ElemType::F32, ElemType::F64, ElemType::I32, ElemType::U8}) {
    for (InitSpec init : {InitSpec{InitSpec::Uniform, -3, 7}, InitSpec{InitSpec::Iota}, InitSpec{InitSpec::Poison},
                          InitSpec{InitSpec::Constant, 0, 0, 5}}) {
      const unsigned long long n = 1000;
      std::vector<unsigned char> whole(n * elemSize(t)), parts(n * elemSize(t), 0x11);
      fillBuffer(whole.data(), t, n, init, 9, 3);
      for (unsigned long long at = 0; at < n; at += 333)
        fillBufferRange(parts.data(), t, at, std::min(333ull, n - at), init, 9, 3);
      CHECK(whole == parts);
    }
  }
}
