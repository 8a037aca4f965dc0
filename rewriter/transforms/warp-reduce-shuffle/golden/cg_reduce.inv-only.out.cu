#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// The warp's 32 values combined through shared memory (KLineage's de-shuffled form of a
// warp reduction: every lane gets the result).
template <typename T>
__device__ __forceinline__ T kl_warp_tree_max(T v) {
  __shared__ T kl_red[1024];
  const unsigned kl_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned kl_lane = kl_t % 32u;
  kl_red[kl_t] = v;
  __syncwarp();
  for (unsigned kl_o = 16; kl_o > 0; kl_o >>= 1) {
    if (kl_lane < kl_o) kl_red[kl_t] = max(kl_red[kl_t], kl_red[kl_t + kl_o]);
    __syncwarp();
  }
  v = kl_red[kl_t - kl_lane];
  __syncwarp();
  return v;
}

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

__global__ void k(const float* in, float* mean, float* top, int rows, int cols) {
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  const int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (row >= rows) return;
  float s = 0.0f, t = -1e30f;
  for (int c = warp.thread_rank(); c < cols; c += warp.size()) {
    s += in[row * cols + c];
    t = fmaxf(t, in[row * cols + c]);
  }
  s = kl_warp_tree_sum(s);
  t = kl_warp_tree_max(t * 2.0f);
  if (warp.thread_rank() == 0) mean[row] = s / cols, top[row] = t;
}
