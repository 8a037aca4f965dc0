#include "core/compare.h"

#include <algorithm>
#include <cfloat>
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

// --- the oracle rule ---------------------------------------------------------------------------

void OracleStats::merge(const OracleStats& o) {
  scale = std::max(scale, o.scale);
  r_sq += o.r_sq;
  orig_max = std::max(orig_max, o.orig_max);
  orig_sq += o.orig_sq;
  var_max = std::max(var_max, o.var_max);
  var_sq += o.var_sq;
  bad += o.bad;
}

namespace {

enum class OracleElem { Norm, Ok, Bad };

// How one element counts (the rules in compare.h).
template <typename F>
OracleElem classify(F r, F o, F v, const void* ob, const void* vb, Tolerance fallback, bool equal_bits_pass) {
  if (std::isfinite(r) && std::isfinite(o) && std::isfinite(v)) return OracleElem::Norm;
  if (std::memcmp(ob, vb, sizeof(F)) == 0)  // the same bits: the same infinity, or written by neither
    return equal_bits_pass || !std::isnan(o) || isPoison(ob, sizeof(F)) ? OracleElem::Ok : OracleElem::Bad;
  if (std::isfinite(o) && std::isfinite(v)) {  // only the oracle is not finite: the tolerance decides
    const double d = std::fabs(static_cast<double>(v) - static_cast<double>(o));
    return d <= fallback.atol + fallback.rtol * std::fabs(static_cast<double>(o)) ? OracleElem::Ok : OracleElem::Bad;
  }
  return OracleElem::Bad;
}

template <typename F>
OracleStats statsOf(const void* r, const void* o, const void* v, unsigned long long n, Tolerance fallback,
                    bool equal_bits_pass) {
  OracleStats s;
  for (unsigned long long i = 0; i < n; ++i) {
    const F rv = load<F>(r, i), ov = load<F>(o, i), vv = load<F>(v, i);
    const char* ob = static_cast<const char*>(o) + i * sizeof(F);
    const char* vb = static_cast<const char*>(v) + i * sizeof(F);
    switch (classify(rv, ov, vv, ob, vb, fallback, equal_bits_pass)) {
      case OracleElem::Bad: ++s.bad; break;
      case OracleElem::Ok: break;
      case OracleElem::Norm: {
        const double rd = rv, dO = std::fabs(static_cast<double>(ov) - rd), dV = std::fabs(static_cast<double>(vv) - rd);
        s.scale = std::max(s.scale, std::fabs(rd));
        s.r_sq += rd * rd;
        s.orig_max = std::max(s.orig_max, dO);
        s.orig_sq += dO * dO;
        s.var_max = std::max(s.var_max, dV);
        s.var_sq += dV * dV;
        break;
      }
    }
  }
  return s;
}

double epsilonOf(ElemType type) { return type == ElemType::F64 ? DBL_EPSILON : FLT_EPSILON; }
double scaleOf(ElemType type, const OracleStats& s) {
  return s.scale > 0 ? s.scale : type == ElemType::F64 ? DBL_MIN : FLT_MIN;
}
// The largest absolute error an element of the variant may have.
double elementBound(ElemType type, const OracleStats& s, OracleRule rule) {
  const double scale = scaleOf(type, s);
  return std::max(rule.k * s.orig_max / scale, rule.floor_ulps * epsilonOf(type)) * scale;
}

template <typename F>
void chunkOf(BufferCompare& c, const void* r, const void* o, const void* v, unsigned long long n, double bound,
             Tolerance fallback, bool equal_bits_pass) {
  for (unsigned long long i = 0; i < n; ++i) {
    const F rv = load<F>(r, i), ov = load<F>(o, i), vv = load<F>(v, i);
    const char* ob = static_cast<const char*>(o) + i * sizeof(F);
    const char* vb = static_cast<const char*>(v) + i * sizeof(F);
    const OracleElem e = classify(rv, ov, vv, ob, vb, fallback, equal_bits_pass);
    if (std::isfinite(ov) && std::isfinite(vv)) {
      const double d = std::fabs(static_cast<double>(vv) - static_cast<double>(ov));
      c.max_abs_err = std::max(c.max_abs_err, d);
      if (ov != 0) c.max_rel_err = std::max(c.max_rel_err, d / std::fabs(static_cast<double>(ov)));
    }
    if (e == OracleElem::Bad ||
        (e == OracleElem::Norm && std::fabs(static_cast<double>(vv) - static_cast<double>(rv)) > bound))
      noteMismatch(c, i);
  }
}

std::string sci(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

}  // namespace

OracleStats oracleStats(ElemType type, const void* r, const void* o, const void* v, unsigned long long n,
                        Tolerance fallback, bool equal_bits_pass) {
  return type == ElemType::F64 ? statsOf<double>(r, o, v, n, fallback, equal_bits_pass)
                               : statsOf<float>(r, o, v, n, fallback, equal_bits_pass);
}

BufferCompare oracleChunk(const std::string& param, ElemType type, const void* r, const void* o, const void* v,
                          unsigned long long n, const OracleStats& whole, OracleRule rule, Tolerance fallback,
                          bool equal_bits_pass) {
  BufferCompare c;
  c.param = param;
  const double bound = elementBound(type, whole, rule);
  if (type == ElemType::F64) chunkOf<double>(c, r, o, v, n, bound, fallback, equal_bits_pass);
  else chunkOf<float>(c, r, o, v, n, bound, fallback, equal_bits_pass);
  for (auto& smp : c.samples) {
    const unsigned long long off = smp.index * elemSize(type);
    smp.expected = formatElement(type, static_cast<const char*>(o) + off);
    smp.actual = formatElement(type, static_cast<const char*>(v) + off);
  }
  if (c.first_mismatch) {
    c.expected = c.samples.front().expected;
    c.actual = c.samples.front().actual;
  }
  return c;
}

bool oracleVerdict(BufferCompare& c, ElemType type, const OracleStats& s, OracleRule rule) {
  const double scale = scaleOf(type, s), norm = std::sqrt(s.r_sq) > 0 ? std::sqrt(s.r_sq) : scale;
  const double floor = rule.floor_ulps * epsilonOf(type);
  c.error_original = ErrorNorms{s.orig_max / scale, std::sqrt(s.orig_sq) / norm};
  c.error_variant = ErrorNorms{s.var_max / scale, std::sqrt(s.var_sq) / norm};
  const double bound_max = std::max(rule.k * c.error_original->max_rel, floor);
  const double bound_l2 = std::max(rule.k * c.error_original->l2_rel, floor);
  const bool l2_ok = c.error_variant->l2_rel <= bound_l2;
  c.ok = s.bad == 0 && c.mismatches == 0 && l2_ok;
  c.oracle_detail = "error against the oracle (relative to its largest element " + sci(s.scale) +
                    " and its norm): variant max " + sci(c.error_variant->max_rel) + ", L2 " +
                    sci(c.error_variant->l2_rel) + "; original max " + sci(c.error_original->max_rel) + ", L2 " +
                    sci(c.error_original->l2_rel) + "; allowed max " + sci(bound_max) + ", L2 " + sci(bound_l2) +
                    " (" + sci(rule.k) + "x the original's, at least " + sci(rule.floor_ulps) + " ulps)";
  if (!l2_ok && c.mismatches == 0) c.oracle_detail = "the variant's L2 error is over the bound; " + c.oracle_detail;
  if (c.error_original->max_rel <= kOracleTrustUlps * epsilonOf(type)) return true;
  c.oracle_detail = "the original is off the oracle by " + sci(c.error_original->max_rel) +
                    " of its largest element, more than float rounding explains (" +
                    sci(kOracleTrustUlps * epsilonOf(type)) + "): the oracle is not trusted, the tolerance decides; " +
                    c.oracle_detail;
  return false;
}

BufferCompare compareWithOracle(const std::string& param, ElemType type, const void* r, const void* o,
                                const void* v, unsigned long long n, OracleRule rule, Tolerance fallback,
                                bool equal_bits_pass) {
  const OracleStats s = oracleStats(type, r, o, v, n, fallback, equal_bits_pass);
  BufferCompare c = oracleChunk(param, type, r, o, v, n, s, rule, fallback, equal_bits_pass);
  if (oracleVerdict(c, type, s, rule)) return c;
  BufferCompare t = compareBuffers(param, type, o, v, n, fallback);
  t.error_original = c.error_original;
  t.error_variant = c.error_variant;
  t.oracle_detail = c.oracle_detail;
  return t;
}

}  // namespace klineage
