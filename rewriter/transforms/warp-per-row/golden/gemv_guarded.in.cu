__global__ void k(int rows, int cols, const float* A, const float* v, float* out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) acc += A[r * cols + c] * v[c];
    out[r] = acc;
  }
}
