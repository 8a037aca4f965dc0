// shape: persistent-style grid from the device SM count queried with cudaDeviceGetAttribute(&num_sms, ...)
// kernel: copy_grid_stride
// args: n=1000000
// launcher: device=0
// refuse: num_sms
#include <cuda_runtime.h>

__global__ void copy_grid_stride(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

void copy_persistent(const float* x, float* y, int n, int device) {
  int num_sms = 0;
  cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, device);
  copy_grid_stride<<<4 * num_sms, 256>>>(x, y, n);
}
