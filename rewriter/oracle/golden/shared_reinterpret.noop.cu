// golden: refuses="reinterprets float bits (cast of tile"
__global__ void k(const float4* x, float4* y) {
  __shared__ float tile[1024];
  int t = threadIdx.x;
  reinterpret_cast<float4*>(tile)[t] = x[blockIdx.x * 256 + t];
  __syncthreads();
  float s = tile[t] + tile[1023 - t];
  y[blockIdx.x * 256 + t] = make_float4(s, s, s, s);
}
