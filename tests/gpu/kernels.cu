// Kernels for the runner's GPU test (run_runner_gpu.sh). Every kernel takes the same parameters
// as its reference so that one job layout serves each pair.

// In place: y is input and output, so the runner must restore it before the second kernel.
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Same result from a quarter of the blocks: a correct variant with another launch geometry.
__global__ void saxpy_grid_stride(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

// Off-by-one guard: y[n-1] keeps its initial value.
__global__ void saxpy_skip_last(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) y[i] = a * x[i] + y[i];
}

// Out of place, into a poisoned buffer: an element never written stays poison.
__global__ void saxpy_out(int n, float a, const float* x, const float* y, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
__global__ void saxpy_out_skip_last(int n, float a, const float* x, const float* y, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) out[i] = a * x[i] + y[i];
}

// Writes 256 GiB past y, beyond any H200's memory: an illegal address.
__global__ void oob_write(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i + (1ll << 36)] = a * x[i];
}

// Never returns: x holds values in [-1, 1]. The volatile loads keep the loop from being removed.
__global__ void spin(int n, float a, const float* x, float* y) {
  volatile const float* v = x;
  while (v[0] < 2.0f) {
  }
  if (threadIdx.x == 0 && n < 0) y[0] = a;
}
