// golden: block_size=none
__global__ void k(const float4* __restrict__ rows, const int* __restrict__ index, float* sums, long rows_n) {
  const long r = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows_n) return;
  const float4 v = rows[index[r]];
  sums[r] = v.x + v.y + v.z + v.w;
}
