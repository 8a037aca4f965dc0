// golden: refuses="inline PTX (asm statement)"
__global__ void k(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float r;
    asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x[i]));
    y[i] = r * 2.0f;
  }
}
