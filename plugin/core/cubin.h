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

// The symbols a host object (an ELF relocatable file, nvcc -c) exports to the rest of a program:
// defined functions and variables of global binding (not weak: inline functions and template
// instances may come and go), sorted. Throws std::runtime_error naming the file.
std::vector<std::string> exportedHostSymbols(const std::string& object_path);

// "" when the variant's object exports what the original's does; otherwise what a program would
// miss or find twice at link time, names demangled ("the variant's host code no longer defines
// launch_saxpy(int, float, float const*, float*); it defines launch_saxpy(int, float, float*, float*)
// instead").
std::string hostSymbolMismatch(const std::vector<std::string>& original, const std::vector<std::string>& variant);

}  // namespace klineage
