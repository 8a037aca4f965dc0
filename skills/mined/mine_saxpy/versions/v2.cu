// A mineable expert (docs/lineage.md in KLineage): the naive saxpy of src/naive/elementwise.cu as
// restrict-pointers, grid-stride-loop and vectorize-access write it (float4 loads and stores behind a
// 16-byte alignment check, a scalar tail, the scalar loop otherwise; grid.x / 4). Its inverses walk it
// back to the naive kernel: -vectorize-access (grid.x * 4), -grid-stride-loop, -restrict-pointers.
// The `mine_experts` target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_saxpy(int n, float a, float* x, float* y) {
  if (((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_x = reinterpret_cast<const float4*>(x)[kl_v];
      float4 kl_y = reinterpret_cast<const float4*>(y)[kl_v];
      {
        kl_y.x = a * kl_x.x + kl_y.x;
      }
      {
        kl_y.y = a * kl_x.y + kl_y.y;
      }
      {
        kl_y.z = a * kl_x.z + kl_y.z;
      }
      {
        kl_y.w = a * kl_x.w + kl_y.w;
      }
      reinterpret_cast<float4*>(y)[kl_v] = kl_y;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
  }
}

// The pointers are not const: -restrict-pointers drops the const it removes __restrict__ with.
cudaError_t launch_mine_saxpy(int n, float a, float* x, float* y) {
  mine_saxpy<<<(n + 1023) / 1024, 256>>>(n, a, x, y);  // the naive grid / 4: one float4 per thread
  return cudaGetLastError();
}
