// edges: runs scale on misaligned pointers (x + 1, y + 1) and poly with host-set __constant__
// coefficients, and checks both against the CPU. Exit: 0 ok, 1 a check failed, 77 no CUDA device.
#include <cmath>
#include <cstdio>
#include <vector>

#include "edges.h"

#define CHECK_CUDA(call)                                                                 \
  do {                                                                                   \
    cudaError_t err_ = (call);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "edges: %s failed: %s\n", #call, cudaGetErrorString(err_));   \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

static bool close(float got, float want) { return std::fabs(got - want) <= 1e-5f + 1e-5f * std::fabs(want); }

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("edges: no CUDA device; nothing to run\n");
    return 77;
  }
  const int n = 1 << 22;
  std::vector<float> hx(n + 1), hy(n + 1, 0.0f);
  for (int i = 0; i <= n; ++i) hx[i] = std::sin(0.001f * i);
  float *x = nullptr, *y = nullptr;
  CHECK_CUDA(cudaMalloc(&x, (n + 1) * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, (n + 1) * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(x, hx.data(), (n + 1) * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(y, 0, (n + 1) * sizeof(float)));

  // scale on x + 1, y + 1: element i of the launch is element i + 1 of the buffers.
  CHECK_CUDA(launch_scale(n, 3.0f, x + 1, y + 1));
  CHECK_CUDA(cudaMemcpy(hy.data(), y, (n + 1) * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (!close(hy[i + 1], 3.0f * hx[i + 1])) {
      std::printf("edges: FAILED: scale at %d: got %g, expected %g\n", i, hy[i + 1], 3.0f * hx[i + 1]);
      return 1;
    }
  std::printf("edges: scale: ok\n");

  const float c[4] = {0.5f, -1.0f, 0.25f, 2.0f};
  CHECK_CUDA(set_poly_coefficients(c));
  CHECK_CUDA(launch_poly(n, x, y));
  CHECK_CUDA(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    float v = hx[i];
    float want = c[0] + v * (c[1] + v * (c[2] + v * c[3]));
    if (!close(hy[i], want)) {
      std::printf("edges: FAILED: poly at %d: got %g, expected %g\n", i, hy[i], want);
      return 1;
    }
  }
  std::printf("edges: poly: ok\nedges: all checks passed\n");
  CHECK_CUDA(cudaFree(x));
  CHECK_CUDA(cudaFree(y));
  return 0;
}
