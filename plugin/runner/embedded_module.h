// A module of the runner's own kernels (PTX embedded at build time, JIT-loaded on first use), for
// the GPU comparison (device_diff.h) and the GPU fill (device_fill.h). Each degrades the same way:
// when the module or a kernel does not load, unavailable() says why and its user takes the host
// path.
#pragma once
#include <cuda.h>

#include <string>
#include <vector>

#include "runner/cuda_api.h"

namespace klineage::runner {

class EmbeddedModule {
 public:
  // `what` names the module in unavailable()'s text ("the comparison module").
  EmbeddedModule(const CudaApi& cu, const char* ptx, std::vector<const char*> kernels, std::string what)
      : cu_(cu), ptx_(ptx), names_(std::move(kernels)), what_(std::move(what)) {}
  ~EmbeddedModule() {
    if (module_ && cu_.cuModuleUnload) cu_.cuModuleUnload(module_);
  }
  EmbeddedModule(const EmbeddedModule&) = delete;
  EmbeddedModule& operator=(const EmbeddedModule&) = delete;

  // Loads the module and finds every kernel, the first time only; false when that failed.
  bool load() {
    if (tried_) return module_ != nullptr;
    tried_ = true;
    if (!cu_.cuModuleLoadData) return fail("the driver API has no cuModuleLoadData");
    if (cu_.cuModuleLoadData(&module_, ptx_) != CUDA_SUCCESS) {
      module_ = nullptr;
      return fail(what_ + " did not load (PTX JIT)");
    }
    fns_.assign(names_.size(), nullptr);
    for (size_t i = 0; i < names_.size(); ++i)
      if (cu_.cuModuleGetFunction(&fns_[i], module_, names_[i]) != CUDA_SUCCESS) {
        cu_.cuModuleUnload(module_);
        module_ = nullptr;
        return fail(std::string(names_[i]) + " is not in " + what_);
      }
    return true;
  }
  CUfunction fn(size_t i) const { return fns_.at(i); }
  // Why the module is not used ("" while it is, or before the first load()).
  const std::string& unavailable() const { return why_; }
  // For a user whose own set-up failed after load() (e.g. no memory for a counter).
  bool fail(std::string why) {
    why_ = std::move(why);
    return false;
  }

 private:
  const CudaApi& cu_;
  const char* ptx_;
  std::vector<const char*> names_;
  std::string what_;
  bool tried_ = false;
  CUmodule module_ = nullptr;
  std::vector<CUfunction> fns_;
  std::string why_;
};

}  // namespace klineage::runner
