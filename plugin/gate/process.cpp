#include "gate/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace klineage {

std::string ProcessResult::describe() const {
  if (!started) return "could not start: " + output;
  if (timed_out) return "timed out after " + std::to_string(static_cast<int>(seconds + 0.5)) + " s";
  if (left_running) return "closed its output without exiting";
  if (signaled) return std::string("killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit " + std::to_string(exit_code);
}

namespace {
// The output as kept: its last 64 KiB.
std::string lastOutput(const std::string& out) {
  return out.size() > 64 * 1024 ? "[...]\n" + out.substr(out.size() - 64 * 1024) : out;
}

// Waits for a child that has closed its output, up to a minute, then kills what is left of its group.
void reapLater(pid_t pid) {
  std::thread([pid] {
    int status = 0;
    for (int i = 0; i < 60000 / 5; ++i) {
      if (::waitpid(pid, &status, WNOHANG) != 0) {
        ::kill(-pid, SIGKILL);
        return;
      }
      ::usleep(5000);
    }
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }).detach();
}
}  // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, double timeout_s, const std::string& cwd,
                         const std::vector<std::string>& extra_env, const std::string& stdin_path, const std::string& done_marker) {
  ProcessResult r;
  if (argv.empty()) {
    r.output = "empty command";
    return r;
  }
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) {
    r.output = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) {
    r.output = std::string("fork: ") + std::strerror(errno);
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    return r;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(pipefd[1], 1);
    ::dup2(pipefd[1], 2);
    int in = ::open(stdin_path.empty() ? "/dev/null" : stdin_path.c_str(), O_RDONLY);
    if (in < 0 && !stdin_path.empty()) _exit(125);
    if (in >= 0) ::dup2(in, 0);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) _exit(126);
    for (const auto& e : extra_env) ::putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    const char* msg = "exec failed: ";
    (void)!::write(2, msg, std::strlen(msg));
    (void)!::write(2, argv[0].c_str(), argv[0].size());
    _exit(127);
  }
  ::setpgid(pid, pid);
  ::close(pipefd[1]);
  r.started = true;
  r.pid = pid;
  std::string out;
  bool eof = false;
  int status = 0;
  bool reaped = false;
  while (true) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeout_s > 0 && elapsed > timeout_s) {
      ::kill(-pid, SIGKILL);
      r.timed_out = true;
      break;
    }
    if (!eof) {
      pollfd p{pipefd[0], POLLIN, 0};
      int rc = ::poll(&p, 1, 50);
      if (rc > 0) {
        char buf[65536];
        ssize_t n = ::read(pipefd[0], buf, sizeof buf);
        if (n > 0) {
          out.append(buf, static_cast<size_t>(n));
          if (out.size() > 256 * 1024) out.erase(0, out.size() - 128 * 1024);
        } else if (n == 0) {
          eof = true;
          const bool marked = !done_marker.empty() && out.size() >= done_marker.size() &&
                              out.compare(out.size() - done_marker.size(), done_marker.size(), done_marker) == 0;
          if (marked && ::waitpid(pid, &status, WNOHANG) == 0) {
            ::close(pipefd[0]);
            reapLater(pid);
            r.left_running = true;
            r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            r.output = lastOutput(out);
            return r;
          }
          if (marked) {  // it exited as it closed its output: reaped just now
            reaped = true;
            break;
          }
        }
      }
    } else {
      ::usleep(20000);
    }
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      reaped = true;
      // drain what is left
      char buf[65536];
      ssize_t n;
      int fl = ::fcntl(pipefd[0], F_GETFL);
      ::fcntl(pipefd[0], F_SETFL, fl | O_NONBLOCK);
      while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
      break;
    }
  }
  if (!reaped) ::waitpid(pid, &status, 0);
  ::kill(-pid, SIGKILL);  // anything the child left behind in its group
  ::close(pipefd[0]);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.timed_out) {
    if (WIFSIGNALED(status)) {
      r.signaled = true;
      r.signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
      r.exit_code = WEXITSTATUS(status);
    }
  }
  r.output = lastOutput(out);
  return r;
}

}  // namespace klineage
