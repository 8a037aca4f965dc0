// Shared by the bench programs that time kernels themselves (transfer_refs.cu, shape_probe.cu):
// checked CUDA calls and the gate's timing rule (docs/runner-job.md): the L2 flushed by a 256 MiB
// memset before every run, device events around the run alone, the median of 21 runs after 3
// warm-ups. Call benchInit() once before timeMs.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CK(call)                                                                                       \
  do {                                                                                                 \
    cudaError_t e_ = (call);                                                                           \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
      std::exit(2);                                                                                    \
    }                                                                                                  \
  } while (0)

namespace bench {

inline void*& flushBuffer() {
  static void* p = nullptr;
  return p;
}
constexpr size_t kFlushBytes = size_t(256) << 20;

inline void benchInit() { CK(cudaMalloc(&flushBuffer(), kFlushBytes)); }

// Median ms of fn over 21 runs, L2 flushed before each.
inline double timeMs(const std::function<void()>& fn) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) fn();
  CK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int i = 0; i < 21; ++i) {
    CK(cudaMemsetAsync(flushBuffer(), i & 0xff, kFlushBytes));
    CK(cudaEventRecord(a));
    fn();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace bench
