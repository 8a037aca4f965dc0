// The gate's plumbing without nvcc or a GPU: child processes with limits (process.h), the
// compiler and runner interfaces with fake programs (gate.h), selection of the best variant
// (variant.h) and the materialize decision (selection.h).
#include <catch2/catch.hpp>

#include "support/temp_dir.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/diag.h"
#include "core/fs.h"
#include "core/manifest.h"
#include "gate/gate.h"
#include "gate/process.h"
#include "gate/selection.h"
#include "gate/variant.h"

using namespace klineage;
namespace fs = std::filesystem;

namespace {

struct TempDir : test::TempDir {
  TempDir() : test::TempDir("gate") {}
};

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// --- runProcess ----------------------------------------------------------------------------------

TEST_CASE("runProcess: exit code and output (stdout and stderr)", "[process]") {
  ProcessResult r = runProcess({"sh", "-c", "echo to-out; echo to-err >&2; exit 3"}, 10);
  CHECK(r.started);
  CHECK(!r.timed_out);
  CHECK(!r.signaled);
  CHECK(r.exit_code == 3);
  CHECK(has(r.output, "to-out"));
  CHECK(has(r.output, "to-err"));
  CHECK(r.describe() == "exit 3");

  ProcessResult ok = runProcess({"true"}, 10);
  CHECK(ok.exit_code == 0);
  CHECK(ok.output.empty());
}

TEST_CASE("runProcess: working directory and extra environment", "[process]") {
  TempDir t;
  ProcessResult r = runProcess({"sh", "-c", "pwd; echo \"v=$KLT_VALUE\""}, 10, t.path.string(), {"KLT_VALUE=42"});
  CHECK(r.exit_code == 0);
  CHECK(has(r.output, t.path.string() + "\n"));
  CHECK(has(r.output, "v=42"));
}

TEST_CASE("runProcess: a program that does not exist", "[process]") {
  ProcessResult r = runProcess({"/nonexistent/klineage-no-such-program"}, 10);
  CHECK(!r.signaled);
  CHECK(!r.timed_out);
  CHECK(r.exit_code == 127);
  CHECK(has(r.output, "/nonexistent/klineage-no-such-program"));
}

TEST_CASE("runProcess: a hang is killed at the limit", "[process]") {
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = runProcess({"sleep", "5"}, 0.5);
  double took = since(t0);
  CHECK(r.timed_out);
  CHECK(!r.signaled);  // we killed it; not a crash
  CHECK(took >= 0.5);
  CHECK(took < 1.5);
  CHECK(has(r.describe(), "timed out"));
}

TEST_CASE("runProcess: children of the child are killed with it", "[process]") {
  auto t0 = std::chrono::steady_clock::now();
  // the shell waits for a grandchild that would outlive the limit
  ProcessResult r = runProcess({"sh", "-c", "sleep 30 & wait"}, 0.5);
  CHECK(r.timed_out);
  CHECK(since(t0) < 1.5);

  // the child exits, leaving a background grandchild that holds the output pipe open
  t0 = std::chrono::steady_clock::now();
  ProcessResult r2 = runProcess({"sh", "-c", "sleep 30 & echo parent-done"}, 20);
  CHECK(!r2.timed_out);
  CHECK(r2.exit_code == 0);
  CHECK(has(r2.output, "parent-done"));
  CHECK(since(t0) < 5);
}

TEST_CASE("runProcess: done_marker returns once the child closes its output so, and reaps it later", "[process]") {
  // The child writes, closes stdout and stderr, and lives on for 3 s (a runner tearing down its
  // context after writing its result).
  const std::vector<std::string> argv{"sh", "-c", "echo result-written; exec >/dev/null 2>&1; sleep 3"};
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = runProcess(argv, 20, "", {}, "", "result-written\n");
  CHECK(since(t0) < 2);
  CHECK(r.left_running);
  CHECK(r.pid > 0);
  CHECK(has(r.output, "result-written"));
  CHECK(has(r.describe(), "closed its output"));
  CHECK(::kill(r.pid, 0) == 0);  // still there
  // Reaped by the other thread once it exits: then the pid no longer names a process.
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    gone = ::kill(r.pid, 0) != 0;
  }
  CHECK(gone);
  // Without the marker the caller waits for the exit, and gets the exit code: output closed
  // without the marker, or no marker asked for.
  for (const std::string marker : {"result-written\n", ""}) {
    t0 = std::chrono::steady_clock::now();
    ProcessResult w = runProcess({"sh", "-c", "echo x; exec >/dev/null 2>&1; sleep 1; exit 4"}, 20, "", {}, "", marker);
    CHECK(since(t0) >= 1);
    CHECK_FALSE(w.left_running);
    CHECK(w.exit_code == 4);
  }
  // A crash right after the marker's line is not taken for the marker's cue unless the output
  // ends with it: here more follows, so the crash is waited for and told.
  ProcessResult c = runProcess({"sh", "-c", "echo result-written; echo more; kill -SEGV $$"}, 20, "", {}, "", "result-written\n");
  CHECK_FALSE(c.left_running);
  CHECK(c.signaled);
}

TEST_CASE("runProcess: a crash is reported as a signal", "[process]") {
  ProcessResult r = runProcess({"sh", "-c", "kill -SEGV $$"}, 10);
  CHECK(r.started);
  CHECK(r.signaled);
  CHECK(r.signal == SIGSEGV);
  CHECK(!r.timed_out);
  CHECK(has(r.describe(), std::to_string(SIGSEGV)));
}

TEST_CASE("runProcess: output beyond 64 KiB keeps the end", "[process]") {
  // 20000 lines of 10 bytes (200 kB), then a final marker
  ProcessResult r = runProcess({"sh", "-c", "i=0; while [ $i -lt 20000 ]; do echo xxxxxxxxx; i=$((i+1)); done; echo END-MARK"}, 30);
  CHECK(r.exit_code == 0);
  CHECK(r.output.size() <= 64 * 1024 + 16);
  CHECK(has(r.output, "END-MARK"));
  CHECK(r.output.rfind("[...]", 0) == 0);
}

// --- compileAll / makeProcessCompiler ------------------------------------------------------------

namespace {
class CountingCompiler : public Compiler {
 public:
  std::atomic<int> calls{0}, running{0}, max_running{0};
  CompileResult compile(const CompileRequest& req) override {
    ++calls;
    int now = ++running;
    int seen = max_running.load();
    while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
    }
    // finish out of order: later requests are quicker
    std::this_thread::sleep_for(std::chrono::milliseconds(2 * (20 - std::stoi(req.argv[1]))));
    --running;
    CompileResult r;
    r.ok = std::stoi(req.argv[1]) % 3 != 0;
    r.log = "log of " + req.id;
    return r;
  }
};
}  // namespace

TEST_CASE("compileAll: every request once, results in request order", "[gate]") {
  std::vector<CompileRequest> reqs;
  for (int i = 0; i < 20; ++i) reqs.push_back({"k/" + std::to_string(i), {"fake", std::to_string(i)}, ""});
  for (unsigned jobs : {0u, 1u, 4u}) {
    CountingCompiler c;
    auto res = compileAll(c, reqs, jobs);
    CHECK(c.calls == 20);
    CHECK(c.max_running <= static_cast<int>(std::max(1u, jobs)));
    REQUIRE(res.size() == 20);
    for (int i = 0; i < 20; ++i) {
      CHECK(res[i].log == "log of k/" + std::to_string(i));
      CHECK(res[i].ok == (i % 3 != 0));
    }
  }
  CountingCompiler c;
  CHECK(compileAll(c, {}, 4).empty());
  CHECK(c.calls == 0);
}

TEST_CASE("makeProcessCompiler: runs the command, keeps the output only on success", "[gate]") {
  TempDir t;
  // A stand-in for nvcc: finds -o, then behaves as its first argument says.
  std::string fake = t.write("fake-nvcc.sh", R"(#!/bin/sh
mode=$1
out=
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then out=$2; fi
  shift
done
case "$mode" in
  ok)      printf 'CUBIN' > "$out"; echo "compiled"; exit 0 ;;
  fail)    printf 'partial' > "$out"; echo "k.cu(3): error: identifier \"q\" is undefined" >&2; exit 2 ;;
  nooutput) exit 0 ;;
  hang)    sleep 10 ;;
esac
)",
                             true);
  std::string cubin = (t.path / "gate/saxpy/1.cubin").string();
  auto compiler = makeProcessCompiler(0.5);
  auto leftovers = [&] {
    std::vector<std::string> tmp;
    if (fs::exists(t.path / "gate/saxpy"))
      for (const auto& e : fs::directory_iterator(t.path / "gate/saxpy"))
        if (e.path().extension() == ".tmp") tmp.push_back(e.path().string());
    return tmp;
  };

  SECTION("success: the cubin appears under its name, nothing else") {
    CompileResult r = compiler->compile({"saxpy/1", {fake, "ok", "-cubin", "-o", cubin, "k.cu"}, cubin});
    CHECK(r.ok);
    CHECK(has(r.log, "compiled"));
    REQUIRE(fs::exists(cubin));
    CHECK(readFile(cubin) == "CUBIN");
    CHECK(leftovers().empty());
  }
  SECTION("failure: the compiler's message is the log; no cubin, no temp file") {
    CompileResult r = compiler->compile({"saxpy/1", {fake, "fail", "-cubin", "-o", cubin, "k.cu"}, cubin});
    CHECK(!r.ok);
    CHECK(has(r.log, "identifier \"q\" is undefined"));
    CHECK(!fs::exists(cubin));
    CHECK(leftovers().empty());
  }
  SECTION("exit 0 without an output file is a failure") {
    CompileResult r = compiler->compile({"saxpy/1", {fake, "nooutput", "-o", cubin, "k.cu"}, cubin});
    CHECK(!r.ok);
    CHECK(!fs::exists(cubin));
  }
  SECTION("a hanging compiler is killed at the limit") {
    auto t0 = std::chrono::steady_clock::now();
    CompileResult r = compiler->compile({"saxpy/1", {fake, "hang", "-o", cubin, "k.cu"}, cubin});
    CHECK(since(t0) < 3);
    CHECK(!r.ok);
    CHECK(has(r.log, "timed out"));
    CHECK(!fs::exists(cubin));
    CHECK(leftovers().empty());
  }
  SECTION("a stale cubin from an earlier run is replaced") {
    t.write("gate/saxpy/1.cubin", "OLD");
    CompileResult r = compiler->compile({"saxpy/1", {fake, "ok", "-o", cubin, "k.cu"}, cubin});
    CHECK(r.ok);
    CHECK(readFile(cubin) == "CUBIN");
  }
}

// --- makeChildRunner -----------------------------------------------------------------------------

namespace {
// A stand-in for klineage-runner: `--probe`, or `<job.json> <result.json>`; behaviour from $MODE
// is not possible (runProcess gets no env here), so each mode is its own script.
std::string fakeRunner(const TempDir& t, const std::string& name, const std::string& body) {
  return t.write(name, "#!/bin/sh\n" + body + "\n", true);
}

RunnerJob sampleJob() {
  RunnerJob job;
  job.original = {"/g/original.cubin", "_Z5saxpyifPKfPf", {262144, 1, 1}, {256, 1, 1}, 0};
  job.variant = {"/g/1.cubin", "_Z5saxpyifPKfPf", {65536, 1, 1}, {256, 1, 1}, 0};
  ParamSpec n;
  n.name = "n";
  n.type = ElemType::I32;
  n.ivalue = 67108864;
  job.params.push_back(n);
  return job;
}
}  // namespace

TEST_CASE("makeChildRunner: a passing run's result.json is read back", "[gate]") {
  TempDir t;
  std::string runner = fakeRunner(t, "pass.sh", R"SH(cp "$1" "$(dirname "$2")/job-seen.json"
cat > "$2" <<'EOF'
{"format": "klineage-runner-result-1", "status": "ok", "outcome": "passed", "reason": "outputs match on 3 input set(s)",
 "device": "Fake GPU (sm_90)", "compares": [{"param": "y", "ok": true, "mismatches": 0, "max_abs_err": 0,
 "max_rel_err": 0, "expected": "", "actual": "", "first_mismatch": null}], "speedup": 1.42, "noise": 0.01,
 "original_time": {"median_ms": 1.0, "p10_ms": 0.9, "p90_ms": 1.1, "min_ms": 0.9, "runs": 20},
 "variant_time": {"median_ms": 0.704, "p10_ms": 0.7, "p90_ms": 0.71, "min_ms": 0.7, "runs": 20}}
EOF
echo runner-says-hello)SH");
  auto r = makeChildRunner(runner);
  std::string wd = (t.path / "gate/saxpy/1").string();
  RunnerJob job = sampleJob();
  RunnerResult res = r->run(job, wd, 10);
  CHECK(res.outcome == Outcome::Passed);
  CHECK(res.speedup == Approx(1.42));
  CHECK(res.device == "Fake GPU (sm_90)");
  REQUIRE(res.variant_time);
  CHECK(res.variant_time->median_ms == Approx(0.704));
  REQUIRE(res.compares.size() == 1);
  CHECK(res.compares[0].param == "y");
  // the runner got the job as JSON, and its output is kept in runner.log
  RunnerJob seen = nlohmann::json::parse(readFile(fs::path(wd) / "job-seen.json")).get<RunnerJob>();
  CHECK(seen.original.function == "_Z5saxpyifPKfPf");
  CHECK(seen.variant.grid.x == 65536);
  REQUIRE(seen.params.size() == 1);
  CHECK(seen.params[0].ivalue == 67108864);
  CHECK(has(readFile(fs::path(wd) / "runner.log"), "runner-says-hello"));

  VariantReport rep;
  rep.variant.kernel = "saxpy";
  rep.variant.skills = {"grid-stride-loop", "vectorize-float4"};
  recordRun(rep, res);
  CHECK(rep.outcome == Outcome::Passed);
  CHECK(rep.speedup == Approx(1.42));
  CHECK(rep.variant_ms == Approx(0.704));
  CHECK(rep.original_ms == Approx(1.0));
  // the gate's judge() decides passed from the timings: 1.42x beyond the noise (p10..p90 of the original)
  CHECK(rep.reason == "1.42x (noise 10.0%); outputs match on 3 input set(s)");
  REQUIRE(rep.run);
}

TEST_CASE("makeChildRunner: the next runner starts while the last one exits, and is told its pid", "[gate]") {
  TempDir t;
  // Like klineage-runner: the result, then the output closed, then a slow exit (context teardown).
  std::string runner = fakeRunner(t, "slow-exit.sh", R"SH(echo "after=[$KLINEAGE_RUNNER_AFTER_PID] me=[$$]"
cat > "$2" <<'EOF'
{"format": "klineage-runner-result-1", "status": "ok", "outcome": "passed", "reason": "", "device": "Fake GPU (sm_90)",
 "compares": [], "speedup": 1.0, "noise": 0.01, "original_time": null, "variant_time": null}
EOF
echo "klineage-runner: result written" >&2
exec >/dev/null 2>&1
sleep 2)SH");
  auto r = makeChildRunner(runner);
  auto t0 = std::chrono::steady_clock::now();
  const std::string wd1 = (t.path / "gate/saxpy/1").string(), wd2 = (t.path / "gate/saxpy/2").string();
  CHECK(r->run(sampleJob(), wd1, 10).outcome == Outcome::Passed);
  CHECK(r->run(sampleJob(), wd2, 10).outcome == Outcome::Passed);
  CHECK(since(t0) < 3);  // neither waited for its runner's 2 s exit
  const std::string log1 = readFile(fs::path(wd1) / "runner.log"), log2 = readFile(fs::path(wd2) / "runner.log");
  CHECK(has(log1, "after=[]"));
  const size_t at = log1.find("me=[") + 4;
  const std::string me = log1.substr(at, log1.find(']', at) - at);
  CHECK(!me.empty());
  CHECK(has(log2, "after=[" + me + "]"));  // the second runner waits for the first before allocating
}

TEST_CASE("makeChildRunner: hangs, crashes and silent failures", "[gate]") {
  TempDir t;
  std::string wd = (t.path / "gate/k/1").string();
  SECTION("a runner that outlives the limit is a timeout") {
    auto r = makeChildRunner(fakeRunner(t, "hang.sh", "sleep 30"));
    auto t0 = std::chrono::steady_clock::now();
    RunnerResult res = r->run(sampleJob(), wd, 1);
    CHECK(since(t0) < 3);
    CHECK(res.outcome == Outcome::Timeout);
    CHECK(has(res.reason, "killed after 1 s"));
  }
  SECTION("a runner killed by SIGSEGV is runtime-failed, naming the signal") {
    auto r = makeChildRunner(fakeRunner(t, "segv.sh", "echo about-to-crash\nkill -SEGV $$"));
    RunnerResult res = r->run(sampleJob(), wd, 10);
    CHECK(res.outcome == Outcome::RuntimeFailed);
    CHECK(has(res.reason, "signal " + std::to_string(SIGSEGV)));
    CHECK(has(res.reason, "about-to-crash"));
  }
  SECTION("exit 1 without a result") {
    auto r = makeChildRunner(fakeRunner(t, "fail.sh", "echo 'bad job: no cubin' >&2; exit 1"));
    RunnerResult res = r->run(sampleJob(), wd, 10);
    CHECK(res.outcome == Outcome::RuntimeFailed);
    CHECK(has(res.reason, "exit 1"));
    CHECK(has(res.reason, "bad job: no cubin"));
  }
  SECTION("an unreadable result.json is runtime-failed and says so") {
    auto r = makeChildRunner(fakeRunner(t, "garbage.sh", "echo '{\"outcome\": ' > \"$2\""));
    RunnerResult res = r->run(sampleJob(), wd, 10);
    CHECK(res.outcome == Outcome::RuntimeFailed);
    CHECK(has(res.reason, "unreadable result"));
  }
  SECTION("a result left by an earlier run is not taken for this run's") {
    auto pass = makeChildRunner(fakeRunner(t, "pass.sh", "echo '{\"status\":\"ok\",\"outcome\":\"passed\",\"speedup\":2}' > \"$2\""));
    REQUIRE(pass->run(sampleJob(), wd, 10).outcome == Outcome::Passed);
    auto crash = makeChildRunner(fakeRunner(t, "crash.sh", "exit 3"));
    RunnerResult res = crash->run(sampleJob(), wd, 10);
    CHECK(res.outcome == Outcome::RuntimeFailed);
    CHECK(has(res.reason, "exit 3"));
  }
  SECTION("a missing runner program") {
    auto r = makeChildRunner((t.path / "no-such-runner").string());
    RunnerResult res = r->run(sampleJob(), wd, 10);
    CHECK(res.outcome == Outcome::RuntimeFailed);
    CHECK(r->probe().available == false);
  }
}

namespace {
// A stand-in for a serving klineage-runner (docs/runner-job.md, "Serving"): its probe says it
// serves; --serve answers tab-separated requests, and what it does with a job depends on the work
// dir's name. A job given to it on the command line runs in a process of its own.
std::string fakeServer(const TempDir& t, const std::string& name, const std::string& serve_start = "") {
  return t.write(name, R"SH(#!/bin/sh
if [ "$1" = "--probe" ]; then
  echo '{"status":"ok","device":"Fake GPU","sm":"90","l2_bytes":0,"count":1,"serve":true}'
  exit 0
fi
if [ "$1" != "--serve" ]; then
  echo "own process me=[$$] after=[$KLINEAGE_RUNNER_AFTER_PID]"
  echo '{"status":"ok","outcome":"passed","speedup":1.5}' > "$2"
  exit 0
fi
)SH" + serve_start + R"SH(
echo 'klineage-runner: serving {"status":"ok"}'
tab=$(printf '\t')
while IFS="$tab" read -r job result log; do
  echo "served me=[$$] after=[$KLINEAGE_RUNNER_AFTER_PID]" >> "$log"
  case "$job" in
    */crash/*) echo about-to-crash >> "$log"; kill -SEGV $$ ;;
    */hang/*) sleep 30 ;;
    */watchdog/*) echo '{"status":"ok","outcome":"timeout","reason":"the variant did not finish within 1 s"}' > "$result"
                  exit 0 ;;
  esac
  echo '{"status":"ok","outcome":"passed","speedup":2}' > "$result"
  case "$job" in */unfit/*) echo "klineage-runner: done 0 exit"; sleep 1; exit 0 ;; esac
  echo "klineage-runner: done 0 next"
done
)SH", true);
}

// "me=[123] after=[]" in a runner.log: the pid that ran the job, and the one it was told to wait for.
std::pair<std::string, std::string> whoRan(const std::string& wd) {
  const std::string log = readFile(fs::path(wd) / "runner.log");
  auto field = [&](const std::string& key) {
    const size_t at = log.find(key + "=[");
    if (at == std::string::npos) return std::string("?");
    const size_t from = at + key.size() + 2;
    return log.substr(from, log.find(']', from) - from);
  };
  return {field("me"), field("after")};
}
}  // namespace

TEST_CASE("makeChildRunner: a serving runner takes job after job in one process", "[gate]") {
  TempDir t;
  auto r = makeChildRunner(fakeServer(t, "serve.sh"));
  REQUIRE(r->probe().available);
  auto wd = [&](const std::string& kind, int i) { return (t.path / "gate" / kind / std::to_string(i)).string(); };
  for (int i = 1; i <= 3; ++i) {
    RunnerResult res = r->run(sampleJob(), wd("k", i), 10);
    CHECK(res.outcome == Outcome::Passed);
    CHECK(res.speedup == Approx(2));
  }
  const std::string first = whoRan(wd("k", 1)).first;
  CHECK(first != "?");
  CHECK(whoRan(wd("k", 2)).first == first);
  CHECK(whoRan(wd("k", 3)).first == first);
  CHECK(has(readFile(fs::path(wd("k", 3)) / "runner.log"), "klineage: the serving runner took"));
  // the job file it was given is this job's
  CHECK(nlohmann::json::parse(readFile(fs::path(wd("k", 3)) / "job.json")).get<RunnerJob>().variant.grid.x == 65536);

  SECTION("a crash is runtime-failed, naming the signal and the log's end, and the next job gets a new process") {
    RunnerResult res = r->run(sampleJob(), wd("crash", 1), 10);
    CHECK(res.outcome == Outcome::RuntimeFailed);
    CHECK(has(res.reason, "signal " + std::to_string(SIGSEGV)));
    CHECK(has(res.reason, "about-to-crash"));
    CHECK(r->run(sampleJob(), wd("k", 4), 10).outcome == Outcome::Passed);
    CHECK(whoRan(wd("k", 4)).first != first);
    CHECK(whoRan(wd("k", 4)).second == "");  // the crashed one was waited for
  }
  SECTION("a hang is killed at the limit, and the next job gets a new process") {
    const auto t0 = std::chrono::steady_clock::now();
    RunnerResult res = r->run(sampleJob(), wd("hang", 1), 1);
    CHECK(since(t0) < 3);
    CHECK(res.outcome == Outcome::Timeout);
    CHECK(has(res.reason, "killed after 1 s"));
    CHECK(r->run(sampleJob(), wd("k", 4), 10).outcome == Outcome::Passed);
    CHECK(whoRan(wd("k", 4)).first != first);
  }
  SECTION("a runner that writes its watchdog's result and exits: that result") {
    RunnerResult res = r->run(sampleJob(), wd("watchdog", 1), 10);
    CHECK(res.outcome == Outcome::Timeout);
    CHECK(has(res.reason, "did not finish within 1 s"));
    CHECK(r->run(sampleJob(), wd("k", 4), 10).outcome == Outcome::Passed);
  }
  SECTION("a runner that takes no more jobs: the next one waits for it to be gone") {
    CHECK(r->run(sampleJob(), wd("unfit", 1), 10).outcome == Outcome::Passed);
    const auto t0 = std::chrono::steady_clock::now();
    CHECK(r->run(sampleJob(), wd("k", 4), 10).outcome == Outcome::Passed);
    CHECK(since(t0) < 0.9);  // its 1 s exit is not waited for here
    CHECK(whoRan(wd("k", 4)).first != first);
    CHECK(whoRan(wd("k", 4)).second == first);
    CHECK(has(readFile(fs::path(wd("unfit", 1)) / "runner.log"), "its process ended after it"));
  }
  SECTION("the sanitizer's run has the GPU alone: the serving runner is let go first") {
    const std::string sanitizer = t.write("fake-sanitizer.sh", "#!/bin/sh\nshift 6\nexec \"$@\"\n", true);
    CHECK(r->sanitize(sampleJob(), wd("san", 1), 10, sanitizer, "memcheck").outcome == Outcome::Passed);
    CHECK(has(readFile(fs::path(wd("san", 1)) / "runner.log"), "own process"));
    CHECK(whoRan(wd("san", 1)).second == first);
  }
}

TEST_CASE("makeChildRunner: without a serving runner every job has a process of its own", "[gate]") {
  TempDir t;
  const std::string wd1 = (t.path / "gate/k/1").string(), wd2 = (t.path / "gate/k/2").string();
  SECTION("no probe yet: whether the runner serves is not known") {
    auto r = makeChildRunner(fakeServer(t, "serve.sh"));
    CHECK(r->run(sampleJob(), wd1, 10).speedup == Approx(1.5));
    CHECK(has(readFile(fs::path(wd1) / "runner.log"), "own process"));
  }
  SECTION("KLINEAGE_RUNNER_SERVE=0") {
    ::setenv("KLINEAGE_RUNNER_SERVE", "0", 1);
    auto r = makeChildRunner(fakeServer(t, "serve.sh"));
    REQUIRE(r->probe().available);
    ::unsetenv("KLINEAGE_RUNNER_SERVE");
    CHECK(r->run(sampleJob(), wd1, 10).speedup == Approx(1.5));
    CHECK(has(readFile(fs::path(wd1) / "runner.log"), "own process"));
  }
  SECTION("a serving runner that does not start: each job runs on its own, and serving is given up") {
    auto r = makeChildRunner(
        fakeServer(t, "broken.sh", "echo start >> \"$(dirname \"$0\")/starts\"; echo 'cannot open the device'; exit 3"));
    REQUIRE(r->probe().available);
    for (const auto& wd : {wd1, wd2, (t.path / "gate/k/3").string()}) {
      RunnerResult res = r->run(sampleJob(), wd, 10);
      CHECK(res.outcome == Outcome::Passed);
      CHECK(res.speedup == Approx(1.5));
    }
    CHECK(readFile(t.path / "starts") == "start\nstart\n");  // two tries, then no more
  }
}

TEST_CASE("makeChildRunner: probe", "[gate]") {
  TempDir t;
  SECTION("no device") {
    auto r = makeChildRunner(fakeRunner(t, "p1.sh", R"(echo '{"status":"no-device","reason":"x"}'; exit 1)"));
    DeviceProbe d = r->probe();
    CHECK(!d.available);
    CHECK(d.reason == "x");
  }
  SECTION("a device, after other output") {
    auto r = makeChildRunner(fakeRunner(
        t, "p2.sh", R"(echo 'loading libcuda.so.1'; echo '{"status":"ok","device":"NVIDIA H200","sm":"90","l2_bytes":62914560}')"));
    DeviceProbe d = r->probe();
    CHECK(d.available);
    CHECK(d.device == "NVIDIA H200");
    CHECK(d.arch == "sm_90");
  }
  SECTION("garbage") {
    auto r = makeChildRunner(fakeRunner(t, "p3.sh", "echo 'Segmentation fault'; exit 139"));
    DeviceProbe d = r->probe();
    CHECK(!d.available);
    CHECK(has(d.reason, "--probe"));
    CHECK(has(d.reason, "Segmentation fault"));
  }
}

// --- selectBest ----------------------------------------------------------------------------------

namespace {
VariantReport rep(const std::string& kernel, const std::string& id, Outcome o, double speedup,
                  std::vector<std::string> transforms, bool original = false) {
  VariantReport r;
  r.variant.id = kernel + "/" + id;
  r.variant.kernel = kernel;
  r.variant.transforms = transforms;
  r.variant.skills = transforms;
  r.variant.is_original = original;
  r.outcome = o;
  r.speedup = speedup;
  return r;
}
}  // namespace

TEST_CASE("selectBest: the fastest passing variant per kernel", "[select]") {
  std::vector<VariantReport> v = {
      rep("a", "original", Outcome::Passed, 9.0, {}, true),   // the reference is never "selected"
      rep("a", "1", Outcome::Passed, 1.20, {"grid-stride-loop"}),
      rep("a", "2", Outcome::Passed, 1.50, {"grid-stride-loop", "vectorize-access"}),
      rep("a", "3", Outcome::Slower, 3.00, {"launch-bounds"}),
      rep("a", "4", Outcome::WrongResult, 4.00, {"restrict-pointers"}),
      rep("a", "5", Outcome::NotRun, 5.00, {"x"}),
      rep("a", "6", Outcome::RuntimeFailed, 6.00, {"y"}),
      rep("a", "7", Outcome::Timeout, 7.00, {"z"}),
      rep("a", "8", Outcome::CompileFailed, 8.00, {"w"}),
      rep("b", "1", Outcome::WrongResult, 2.0, {"vectorize-access"}),
      rep("b", "2", Outcome::Slower, 0.9, {"grid-stride-loop"}),
      rep("c", "original", Outcome::Passed, 1.0, {}, true),
  };
  auto best = selectBest(v);
  REQUIRE(best.count("a"));
  CHECK(best["a"]->variant.id == "a/2");
  CHECK(best.count("b") == 0);  // nothing passed
  CHECK(best.count("c") == 0);  // only the original
  CHECK(best.size() == 1);
  CHECK(selectBest({}).empty());
}

TEST_CASE("selectBest: within 0.5% the variant with fewer transforms wins, in any order", "[select]") {
  auto pick = [](std::vector<VariantReport> v) { return selectBest(v).at("k")->variant.id; };
  VariantReport two = rep("k", "two", Outcome::Passed, 1.300, {"grid-stride-loop", "vectorize-access"});
  VariantReport one = rep("k", "one", Outcome::Passed, 1.297, {"grid-stride-loop"});  // 0.23% slower
  CHECK(pick({two, one}) == "k/one");
  CHECK(pick({one, two}) == "k/one");
  // 1.0% apart is not a tie: the faster one, transforms notwithstanding
  VariantReport faster = rep("k", "faster", Outcome::Passed, 1.310, {"grid-stride-loop", "vectorize-access"});
  VariantReport slower = rep("k", "slower", Outcome::Passed, 1.297, {"grid-stride-loop"});
  CHECK(pick({faster, slower}) == "k/faster");
  CHECK(pick({slower, faster}) == "k/faster");
  // a "passed" report without a measured speedup is not a winner
  VariantReport unmeasured = rep("k", "unmeasured", Outcome::Passed, 0.0, {});
  CHECK(selectBest({unmeasured}).empty());
}

// --- selection.json and the materialize decision -------------------------------------------------

TEST_CASE("fnv1a64Hex: the standard FNV-1a 64-bit test vectors", "[selection]") {
  CHECK(fnv1a64Hex("") == "cbf29ce484222325");
  CHECK(fnv1a64Hex("a") == "af63dc4c8601ec8c");
  CHECK(fnv1a64Hex("foobar") == "85944171f73967e8");
}

namespace {
Selection sampleSelection() {
  Selection s;
  SelectedSource src;
  src.original = "/p/src/saxpy.cu";
  src.selected = "/b/klineage/kernels/selected/17/src/saxpy.cu";
  SelectedKernel k;
  k.name = "saxpy";
  k.kernel_hash = "0123456789abcdef";
  k.variant_id = "saxpy/3";
  k.skills = {"grid-stride-loop", "vectorize-float4"};
  k.geometry.grid_x_divisor = 4;
  k.geometry.block_x = 128;
  k.speedup = 1.37;
  src.kernels.push_back(k);
  src.launches_rewritten_for = {"saxpy"};
  src.depends_on["/p/src/saxpy.cu"] = fnv1a64Hex("saxpy source v1");
  src.depends_on["/p/include/kernels.h"] = fnv1a64Hex("header v1");
  s.sources.push_back(src);
  return s;
}
}  // namespace

TEST_CASE("decideMaterialize: fresh, stale, absent", "[selection]") {
  Selection sel = sampleSelection();
  std::map<std::string, std::string> files = {{"/p/src/saxpy.cu", "saxpy source v1"},
                                              {"/p/include/kernels.h", "header v1"},
                                              {"/p/src/relu.cu", "relu"}};
  int reads = 0;
  auto read = [&](const std::string& f) {
    ++reads;
    auto it = files.find(f);
    if (it == files.end()) throw std::runtime_error("cannot read " + f);
    return it->second;
  };
  SECTION("every file as it was: the selected copy") {
    auto d = decideMaterialize(sel, "/p/src/saxpy.cu", read);
    CHECK(d.use_selected);
    REQUIRE(d.entry);
    CHECK(d.entry->selected == "/b/klineage/kernels/selected/17/src/saxpy.cu");
    CHECK(d.changed_files.empty());
    CHECK(reads == 2);
  }
  SECTION("a header it depends on changed: the original, naming the header") {
    files["/p/include/kernels.h"] = "header v2";
    auto d = decideMaterialize(sel, "/p/src/saxpy.cu", read);
    CHECK(!d.use_selected);
    CHECK(d.entry);
    CHECK(d.changed_files == std::vector<std::string>{"/p/include/kernels.h"});
  }
  SECTION("the source itself changed") {
    files["/p/src/saxpy.cu"] = "saxpy source v2";
    auto d = decideMaterialize(sel, "/p/src/saxpy.cu", read);
    CHECK(!d.use_selected);
    CHECK(d.changed_files == std::vector<std::string>{"/p/src/saxpy.cu"});
  }
  SECTION("a file it depends on was deleted") {
    files.erase("/p/include/kernels.h");
    auto d = decideMaterialize(sel, "/p/src/saxpy.cu", read);
    CHECK(!d.use_selected);
    CHECK(d.changed_files == std::vector<std::string>{"/p/include/kernels.h"});
  }
  SECTION("a source with no entry: the original, nothing read") {
    auto d = decideMaterialize(sel, "/p/src/relu.cu", read);
    CHECK(!d.use_selected);
    CHECK(!d.entry);
    CHECK(d.changed_files.empty());
    CHECK(reads == 0);
  }
  SECTION("an entry without a selected file is not used") {
    sel.sources[0].selected.clear();
    CHECK(!decideMaterialize(sel, "/p/src/saxpy.cu", read).use_selected);
  }
  SECTION("an empty selection") { CHECK(!decideMaterialize(Selection{}, "/p/src/saxpy.cu", read).use_selected); }
}

TEST_CASE("selection.json: written and read back", "[selection]") {
  Selection s = sampleSelection();
  Selection back = selectionFromJson(nlohmann::json::parse(nlohmann::json(s).dump()));
  REQUIRE(back.sources.size() == 1);
  const SelectedSource& a = s.sources[0];
  const SelectedSource& b = back.sources[0];
  CHECK(b.original == a.original);
  CHECK(b.selected == a.selected);
  CHECK(b.launches_rewritten_for == a.launches_rewritten_for);
  CHECK(b.depends_on == a.depends_on);
  REQUIRE(b.kernels.size() == 1);
  CHECK(b.kernels[0].name == "saxpy");
  CHECK(b.kernels[0].kernel_hash == "0123456789abcdef");
  CHECK(b.kernels[0].variant_id == "saxpy/3");
  CHECK(b.kernels[0].skills == a.kernels[0].skills);
  CHECK(b.kernels[0].geometry.grid_x_divisor == 4);
  REQUIRE(b.kernels[0].geometry.block_x);
  CHECK(*b.kernels[0].geometry.block_x == 128);
  CHECK(b.kernels[0].speedup == Approx(1.37));
  CHECK(nlohmann::json(s)["format"] == "klineage-selection-1");
  CHECK(back.find("/p/src/saxpy.cu") == &back.sources[0]);
  CHECK(back.find("/p/src/relu.cu") == nullptr);
}

TEST_CASE("loadSelection: missing, placeholder, malformed", "[selection]") {
  TempDir t;
  CHECK(loadSelection((t.path / "none.json").string()).sources.empty());
  // what klineage_optimize() writes at configure time
  std::string placeholder = t.write("placeholder.json", "{\"format\": \"klineage-selection-1\", \"kernels\": []}\n");
  CHECK(loadSelection(placeholder).sources.empty());
  std::string real = t.write("selection.json", nlohmann::json(sampleSelection()).dump(2));
  Selection s = loadSelection(real);
  REQUIRE(s.sources.size() == 1);
  CHECK(s.sources[0].kernels.at(0).name == "saxpy");
  std::string bad = t.write("bad.json", "{\"sources\": [");
  try {
    loadSelection(bad);
    FAIL("no InputError");
  } catch (const InputError& e) {
    CHECK(e.file == bad);
  }
}

TEST_CASE("originalWithLineDirective", "[selection]") {
  CHECK(originalWithLineDirective("/p/src/k.cu", "int x;\n") == "#line 1 \"/p/src/k.cu\"\nint x;\n");
  CHECK(originalWithLineDirective("/p/we\"ird\\dir/k.cu", "") == "#line 1 \"/p/we\\\"ird\\\\dir/k.cu\"\n");
}

// --- progressLine --------------------------------------------------------------------------------

TEST_CASE("progressLine: one readable line per variant", "[gate]") {
  VariantReport r;
  r.variant.kernel = "saxpy";
  r.variant.skills = {"grid-stride-loop", "vectorize-float4"};
  r.outcome = Outcome::Passed;
  r.variant_ms = 0.412;
  r.speedup = 1.31;
  CHECK(progressLine(r) == "saxpy  grid-stride-loop+vectorize-float4  passed  0.412 ms  1.31x");

  r.variant.geometry.grid_x_divisor = 4;
  CHECK(progressLine(r) == "saxpy  grid-stride-loop+vectorize-float4 [grid.x/4]  passed  0.412 ms  1.31x");

  // every part of a launch change is named (warp-per-row, block-size, a 2-D tile)
  GeometryChange rows;
  rows.grid_x_multiplier = 32;
  CHECK(geometryText(rows) == "grid.x*32");
  GeometryChange bs;
  bs.grid_x_multiplier = 256;
  bs.grid_x_divisor = 512;
  bs.block_x = 512;
  CHECK(geometryText(bs) == "grid.x*256/512, block.x 512");
  GeometryChange tile;
  tile.grid_x_divisor = 2;
  tile.grid_y_divisor = 2;
  tile.block_x = 32;
  tile.block_y = 8;
  CHECK(geometryText(tile) == "grid.x/2, grid.y/2, block 32x8");
  CHECK(geometryText(GeometryChange{}).empty());
  r.variant.geometry = tile;
  CHECK(progressLine(r) == "saxpy  grid-stride-loop+vectorize-float4 [grid.x/2, grid.y/2, block 32x8]  passed  0.412 ms  1.31x");

  VariantReport f;
  f.variant.kernel = "relu";
  f.variant.skills = {"vectorize-float4"};
  f.outcome = Outcome::CompileFailed;
  f.reason = "k.cu(4): error: no operator \"*\"\nsecond line\n";
  CHECK(progressLine(f) == "relu  vectorize-float4  compile-failed  (k.cu(4): error: no operator \"*\")");

  f.outcome = Outcome::NotRun;
  f.reason = std::string(300, 'r');
  CHECK(progressLine(f) == "relu  vectorize-float4  not-run  (" + std::string(160, 'r') + "...)");

  VariantReport o;
  o.variant.kernel = "saxpy";
  o.variant.is_original = true;
  o.outcome = Outcome::NotRun;
  CHECK(progressLine(o) == "saxpy  (original)  not-run");
  VariantReport h;
  h.variant.kernel = "saxpy";
  h.variant.id = "saxpy/hand-written-tiled";
  h.outcome = Outcome::Slower;
  h.variant_ms = 1.5;
  h.speedup = 0.8;
  h.reason = "not faster beyond noise";
  CHECK(progressLine(h) == "saxpy  (hand-written-tiled)  slower  1.500 ms  0.80x  (not faster beyond noise)");
}
