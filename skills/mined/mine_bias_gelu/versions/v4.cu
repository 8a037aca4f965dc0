// A mineable expert (docs/lineage.md in KLineage): the naive bias_gelu of src/naive/elementwise.cu as
// restrict-pointers, grid-stride-loop and vectorize-access write it (float4 loads and stores of in
// and out, bias[i % cols] read as one float4 at (kl_v * 4 % cols) / 4, behind a 16-byte alignment
// check and cols % 4 == 0, a scalar tail, the scalar loop otherwise; grid.x / 4). Its inverses walk
// it back to the naive kernel: -vectorize-access (grid.x * 4), -grid-stride-loop, -restrict-pointers
// (tests/rewriter/test_vectorize_periodic.cpp). The `mine_experts` target; never optimized by
// KLineage.
#include "mine.h"

__global__ void mine_bias_gelu(int n, int cols, float* in, float* bias, float* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = in[i] + bias[i % cols];
    out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
  }
}

// The pointers are not const: -restrict-pointers drops the const it removes __restrict__ with.
cudaError_t launch_mine_bias_gelu(int n, int cols, float* in, float* bias, float* out) {
  mine_bias_gelu<<<(n + 1023) / 1024, 256>>>(n, cols, in, bias, out);  // the naive grid / 4
  return cudaGetLastError();
}
