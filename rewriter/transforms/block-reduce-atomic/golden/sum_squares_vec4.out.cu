// golden: vector_width=4 coarsen=4
// One array read twice: one float4 load, both reads replaced by the lane.
__global__ void k(int n, const float* x, float* out) {
  float kl_sum = 0;
  if ((reinterpret_cast<unsigned long long>(x) & 15) == 0) {
    for (int kl_v = blockIdx.x * blockDim.x + threadIdx.x; kl_v < n / 4; kl_v += blockDim.x * gridDim.x) {
      float4 kl_x4 = reinterpret_cast<const float4*>(x)[kl_v];
      kl_sum += kl_x4.x * kl_x4.x;
      kl_sum += kl_x4.y * kl_x4.y;
      kl_sum += kl_x4.z * kl_x4.z;
      kl_sum += kl_x4.w * kl_x4.w;
    }
    for (int i = (n / 4) * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_sum += x[i] * x[i];
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_sum += x[i] * x[i];
  }
  // one sum per warp, then per block, then one atomic per block
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);
  __shared__ float kl_warp_sums[32];
  if (threadIdx.x % 32 == 0) kl_warp_sums[threadIdx.x / 32] = kl_sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    kl_sum = threadIdx.x < blockDim.x / 32 ? kl_warp_sums[threadIdx.x] : 0;
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);
    if (threadIdx.x == 0) atomicAdd(out, kl_sum);
  }
}
