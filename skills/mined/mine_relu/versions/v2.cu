// A mineable expert (docs/lineage.md in KLineage): the naive relu of src/naive/elementwise.cu as
// restrict-pointers, grid-stride-loop and vectorize-access write it (float4 loads and stores behind a
// 16-byte alignment check, a scalar tail, the scalar loop otherwise; grid.x / 4). Its inverses walk it
// back to the naive kernel: -vectorize-access (grid.x * 4), -grid-stride-loop, -restrict-pointers.
// The `mine_experts` target; never optimized by KLineage.
#include "mine.h"

__global__ void mine_relu(int n, float* in, float* out) {
  if (((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_in = reinterpret_cast<const float4*>(in)[kl_v];
      float4 kl_out;
      {
        kl_out.x = kl_in.x > 0.0f ? kl_in.x : 0.0f;
      }
      {
        kl_out.y = kl_in.y > 0.0f ? kl_in.y : 0.0f;
      }
      {
        kl_out.z = kl_in.z > 0.0f ? kl_in.z : 0.0f;
      }
      {
        kl_out.w = kl_in.w > 0.0f ? kl_in.w : 0.0f;
      }
      reinterpret_cast<float4*>(out)[kl_v] = kl_out;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
  }
}

// The pointers are not const: -restrict-pointers drops the const it removes __restrict__ with.
cudaError_t launch_mine_relu(int n, float* in, float* out) {
  mine_relu<<<(n + 1023) / 1024, 256>>>(n, in, out);  // the naive grid / 4: one float4 per thread
  return cudaGetLastError();
}
