// A fake CUDA driver for runner tests: device memory is host memory, a "cubin" is a name
// registered with kernels written in C++, and a launch runs the kernel at once on the CPU. Enough
// of the driver API for runJob (runner/run_job.h), so the gate's checks (guards, inputs, state,
// timed runs, probes) can be tested without a GPU.
#pragma once
#include <cuda.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runner/cuda_api.h"
#include "runner/device.h"

namespace klineage::fake {

struct Launch {
  long long threads() const { return grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2]; }
  template <typename T>
  T arg(unsigned i) const { return *static_cast<const T*>(params[i]); }
  template <typename T>
  T* ptr(unsigned i) const;  // a pointer argument as host memory
  long long grid[3], block[3];
  unsigned shmem;
  void** params;
  std::map<std::string, void*> globals;  // the module's __device__ variables, as host memory
};

// A kernel: runs every thread, returns CUDA_SUCCESS or the error the launch ends in; sets `ms` to
// the time it claims (the fake events report it).
using Kernel = std::function<CUresult(const Launch&, float* ms)>;

struct Module {
  std::map<std::string, Kernel> kernels;
  std::map<std::string, std::vector<unsigned char>> globals;  // name -> initial bytes
};

// Registers a module under a "cubin" path; a fresh registry per test.
void reset();
void addModule(const std::string& path, Module m);
void* hostPointer(CUdeviceptr p);  // into a live allocation, else nullptr
unsigned long long liveBytes();    // bytes allocated and not freed
// cuModuleLoadData (the runner's device comparison, run on the host): off makes it fail like a
// PTX JIT error, so the runner must compare on the host.
void setJitAvailable(bool on);
unsigned fillLaunches();  // launches of the runner's GPU fill kernels since reset()
// How many cuMemcpyDtoH calls copied exactly `bytes` bytes (a buffer's size: a download of it).
unsigned downloads(size_t bytes);
// cuMemAlloc fails with CUDA_ERROR_OUT_OF_MEMORY once live bytes would exceed `bytes` (0: no limit).
void setMemoryLimit(unsigned long long bytes);

runner::CudaApi api();
runner::Device device();

template <typename T>
T* Launch::ptr(unsigned i) const {
  return static_cast<T*>(hostPointer(arg<CUdeviceptr>(i)));
}

}  // namespace klineage::fake
