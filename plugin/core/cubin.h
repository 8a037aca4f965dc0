// What a compiled module (cubin, an ELF file) holds that the gate needs without a GPU: its
// __device__ variables, read from the symbol table (objects in .nv.global / .nv.global.init).
#pragma once
#include <string>
#include <vector>

#include "core/job.h"

namespace klineage {

// The module's __device__ variables, in symbol-table order. Throws std::runtime_error naming the
// file when it cannot be read or is not a 64-bit ELF cubin.
std::vector<DeviceGlobal> cubinDeviceGlobals(const std::string& cubin_path);

}  // namespace klineage
