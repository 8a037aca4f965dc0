#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/compare.h"

using namespace klineage;

namespace {
float poisonFloat() {
  float f;
  poison(&f, sizeof f);
  return f;
}
}  // namespace

TEST_CASE("compare: equal integer buffers pass, a one-off element fails at its index", "[compare]") {
  std::vector<int32_t> e{1, 2, 3, 4, 5, -7}, a = e;
  BufferCompare same = compareBuffers("idx", ElemType::I32, e.data(), a.data(), e.size(), Tolerance{});
  CHECK(same.ok);
  CHECK(same.mismatches == 0);
  CHECK_FALSE(same.first_mismatch);

  a[3] = 5;  // off by one: integers get no tolerance, however loose the float tolerance is
  BufferCompare r = compareBuffers("idx", ElemType::I32, e.data(), a.data(), e.size(), Tolerance{0.5, 10});
  CHECK_FALSE(r.ok);
  CHECK(r.param == "idx");
  CHECK(r.mismatches == 1);
  REQUIRE(r.first_mismatch);
  CHECK(*r.first_mismatch == 3);
  CHECK(r.expected == "4");
  CHECK(r.actual == "5");
  CHECK(r.max_abs_err == 1.0);
  CHECK(r.max_rel_err == Approx(0.25));
}

TEST_CASE("compare: unsigned 64-bit values are compared exactly and printed in full", "[compare]") {
  std::vector<uint64_t> e{18446744073709551615ull, 9007199254740993ull}, a = e;
  a[1] = 9007199254740992ull;  // differs only beyond double precision
  BufferCompare r = compareBuffers("h", ElemType::U64, e.data(), a.data(), 2, Tolerance{});
  CHECK_FALSE(r.ok);
  CHECK(*r.first_mismatch == 1);
  CHECK(r.expected == "9007199254740993");
  CHECK(r.actual == "9007199254740992");
}

TEST_CASE("compare: floats within atol + rtol*|e| pass, just outside fail", "[compare]") {
  const Tolerance tol{1e-3, 1e-6};
  std::vector<float> e{1000.0f, 0.0f, -2.0f}, a{1000.9f, 5e-7f, -2.0f};
  CHECK(compareBuffers("y", ElemType::F32, e.data(), a.data(), 3, tol).ok);

  a[0] = 1001.5f;  // |d| = 1.5 > 1e-6 + 1e-3 * 1000
  a[1] = 2e-6f;    // |d| = 2e-6 > 1e-6 (e == 0: only atol counts)
  BufferCompare r = compareBuffers("y", ElemType::F32, e.data(), a.data(), 3, tol);
  CHECK_FALSE(r.ok);
  CHECK(r.mismatches == 2);
  CHECK(*r.first_mismatch == 0);
  CHECK(r.expected == "1000");
  CHECK(r.actual == "1001.5");
  CHECK(r.max_abs_err == Approx(1.5));
  CHECK(r.max_rel_err == Approx(1.5e-3));  // e == 0 element has no relative error
}

TEST_CASE("compare: doubles keep their precision", "[compare]") {
  std::vector<double> e{1.0, 0.1}, a{1.0, 0.100000000001};
  CHECK(compareBuffers("d", ElemType::F64, e.data(), a.data(), 2, Tolerance{0, 1e-11}).ok);
  BufferCompare r = compareBuffers("d", ElemType::F64, e.data(), a.data(), 2, Tolerance{0, 1e-13});
  CHECK_FALSE(r.ok);
  CHECK(r.expected == "0.1");
  CHECK(r.actual == "0.100000000001");
  CHECK(r.max_abs_err == Approx(1e-12).epsilon(1e-3));
}

TEST_CASE("compare: values print plainly in ordinary ranges, with an exponent beyond", "[compare]") {
  const float f[] = {1000.0f, 1e20f, 0.1f, 2.5e-7f, -3.0f};
  CHECK(formatElement(ElemType::F32, &f[0]) == "1000");
  CHECK(formatElement(ElemType::F32, &f[1]) == "1e+20");
  CHECK(formatElement(ElemType::F32, &f[2]) == "0.1");
  CHECK(formatElement(ElemType::F32, &f[3]) == "2.5e-07");
  CHECK(formatElement(ElemType::F32, &f[4]) == "-3");
  const int8_t c = -128;
  CHECK(formatElement(ElemType::I8, &c) == "-128");
}

TEST_CASE("compare: a NaN written by the variant fails, and is excluded from max errors", "[compare]") {
  std::vector<float> e{1.0f, 1.25f, 3.0f}, a{1.5f, std::numeric_limits<float>::quiet_NaN(), 3.0f};
  BufferCompare r = compareBuffers("y", ElemType::F32, e.data(), a.data(), 3, Tolerance{0, 1});
  CHECK_FALSE(r.ok);
  CHECK(r.mismatches == 1);
  CHECK(*r.first_mismatch == 1);
  CHECK(r.expected == "1.25");
  CHECK(r.actual == "nan");
  CHECK(r.max_abs_err == Approx(0.5));
}

TEST_CASE("compare: NaN in both (not poison) still fails", "[compare]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> e{nan}, a{nan};
  CHECK_FALSE(compareBuffers("y", ElemType::F32, e.data(), a.data(), 1, Tolerance{}).ok);
}

TEST_CASE("compare: poison untouched by both kernels passes, poison only in actual fails", "[compare]") {
  const float p = poisonFloat();
  REQUIRE(std::isnan(p));
  REQUIRE(isPoison(&p, sizeof p));
  std::vector<float> e{2.0f, p, 4.0f}, a{2.0f, p, 4.0f};
  CHECK(compareBuffers("out", ElemType::F32, e.data(), a.data(), 3, Tolerance{}).ok);

  a[2] = p;  // the variant never wrote element 2
  BufferCompare r = compareBuffers("out", ElemType::F32, e.data(), a.data(), 3, Tolerance{});
  CHECK_FALSE(r.ok);
  CHECK(*r.first_mismatch == 2);
  CHECK(r.expected == "4");
  CHECK(r.actual == "nan (unwritten)");

  // and the other way: the variant wrote where the original did not
  std::vector<double> e2(2), a2{0.5, 0.5};
  poison(e2.data(), e2.size() * sizeof(double));
  BufferCompare r2 = compareBuffers("out", ElemType::F64, e2.data(), a2.data(), 2, Tolerance{});
  CHECK(r2.mismatches == 2);
  CHECK(r2.expected == "nan (unwritten)");
}

TEST_CASE("compare: infinities pass only when equal", "[compare]") {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> e{inf, -inf}, a{inf, inf};
  BufferCompare r = compareBuffers("y", ElemType::F32, e.data(), a.data(), 2, Tolerance{1, 1});
  CHECK(r.mismatches == 1);
  CHECK(*r.first_mismatch == 1);
  CHECK(r.expected == "-inf");
  CHECK(r.actual == "inf");
}

TEST_CASE("compare: isPoison needs every byte 0xFF", "[compare]") {
  int32_t v = -1;
  CHECK(isPoison(&v, 4));
  v = -2;
  CHECK_FALSE(isPoison(&v, 4));
}
