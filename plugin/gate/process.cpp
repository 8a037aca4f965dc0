#include "gate/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
double steadyNow() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The output as kept: its last 64 KiB.
std::string lastOutput(const std::string& out) {
  return out.size() > 64 * 1024 ? "[...]\n" + out.substr(out.size() - 64 * 1024) : out;
}

// In a forked child: adds the environment entries and execs argv (looked up on PATH); on failure
// says so on stderr and exits 127.
[[noreturn]] void execChild(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
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

// A waitpid status as runProcess tells it: the signal that killed it, or its exit code.
void fillStatus(ProcessResult& r, int status) {
  if (WIFSIGNALED(status)) {
    r.signaled = true;
    r.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  }
}

}  // namespace

// Waits for a child that has closed its output, up to a minute, then kills what is left of its group.
void reapLater(int pid) {
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
    execChild(argv, extra_env);
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
  if (!r.timed_out) fillStatus(r, status);
  r.output = lastOutput(out);
  return r;
}

LineChild::~LineChild() { release(); }

std::string LineChild::start(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
  if (argv.empty()) return "empty command";
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return std::string("socketpair: ") + std::strerror(errno);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    return std::string("fork: ") + std::strerror(errno);
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(sv[1], 0);
    ::dup2(sv[1], 1);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, 2);
    execChild(argv, extra_env);
  }
  ::setpgid(pid, pid);
  ::close(sv[1]);
  pid_ = pid;
  fd_ = sv[0];
  buf_.clear();
  started_ = steadyNow();
  return "";
}

bool LineChild::send(const std::string& line) {
  if (fd_ < 0) return false;
  const std::string out = line + "\n";
  for (size_t at = 0; at < out.size();) {
    const ssize_t n = ::send(fd_, out.data() + at, out.size() - at, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<size_t>(n);
  }
  return true;
}

LineChild::Got LineChild::readLine(double timeout_s, std::string* line) {
  const double end = steadyNow() + timeout_s;
  for (;;) {
    const size_t nl = buf_.find('\n');
    if (nl != std::string::npos) {
      *line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      return Got::Line;
    }
    if (fd_ < 0) return Got::Closed;
    const double left = end - steadyNow();
    if (timeout_s > 0 && left <= 0) return Got::TimedOut;
    pollfd p{fd_, POLLIN, 0};
    const int rc = ::poll(&p, 1, timeout_s > 0 ? std::max(1, static_cast<int>(left * 1000)) : -1);
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    char b[4096];
    const ssize_t n = ::read(fd_, b, sizeof b);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd_);
      fd_ = -1;
      return Got::Closed;
    }
    buf_.append(b, static_cast<size_t>(n));
  }
}

ProcessResult LineChild::kill() {
  ProcessResult r;
  if (pid_ <= 0) return r;
  r.started = true;
  r.pid = pid_;
  r.timed_out = true;
  ::kill(-pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  r.seconds = steadyNow() - started_;
  pid_ = 0;
  return r;
}

ProcessResult LineChild::wait(double max_s) {
  ProcessResult r;
  if (pid_ <= 0) return r;
  r.started = true;
  r.pid = pid_;
  int status = 0;
  const double end = steadyNow() + max_s;
  pid_t w = 0;
  while ((w = ::waitpid(pid_, &status, WNOHANG)) == 0 && steadyNow() < end) ::usleep(5000);
  if (w == 0) {
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    r.timed_out = true;
  } else {
    ::kill(-pid_, SIGKILL);  // anything it left behind in its group
    fillStatus(r, status);
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  r.seconds = steadyNow() - started_;
  pid_ = 0;
  return r;
}

int LineChild::release() {
  const int pid = pid_;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (pid > 0) reapLater(pid);
  pid_ = 0;
  return pid;
}

}  // namespace klineage
