// Buffers compared on the GPU, so that the checks of the timed runs (dozens per variant) need no
// copy of hundreds of MB to the host when the variant's buffers hold what they must, bit for bit.
// Only a positive answer is trusted: "same" skips the host comparison; anything else (different
// bits, a computed NaN, a range it cannot take, no module) leaves the decision to the host
// comparison, which gives the verdict and its message as before.
#pragma once
#include <cuda.h>

#include <string>

#include "core/job.h"
#include "runner/cuda_api.h"
#include "runner/embedded_module.h"

namespace klineage::runner {

class DeviceDiff {
 public:
  explicit DeviceDiff(const CudaApi& cu);
  ~DeviceDiff();
  DeviceDiff(const DeviceDiff&) = delete;
  DeviceDiff& operator=(const DeviceDiff&) = delete;

  // True when the `bytes` at `a` and at `b` are the same bits and, for float types, hold no NaN
  // but the poison pattern (what the host comparison accepts without tolerance). False when they
  // may differ or the GPU comparison is unavailable (the module did not load: see unavailable()).
  bool same(CUdeviceptr a, CUdeviceptr b, size_t bytes, ElemType type);
  // Why the GPU comparison is not used ("" while it is).
  const std::string& unavailable() const { return module_.unavailable(); }

 private:
  const CudaApi& cu_;
  EmbeddedModule module_;
  CUdeviceptr count_ = 0;
  bool load();
};

}  // namespace klineage::runner
