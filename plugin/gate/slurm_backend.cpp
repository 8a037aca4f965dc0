// The Slurm backend: every bundle is packed into a tar (job.json with paths relative to it, the
// cubins, the launch record) and sent to `srun` on its standard input; the job unpacks it into a
// fresh directory on the node, runs klineage-runner there and prints the result between markers.
// So the job reads nothing of the submitting machine's file system, and needs no shared one.
#include <cmath>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "gate/backend.h"
#include "gate/process.h"

namespace klineage {
namespace fs = std::filesystem;

namespace {

// Hard links where the file system allows, copies elsewhere.
void linkOrCopy(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to.parent_path());
  fs::create_hard_link(from, to, ec);
  if (ec) fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

// The script the Slurm job runs: $1.. is the command before "job.json result.json".
const char* kNodeScript =
    "d=$(mktemp -d) || exit 97; trap 'rm -rf \"$d\"' EXIT; cd \"$d\" && tar -xf - || exit 98; "
    "\"$@\" job.json result.json > runner.log 2>&1; rc=$?; echo \"KLINEAGE-RUNNER-EXIT $rc\"; "
    "tail -c 3000 runner.log; echo; echo KLINEAGE-RESULT-BEGIN; cat result.json 2>/dev/null; echo; "
    "echo KLINEAGE-RESULT-END";

std::string between(const std::string& s, const std::string& a, const std::string& b) {
  auto i = s.rfind(a);
  if (i == std::string::npos) return "";
  i += a.size();
  auto j = s.find(b, i);
  return j == std::string::npos ? "" : s.substr(i, j - i);
}

class SlurmBackend : public GpuBackend {
 public:
  explicit SlurmBackend(SlurmOptions o) : opt_(std::move(o)) {
    if (opt_.staging_dir.empty()) opt_.staging_dir = (fs::temp_directory_path() / "klineage-slurm").string();
  }
  ~SlurmBackend() override {
    for (auto& t : threads_) t.join();
  }
  std::string name() const override { return "slurm"; }
  DeviceProbe probe() override {
    std::vector<std::string> argv = srunArgs(120);
    for (const auto& a : {std::string("sh"), std::string("-c"), std::string("exec \"$1\" --probe"), std::string("klineage-probe"),
                          opt_.runner})
      argv.push_back(a);
    ProcessResult p = runProcess(argv, 600);
    DeviceProbe d = parseProbe(p.output, "srun " + opt_.runner + " --probe: " + p.describe());
    d.count = opt_.max_jobs;
    if (!p.started) d.reason = "cannot start " + opt_.srun + ": " + p.describe();
    return d;
  }
  bool canRunMore() const override {
    std::lock_guard<std::mutex> l(m_);
    return in_flight_ < opt_.max_jobs;
  }
  size_t running() const override {
    std::lock_guard<std::mutex> l(m_);
    return in_flight_;
  }
  void submit(JobBundle b) override {
    {
      std::lock_guard<std::mutex> l(m_);
      ++in_flight_;
    }
    threads_.emplace_back([this, b = std::move(b)] {
      RunnerResult r = runBundle(b);
      std::lock_guard<std::mutex> l(m_);
      done_.push_back({b.id, std::move(r)});
      cv_.notify_all();
    });
  }
  Finished wait() override {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return !done_.empty(); });
    Finished f = std::move(done_.front());
    done_.pop_front();
    --in_flight_;
    return f;
  }

 private:
  SlurmOptions opt_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::thread> threads_;
  std::deque<Finished> done_;
  size_t in_flight_ = 0;

  std::vector<std::string> srunArgs(double timeout_s) const {
    std::vector<std::string> a{opt_.srun, "--job-name=klineage-gate", "--nodes=1", "--ntasks=1", "--quiet"};
    if (!opt_.partition.empty()) a.push_back("--partition=" + opt_.partition);
    if (!opt_.account.empty()) a.push_back("--account=" + opt_.account);
    if (!opt_.gres.empty()) a.push_back("--gres=" + opt_.gres);
    // Slurm's own limit (whole minutes) behind ours, so a job we stop waiting for is ended there too.
    a.push_back("--time=" + std::to_string(static_cast<long>(std::ceil(timeout_s / 60)) + 1));
    a.insert(a.end(), opt_.extra_args.begin(), opt_.extra_args.end());
    return a;
  }

  RunnerResult runBundle(const JobBundle& b) const {
    RunnerResult r;
    fs::create_directories(b.work_dir);
    const std::string tar = (fs::path(opt_.staging_dir) / (fnv1a64Hex(b.id + b.work_dir) + ".tar")).string();
    std::string bad = packBundle(b, tar);
    if (!bad.empty()) {
      r.status = RunStatus::Error;
      r.reason = "cannot pack the job for Slurm: " + bad;
      return r;
    }
    std::vector<std::string> argv = srunArgs(b.timeout_s);
    for (const auto& a : {std::string("sh"), std::string("-c"), std::string(kNodeScript), std::string("klineage-job")})
      argv.push_back(a);
    if (!b.sanitizer.empty())
      for (const auto& a : {b.sanitizer, std::string("--tool"), b.tool, std::string("--error-exitcode"), std::string("86"),
                            std::string("--print-limit"), std::string("10")})
        argv.push_back(a);
    argv.push_back(opt_.runner);
    // Queueing time counts against the limit too; a busy cluster needs a generous TIMEOUT.
    ProcessResult p = runProcess(argv, b.timeout_s + 120, "", {}, tar);
    std::error_code ec;
    fs::remove(tar, ec);
    atomicWrite((fs::path(b.work_dir) / "runner.log").string(), p.output);
    const std::string body = between(p.output, "KLINEAGE-RESULT-BEGIN\n", "KLINEAGE-RESULT-END");
    const std::string exit_text = between(p.output, "KLINEAGE-RUNNER-EXIT ", "\n");
    if (p.timed_out) {
      r.outcome = Outcome::Timeout;
      r.reason = "the Slurm job did not finish within " + std::to_string(static_cast<int>(b.timeout_s + 120)) +
                 " s (hung, too slow, or still queued)";
      return r;
    }
    if (!b.sanitizer.empty() && exit_text == "86") {
      r.outcome = Outcome::RuntimeFailed;
      r.reason = sanitizerReport(p.output);
      return r;
    }
    if (body.find('{') != std::string::npos) {
      try {
        r = nlohmann::json::parse(body).get<RunnerResult>();
        atomicWrite((fs::path(b.work_dir) / "result.json").string(), body);
        return r;
      } catch (const std::exception& e) {
        r.reason = std::string("unreadable result from the Slurm job: ") + e.what() + "; ";
      }
    }
    std::string tail = p.output.size() > 600 ? p.output.substr(p.output.size() - 600) : p.output;
    if (!p.started || exit_text.empty()) {
      r.status = RunStatus::Error;
      r.reason += "srun " + p.describe() + ": " + tail;
    } else {
      r.outcome = Outcome::RuntimeFailed;
      r.reason += "runner exit " + exit_text + " on the Slurm node: " + tail;
    }
    return r;
  }
};

}  // namespace

std::string packBundle(const JobBundle& b, const std::string& tar_path) {
  const fs::path stage = fs::path(tar_path).replace_extension(".d");
  std::error_code ec;
  fs::remove_all(stage, ec);
  try {
    RunnerJob job = b.job;
    linkOrCopy(job.original.cubin, stage / "original.cubin");
    job.original.cubin = "original.cubin";
    if (job.variant.cubin == b.job.original.cubin) {
      job.variant.cubin = "original.cubin";
    } else {
      linkOrCopy(job.variant.cubin, stage / "variant.cubin");
      job.variant.cubin = "variant.cubin";
    }
    if (job.oracle) {  // the bundle holds the oracle too: the node reads no file of this machine
      linkOrCopy(job.oracle->cubin, stage / "oracle.cubin");
      job.oracle->cubin = "oracle.cubin";
    }
    if (job.replay) {
      for (const auto& e : fs::recursive_directory_iterator(job.replay->record_dir))
        if (e.is_regular_file())
          linkOrCopy(e.path(), stage / "record" / fs::relative(e.path(), job.replay->record_dir));
      job.replay->record_dir = "record";
    }
    atomicWrite((stage / "job.json").string(), nlohmann::json(job).dump(2) + "\n");
  } catch (const std::exception& e) {
    fs::remove_all(stage, ec);
    return e.what();
  }
  ProcessResult p = runProcess({"tar", "-cf", tar_path, "-C", stage.string(), "."}, 600);
  fs::remove_all(stage, ec);
  if (!p.started || p.timed_out || p.signaled || p.exit_code != 0) return "tar " + p.describe() + ": " + p.output;
  return "";
}

std::unique_ptr<GpuBackend> makeSlurmBackend(const SlurmOptions& opt) { return std::make_unique<SlurmBackend>(opt); }

}  // namespace klineage
