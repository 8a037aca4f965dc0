// Output comparison for the gate: the variant's buffer (actual) against the original's (expected).
//
// Rules (docs/runner-job.md):
//  - integers must be equal bit for bit;
//  - floats pass iff |a - e| <= atol + rtol * |e| (equal infinities pass);
//  - a NaN never passes, except where both buffers still hold the poison pattern: an element
//    that neither kernel wrote is not a difference, one that only the original wrote is;
//  - -0.0 equals 0.0 (their difference is 0); denormals are compared as the values they are, so
//    a variant that flushes them to zero passes only where atol covers them;
//  - every element is compared; the first kMismatchSamples mismatches are kept with their values;
//  - max_abs_err / max_rel_err are taken over the elements where both values are finite
//    (relative error only where e != 0), whether those elements pass or not.
#pragma once
#include <cstddef>
#include <string>

#include "core/job.h"

namespace klineage {

// The poison pattern: every byte 0xFF. For floats a NaN that arithmetic never produces (the GPU's
// canonical NaN is 0x7FFFFFFF), for integers -1 / the maximum value.
constexpr unsigned char kPoisonByte = 0xFF;
void poison(void* data, size_t bytes);
bool isPoison(const void* element, unsigned elem_size);

// One element printed for people: shortest text that reads back to the same value ("1.5",
// "0.1", "nan", "-inf", "42"); a float holding the poison pattern prints as "nan (unwritten)".
std::string formatElement(ElemType type, const void* element);

constexpr size_t kMismatchSamples = 5;

BufferCompare compareBuffers(const std::string& param, ElemType type, const void* expected,
                             const void* actual, unsigned long long n, Tolerance tol);

}  // namespace klineage
