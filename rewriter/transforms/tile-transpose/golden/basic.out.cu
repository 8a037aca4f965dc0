// golden: block=16x16
// The naive transpose of examples/experts: coalesced loads, stores `rows` elements apart.
__global__ void k(int rows, int cols, const float* in, float* out) {
  __shared__ float kl_tile[32][33];
  for (int kl_j = 0; kl_j < 32; kl_j += 8) {
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y + kl_j;
    if (x < cols && y < rows) kl_tile[threadIdx.y + kl_j][threadIdx.x] = in[y * cols + x];
  }
  __syncthreads();
  for (int kl_j = 0; kl_j < 32; kl_j += 8) {
    int x = blockIdx.x * 32 + threadIdx.y + kl_j;
    int y = blockIdx.y * 32 + threadIdx.x;
    if (x < cols && y < rows) out[x * rows + y] = kl_tile[threadIdx.x][threadIdx.y + kl_j];
  }
}
