// The CUDA driver API, taken from libcuda.so.1 at run time (dlopen), so that klineage-runner
// starts, and reports "no-device", on machines without an NVIDIA driver.
#pragma once
#include <cuda.h>

#include <string>

namespace klineage::runner {

// Every driver function the runner calls. cuda.h #defines several of these to versioned names
// (cuMemAlloc -> cuMemAlloc_v2); the member names and the dlsym strings are both taken after that
// expansion, so each pointer gets the symbol whose signature cuda.h declares.
#define KL_CUDA_FUNCTIONS(X)                                                                     \
  X(cuInit) X(cuGetErrorName) X(cuGetErrorString) X(cuDriverGetVersion) X(cuDeviceGetCount)    \
  X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDevicePrimaryCtxRetain)         \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuModuleLoad)          \
  X(cuModuleLoadData)                                                                         \
  X(cuModuleUnload) X(cuModuleGetFunction) X(cuModuleGetGlobal) X(cuFuncSetAttribute) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD)         \
  X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemsetD8Async) X(cuLaunchKernel) X(cuEventCreate)        \
  X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime) X(cuEventDestroy) X(cuMemGetInfo)

struct CudaApi {
#define KL_CUDA_MEMBER(fn) decltype(&::fn) fn = nullptr;
  KL_CUDA_FUNCTIONS(KL_CUDA_MEMBER)
#undef KL_CUDA_MEMBER
};

// Loads the driver library and every function above. False, with why, when the library or a
// function is missing.
bool loadCudaApi(CudaApi& api, std::string* why);

// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
std::string cudaErrorText(const CudaApi& api, CUresult r);

}  // namespace klineage::runner
