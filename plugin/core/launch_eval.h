// What a launch site `k<<<grid, block, shmem>>>(args...)` launches, for given argument values:
// the gate runs the launch the program will compile, not only what a workload declares.
//
// An expression is evaluable when every name in it is an argument passed to the kernel as a plain
// name (`n` in `saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y)`), bound to that parameter's value;
// numbers (integer suffixes u/l allowed), + - * / %, parentheses, min/max, `sizeof(T)` of a scalar
// or vector type, and `dim3(x, y, z)` for grid and block. Anything else (a variable computed
// before the launch, a cast, a function call) is not, and the reason says which name.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "core/job.h"
#include "core/manifest.h"

namespace klineage {

std::optional<Geometry> evalLaunchSite(const LaunchSite& l, const KernelInfo& k,
                                       const std::map<std::string, double>& scalars, std::string* why);

// "saxpy<<<(n + 255) / 256, 256>>> at saxpy.cu:11"
std::string describeLaunchSite(const KernelInfo& k, const LaunchSite& l);

// Whether two launch sites' configurations are the same text (white space aside).
bool sameLaunchText(const LaunchSite& a, const LaunchSite& b);

}  // namespace klineage
