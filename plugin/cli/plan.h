// How the gate runs each kernel: from a captured launch (RUN) or a declared workload (WORKLOAD),
// with the facts the skills' preconditions are checked against.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/launch_record.h"
#include "core/manifest.h"
#include "core/probes.h"
#include "core/workload.h"

namespace klineage {

struct KernelPlan {
  const KernelInfo* info = nullptr;
  const WorkloadKernel* wk = nullptr;
  std::optional<PreparedLaunch> launch;       // declared workload
  std::optional<LaunchRecord> replay;         // captured launch (wins over the workload)
  std::vector<LaunchRecord> records;          // every captured launch of the kernel
  std::optional<WorkloadFacts> facts;
  std::string facts_source;                   // "capture" or "workload"
  bool geometry_may_change = false;
  Tolerance tol;
  double timeout_s = 10;
  Dim3 grid, block;
  unsigned shmem = 0;
  std::optional<long long> block_size;        // for launch-bounds: every launch uses it
  std::vector<std::string> notes;
  std::map<std::string, double> scalars;      // the scalar arguments of the gated launch
  std::optional<LaunchSite> site;             // the launch site whose geometry is gated (evaluable)
  std::vector<Probe> probes;                  // other sizes every variant must be right on
};

}  // namespace klineage
