// Opening the GPU: driver, device 0 (CUDA_VISIBLE_DEVICES picks which one that is) and its
// primary context, made current on this thread.
#pragma once
#include <string>

#include "runner/cuda_api.h"

namespace klineage::runner {

struct Device {
  bool ok = false;
  std::string reason;       // why not ok ("cuInit: CUDA_ERROR_NO_DEVICE (...)")
  std::string name;         // "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;
  long long l2_bytes = 0;
  int count = 0;
  int driver_version = 0;   // cuDriverGetVersion: 13000 for CUDA 13.0
  std::string driver_release;  // the kernel driver's version ("570.86.15"), "" when unknown
  CUdevice device = 0;
  CUcontext context = nullptr;

  std::string sm() const { return std::to_string(cc_major * 10 + cc_minor); }  // "90"
  std::string describe() const { return name + " (sm_" + sm() + ")"; }           // for results
};

// Loads the driver into `api` and opens device 0. Device::ok false with a reason when there is no
// driver, no device, or the driver cannot start.
Device openDevice(CudaApi& api);

// {"status":"ok","device":"NVIDIA H200","sm":"90","l2_bytes":...,"count":1,"driver":"13.0",
// "driver_version":"570.86.15"} or
// {"status":"no-device","reason":"..."}, on one line.
std::string probeLine(const Device& d);

// The NVIDIA kernel driver's version from the text of /proc/driver/nvidia/version ("NVRM version:
// NVIDIA UNIX x86_64 Kernel Module  570.86.15  ..."): the first dotted number; "" when none.
std::string driverReleaseFrom(const std::string& proc_text);

}  // namespace klineage::runner
