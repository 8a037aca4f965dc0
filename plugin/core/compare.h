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

// --- Judging a float output against the oracle (docs/runner-job.md, "The oracle") -------------
// r: the oracle's output, o: the original's, v: the variant's, n elements of a float type.
// Per element, where all three are finite, the error of a kernel is its distance to r. The
// variant passes when its largest error and its error's L2 norm (relative to max|r| and ||r||)
// are each within max(k x the original's, floor_ulps x epsilon of the type), and no element is
// wrong in another way: where o and v are not bit for bit equal and any of r, o, v is not finite,
// the variant fails (a computed NaN or infinity the original does not give; an element only one
// kernel wrote), except where only the oracle is not finite: there v is compared with o under
// `fallback` (the oracle overflowed where float did not). Equal bits pass, but a NaN only when it
// is the poison pattern (written by neither), or any value with `equal_bits_pass` (replays: captured
// memory may hold NaNs nobody computed). Elements equal in bits in o and v count in the norms.
//
// A broken oracle would loosen the rule (the original's error, and so the variant's bound, would be
// large), so it is trusted only while the original's max_rel stays within kOracleTrustUlps x the
// type's epsilon (about 1e-3 for f32): more is not float rounding but a different computation.
// Past it, oracleVerdict sets `oracle_trusted` false and the caller compares with the tolerance.
constexpr double kOracleTrustUlps = 8192;

// The first pass over chunks (each `offset` elements into the buffer) gathers OracleStats, which
// merge; the second finds the elements over the bound for the message, given the whole's stats.
struct OracleStats {
  double scale = 0;            // max |r| over the elements in the norms
  double r_sq = 0;             // sum of r^2 over them
  double orig_max = 0, orig_sq = 0, var_max = 0, var_sq = 0;  // absolute errors
  unsigned long long bad = 0;  // elements failing the non-finite rules
  void merge(const OracleStats& o);
};
OracleStats oracleStats(ElemType type, const void* r, const void* o, const void* v, unsigned long long n,
                        Tolerance fallback, bool equal_bits_pass = false);
// The elements of a chunk over the bound the whole buffer's stats give (mismatches, samples with
// the original's value as expected and the variant's as actual), errors and ok left unset.
BufferCompare oracleChunk(const std::string& param, ElemType type, const void* r, const void* o, const void* v,
                          unsigned long long n, const OracleStats& whole, OracleRule rule, Tolerance fallback,
                          bool equal_bits_pass = false);
// Sets c's errors, detail and ok from the whole buffer's stats (c holds the merged chunks). Returns
// false, with the detail saying why, when the oracle is not trusted (kOracleTrustUlps).
bool oracleVerdict(BufferCompare& c, ElemType type, const OracleStats& whole, OracleRule rule);
// The three above in one pass each, single-threaded; an untrusted oracle's buffer is compared with
// `fallback` (compareBuffers), its errors and detail kept.
BufferCompare compareWithOracle(const std::string& param, ElemType type, const void* r, const void* o,
                                const void* v, unsigned long long n, OracleRule rule, Tolerance fallback,
                                bool equal_bits_pass = false);

}  // namespace klineage
