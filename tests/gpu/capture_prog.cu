// The "user's program" of the capture tests (capture_gpu.sh, capture_bench.sh): plain nvcc, static
// cudart, no knowledge of KLineage.
//   usage: capture_prog [n] [--fail]
// Allocates x and y of n floats (x[i] = i % 7, y[i] = 1) and launches, in order:
//   saxpy    <<<n/256, 256>>>  a=2     runtime launch            y = 2x + 1
//   saxpy    <<<n/256, 256>>>  a=2     same shape again          y = 4x + 1
//   saxpy    <<<n/128, 128>>>  a=0.5   a second shape            y = 4.5x + 1
//   axpy_drv <<<n/64, 64>>>    a=1     cuLaunchKernel, CUfunction, kernelParams    y = 5.5x + 1
//   axpy_drv <<<n/32, 32>>>    a=0.5   cuLaunchKernel, CUfunction, extra buffer    y = 6x + 1
//   saxpy_ex <<<n/512, 512>>>  a=1     cudaLaunchKernelEx        y = 7x + 1
//   scale    <<<n/256, 256>>>  a=2     (never listed)            y = 14x + 2
// then checks y == 14 (i % 7) + 2 everywhere (every value is exact in float).
// Prints "capture_prog: n=<n> ok sum=<sum of y>"; exit 0, 3 when the check fails (--fail makes it
// expect something else), 2 on a CUDA error.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void axpy_drv(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void saxpy_ex(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void scale(int n, float a, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * y[i];
}

#define CK(call)                                                                    \
  do {                                                                              \
    cudaError_t e_ = (call);                                                        \
    if (e_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "capture_prog: %s: %s\n", #call, cudaGetErrorString(e_)); \
      return 2;                                                                     \
    }                                                                               \
  } while (0)
#define CKD(call)                                                             \
  do {                                                                        \
    CUresult e_ = (call);                                                     \
    if (e_ != CUDA_SUCCESS) {                                                 \
      std::fprintf(stderr, "capture_prog: %s: CUresult %d\n", #call, (int)e_); \
      return 2;                                                               \
    }                                                                         \
  } while (0)

int main(int argc, char** argv) {
  int n = 1 << 20;
  bool fail = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--fail") == 0)
      fail = true;
    else
      n = std::atoi(argv[i]);
  }
  std::vector<float> hx(n), hy(n, 1.0f);
  for (int i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 7);
  float *x = nullptr, *y = nullptr;
  size_t bytes = sizeof(float) * static_cast<size_t>(n);
  CK(cudaMalloc(&x, bytes));
  CK(cudaMalloc(&y, bytes));
  CK(cudaMemcpy(x, hx.data(), bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(y, hy.data(), bytes, cudaMemcpyHostToDevice));

  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  saxpy<<<(n + 127) / 128, 128>>>(n, 0.5f, x, y);
  CK(cudaGetLastError());

  // Driver API launches of a CUfunction (not the runtime's CUkernel).
  cudaFunction_t fn;
  CK(cudaGetFuncBySymbol(&fn, reinterpret_cast<const void*>(axpy_drv)));
  CUfunction f = reinterpret_cast<CUfunction>(fn);
  float a1 = 1.0f;
  const float* cx = x;
  void* args[] = {&n, &a1, &cx, &y};
  CKD(cuLaunchKernel(f, (n + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  struct {
    int n;
    float a;
    const float* x;
    float* y;
  } buf = {n, 0.5f, x, y};
  size_t buf_size = sizeof buf;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &buf_size, CU_LAUNCH_PARAM_END};
  CKD(cuLaunchKernel(f, (n + 31) / 32, 1, 1, 32, 1, 1, 0, nullptr, nullptr, extra));

  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((n + 511) / 512);
  cfg.blockDim = dim3(512);
  CK(cudaLaunchKernelEx(&cfg, saxpy_ex, n, 1.0f, cx, y));

  scale<<<(n + 255) / 256, 256>>>(n, 2.0f, y);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hy.data(), y, bytes, cudaMemcpyDeviceToHost));
  CK(cudaFree(x));
  CK(cudaFree(y));

  double sum = 0;
  long bad = -1;
  for (int i = 0; i < n; ++i) {
    float expected = 14.0f * static_cast<float>(i % 7) + 2.0f + (fail ? 1.0f : 0.0f);
    if (hy[i] != expected && bad < 0) bad = i;
    sum += hy[i];
  }
  if (bad >= 0) {
    std::printf("capture_prog: n=%d FAILED at y[%ld] = %g\n", n, bad, hy[bad]);
    return 3;
  }
  std::printf("capture_prog: n=%d ok sum=%.1f\n", n, sum);
  return 0;
}
