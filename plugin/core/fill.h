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

}  // namespace klineage
