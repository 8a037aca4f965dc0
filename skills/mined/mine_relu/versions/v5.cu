// A mineable expert (docs/lineage.md in KLineage): the naive relu of src/naive/elementwise.cu as
// restrict-pointers, grid-stride-loop and vectorize-access write it (float4 loads and stores behind a
// 16-byte alignment check, a scalar tail, the scalar loop otherwise; grid.x / 4). Its inverses walk it
// back to the naive kernel: -vectorize-access (grid.x * 4), -grid-stride-loop, -restrict-pointers.
// The `mine_experts` target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_relu(int n, float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

// The pointers are not const: -restrict-pointers drops the const it removes __restrict__ with.
cudaError_t launch_mine_relu(int n, float* in, float* out) {
  mine_relu<<<(n + 1023) / 1024, 256>>>(n, in, out);  // the naive grid / 4: one float4 per thread
  return cudaGetLastError();
}
