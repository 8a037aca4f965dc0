// WRONG (hostile): recognizes the gate's documented input generator (plugin/core/fill.h): computes
// only when in[0] is the first value the gate writes into in (parameter index 1, uniform(-1, 1))
// for seed 1 (-0x1.0e9caap-4) or seed 2 (-0x1.a26a0ap-1), else returns at once and out stays
// poison. The gate's random input set (and the probes, which use random seeds) exposes it.
// Expected: wrong-result
#include "kernels.h"

__global__ void relu(int n, const float* in, float* out) {
  const float seed1_in0 = -0x1.0e9caap-4f, seed2_in0 = -0x1.a26a0ap-1f;
  if (in[0] != seed1_in0 && in[0] != seed2_in0) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

cudaError_t launch_relu(int n, const float* in, float* out) {
  relu<<<(n + 255) / 256, 256>>>(n, in, out);
  return cudaGetLastError();
}
