#include "gate/gate.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "core/parallel.h"
#include "gate/judge.h"
#include "gate/process.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

class ProcessCompiler : public Compiler {
 public:
  explicit ProcessCompiler(double t) : timeout_(t) {}
  CompileResult compile(const CompileRequest& req) override {
    CompileResult r = compileTo(req.argv, req.cubin);
    if (r.ok && !req.object_argv.empty()) {  // the host side too: it must still build and link
      CompileResult o = compileTo(req.object_argv, req.object);
      r.seconds += o.seconds;
      r.ok = o.ok;
      if (!o.ok) r.log = "compiling the whole translation unit to an object failed:\n" + o.log;
    }
    return r;
  }

  // nvcc writes its output directly; compile to a temporary name and rename so that an
  // interrupted run leaves no half-written file.
  CompileResult compileTo(std::vector<std::string> argv, const std::string& out) {
    CompileResult r;
    fs::create_directories(fs::path(out).parent_path());
    std::string tmp = out + ".tmp";
    for (size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "-o") argv[i + 1] = tmp;
    ProcessResult p = runProcess(argv, timeout_);
    r.seconds = p.seconds;
    r.log = p.output;
    r.ok = p.started && !p.timed_out && !p.signaled && p.exit_code == 0 && fs::exists(tmp);
    if (r.ok) {
      fs::rename(tmp, out);
    } else {
      std::error_code ec;
      fs::remove(tmp, ec);
      if (p.timed_out || p.signaled || !p.started) r.log = "nvcc " + p.describe() + "\n" + r.log;
    }
    return r;
  }

 private:
  double timeout_;
};

// Runs klineage-runner children. Where the runner can (its probe says "serve": true), one serving
// runner per device takes job after job in one CUDA context (docs/runner-job.md, "Serving"); it is
// replaced after a job that may have left its context unfit, and a job it cannot take runs in a
// runner of its own, as every job did before. KLINEAGE_RUNNER_SERVE=0 turns serving off.
class ChildRunner : public GpuRunner {
 public:
  ChildRunner(std::string path, int device) : path_(std::move(path)) {
    if (device >= 0) env_.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(device));
  }
  DeviceProbe probe() override {
    ProcessResult p = runProcess({path_, "--probe"}, 60, "", env_);
    DeviceProbe d = parseProbe(p.output, "klineage-runner --probe: " + p.describe());
    const char* off = std::getenv("KLINEAGE_RUNNER_SERVE");
    serve_ = d.available && !(off && std::string(off) == "0") && probeSays(p.output, "serve");
    return d;
  }
  RunnerResult run(const RunnerJob& job, const std::string& work_dir, double timeout_s) override {
    RunnerResult r;
    if (serve_ && runServed(job, work_dir, timeout_s, &r)) return r;
    // The runner closes its output once its result is written; the next job starts while this
    // one's context is torn down, and waits for this process to be gone before it allocates
    // anything (KLINEAGE_RUNNER_AFTER_PID, plugin/runner/predecessor.h).
    const std::vector<std::string> env = envAfterLast();
    ProcessResult p;
    r = runChild({}, job, work_dir, timeout_s, &p, &env, kRunnerDoneLine);
    last_pid_ = p.left_running ? p.pid : 0;
    return r;
  }

  RunnerResult sanitize(const RunnerJob& job, const std::string& work_dir, double timeout_s,
                        const std::string& sanitizer, const std::string& tool) override {
    if (server_.running()) last_pid_ = server_.release();  // the sanitizer's runner has the GPU alone
    // Exit 86 is the sanitizer's own "errors found" (the runner exits 0, 2 or 3).
    const std::vector<std::string> prefix{sanitizer, "--tool", tool, "--error-exitcode", "86", "--print-limit", "10"};
    const std::vector<std::string> env = envAfterLast();
    ProcessResult p;
    RunnerResult r = runChild(prefix, job, work_dir, timeout_s, &p, &env);  // waited for: its exit code counts
    last_pid_ = 0;
    if (!p.started) {
      r.status = RunStatus::Error;
      r.reason = "cannot start " + sanitizer + ": " + p.describe();
    } else if (!p.timed_out && !p.signaled && p.exit_code == 86) {
      r.outcome = Outcome::RuntimeFailed;
      r.reason = sanitizerReport(p.output);
    }
    return r;
  }

 private:
  std::string path_;
  std::vector<std::string> env_;
  int last_pid_ = 0;  // the last runner, should it still be tearing down
  bool serve_ = false;
  unsigned serve_failures_ = 0;  // serving runners that did not start, in a row
  LineChild server_;

  static bool probeSays(const std::string& output, const char* key) {
    try {
      const auto j = nlohmann::json::parse(output.substr(std::min(output.size(), output.rfind('{'))));
      return j.value(key, false);
    } catch (...) {
      return false;
    }
  }

  // The child's environment, with the last runner's pid for it to wait for (runner/predecessor.h).
  std::vector<std::string> envAfterLast() const {
    std::vector<std::string> env = env_;
    if (last_pid_ > 0) env.push_back("KLINEAGE_RUNNER_AFTER_PID=" + std::to_string(last_pid_));
    return env;
  }

  // A serving runner, up and answering; false after two that did not start (then jobs run in
  // runners of their own, which report why the device cannot be used).
  bool startServer() {
    if (serve_failures_ >= 2) return false;
    if (server_.start({path_, "--serve"}, envAfterLast()).empty()) {
      std::string line;
      if (server_.readLine(120, &line) == LineChild::Got::Line && line.rfind("klineage-runner: serving ", 0) == 0) {
        last_pid_ = 0;  // the server waited for it
        serve_failures_ = 0;
        return true;
      }
      if (server_.running()) server_.kill();
    }
    ++serve_failures_;
    return false;
  }

  struct JobFiles {
    std::string job, result, log;
  };
  JobFiles prepare(const RunnerJob& job, const std::string& work_dir) const {
    fs::create_directories(work_dir);
    JobFiles f{(fs::path(work_dir) / "job.json").string(), (fs::path(work_dir) / "result.json").string(),
               (fs::path(work_dir) / "runner.log").string()};
    std::error_code ec;
    fs::remove(f.result, ec);
    atomicWrite(f.job, nlohmann::json(job).dump(2) + "\n");
    return f;
  }

  // false: no serving runner took the job (it runs in a runner of its own).
  bool runServed(const RunnerJob& job, const std::string& work_dir, double timeout_s, RunnerResult* out) {
    const JobFiles f = prepare(job, work_dir);
    std::error_code ec;
    fs::remove(f.log, ec);  // the server appends this job's output to it
    const std::string request = f.job + "\t" + f.result + "\t" + f.log;
    bool sent = server_.running() && server_.send(request);
    if (!sent) {  // none yet, or the last one went away between jobs
      if (server_.running()) server_.kill();
      if (!startServer() || !server_.send(request)) return false;
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::string line;
    const LineChild::Got got = server_.readLine(timeout_s, &line);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string done = "klineage-runner: done ";
    ProcessResult p;
    if (got == LineChild::Got::Line && line.rfind(done, 0) == 0) {
      p.started = true;
      p.exit_code = std::atoi(line.c_str() + done.size());
      if (line.size() >= 5 && line.compare(line.size() - 5, 5, " exit") == 0) last_pid_ = server_.release();
    } else if (got == LineChild::Got::TimedOut) {
      p = server_.kill();
    } else {
      // it closed its end: a watchdog timeout (result written) or a crash; or it said nonsense
      p = got == LineChild::Got::Line ? server_.kill() : server_.wait(60);
      p.timed_out = false;
    }
    char note[160];
    std::snprintf(note, sizeof note, "klineage: the serving runner took %.2f s for this job%s\n", took,
                  server_.running() ? "" : " (its process ended after it)");
    std::ofstream(f.log, std::ios::app) << note;
    p.output = tailOf(f.log, 400);
    *out = interpret(p, f.result, timeout_s);
    return true;
  }

  static std::string tailOf(const std::string& path, size_t n) {
    std::string text;
    try {
      text = readFile(path);
    } catch (...) {
    }
    return text.size() > n ? text.substr(text.size() - n) : text;
  }

  RunnerResult runChild(const std::vector<std::string>& prefix, const RunnerJob& job, const std::string& work_dir,
                        double timeout_s, ProcessResult* out = nullptr, const std::vector<std::string>* env = nullptr,
                        const std::string& done_marker = "") {
    const JobFiles f = prepare(job, work_dir);
    std::vector<std::string> argv = prefix;
    for (const auto& a : {path_, f.job, f.result}) argv.push_back(a);
    ProcessResult p = runProcess(argv, timeout_s, "", env ? *env : env_, "", done_marker);
    if (out) *out = p;
    // The process's time beside the runner's own stamps: what start-up before its clock and the
    // end after its last line cost (scripts/runner-phases.py reads it).
    char took[128];
    std::snprintf(took, sizeof took,
                  p.left_running ? "klineage: the runner process took %.2f s to its result (its exit not waited for)\n"
                                 : "klineage: the runner process took %.2f s\n",
                  p.seconds);
    atomicWrite(f.log, p.output + took);
    return interpret(p, f.result, timeout_s);
  }

  // The job's result from what the runner left: its result.json, or why there is none.
  static RunnerResult interpret(const ProcessResult& p, const std::string& result_path, double timeout_s) {
    RunnerResult r;
    if (p.timed_out) {
      r.outcome = Outcome::Timeout;
      r.reason = "killed after " + std::to_string(static_cast<int>(timeout_s)) + " s (hung or too slow)";
      return r;
    }
    std::string unreadable;
    if (fs::exists(result_path)) {
      try {
        r = nlohmann::json::parse(readFile(result_path)).get<RunnerResult>();
        return r;
      } catch (const std::exception& e) {
        unreadable = std::string("unreadable result (") + result_path + "): " + e.what() + "; ";
      }
    }
    r.outcome = Outcome::RuntimeFailed;
    std::string tail = p.output.size() > 400 ? p.output.substr(p.output.size() - 400) : p.output;
    r.reason = unreadable + "runner " + p.describe() + (tail.empty() ? "" : ": " + tail);
    return r;
  }
};

}  // namespace

std::string sanitizerReport(const std::string& output) {
  // compute-sanitizer prefixes its lines with "========= "; keep the first few of those.
  std::istringstream in(output);
  std::string line, out;
  unsigned n = 0;
  while (std::getline(in, line) && n < 12)
    if (line.rfind("=========", 0) == 0 && line.find_first_not_of("= ") != std::string::npos) {
      out += (out.empty() ? "" : " | ") + line.substr(line.find_first_not_of("= "));
      ++n;
    }
  return out.empty() ? "it reported errors (see runner.log)" : out;
}

std::unique_ptr<Compiler> makeProcessCompiler(double timeout_s) { return std::make_unique<ProcessCompiler>(timeout_s); }
std::unique_ptr<GpuRunner> makeChildRunner(const std::string& runner_path, int device) {
  return std::make_unique<ChildRunner>(runner_path, device);
}

DeviceProbe parseProbe(const std::string& output, const std::string& what_failed) {
  DeviceProbe d;
  auto brace = output.rfind('{');
  try {
    auto j = nlohmann::json::parse(output.substr(brace == std::string::npos ? 0 : brace));
    d.available = j.value("status", "") == "ok";
    d.device = j.value("device", "");
    std::string sm = j.value("sm", "");
    d.arch = sm.empty() ? "" : "sm_" + sm;
    d.reason = j.value("reason", "");
    d.count = j.value("count", 1u);
    d.driver = j.value("driver", "");
    d.driver_version = j.value("driver_version", "");
  } catch (...) {
    d.available = false;
    d.reason = what_failed + ": " + output;
  }
  return d;
}

std::vector<CompileResult> compileAll(Compiler& c, const std::vector<CompileRequest>& reqs, unsigned jobs) {
  std::vector<CompileResult> out(reqs.size());
  parallelFor(reqs.size(), jobs, [&](size_t i) { out[i] = c.compile(reqs[i]); });
  return out;
}

void recordRun(VariantReport& rep, const RunnerResult& res) {
  rep.run = res;
  const Verdict v = judge(res);
  rep.outcome = v.outcome;
  rep.reason = v.reason;
  rep.speedup = res.speedup;
  if (res.variant_time) rep.variant_ms = res.variant_time->median_ms;
  if (res.original_time) rep.original_ms = res.original_time->median_ms;
}

std::string progressLine(const VariantReport& rep) {
  std::ostringstream os;
  std::string chain;
  for (const auto& s : rep.variant.skills) chain += (chain.empty() ? "" : "+") + s;
  if (chain.empty())
    chain = rep.variant.is_original ? "(original)" : "(" + rep.variant.id.substr(rep.variant.id.find('/') + 1) + ")";
  char buf[64] = "";
  os << rep.variant.kernel << "  " << chain;
  if (rep.variant.geometry.changes()) os << " [" << geometryText(rep.variant.geometry) << "]";
  os << "  " << outcomeName(rep.outcome);
  if (rep.variant_ms > 0) {
    std::snprintf(buf, sizeof buf, "  %.3f ms  %.2fx", rep.variant_ms, rep.speedup);
    os << buf;
  }
  if (rep.outcome != Outcome::Passed && !rep.reason.empty()) {
    std::string r = rep.reason.substr(0, rep.reason.find('\n'));
    if (r.size() > 160) r = r.substr(0, 160) + "...";
    os << "  (" << r << ")";
  }
  if (rep.cached) os << "  [from the result cache]";
  return os.str();
}

}  // namespace klineage
