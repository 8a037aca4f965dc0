// Where runner jobs run, shaped like Ninja's CommandRunner: the gate loop submits job bundles while
// canRunMore(), and wait() hands back the next one that finished. A backend runs one job per GPU
// at a time (timings are only fair alone on a device); several GPUs gate several variants at once.
//   local: every visible GPU of this machine (CUDA_VISIBLE_DEVICES per child runner);
//   slurm: each bundle shipped to a Slurm job with srun (the bundle travels on srun's stdin, so
//          nothing on the submitting machine's file system is read by the job).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/job.h"
#include "gate/gate.h"

namespace klineage {

// One job and everything it reads. `job` names files on this machine; files() lists them, and a
// backend that runs elsewhere ships them and rewrites the job to its copies.
struct JobBundle {
  std::string id;           // unique among the submitted ones
  RunnerJob job;
  std::string work_dir;     // job.json, result.json and runner.log are kept here, on this machine
  double timeout_s = 0;     // the limit on the whole runner process
  std::string sanitizer;    // set: run under compute-sanitizer --tool `tool`
  std::string tool;
  // Every file the job reads: the two cubins and, for a replay, the launch record's directory
  // (its record.json and blobs).
  std::vector<std::string> files() const;
};

struct Finished {
  std::string id;
  RunnerResult result;
};

class GpuBackend {
 public:
  virtual ~GpuBackend() = default;
  virtual std::string name() const = 0;           // "local", "slurm"
  virtual DeviceProbe probe() = 0;                // the device jobs run on (count: how many)
  virtual bool canRunMore() const = 0;
  virtual void submit(JobBundle bundle) = 0;
  virtual Finished wait() = 0;                    // blocks; only while something was submitted
  virtual size_t running() const = 0;
  // One job, synchronously (the fidelity check, the winner's re-check).
  RunnerResult runOne(JobBundle bundle);
  // Independent jobs, as many at once as the backend has room for; their results in their order.
  std::vector<RunnerResult> runAll(std::vector<JobBundle> bundles);
};

// Runs jobs with one GpuRunner per device (runner_for(i) makes the runner of device i), one job
// per device at a time, on threads. `devices` 0: as many as the first runner's probe counts.
std::unique_ptr<GpuBackend> makeLocalBackend(std::function<std::unique_ptr<GpuRunner>(int device)> runner_for,
                                             unsigned devices = 0);
// The local backend over klineage-runner children, device i selected with CUDA_VISIBLE_DEVICES.
std::unique_ptr<GpuBackend> makeLocalChildBackend(const std::string& runner_path);

struct SlurmOptions {
  std::string srun = "srun";
  std::string partition, account;
  std::string gres = "gpu:1";             // "" where the cluster has no GPU gres (tests)
  unsigned max_jobs = 4;                  // bundles in flight at once
  std::string runner = "klineage-runner"; // the runner on the compute nodes (PATH or absolute)
  std::vector<std::string> extra_args;    // more srun arguments
  std::string staging_dir;                // where bundles are packed on this machine
};
std::unique_ptr<GpuBackend> makeSlurmBackend(const SlurmOptions& opt);

// Packs a bundle into a tar file: job.json (paths relative to the bundle), the cubins, the
// record; returns "" or why not.
std::string packBundle(const JobBundle& b, const std::string& tar_path);

}  // namespace klineage

namespace klineage {
// A GpuRunner that forwards to one owned elsewhere (a test's fake, a runner shared by backends).
std::unique_ptr<GpuRunner> borrowedRunner(GpuRunner& r);
}  // namespace klineage
