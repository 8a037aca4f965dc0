// What a launch site launches for given argument values: its geometry as Clang resolved it through
// the launching function (LaunchSite::grid_expr, block_expr, shmem_expr; core/launch_expr.h),
// evaluated for a workload's or a captured launch's values. The gate runs the launch the program
// will compile, not only what a workload declares.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "core/job.h"
#include "core/manifest.h"

namespace klineage {

// The kernel's integer arguments by parameter name, from scalar values (a float parameter is left
// out: geometry is integer arithmetic).
std::map<std::string, long long> integerArgs(const KernelInfo& k, const std::map<std::string, double>& scalars);

// The geometry for these scalars and, where the site reads parameters of the launching function
// that are not passed to the kernel, `launcher`'s values for them. nullopt and why (naming the part,
// the construct the resolver refused, or the value that is missing) otherwise.
std::optional<Geometry> evalLaunchSite(const LaunchSite& l, const KernelInfo& k,
                                       const std::map<std::string, double>& scalars, std::string* why,
                                       const std::map<std::string, long long>& launcher = {});

// The launcher's parameters a site reads, as far as one geometry it launched (a captured launch)
// tells them: a part that is exactly a parameter (`block_size`, a dim3 parameter's `grid.x`) gets
// that part's value. Parameters that only appear inside larger expressions stay unknown.
std::map<std::string, long long> launcherValues(const LaunchSite& l, const Geometry& launched);

// "saxpy<<<(n + 255) / 256, 256>>> at saxpy.cu:11"
std::string describeLaunchSite(const KernelInfo& k, const LaunchSite& l);

// The resolved geometry for people: "grid ((cols + 15) / 16, (rows + 15) / 16, 1), block (16, 16, 1)",
// or what was not resolved.
std::string describeResolved(const LaunchSite& l);

// Whether two launch sites launch the same way: the same resolved geometry and arguments when both
// resolve, else the same text (white space aside).
bool sameLaunch(const LaunchSite& a, const LaunchSite& b);

}  // namespace klineage
