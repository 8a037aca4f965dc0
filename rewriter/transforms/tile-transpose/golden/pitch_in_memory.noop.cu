// golden: block=16x16 refuses="reads memory or calls"
__global__ void k(const int* dims, const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 64 && y < 64) out[x * dims[0] + y] = in[y * dims[1] + x];
}
