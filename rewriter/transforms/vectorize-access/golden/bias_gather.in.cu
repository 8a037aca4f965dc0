// The experts' bias_gelu after grid-stride-loop: in and out vectorized, bias[i % cols] read per
// lane with that lane's element index.
__global__ void k(int n, int cols, const float* in, const float* bias, float* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = in[i] + bias[i % cols];
    out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
  }
}
