#include "runner/cuda_api.h"

#include <dlfcn.h>

#define KL_STR2(x) #x
#define KL_STR(x) KL_STR2(x)

namespace klineage::runner {

bool loadCudaApi(CudaApi& api, std::string* why) {
  // Never unloaded: the driver stays until the process ends.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    *why = std::string("cannot load libcuda.so.1 (no NVIDIA driver?): ") + (e ? e : "unknown error");
    return false;
  }
#define KL_CUDA_LOAD(fn)                                                                    \
  api.fn = reinterpret_cast<decltype(api.fn)>(dlsym(lib, KL_STR(fn)));                      \
  if (!api.fn && std::string(KL_STR(fn)) == "cuEventElapsedTime_v2") /* drivers < 12.8 */ \
    api.fn = reinterpret_cast<decltype(api.fn)>(dlsym(lib, "cuEventElapsedTime"));          \
  if (!api.fn) {                                                                            \
    *why = "libcuda.so.1 has no " KL_STR(fn) " (driver too old?)";                          \
    return false;                                                                           \
  }
  KL_CUDA_FUNCTIONS(KL_CUDA_LOAD)
#undef KL_CUDA_LOAD
  return true;
}

std::string cudaErrorText(const CudaApi& api, CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName) api.cuGetErrorName(r, &name);
  if (api.cuGetErrorString) api.cuGetErrorString(r, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(static_cast<int>(r));
  if (text) s += std::string(" (") + text + ")";
  return s;
}

}  // namespace klineage::runner
