// Deterministic host-side buffer contents for the gate. The same (seed, param index, element
// index) gives the same bytes on every machine, so a wrong-result report can be reproduced.
//
// Generator (counter-based, no state carried between elements):
//   mix(z)   = the splitmix64 finalizer: z ^= z>>30; z *= 0xBF58476D1CE4E5B9;
//              z ^= z>>27; z *= 0x94D049BB133111EB; z ^= z>>31
//   key      = mix(seed + G * (param_index + 1))          G = 0x9E3779B97F4A7C15
//   bits(i)  = mix(key + G * (i + 1))                      i counts from the allocation's start
//   u(i)     = (bits(i) >> 11) * 2^-53                     uniform in [0, 1)
// Kinds:
//   uniform  floats: lo + u * (hi - lo), clamped to [lo, hi] after rounding to the type;
//            integers: ceil(lo) + bits mod (floor(hi) - ceil(lo) + 1), every integer of [lo, hi]
//   constant value (integers: rounded to nearest)
//   iota     0, 1, 2, ... (integers wrap at the type's width)
//   zeros    all bytes 0
//   poison   all bytes 0xFF (see compare.h)
#pragma once
#include <cstdint>
#include <string>

#include "core/job.h"

namespace klineage {

uint64_t fillBits(uint64_t seed, unsigned param_index, unsigned long long index);

// Empty when `init` can fill a buffer of `type`, else why not (e.g. "uniform range [0.2, 0.8]
// holds no integer", "constant 300 does not fit u8").
std::string checkInit(const InitSpec& init, ElemType type);

// Fills n elements of `type` at dst. `init` must have passed checkInit.
void fillBuffer(void* dst, ElemType type, unsigned long long n, const InitSpec& init, uint64_t seed,
                unsigned param_index);

// Elements [begin, begin + count) of the same buffer (dst is its start), exactly as fillBuffer
// writes them: ranges can be filled on several threads.
void fillBufferRange(void* dst, ElemType type, unsigned long long begin, unsigned long long count,
                     const InitSpec& init, uint64_t seed, unsigned param_index);

// How the GPU writes the same bytes as fillBuffer (runner/device_fill.cu), worked out on the host
// so that the kernels need neither the seed's mixing of the key nor 128-bit integers.
struct FillPlan {
  enum Mode { UniformFloat, IotaFloat, UniformInt, IotaInt, Pattern } mode = Pattern;
  uint64_t key = 0;             // UniformFloat, UniformInt: fill_element::keyFor(seed, param_index)
  double lo = 0, hi = 1;        // UniformFloat
  uint64_t int_lo = 0;          // UniformInt: ceil(lo), as its low 64 bits
  uint64_t int_span = 0;        // UniformInt: floor(hi) - ceil(lo) + 1; 0 stands for 2^64
  uint64_t pattern = 0;         // Pattern (constant, zeros, poison): every element's bytes, low first
};
// `init` must have passed checkInit.
FillPlan fillPlan(ElemType type, const InitSpec& init, uint64_t seed, unsigned param_index);

}  // namespace klineage
