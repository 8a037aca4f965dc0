// golden: block=16x16 refuses="reads memory or calls"
// The bound is a __device__ variable: a memory read the tiled kernel would repeat 8 times.
__device__ int g_rows;
__global__ void k(int cols, const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < g_rows) out[x * g_rows + y] = in[y * cols + x];
}
