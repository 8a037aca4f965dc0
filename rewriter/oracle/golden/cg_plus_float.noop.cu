// golden: refuses="float template argument"
// cg::plus<float> names float: the reduction would still add in float
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(int n, const float* x, float* y) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  float v = x[threadIdx.x] * 2.0f;
  y[0] = cg::reduce(tile, v, cg::plus<float>());
}
