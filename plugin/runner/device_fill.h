// Generated inputs written on the GPU (device_fill.cu): the same bytes as core/fill.h's
// fillBuffer, without making them on the host and copying them over (for the gate's inputs of
// hundreds of MB, most of an input set's time). When the module is unavailable, fill() says
// false and the runner fills on the host as before. `klineage-runner --check-fill` compares the
// two on the device at hand.
#pragma once
#include <cuda.h>

#include <string>

#include "core/job.h"
#include "runner/cuda_api.h"
#include "runner/embedded_module.h"

namespace klineage::runner {

class DeviceFill {
 public:
  explicit DeviceFill(const CudaApi& cu);

  // Writes elements [0, n) of `type` at dst as fillBuffer(…, n, init, seed, param_index) would.
  // Asynchronous on the null stream (ordered before any later copy or launch); false when the
  // kernel could not be launched, and nothing was written.
  bool fill(CUdeviceptr dst, ElemType type, unsigned long long n, const InitSpec& init, uint64_t seed,
            unsigned param_index);
  // Why the GPU fill is not used ("" while it is).
  const std::string& unavailable() const { return module_.unavailable(); }

 private:
  const CudaApi& cu_;
  EmbeddedModule module_;
};

// The module's PTX as embedded (for the test that it holds no fused multiply-add).
const char* deviceFillPtx();

// Fills buffers of every element type and init kind (sizes that are not a multiple of a block,
// seeds 0 and large) on the GPU and on the host and compares them: "" when every byte agrees,
// else the first case that differs. `cases` (if given) counts the cases compared; `n` elements each.
std::string checkDeviceFill(const CudaApi& cu, unsigned* cases = nullptr, unsigned long long n = 300007);

}  // namespace klineage::runner
