// An expert's spelling: __forceinline__ first, after static.
static __forceinline__ __device__ float gelu(float v) { return 0.5f * v * (1.0f + tanhf(0.7978845608f * v)); }

__global__ void k(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = gelu(x[i]);
}
