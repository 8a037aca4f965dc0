#include "runner/predecessor.h"

#include "core/job.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace klineage {

double waitForPredecessor(const char* pid_text, double max_s, std::string* note) {
  note->clear();
  if (!pid_text || !*pid_text) return 0;
  char* end = nullptr;
  const long pid = std::strtol(pid_text, &end, 10);
  if (*end != '\0' || pid <= 0) {
    *note = std::string("ignored KLINEAGE_RUNNER_AFTER_PID=") + pid_text + ": not a process id";
    return 0;
  }
  const auto start = std::chrono::steady_clock::now();
  auto waited = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  // kill(pid, 0) fails with ESRCH once the process is gone (the gate reaps it as it exits).
  while (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) {
    if (waited() >= max_s) {
      *note = "the previous runner (pid " + std::to_string(pid) + ") is still there after " + std::to_string(int(max_s)) +
              " s; going on";
      return -waited();
    }
    ::usleep(2000);
  }
  const double s = waited();
  if (s >= 0.005) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "waited %.2f s for the previous runner (pid %ld) to exit", s, pid);
    *note = buf;
  }
  return s;
}

void releaseOutput() {
  std::fflush(stdout);
  std::fputs(kRunnerDoneLine, stderr);  // the gate's cue that the output ends here on purpose
  std::fflush(stderr);
  const int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  ::dup2(fd, 1);
  ::dup2(fd, 2);
  ::close(fd);
}

}  // namespace klineage
