// WRONG (hostile): memoizes its result in __device__ arrays keyed by a fingerprint of the input
// (the bits of in[0]): where the tag of element i matches, out[i] is copied from the cache instead
// of computed. Every output it writes is right, but the cache changes during a run: state kept
// between launches (a later call whose input has the same in[0] but other data would get stale
// results).
// Expected: wrong-result
#include "kernels.h"

// Covers n and the n + 1 probe; tags hold ~bits(in[0]), so the initial 0 never matches a non-NaN.
#define MEMO_CAP ((1 << 22) + 4096)
__device__ unsigned memo_tag[MEMO_CAP];
__device__ float memo_val[MEMO_CAP];

__global__ void relu(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned tag = ~__float_as_uint(in[0]);
  if (i < MEMO_CAP && memo_tag[i] == tag) {
    out[i] = memo_val[i];
    return;
  }
  float r = in[i] > 0.0f ? in[i] : 0.0f;
  out[i] = r;
  if (i < MEMO_CAP) {
    memo_val[i] = r;
    memo_tag[i] = tag;
  }
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}
