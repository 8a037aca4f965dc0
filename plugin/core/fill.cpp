#include "core/fill.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "core/compare.h"
#include "core/fill_element.h"

namespace klineage {

namespace {

using fill_element::bitsAt;
using fill_element::keyFor;

// The type's value range, wide enough for u64 and i64 at once.
void intRange(ElemType t, __int128& lo, __int128& hi) {
  const unsigned bits = elemSize(t) * 8;
  const bool is_signed = t == ElemType::I8 || t == ElemType::I16 || t == ElemType::I32 || t == ElemType::I64;
  if (is_signed) {
    hi = (static_cast<__int128>(1) << (bits - 1)) - 1;
    lo = -hi - 1;
  } else {
    lo = 0;
    hi = (static_cast<__int128>(1) << bits) - 1;
  }
}

std::string num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

template <typename T>
void store(void* dst, unsigned long long i, T v) {
  std::memcpy(static_cast<char*>(dst) + i * sizeof(T), &v, sizeof(T));
}

// Writes the integer v (already in range, or wrapping for iota) as `type`.
void storeInt(void* dst, ElemType type, unsigned long long i, __int128 v) {
  switch (type) {
    case ElemType::I8: store(dst, i, static_cast<int8_t>(v)); break;
    case ElemType::U8: store(dst, i, static_cast<uint8_t>(v)); break;
    case ElemType::I16: store(dst, i, static_cast<int16_t>(v)); break;
    case ElemType::U16: store(dst, i, static_cast<uint16_t>(v)); break;
    case ElemType::I32: store(dst, i, static_cast<int32_t>(v)); break;
    case ElemType::U32: store(dst, i, static_cast<uint32_t>(v)); break;
    case ElemType::I64: store(dst, i, static_cast<int64_t>(v)); break;
    case ElemType::U64: store(dst, i, static_cast<uint64_t>(v)); break;
    default: break;
  }
}

// An integer uniform's ceil(lo) (its low 64 bits) and span floor(hi) - ceil(lo) + 1 (0 for 2^64),
// as fill_element::uniformInt takes them.
struct IntUniform {
  uint64_t lo, span;
};
IntUniform intUniform(const InitSpec& init) {
  const __int128 lo = static_cast<__int128>(std::ceil(static_cast<long double>(init.lo)));
  const __int128 hi = static_cast<__int128>(std::floor(static_cast<long double>(init.hi)));
  const unsigned __int128 span = static_cast<unsigned __int128>(hi - lo) + 1;  // up to 2^64
  return {static_cast<uint64_t>(lo), span >> 64 ? 0 : static_cast<uint64_t>(span)};
}

template <typename F>
void fillFloats(F* out, unsigned long long begin, unsigned long long end, const InitSpec& init, uint64_t key) {
  for (unsigned long long i = begin; i < end; ++i) {
    F v;
    switch (init.kind) {
      case InitSpec::Uniform: v = fill_element::uniformAs<F>(bitsAt(key, i), init.lo, init.hi); break;
      case InitSpec::Constant: v = static_cast<F>(init.value); break;
      case InitSpec::Iota: v = static_cast<F>(i); break;
      default: v = 0; break;
    }
    std::memcpy(out + i, &v, sizeof(F));
  }
}

}  // namespace

uint64_t fillBits(uint64_t seed, unsigned param_index, unsigned long long index) {
  return bitsAt(keyFor(seed, param_index), index);
}

std::string checkInit(const InitSpec& init, ElemType type) {
  const bool uniform = init.kind == InitSpec::Uniform, constant = init.kind == InitSpec::Constant;
  if (uniform) {
    if (!std::isfinite(init.lo) || !std::isfinite(init.hi))
      return "uniform range [" + num(init.lo) + ", " + num(init.hi) + "] is not finite";
    if (init.hi < init.lo) return "uniform range [" + num(init.lo) + ", " + num(init.hi) + "] has hi < lo";
  }
  if (constant && !std::isfinite(init.value) && !isFloat(type))
    return "constant " + num(init.value) + " is not an integer";
  if (isFloat(type)) {
    if (type == ElemType::F32 && uniform &&
        (std::fabs(init.lo) > std::numeric_limits<float>::max() || std::fabs(init.hi) > std::numeric_limits<float>::max()))
      return "uniform range [" + num(init.lo) + ", " + num(init.hi) + "] does not fit f32";
    return "";
  }
  __int128 tlo, thi;
  intRange(type, tlo, thi);
  auto fits = [&](long double v) { return v >= static_cast<long double>(tlo) && v <= static_cast<long double>(thi); };
  if (uniform) {
    const long double lo = std::ceil(static_cast<long double>(init.lo));
    const long double hi = std::floor(static_cast<long double>(init.hi));
    if (hi < lo) return "uniform range [" + num(init.lo) + ", " + num(init.hi) + "] holds no integer";
    if (!fits(lo) || !fits(hi))
      return "uniform range [" + num(init.lo) + ", " + num(init.hi) + "] does not fit " + elemTypeName(type);
  }
  if (constant && !fits(std::nearbyint(static_cast<long double>(init.value))))
    return "constant " + num(init.value) + " does not fit " + elemTypeName(type);
  return "";
}

void fillBuffer(void* dst, ElemType type, unsigned long long n, const InitSpec& init, uint64_t seed,
                unsigned param_index) {
  fillBufferRange(dst, type, 0, n, init, seed, param_index);
}

void fillBufferRange(void* dst, ElemType type, unsigned long long begin, unsigned long long count,
                     const InitSpec& init, uint64_t seed, unsigned param_index) {
  const unsigned long long end = begin + count;
  const size_t es = elemSize(type);
  char* at = static_cast<char*>(dst) + begin * es;
  if (init.kind == InitSpec::Zeros) return static_cast<void>(std::memset(at, 0, count * es));
  if (init.kind == InitSpec::Poison) return poison(at, count * es);
  const uint64_t key = keyFor(seed, param_index);
  if (type == ElemType::F32) return fillFloats(static_cast<float*>(dst), begin, end, init, key);
  if (type == ElemType::F64) return fillFloats(static_cast<double*>(dst), begin, end, init, key);

  const IntUniform u = intUniform(init);
  const __int128 constant = static_cast<__int128>(std::nearbyint(static_cast<long double>(init.value)));
  for (unsigned long long i = begin; i < end; ++i) {
    __int128 v = 0;
    switch (init.kind) {
      case InitSpec::Uniform: v = fill_element::uniformInt(bitsAt(key, i), u.lo, u.span); break;  // stored narrowed
      case InitSpec::Constant: v = constant; break;
      case InitSpec::Iota: v = i; break;
      default: break;
    }
    storeInt(dst, type, i, v);
  }
}

FillPlan fillPlan(ElemType type, const InitSpec& init, uint64_t seed, unsigned param_index) {
  FillPlan p;
  const bool is_float = isFloat(type);
  if (init.kind == InitSpec::Uniform) {
    p.key = keyFor(seed, param_index);
    if (is_float) {
      p.mode = FillPlan::UniformFloat;
      p.lo = init.lo;
      p.hi = init.hi;
    } else {
      const IntUniform u = intUniform(init);
      p.mode = FillPlan::UniformInt;
      p.int_lo = u.lo;
      p.int_span = u.span;
    }
  } else if (init.kind == InitSpec::Iota) {
    p.mode = is_float ? FillPlan::IotaFloat : FillPlan::IotaInt;
  } else {  // constant, zeros, poison: the same bytes in every element
    p.mode = FillPlan::Pattern;
    fillBufferRange(&p.pattern, type, 0, 1, init, seed, param_index);
  }
  return p;
}

}  // namespace klineage
