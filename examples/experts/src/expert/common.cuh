// Shared helpers of the expert references.
#pragma once
#include <cuda_runtime.h>

namespace expert_detail {

// Blocks for a grid-stride loop: enough to fill every SM `per_sm` times, never more than the work.
inline int gridFor(long long work_items, int block, int per_sm = 8) {
  static int sms = 0;
  if (sms == 0) {
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0)
      sms = 132;
  }
  long long need = (work_items + block - 1) / block;
  long long cap = static_cast<long long>(sms) * per_sm;
  long long g = need < cap ? need : cap;
  return g < 1 ? 1 : static_cast<int>(g);
}

}  // namespace expert_detail
