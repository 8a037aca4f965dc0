// golden: refuses="promoted shared memory would exceed 48 KiB"
__global__ void k(const float* a, const float* b, float* c, int n) {
  __shared__ float as[64][64];
  __shared__ float bs[64][64];
  __shared__ float cs[64][64];
  int tx = threadIdx.x, ty = threadIdx.y;
  as[ty][tx] = a[ty * n + tx];
  bs[ty][tx] = b[ty * n + tx];
  __syncthreads();
  float acc = 0.0f;
  for (int j = 0; j < 64; ++j) acc += as[ty][j] * bs[j][tx];
  cs[ty][tx] = acc;
  __syncthreads();
  c[ty * n + tx] = cs[tx][ty];
}
