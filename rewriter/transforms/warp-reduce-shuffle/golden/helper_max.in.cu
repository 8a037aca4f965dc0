#include <cfloat>

// The warp's 32 values combined through shared memory (KLineage's de-shuffled form of a
// warp reduction: every lane gets the result).
template <typename T>
__device__ __forceinline__ T kl_warp_tree_fmaxf(T v) {
  __shared__ T kl_red[1024];
  const unsigned kl_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned kl_lane = kl_t % 32u;
  kl_red[kl_t] = v;
  __syncwarp();
  for (unsigned kl_o = 16; kl_o > 0; kl_o >>= 1) {
    if (kl_lane < kl_o) kl_red[kl_t] = fmaxf(kl_red[kl_t], kl_red[kl_t + kl_o]);
    __syncwarp();
  }
  v = kl_red[kl_t - kl_lane];
  __syncwarp();
  return v;
}

__device__ float warpMax(float v) {
  v = kl_warp_tree_fmaxf(v);
  return v;
}

__global__ void k(const float* x, float* row_max, int cols) {
  float m = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[blockIdx.x * cols + c]);
  m = warpMax(m);
  if (threadIdx.x % 32 == 0) atomicMax(reinterpret_cast<int*>(row_max) + blockIdx.x, __float_as_int(fmaxf(m, 0.0f)));
}
