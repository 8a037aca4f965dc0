// golden: block=16x16 refuses="reads and writes the same array"
__global__ void k(int n, float* a) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) a[x * n + y] = a[y * n + x];
}
