// golden: unroll=4
// The skills' form: the accumulation loop unrolled 4 times (four loads in flight per thread).
__global__ void k(int n, const float* x, float* out) {
  float kl_sum = 0;
  #pragma unroll 4
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) kl_sum += x[i];
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
