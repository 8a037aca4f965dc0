// 2-D 5-point stencil (one explicit heat-equation step) over the interior of an nx x ny grid: one
// thread per interior point on 32 x 8 blocks; thread (0, 0) of the grid owns point (1, 1).
#include "launch_sites.h"

__global__ void stencil_5pt(const float* in, float* out, int nx, int ny, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;  // column
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;  // row
  if (i < nx - 1 && j < ny - 1) {
    int p = j * nx + i;
    out[p] = in[p] + alpha * (in[p - 1] + in[p + 1] + in[p - nx] + in[p + nx] - 4.0f * in[p]);
  }
}

void stencil(const float* in, float* out, int nx, int ny, float alpha) {
  if (nx < 3 || ny < 3) return;  // no interior
  dim3 threads(32, 8);
  dim3 blocks((nx - 2 + threads.x - 1) / threads.x, (ny - 2 + threads.y - 1) / threads.y);
  stencil_5pt<<<blocks, threads>>>(in, out, nx, ny, alpha);
}
