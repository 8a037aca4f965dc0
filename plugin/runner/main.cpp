// klineage-runner: runs one gate job (original vs variant kernel) in its own process, so that a
// crash, a hang or a dead CUDA context ends only this child. The parent enforces the timeout.
//
//   klineage-runner <job.json> <result.json>   exit 0: result written (any outcome)
//                                              exit 2: malformed job or corrupt replay record
//                                                      (status "error")
//                                              exit 3: no driver or no device (status "no-device")
//   klineage-runner --serve                    jobs one after another in one CUDA context: one
//                                              request line each on stdin, one answer line each
//                                              on stdout (docs/runner-job.md, "Serving")
//   klineage-runner --probe                    one JSON line; exit 0 with a device, else 3
//   klineage-runner --check-fill               the GPU's generated inputs against the host's;
//                                              exit 0 same, 1 different, 3 no device
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
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
    "       klineage-runner --serve\n"
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

// Reads and checks a job before the GPU is touched: a bad job is the harness's fault, not the
// variant's, and a corrupt replay record the capture's (the gate captures again). Returns false
// with the error result written (*rc: its exit code).
bool readChecked(const std::string& job_path, const std::string& result_path, RunnerJob* job, LaunchRecord* record,
                 int* rc) {
  std::string bad = readJob(job_path, job);
  if (bad.empty() && job->replay) bad = loadReplayRecord(*job, record);
  if (bad.empty()) return true;
  std::fprintf(stderr, "klineage-runner: error: %s\n", bad.c_str());
  RunnerResult r;
  r.status = RunStatus::Error;
  r.reason = bad;
  *rc = writeResult(result_path, r, kExitBadInput);
  return false;
}

// Runs a checked job on the open device and writes its result; returns the exit code.
int runChecked(const CudaApi& api, const Device& d, const std::string& job_path, const std::string& result_path,
               const RunnerJob& job, const LaunchRecord& record, RunnerResult* out) {
  std::fprintf(stderr, "klineage-runner: %s: %s vs %s on %s%s\n", job_path.c_str(), job.original.function.c_str(),
               job.variant.function.c_str(), d.describe().c_str(),
               job.replay ? (", replaying " + job.replay->record_dir).c_str() : "");
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
  *out = runJob(api, d, job, job.replay ? &record : nullptr, &watchdog);
  // status "error" here: the record's blobs could not be read back (the gate captures again)
  return writeResult(result_path, *out, out->status == RunStatus::Error ? kExitBadInput : kExitOk);
}

int runJobFile(const std::string& job_path, const std::string& result_path) {
  RunnerJob job;
  LaunchRecord record;
  int rc = 0;
  if (!readChecked(job_path, result_path, &job, &record, &rc)) return rc;
  CudaApi api;
  Device d = openDevice(api);
  if (!d.ok) {
    std::fprintf(stderr, "klineage-runner: no CUDA device: %s\n", d.reason.c_str());
    RunnerResult r;
    r.status = RunStatus::NoDevice;
    r.reason = d.reason;
    return writeResult(result_path, r, kExitNoDevice);
  }
  std::string note;
  waitForPredecessor(std::getenv("KLINEAGE_RUNNER_AFTER_PID"), 30, &note);
  if (!note.empty()) std::fprintf(stderr, "klineage-runner: %s\n", note.c_str());
  RunnerResult r;
  rc = runChecked(api, d, job_path, result_path, job, record, &r);
  releaseOutput();  // the gate may start the next job while this context is torn down
  return rc;
}

// Points stdout and stderr at `path` (appended to; /dev/null when "" or it cannot be opened).
void outputTo(const std::string& path) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fd = path.empty() ? -1 : ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  ::dup2(fd, 1);
  ::dup2(fd, 2);
  ::close(fd);
}

// Why the context cannot take another job after this one, or "": a failed or timed-out kernel may
// have left it dead, and memory a job did not give back would shrink the next one's room.
std::string unfitAfter(const CudaApi& api, const RunnerResult& r, size_t free_at_start) {
  if (r.status != RunStatus::Ok) return "its status was not ok";
  if (r.outcome == Outcome::RuntimeFailed || r.outcome == Outcome::Timeout) return "it failed on the GPU";
  if (api.cuCtxSynchronize() != CUDA_SUCCESS) return "the context does not synchronize";
  size_t free_now = 0, total = 0;
  if (api.cuMemGetInfo(&free_now, &total) != CUDA_SUCCESS) return "the free memory cannot be read";
  constexpr size_t kSlack = 64ull << 20;  // the driver's own bookkeeping moves a little
  if (free_now + kSlack < free_at_start)
    return std::to_string((free_at_start - free_now) >> 20) + " MiB of device memory were not given back";
  return "";
}

// --serve: the gate's runner for one GPU, kept between jobs so that a job does not pay for a
// process, cuInit and a context (docs/runner-job.md, "Serving"). Requests on stdin, one a line:
// "<job.json>\t<result.json>\t<log>"; each job's output goes to its log. Answers on stdout:
// "klineage-runner: serving <probe line>" once the device is up, then per job
// "klineage-runner: done <exit code> next" or "... exit" (the process then exits: the next job
// needs a fresh one). A job whose kernel hangs ends the process with the result written, as a
// one-job runner does; a crash ends it without one.
int serve() {
  const int answers_fd = ::dup(1);
  FILE* answers = answers_fd >= 0 ? ::fdopen(answers_fd, "w") : nullptr;
  if (!answers) return kExitFailure;
  ::fcntl(answers_fd, F_SETFD, FD_CLOEXEC);
  outputTo("");
  CudaApi api;
  Device d = openDevice(api);
  if (!d.ok) {
    std::fprintf(answers, "klineage-runner: no-device %s\n", probeLine(d).c_str());
    return kExitNoDevice;
  }
  std::string note;
  waitForPredecessor(std::getenv("KLINEAGE_RUNNER_AFTER_PID"), 30, &note);
  // A kernel's variants replay the same record one after another: its blobs are read once.
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  keepReplayBlobs(std::min<size_t>(4ull << 30, pages > 0 && page > 0 ? static_cast<size_t>(pages) * page / 8 : 0));
  size_t free_at_start = 0, total = 0;
  api.cuMemGetInfo(&free_at_start, &total);
  std::fprintf(answers, "klineage-runner: serving %s\n", probeLine(d).c_str());
  std::fflush(answers);
  unsigned served = 0;
  for (std::string line; std::getline(std::cin, line);) {
    const size_t t1 = line.find('\t'), t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string::npos) {
      std::fprintf(answers, "klineage-runner: bad request (expected <job>\\t<result>\\t<log>): %s\n", line.c_str());
      return kExitBadInput;
    }
    const std::string job_path = line.substr(0, t1), result_path = line.substr(t1 + 1, t2 - t1 - 1);
    outputTo(line.substr(t2 + 1));
    restartProgressClock();
    ++served;
    std::fprintf(stderr, "klineage-runner: job %u of this serving runner (pid %ld)\n", served, static_cast<long>(::getpid()));
    if (!note.empty()) std::fprintf(stderr, "klineage-runner: %s\n", note.c_str());
    note.clear();
    RunnerJob job;
    LaunchRecord record;
    RunnerResult r;
    int rc = 0;
    std::string unfit;
    if (readChecked(job_path, result_path, &job, &record, &rc)) {
      rc = runChecked(api, d, job_path, result_path, job, record, &r);
      unfit = unfitAfter(api, r, free_at_start);
    }
    if (!unfit.empty()) std::fprintf(stderr, "klineage-runner: this process takes no more jobs: %s\n", unfit.c_str());
    outputTo("");
    std::fprintf(answers, "klineage-runner: done %d %s\n", rc, unfit.empty() ? "next" : "exit");
    std::fflush(answers);
    if (!unfit.empty()) return rc;
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--probe") return probe();
  if (argc == 2 && std::string(argv[1]) == "--check-fill") return checkFill();
  if (argc == 2 && std::string(argv[1]) == "--serve") return serve();
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
