// shape: launch inside a function template launch_scale<T> with sizeof(T) dynamic shared memory, explicitly instantiated for float
// kernel: scale_kernel
// args: n=1000
// grid: 8 1 1
// block: 128 1 1
// shmem: 512
#include <cuda_runtime.h>

template <typename T>
__global__ void scale_kernel(const T* x, T* y, int n) {
  extern __shared__ unsigned char raw[];
  T* stage = reinterpret_cast<T*>(raw);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    stage[threadIdx.x] = x[i];
    y[i] = stage[threadIdx.x] * T(3);
  }
}

template <typename T>
void launch_scale(const T* x, T* y, int n) {
  scale_kernel<T><<<(n + 127) / 128, 128, 128 * sizeof(T)>>>(x, y, n);
}

template void launch_scale<float>(const float*, float*, int);
