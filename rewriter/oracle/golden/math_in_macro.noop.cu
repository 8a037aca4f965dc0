// golden: refuses="through the macro SIGMOID"
#define SIGMOID(v) (1.0f / (1.0f + expf(-(v))))

__global__ void k(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = SIGMOID(x[i]) * 0.5f;
}
