// The runner before this one on the same GPU may still be exiting when this one starts: the gate
// starts the next job once a runner has written its result and closed its output, so that one's
// context teardown overlaps this one's start-up (cuInit, context, modules). This runner waits for
// it to be gone before it allocates anything: the two never hold buffers at once, and no timed run
// overlaps the teardown.
#pragma once
#include <string>

namespace klineage {

// `pid_text` is KLINEAGE_RUNNER_AFTER_PID (null or empty: no predecessor). Waits until that process
// no longer exists, at most max_s seconds. Returns the seconds waited, or a negative number when it
// gave up at max_s (the process is still there); "" in *note, or what to log.
double waitForPredecessor(const char* pid_text, double max_s, std::string* note);

// Once the result is written: says so ("klineage-runner: result written", the gate's cue), then
// stdout and stderr go to /dev/null, so the gate sees the end of the output and need not wait for
// the process to exit.
void releaseOutput();

}  // namespace klineage
