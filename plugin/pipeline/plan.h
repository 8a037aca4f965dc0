// How the gate runs each kernel: from a captured launch (RUN) or a declared workload (WORKLOAD),
// with the facts the skills' preconditions are checked against.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/launch_record.h"
#include "core/manifest.h"
#include "core/probes.h"
#include "core/workload.h"

namespace klineage {

struct TransformFacts;  // rewriter/transform.h

// Runs of the original in the replay check of a kernel with atomics (two otherwise): float atomics
// can agree twice by chance and still differ from the capture's order.
constexpr unsigned kAtomicsDeterminismRuns = 5;

struct KernelPlan {
  // The kernel as gated: the manifest's entry, or for a template kernel the instantiation gated
  // (its mangled name and parameter types), and for a header kernel the unit it compiles through
  // first among its units (header_kernels.h, unitOf).
  const KernelInfo* info = nullptr;
  std::shared_ptr<const KernelInfo> owned_info;  // holds *info when it is not the manifest's
  // Instantiations of a template kernel that are not gated: a variant is never kept for the
  // template while any is left (every instantiation follows the rewritten pattern).
  std::vector<std::string> ungated_instantiations;
  const WorkloadKernel* wk = nullptr;
  std::optional<PreparedLaunch> launch;       // declared workload
  std::optional<LaunchRecord> replay;         // captured launch (wins over the workload)
  std::vector<LaunchRecord> records;          // every captured launch of the kernel
  std::optional<WorkloadFacts> facts;
  std::string facts_source;                   // "capture" or "workload"
  bool geometry_may_change = false;
  std::string geometry_fixed_why;  // why not, when the kernel has launch sites (plan.cpp)
  Tolerance tol;
  double timeout_s = 10;
  Dim3 grid, block;
  unsigned shmem = 0;
  std::optional<long long> block_size;        // threads per block every launch uses (launch-bounds)
  std::optional<Dim3> block_shape;            // the block every launch uses, each component
  std::vector<std::string> notes;
  std::map<std::string, double> scalars;      // the scalar arguments of the gated launch
  std::optional<LaunchSite> site;             // the launch site whose geometry is gated (evaluable)
  std::vector<Probe> probes;                  // other sizes every variant must be right on
  // The oracle (oracle.h): the promoted original's cubin, or why there is none ("" before
  // prepareOracles ran).
  std::string oracle_cubin;
  std::string oracle_none;
};

// The block a transform sees (TransformFacts) once the steps before it changed the launch by `geometry`.
TransformFacts factsFor(const KernelPlan& plan, const GeometryChange& geometry);

struct Pipeline;

// The kernels to gate and the ones skipped (kernel -> why).
struct Plans {
  std::vector<KernelPlan> kernels;
  std::vector<std::pair<std::string, std::string>> skipped;
  const KernelPlan* find(const std::string& name) const {
    for (const auto& p : kernels)
      if (p.info->name == name) return &p;
    return nullptr;
  }
};

// One plan per kernel (only `only_kernel` when set): on its largest captured launch when the
// original replays faithfully (checked on the GPU), else on its workload entry; skipped with the
// reason when neither. original_cubin: kernel source file -> its compiled cubin ("" failed).
Plans planKernels(Pipeline& p, const Manifest& manifest, const std::optional<Workload>& workload,
                  const std::map<std::string, std::vector<LaunchRecord>>& captured,
                  const std::map<std::string, std::string>& original_cubin, const std::string& only_kernel);

}  // namespace klineage
