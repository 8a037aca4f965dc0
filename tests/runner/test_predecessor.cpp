// The runner's wait for the runner before it (KLINEAGE_RUNNER_AFTER_PID): until that process is
// gone, and not forever.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "runner/predecessor.h"

using namespace klineage;

namespace {
// A child that sleeps `seconds`, reaped by a thread as soon as it exits (as the gate does).
pid_t sleeper(const char* seconds, std::thread* reaper) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::execlp("sleep", "sleep", seconds, static_cast<char*>(nullptr));
    _exit(127);
  }
  *reaper = std::thread([pid] {
    int st = 0;
    ::waitpid(pid, &st, 0);
  });
  return pid;
}
}  // namespace

TEST_CASE("runner: no predecessor, or a bad pid, is no wait", "[runner]") {
  std::string note;
  CHECK(waitForPredecessor(nullptr, 5, &note) == 0);
  CHECK(note.empty());
  CHECK(waitForPredecessor("", 5, &note) == 0);
  CHECK(waitForPredecessor("12ab", 5, &note) == 0);
  CHECK(note.find("not a process id") != std::string::npos);
  CHECK(waitForPredecessor("-3", 5, &note) == 0);
}

TEST_CASE("runner: waits until the previous runner is gone", "[runner]") {
  std::thread reaper;
  const pid_t pid = sleeper("0.5", &reaper);
  std::string note;
  const double waited = waitForPredecessor(std::to_string(pid).c_str(), 10, &note);
  CHECK(waited >= 0.3);
  CHECK(waited < 5);
  CHECK(note.find("waited") != std::string::npos);
  CHECK(::kill(pid, 0) != 0);
  reaper.join();
  // Gone already: no wait at all.
  CHECK(waitForPredecessor(std::to_string(pid).c_str(), 10, &note) < 0.005);
}

TEST_CASE("runner: a predecessor that does not go away is waited for only max_s", "[runner]") {
  std::thread reaper;
  const pid_t pid = sleeper("3", &reaper);
  std::string note;
  const double waited = waitForPredecessor(std::to_string(pid).c_str(), 0.3, &note);
  CHECK(waited < 0);
  CHECK(-waited < 2);
  CHECK(note.find("still there") != std::string::npos);
  reaper.join();
}
