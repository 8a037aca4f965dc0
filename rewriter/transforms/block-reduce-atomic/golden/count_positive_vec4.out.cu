// golden: vector_width=4
// An unsigned count of float elements: float4 loads, an unsigned accumulator.
__global__ void k(int n, const float* x, unsigned int* count) {
  unsigned int kl_sum = 0;
  if ((reinterpret_cast<unsigned long long>(x) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_x4 = reinterpret_cast<const float4*>(x)[kl_v];
      kl_sum += kl_x4.x > 0.0f ? 1u : 0u;
      kl_sum += kl_x4.y > 0.0f ? 1u : 0u;
      kl_sum += kl_x4.z > 0.0f ? 1u : 0u;
      kl_sum += kl_x4.w > 0.0f ? 1u : 0u;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_sum += x[i] > 0.0f ? 1u : 0u;
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_sum += x[i] > 0.0f ? 1u : 0u;
  }
  // one sum per warp, then per block, then one atomic per block
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);
  __shared__ unsigned int kl_warp_sums[32];
  if (threadIdx.x % 32 == 0) kl_warp_sums[threadIdx.x / 32] = kl_sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    kl_sum = threadIdx.x < blockDim.x / 32 ? kl_warp_sums[threadIdx.x] : 0;
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);
    if (threadIdx.x == 0) atomicAdd(count, kl_sum);
  }
}
