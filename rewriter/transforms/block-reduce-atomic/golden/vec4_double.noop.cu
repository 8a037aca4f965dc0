// golden: vector_width=4 refuses="w has element type const double"
// A pointer of another element type: double is not loaded as a 4-wide vector (16 bytes are 2 doubles).
__global__ void k(int n, const float* x, const double* w, double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i] * w[i]);
}
