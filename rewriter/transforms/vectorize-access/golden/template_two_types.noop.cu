// golden: refuses="y has element type T"
// Instantiated for float and double: no single vector type.
template <typename T>
__global__ void k(int n, T a, const T* x, T* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = a * x[i] + y[i];
  }
}

void launch(int n, float a, const float* x, float* y) { k<float><<<(n + 255) / 256, 256>>>(n, a, x, y); }
void launch(int n, double a, const double* x, double* y) { k<double><<<(n + 255) / 256, 256>>>(n, a, x, y); }
