// Running a child process with a wall-clock limit, capturing its output. The gate runs every
// compiler and every GPU child through this, so a hang or a crash ends only that child.
#pragma once
#include <string>
#include <vector>

namespace klineage {

struct ProcessResult {
  int exit_code = -1;       // valid when !signaled && !timed_out && started
  bool started = false;
  bool signaled = false;    // killed by a signal it did not get from us (crash)
  int signal = 0;
  bool timed_out = false;   // we killed it at the limit
  double seconds = 0;
  int pid = 0;              // the child's process id
  bool left_running = false;  // done_marker: it closed its output so, and is reaped on another thread
  std::string output;       // stdout and stderr together (truncated to the last 64 KiB)
  std::string describe() const;  // "exit 1", "killed by SIGSEGV", "timed out after 10 s"
};

// Runs argv (argv[0] is looked up on PATH) with an optional working directory and extra
// environment entries ("NAME=value"). timeout_s <= 0: no limit. The child gets its own process
// group so that everything it started is killed with it.
// stdin_path: the child's standard input ("" = /dev/null).
// done_marker: when set, the child is done once it has closed its output (stdout and stderr) with
// this as the end of it, even if it has not exited yet: runProcess returns then, with
// left_running set and no exit status, and another thread reaps it (killing its group should it
// take more than a minute). klineage-runner ends its output so once its result is written, and the
// gate starts the next job while the driver tears the last one's context down. Output closed any
// other way (a crash) is waited for as usual, and its exit status told.
ProcessResult runProcess(const std::vector<std::string>& argv, double timeout_s, const std::string& cwd = "",
                         const std::vector<std::string>& extra_env = {}, const std::string& stdin_path = "",
                         const std::string& done_marker = "");

// A child that takes requests and answers them a line at a time (klineage-runner --serve): its
// stdin and stdout are one socket, so a request to a child that died is an error, not SIGPIPE;
// its stderr goes to /dev/null. It has its own process group, killed with it.
class LineChild {
 public:
  enum class Got { Line, Closed, TimedOut };
  LineChild() = default;
  ~LineChild();  // closes its input (it should exit) and reaps it on another thread
  LineChild(const LineChild&) = delete;
  LineChild& operator=(const LineChild&) = delete;
  // Starts argv (argv[0] looked up on PATH) with extra environment entries; "" or why not.
  std::string start(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env);
  bool running() const { return pid_ > 0; }
  int pid() const { return pid_; }
  bool send(const std::string& line);  // adds the newline; false when the child cannot take it
  // The next line (without its newline) within timeout_s, or Closed (the child closed its end:
  // it exits) or TimedOut.
  Got readLine(double timeout_s, std::string* line);
  // Kills its group and waits for it; the status as runProcess tells it.
  ProcessResult kill();
  // The child closed its end (or said it will exit): wait for its exit status (up to max_s, then
  // kill it), as runProcess tells it.
  ProcessResult wait(double max_s);
  // Lets it go: its input is closed, so it exits, and another thread reaps it; returns its pid.
  int release();

 private:
  int pid_ = 0;
  int fd_ = -1;
  std::string buf_;
  double started_ = 0;  // steady clock seconds
};

// Waits for a child that has closed its output, up to a minute, then kills what is left of its group.
void reapLater(int pid);

}  // namespace klineage
