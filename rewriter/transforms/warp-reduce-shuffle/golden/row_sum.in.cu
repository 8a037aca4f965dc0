// A warp per row.
// The warp's 32 values combined through shared memory (KLineage's de-shuffled form of a
// warp reduction: every lane gets the result).
template <typename T>
__device__ __forceinline__ T kl_warp_tree_sum(T v) {
  __shared__ T kl_red[1024];
  const unsigned kl_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned kl_lane = kl_t % 32u;
  kl_red[kl_t] = v;
  __syncwarp();
  for (unsigned kl_o = 16; kl_o > 0; kl_o >>= 1) {
    if (kl_lane < kl_o) kl_red[kl_t] = kl_red[kl_t] + kl_red[kl_t + kl_o];
    __syncwarp();
  }
  v = kl_red[kl_t - kl_lane];
  __syncwarp();
  return v;
}

__global__ void k(const float* in, float* out, int rows, int cols) {
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  float s = 0.0f;
  for (int c = lane; c < cols; c += 32) s += in[row * cols + c];
  s = kl_warp_tree_sum(s);
  if (lane == 0) out[row] = s;
}
