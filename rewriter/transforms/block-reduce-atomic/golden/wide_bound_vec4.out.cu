// golden: vector_width=4
// A 64-bit index (the strides in its type) and a bound that is an expression: (rows * cols) / 4.
__global__ void k(size_t rows, size_t cols, const int* x, int* out) {
  int kl_sum = 0;
  if ((reinterpret_cast<unsigned long long>(x) & 15) == 0) {
    for (size_t kl_v = (size_t)blockIdx.x * blockDim.x + threadIdx.x; kl_v < (rows * cols) / 4; kl_v += (size_t)blockDim.x * gridDim.x) {
      int4 kl_x4 = reinterpret_cast<const int4*>(x)[kl_v];
      kl_sum += kl_x4.x;
      kl_sum += kl_x4.y;
      kl_sum += kl_x4.z;
      kl_sum += kl_x4.w;
    }
    for (size_t i = ((rows * cols) / 4) * 4 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += (size_t)blockDim.x * gridDim.x) kl_sum += x[i];
  } else {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += (size_t)blockDim.x * gridDim.x) kl_sum += x[i];
  }
  // one sum per warp, then per block, then one atomic per block
  for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);
  __shared__ int kl_warp_sums[32];
  if (threadIdx.x % 32 == 0) kl_warp_sums[threadIdx.x / 32] = kl_sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    kl_sum = threadIdx.x < blockDim.x / 32 ? kl_warp_sums[threadIdx.x] : 0;
    for (int kl_offset = 16; kl_offset > 0; kl_offset /= 2) kl_sum += __shfl_down_sync(0xffffffffu, kl_sum, kl_offset);
    if (threadIdx.x == 0) atomicAdd(out, kl_sum);
  }
}
