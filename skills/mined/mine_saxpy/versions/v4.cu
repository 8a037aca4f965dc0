// A mineable expert (docs/lineage.md in KLineage): the naive saxpy of src/naive/elementwise.cu as
// restrict-pointers, grid-stride-loop and vectorize-access write it (float4 loads and stores behind a
// 16-byte alignment check, a scalar tail, the scalar loop otherwise; grid.x / 4). Its inverses walk it
// back to the naive kernel: -vectorize-access (grid.x * 4), -grid-stride-loop, -restrict-pointers.
// The `mine_experts` target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_saxpy(int n, float a, float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

// The pointers are not const: -restrict-pointers drops the const it removes __restrict__ with.
cudaError_t launch_mine_saxpy(int n, float a, float* x, float* y) {
  mine_saxpy<<<(n + 1023) / 1024, 256>>>(n, a, x, y);  // the naive grid / 4: one float4 per thread
  return cudaGetLastError();
}
