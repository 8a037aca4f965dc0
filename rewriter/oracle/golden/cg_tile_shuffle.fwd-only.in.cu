// cooperative groups: a tile's member shuffle deduces its type from the promoted value
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int n, const float* x, float* y) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  float v = x[threadIdx.x] * 2.0f;
  for (int o = 16; o > 0; o /= 2) v += tile.shfl_down(v, o);
  if (tile.thread_rank() == 0) y[blockIdx.x] = v;
}
