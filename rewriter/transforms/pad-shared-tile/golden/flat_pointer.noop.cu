// golden: refuses="tile is used other than as tile[i][j]"
__global__ void k(const float* in, float* out) {
  __shared__ float tile[32][32];
  float* p = &tile[0][0];
  p[threadIdx.y * 32 + threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
