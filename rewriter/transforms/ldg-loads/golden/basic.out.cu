__global__ void k(int n, float alpha, const float* in, float* out) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    float left = idx > 0 ? __ldg(&in[idx - 1]) : 0.0f;
    out[idx] = alpha * (left + __ldg(&in[idx]));
  }
}
