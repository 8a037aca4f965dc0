// shape: 3-D launch, dim3 grid(nx / 8, ny / 8, nz / 8), block(8, 8, 8) in one declaration
// kernel: copy3d
// args: nx=64 ny=40 nz=20
// grid: 8 5 2
// block: 8 8 8
// shmem: 0
#include <cuda_runtime.h>

__global__ void copy3d(const float* in, float* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    int idx = (z * ny + y) * nx + x;
    out[idx] = in[idx];
  }
}

void copy_volume(const float* in, float* out, int nx, int ny, int nz) {
  dim3 grid(nx / 8, ny / 8, nz / 8), block(8, 8, 8);
  copy3d<<<grid, block>>>(in, out, nx, ny, nz);
}
