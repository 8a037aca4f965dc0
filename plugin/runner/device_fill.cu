// Compiled to PTX at build time (plugin/CMakeLists.txt) and embedded in klineage-runner, which JIT-
// loads it: writes a buffer's generated inputs on the GPU, the same bytes as core/fill.cpp writes
// on the host (core/fill_element.h holds the arithmetic both use), so that an input set of
// hundreds of MB needs neither the host's time to make it nor the copy to the device.
// The parameters come from core/fill.h's FillPlan; mode 0 is uniform, 1 is iota.
#include "core/fill_element.h"

namespace fe = klineage::fill_element;

#define KL_FILL_LOOP                                                                                       \
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;               \
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; \
       i += stride)

// Floats: uniform in [lo, hi], or the index (iota), each rounded to nearest like the host's casts.
template <typename F>
__device__ void fillFloat(F* out, unsigned long long n, int mode, unsigned long long key, double lo, double hi) {
  KL_FILL_LOOP out[i] = mode == 0 ? fe::uniformAs<F>(fe::bitsAt(key, i), lo, hi) : static_cast<F>(i);
}

extern "C" __global__ void kl_fill_f32(float* out, unsigned long long n, int mode, unsigned long long key, double lo,
                                       double hi) {
  fillFloat(out, n, mode, key, lo, hi);
}

extern "C" __global__ void kl_fill_f64(double* out, unsigned long long n, int mode, unsigned long long key, double lo,
                                       double hi) {
  fillFloat(out, n, mode, key, lo, hi);
}

// Integers of `size` bytes (1, 2, 4 or 8): uniform keeps lo + bits mod span, iota the index, each
// as its low `size` bytes (how the host's stores narrow them).
extern "C" __global__ void kl_fill_int(unsigned char* out, unsigned long long n, int size, int mode,
                                       unsigned long long key, unsigned long long lo, unsigned long long span) {
  KL_FILL_LOOP {
    const unsigned long long v = mode == 0 ? fe::uniformInt(fe::bitsAt(key, i), lo, span) : i;
    switch (size) {
      case 1: out[i] = static_cast<unsigned char>(v); break;
      case 2: reinterpret_cast<unsigned short*>(out)[i] = static_cast<unsigned short>(v); break;
      case 4: reinterpret_cast<unsigned*>(out)[i] = static_cast<unsigned>(v); break;
      default: reinterpret_cast<unsigned long long*>(out)[i] = v; break;
    }
  }
}

// Every element the same `size` bytes (a constant, zeros, the poison pattern).
extern "C" __global__ void kl_fill_pattern(unsigned char* out, unsigned long long n, int size,
                                           unsigned long long pattern) {
  KL_FILL_LOOP {
    switch (size) {
      case 1: out[i] = static_cast<unsigned char>(pattern); break;
      case 2: reinterpret_cast<unsigned short*>(out)[i] = static_cast<unsigned short>(pattern); break;
      case 4: reinterpret_cast<unsigned*>(out)[i] = static_cast<unsigned>(pattern); break;
      default: reinterpret_cast<unsigned long long*>(out)[i] = pattern; break;
    }
  }
}
