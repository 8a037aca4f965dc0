#include "gate/gate.h"

#include <atomic>
#include <cstdio>
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

class ChildRunner : public GpuRunner {
 public:
  ChildRunner(std::string path, int device) : path_(std::move(path)) {
    if (device >= 0) env_.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(device));
  }
  DeviceProbe probe() override {
    ProcessResult p = runProcess({path_, "--probe"}, 60, "", env_);
    return parseProbe(p.output, "klineage-runner --probe: " + p.describe());
  }
  RunnerResult run(const RunnerJob& job, const std::string& work_dir, double timeout_s) override {
    // The runner closes its output once its result is written; the next job starts while this
    // one's context is torn down, and waits for this process to be gone before it allocates
    // anything (KLINEAGE_RUNNER_AFTER_PID, plugin/runner/predecessor.h).
    const std::vector<std::string> env = envAfterLast();
    ProcessResult p;
    RunnerResult r = runChild({}, job, work_dir, timeout_s, &p, &env, kRunnerDoneLine);
    last_pid_ = p.left_running ? p.pid : 0;
    return r;
  }

  RunnerResult sanitize(const RunnerJob& job, const std::string& work_dir, double timeout_s,
                        const std::string& sanitizer, const std::string& tool) override {
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

  // The child's environment, with the last runner's pid for it to wait for (runner/predecessor.h).
  std::vector<std::string> envAfterLast() const {
    std::vector<std::string> env = env_;
    if (last_pid_ > 0) env.push_back("KLINEAGE_RUNNER_AFTER_PID=" + std::to_string(last_pid_));
    return env;
  }

  RunnerResult runChild(const std::vector<std::string>& prefix, const RunnerJob& job, const std::string& work_dir,
                        double timeout_s, ProcessResult* out = nullptr, const std::vector<std::string>* env = nullptr,
                        const std::string& done_marker = "") {
    fs::create_directories(work_dir);
    std::string job_path = (fs::path(work_dir) / "job.json").string();
    std::string result_path = (fs::path(work_dir) / "result.json").string();
    std::error_code ec;
    fs::remove(result_path, ec);
    atomicWrite(job_path, nlohmann::json(job).dump(2) + "\n");
    std::vector<std::string> argv = prefix;
    for (const auto& a : {path_, job_path, result_path}) argv.push_back(a);
    ProcessResult p = runProcess(argv, timeout_s, "", env ? *env : env_, "", done_marker);
    if (out) *out = p;
    // The process's time beside the runner's own stamps: what start-up before its clock and the
    // end after its last line cost (scripts/runner-phases.py reads it).
    char took[128];
    std::snprintf(took, sizeof took,
                  p.left_running ? "klineage: the runner process took %.2f s to its result (its exit not waited for)\n"
                                 : "klineage: the runner process took %.2f s\n",
                  p.seconds);
    atomicWrite((fs::path(work_dir) / "runner.log").string(), p.output + took);
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
