#include "runner/device.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace klineage::runner {

Device openDevice(CudaApi& api) {
  Device d;
  if (!loadCudaApi(api, &d.reason)) return d;
  auto failed = [&](const char* what, CUresult r) {
    d.reason = std::string(what) + ": " + cudaErrorText(api, r);
    return d;
  };
  CUresult r = api.cuInit(0);
  if (r != CUDA_SUCCESS) return failed("cuInit", r);
  int count = 0;
  if ((r = api.cuDeviceGetCount(&count)) != CUDA_SUCCESS) return failed("cuDeviceGetCount", r);
  if (count < 1) {
    d.reason = "the driver sees no CUDA device";
    return d;
  }
  d.count = count;
  if (api.cuDriverGetVersion(&d.driver_version) != CUDA_SUCCESS) d.driver_version = 0;
  // The driver's release is part of the gate's result cache key (a new driver re-gates); the
  // driver API only reports the CUDA version, the kernel module its own.
  std::ifstream proc("/proc/driver/nvidia/version");
  std::stringstream text;
  text << proc.rdbuf();
  d.driver_release = driverReleaseFrom(text.str());
  if ((r = api.cuDeviceGet(&d.device, 0)) != CUDA_SUCCESS) return failed("cuDeviceGet", r);
  char name[256] = {};
  if ((r = api.cuDeviceGetName(name, sizeof name - 1, d.device)) != CUDA_SUCCESS) return failed("cuDeviceGetName", r);
  d.name = name;
  int l2 = 0;
  if ((r = api.cuDeviceGetAttribute(&d.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.device)) ||
      (r = api.cuDeviceGetAttribute(&d.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d.device)) ||
      (r = api.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d.device)))
    return failed("cuDeviceGetAttribute", r);
  d.l2_bytes = l2;
  if ((r = api.cuDevicePrimaryCtxRetain(&d.context, d.device)) != CUDA_SUCCESS)
    return failed("cuDevicePrimaryCtxRetain", r);
  if ((r = api.cuCtxSetCurrent(d.context)) != CUDA_SUCCESS) return failed("cuCtxSetCurrent", r);
  d.ok = true;
  return d;
}

std::string probeLine(const Device& d) {
  // ordered_json: the documented key order, status first
  nlohmann::ordered_json j;
  if (d.ok) {
    j["status"] = "ok";
    j["device"] = d.name;
    j["sm"] = d.sm();
    j["l2_bytes"] = d.l2_bytes;
    j["count"] = d.count;
    if (d.driver_version)
      j["driver"] = std::to_string(d.driver_version / 1000) + "." + std::to_string(d.driver_version % 1000 / 10);
    if (!d.driver_release.empty()) j["driver_version"] = d.driver_release;
    j["serve"] = true;  // this runner takes jobs one after another with --serve
  } else {
    j["status"] = "no-device";
    j["reason"] = d.reason;
  }
  return j.dump();
}

std::string driverReleaseFrom(const std::string& proc_text) {
  std::istringstream words(proc_text.substr(0, proc_text.find('\n')));
  for (std::string w; words >> w;) {
    bool digits = !w.empty() && std::isdigit(static_cast<unsigned char>(w[0])), dot = false;
    for (char c : w) {
      dot |= c == '.';
      digits &= std::isdigit(static_cast<unsigned char>(c)) || c == '.';
    }
    if (digits && dot) return w;
  }
  return "";
}

}  // namespace klineage::runner
