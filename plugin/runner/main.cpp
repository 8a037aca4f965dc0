// klineage-runner: runs one gate job (original vs variant kernel) in its own process, so that a
// crash, a hang or a dead CUDA context ends only this child. The parent enforces the timeout.
//
//   klineage-runner <job.json> <result.json>   exit 0: result written (any outcome)
//                                              exit 2: malformed job or corrupt replay record
//                                                      (status "error")
//                                              exit 3: no driver or no device (status "no-device")
//   klineage-runner --probe                    one JSON line; exit 0 with a device, else 3
//   klineage-runner --check-fill               the GPU's generated inputs against the host's;
//                                              exit 0 same, 1 different, 3 no device
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "core/diag.h"
#include "core/fs.h"
#include "core/job.h"
#include "runner/cuda_api.h"
#include "runner/device.h"
#include "runner/device_fill.h"
#include "runner/job_check.h"
#include "runner/predecessor.h"
#include "runner/run_job.h"
#include "runner/watchdog.h"

using namespace klineage;
using namespace klineage::runner;

namespace {

constexpr int kExitNoDevice = 3;

const char* kUsage =
    "usage: klineage-runner <job.json> <result.json>\n"
    "       klineage-runner --probe\n"
    "       klineage-runner --check-fill\n";

// Returns `code`, or kExitFailure when even the result cannot be written.
int writeResult(const std::string& path, const RunnerResult& r, int code) {
  try {
    atomicWrite(path, nlohmann::json(r).dump() + "\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "klineage-runner: %s\n", e.what());
    return kExitFailure;
  }
  return code;
}

int probe() {
  CudaApi api;
  Device d = openDevice(api);
  std::printf("%s\n", probeLine(d).c_str());
  return d.ok ? kExitOk : kExitNoDevice;
}

// The GPU fill against the host's, on this device: exit 0 when every case agrees, 1 when one
// differs (the runner would still be sound: its host copies are read back from the device, but a
// seed would no longer name the same data on every machine), 3 without a device.
int checkFill() {
  CudaApi api;
  Device d = openDevice(api);
  if (!d.ok) {
    std::printf("no CUDA device: %s\n", d.reason.c_str());
    return kExitNoDevice;
  }
  unsigned cases = 0;
  const std::string bad = checkDeviceFill(api, &cases);
  if (!bad.empty()) {
    std::printf("fill: the GPU and the host differ after %u case(s) that agree: %s\n", cases, bad.c_str());
    return kExitFailure;
  }
  std::printf("fill: the GPU and the host agree on %u case(s) on %s\n", cases, d.describe().c_str());
  return kExitOk;
}

int runJobFile(const std::string& job_path, const std::string& result_path) {
  RunnerJob job;
  RunnerResult r;
  // Check the job before touching the GPU: a bad job is the harness's fault, not the variant's.
  std::string bad = readJob(job_path, &job);
  if (!bad.empty()) {
    std::fprintf(stderr, "klineage-runner: error: %s\n", bad.c_str());
    r.status = RunStatus::Error;
    r.reason = bad;
    return writeResult(result_path, r, kExitBadInput);
  }
  // A replay job's record is checked here too: a corrupt record is the capture's fault (the gate
  // captures again), not the variant's.
  LaunchRecord record;
  if (job.replay) {
    bad = loadReplayRecord(job, &record);
    if (!bad.empty()) {
      std::fprintf(stderr, "klineage-runner: error: %s\n", bad.c_str());
      r.status = RunStatus::Error;
      r.reason = bad;
      return writeResult(result_path, r, kExitBadInput);
    }
  }
  CudaApi api;
  Device d = openDevice(api);
  if (!d.ok) {
    std::fprintf(stderr, "klineage-runner: no CUDA device: %s\n", d.reason.c_str());
    r.status = RunStatus::NoDevice;
    r.reason = d.reason;
    return writeResult(result_path, r, kExitNoDevice);
  }
  std::fprintf(stderr, "klineage-runner: %s: %s vs %s on %s%s\n", job_path.c_str(), job.original.function.c_str(),
               job.variant.function.c_str(), d.describe().c_str(),
               job.replay ? (", replaying " + job.replay->record_dir).c_str() : "");
  std::string note;
  waitForPredecessor(std::getenv("KLINEAGE_RUNNER_AFTER_PID"), 30, &note);
  if (!note.empty()) std::fprintf(stderr, "klineage-runner: %s\n", note.c_str());
  // A kernel that does not finish in time: the result says which, and the process ends here (the
  // main thread is stuck waiting for the device, and the context is lost with the process).
  Watchdog watchdog(job.launch_timeout_s, [&](const std::string& what, double seconds) {
    RunnerResult t;
    t.device = d.describe();
    t.outcome = Outcome::Timeout;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", seconds);
    t.reason = what + " did not finish within " + buf + " s (hung or too slow)";
    std::fprintf(stderr, "klineage-runner: timeout: %s\n", t.reason.c_str());
    std::_Exit(writeResult(result_path, t, kExitOk));
  });
  r = runJob(api, d, job, job.replay ? &record : nullptr, &watchdog);
  // status "error" here: the record's blobs could not be read back (the gate captures again)
  const int rc = writeResult(result_path, r, r.status == RunStatus::Error ? kExitBadInput : kExitOk);
  releaseOutput();  // the gate may start the next job while this context is torn down
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--probe") return probe();
  if (argc == 2 && std::string(argv[1]) == "--check-fill") return checkFill();
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (argc != 3) {
    std::fputs(kUsage, stderr);
    return kExitBadInput;
  }
  return runJobFile(argv[1], argv[2]);
}
