// Compiled to PTX at build time (plugin/CMakeLists.txt) and embedded in klineage-runner, which JIT-
// loads it: counts the elements of two device ranges that the host comparison would not accept
// as equal without looking closer, so that a check whose buffers agree needs no copy to the host.
// An element counts when its bits differ, or (float rules) when it is a NaN other than the
// all-0xFF poison pattern (the host comparison rejects every NaN that neither kernel left
// unwritten). Anything counted sends the runner to its host comparison, which decides.

template <typename W>
__device__ void diff(const W* a, const W* b, unsigned long long n, int float_rule, W exp_mask, W man_mask,
                     unsigned long long* count) {
  unsigned long long local = 0;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const W x = a[i], y = b[i];
    bool bad = x != y;
    if (!bad && float_rule && (x & exp_mask) == exp_mask && (x & man_mask) != 0 && x != static_cast<W>(~W(0)))
      bad = true;
    local += bad ? 1 : 0;
  }
  for (int o = 16; o > 0; o >>= 1) local += __shfl_down_sync(0xffffffffu, local, o);
  if ((threadIdx.x & 31) == 0 && local) atomicAdd(count, local);
}

extern "C" __global__ void kl_diff32(const unsigned* a, const unsigned* b, unsigned long long n, int float_rule,
                                     unsigned long long* count) {
  diff<unsigned>(a, b, n, float_rule, 0x7f800000u, 0x007fffffu, count);
}

extern "C" __global__ void kl_diff64(const unsigned long long* a, const unsigned long long* b, unsigned long long n,
                                     int float_rule, unsigned long long* count) {
  diff<unsigned long long>(a, b, n, float_rule, 0x7ff0000000000000ull, 0x000fffffffffffffull, count);
}
