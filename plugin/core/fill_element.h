// One element of the gate's generated inputs (core/fill.h has the generator's definition), as
// code that compiles for the host (core/fill.cpp) and the GPU (runner/device_fill.cu), so that
// both write the same bits for the same (seed, param index, element index).
// Every float operation is spelled out with round-to-nearest and no fused multiply-add: fill.cpp
// is compiled with -ffp-contract=off, device_fill.cu uses the __d*_rn intrinsics.
#pragma once
#include <stdint.h>

#ifdef __CUDACC__
#define KL_FILL_HD __host__ __device__ __forceinline__
#else
#define KL_FILL_HD inline
#endif

namespace klineage::fill_element {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

KL_FILL_HD uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
KL_FILL_HD uint64_t keyFor(uint64_t seed, unsigned param_index) {
  return mix(seed + kGolden * (static_cast<uint64_t>(param_index) + 1));
}
KL_FILL_HD uint64_t bitsAt(uint64_t key, unsigned long long index) { return mix(key + kGolden * (index + 1)); }

KL_FILL_HD double mul(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
KL_FILL_HD double add(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

// uniform: lo + u * (hi - lo), u = the top 53 bits as a fraction of 1 (exact in a double).
KL_FILL_HD double uniform(uint64_t bits, double lo, double hi) {
  const double u = mul(static_cast<double>(bits >> 11), 0x1.0p-53);
  return add(lo, mul(u, add(hi, -lo)));
}

// A uniform float of type F (float or double): uniform() rounded to F (round to nearest, on both
// sides), then clamped to [lo, hi] as F, since the rounding can step just past a bound.
template <typename F>
KL_FILL_HD F uniformAs(uint64_t bits, double lo, double hi) {
  F v = static_cast<F>(uniform(bits, lo, hi));
  if (v < static_cast<F>(lo)) v = static_cast<F>(lo);
  if (v > static_cast<F>(hi)) v = static_cast<F>(hi);
  return v;
}

// An integer uniform: lo + bits mod span, as the low 64 bits (what a store of <= 8 bytes keeps);
// span 0 stands for 2^64 (a 64-bit type's whole range).
KL_FILL_HD uint64_t uniformInt(uint64_t bits, uint64_t lo, uint64_t span) { return lo + (span ? bits % span : bits); }

}  // namespace klineage::fill_element
