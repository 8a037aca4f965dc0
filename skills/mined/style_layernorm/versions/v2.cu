// A layer norm with one warp per row through cooperative groups: the warp a thread_block_tile<32>,
// its sums reduced with cg::reduce, the mean and the reciprocal deviation written out as well.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void style_layernorm(float* __restrict__ out, float* __restrict__ mean, float* __restrict__ rstd,
                                const float* __restrict__ inp, const float* __restrict__ weight,
                                const float* __restrict__ bias, int N, int C) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (idx >= N) return;
  const float* x = inp + (size_t)idx * C;
  float sum = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) sum += x[i];
  sum = cg::reduce(warp, sum, cg::plus<float>());
  const float m = sum / C;
  if (warp.thread_rank() == 0) mean[idx] = m;
  sum = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    const float diff = x[i] - m;
    sum += diff * diff;
  }
  sum = cg::reduce(warp, sum, cg::plus<float>());
  const float s = rsqrtf(sum / C + 1e-5f);
  if (warp.thread_rank() == 0) rstd[idx] = s;
  float* o = out + (size_t)idx * C;
  for (int c = warp.thread_rank(); c < C; c += warp.size()) o[c] = s * (x[c] - m) * weight[c] + bias[c];
}

void styleLayernorm(float* out, float* mean, float* rstd, const float* inp, const float* w, const float* b, int N, int C) {
  const int block_size = 256;
  const int grid_size = (N * 32 + block_size - 1) / block_size;
  style_layernorm<<<grid_size, block_size>>>(out, mean, rstd, inp, w, b, N, C);
}
