#include "core/compare.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace klineage {

void poison(void* data, size_t bytes) { std::memset(data, kPoisonByte, bytes); }

bool isPoison(const void* element, unsigned elem_size) {
  const auto* b = static_cast<const unsigned char*>(element);
  for (unsigned i = 0; i < elem_size; ++i)
    if (b[i] != kPoisonByte) return false;
  return true;
}

namespace {

template <typename T>
T load(const void* base, unsigned long long i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(base) + i * sizeof(T), sizeof(T));
  return v;
}

// Shortest %g text that reads back to the same value, so that people see "0.1", not 0.100000001.
template <typename F>
std::string shortestFloat(F v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const int max_digits = sizeof(F) == 4 ? 9 : 17;
  // %g switches to an exponent when the precision is below the integer digits ("1e+03"); for
  // ordinary magnitudes keep adding digits until it prints plainly.
  const bool plain_range = std::fabs(v) >= 1e-4 && std::fabs(v) < 1e15;
  for (int digits = 1; digits <= max_digits; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
    if (static_cast<F>(std::strtod(buf, nullptr)) != v) continue;
    if (!plain_range || !std::strchr(buf, 'e')) break;
  }
  return buf;
}

void noteMismatch(BufferCompare& r, unsigned long long i) {
  if (!r.first_mismatch) r.first_mismatch = i;
  if (r.samples.size() < kMismatchSamples) r.samples.push_back({i, "", ""});
  ++r.mismatches;
}

template <typename F>
void compareFloats(BufferCompare& r, const void* expected, const void* actual, unsigned long long n,
                   Tolerance tol) {
  for (unsigned long long i = 0; i < n; ++i) {
    const F e = load<F>(expected, i), a = load<F>(actual, i);
    bool ok;
    if (std::isnan(e) || std::isnan(a)) {
      const char* eb = static_cast<const char*>(expected) + i * sizeof(F);
      const char* ab = static_cast<const char*>(actual) + i * sizeof(F);
      ok = isPoison(eb, sizeof(F)) && isPoison(ab, sizeof(F));  // written by neither kernel
    } else if (std::isinf(e) || std::isinf(a)) {
      ok = e == a;
    } else {
      const double d = std::fabs(static_cast<double>(a) - static_cast<double>(e));
      const double ae = std::fabs(static_cast<double>(e));
      ok = d <= tol.atol + tol.rtol * ae;
      if (d > r.max_abs_err) r.max_abs_err = d;
      if (ae > 0 && d / ae > r.max_rel_err) r.max_rel_err = d / ae;
    }
    if (!ok) noteMismatch(r, i);
  }
}

template <typename I>
void compareInts(BufferCompare& r, const void* expected, const void* actual, unsigned long long n) {
  for (unsigned long long i = 0; i < n; ++i) {
    const I e = load<I>(expected, i), a = load<I>(actual, i);
    if (e == a) continue;
    const long double d = std::fabs(static_cast<long double>(a) - static_cast<long double>(e));
    const long double ae = std::fabs(static_cast<long double>(e));
    if (d > r.max_abs_err) r.max_abs_err = static_cast<double>(d);
    if (ae > 0 && d / ae > r.max_rel_err) r.max_rel_err = static_cast<double>(d / ae);
    noteMismatch(r, i);
  }
}

}  // namespace

std::string formatElement(ElemType type, const void* element) {
  switch (type) {
    case ElemType::F32: {
      std::string s = shortestFloat(load<float>(element, 0));
      return isPoison(element, 4) ? s + " (unwritten)" : s;
    }
    case ElemType::F64: {
      std::string s = shortestFloat(load<double>(element, 0));
      return isPoison(element, 8) ? s + " (unwritten)" : s;
    }
    case ElemType::I8: return std::to_string(load<int8_t>(element, 0));
    case ElemType::U8: return std::to_string(load<uint8_t>(element, 0));
    case ElemType::I16: return std::to_string(load<int16_t>(element, 0));
    case ElemType::U16: return std::to_string(load<uint16_t>(element, 0));
    case ElemType::I32: return std::to_string(load<int32_t>(element, 0));
    case ElemType::U32: return std::to_string(load<uint32_t>(element, 0));
    case ElemType::I64: return std::to_string(load<int64_t>(element, 0));
    case ElemType::U64: return std::to_string(load<uint64_t>(element, 0));
  }
  return "?";
}

BufferCompare compareBuffers(const std::string& param, ElemType type, const void* expected,
                             const void* actual, unsigned long long n, Tolerance tol) {
  BufferCompare r;
  r.param = param;
  switch (type) {
    case ElemType::F32: compareFloats<float>(r, expected, actual, n, tol); break;
    case ElemType::F64: compareFloats<double>(r, expected, actual, n, tol); break;
    case ElemType::I8: compareInts<int8_t>(r, expected, actual, n); break;
    case ElemType::U8: compareInts<uint8_t>(r, expected, actual, n); break;
    case ElemType::I16: compareInts<int16_t>(r, expected, actual, n); break;
    case ElemType::U16: compareInts<uint16_t>(r, expected, actual, n); break;
    case ElemType::I32: compareInts<int32_t>(r, expected, actual, n); break;
    case ElemType::U32: compareInts<uint32_t>(r, expected, actual, n); break;
    case ElemType::I64: compareInts<int64_t>(r, expected, actual, n); break;
    case ElemType::U64: compareInts<uint64_t>(r, expected, actual, n); break;
  }
  r.ok = r.mismatches == 0;
  if (r.first_mismatch) {
    const unsigned long long off = *r.first_mismatch * elemSize(type);
    r.expected = formatElement(type, static_cast<const char*>(expected) + off);
    r.actual = formatElement(type, static_cast<const char*>(actual) + off);
  }
  for (auto& smp : r.samples) {
    const unsigned long long off = smp.index * elemSize(type);
    smp.expected = formatElement(type, static_cast<const char*>(expected) + off);
    smp.actual = formatElement(type, static_cast<const char*>(actual) + off);
  }
  return r;
}

}  // namespace klineage
