// The local backend: one GpuRunner per device, one job per device at a time, each on its own
// thread; wait() hands back results in the order they finish.
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "gate/backend.h"

namespace klineage {

RunnerResult GpuBackend::runOne(JobBundle bundle) {
  const std::string id = bundle.id;
  submit(std::move(bundle));
  for (;;) {
    Finished f = wait();
    if (f.id == id) return f.result;
  }
}

std::vector<RunnerResult> GpuBackend::runAll(std::vector<JobBundle> bundles) {
  std::vector<RunnerResult> results(bundles.size());
  std::map<std::string, size_t> running;  // id -> index
  size_t next = 0;
  while (next < bundles.size() || !running.empty()) {
    while (next < bundles.size() && canRunMore()) {
      running[bundles[next].id] = next;
      submit(std::move(bundles[next]));
      ++next;
    }
    Finished f = wait();
    auto it = running.find(f.id);
    if (it == running.end()) continue;
    results[it->second] = std::move(f.result);
    running.erase(it);
  }
  return results;
}

std::vector<std::string> JobBundle::files() const {
  std::vector<std::string> f{job.original.cubin};
  if (job.variant.cubin != job.original.cubin) f.push_back(job.variant.cubin);
  if (job.oracle) f.push_back(job.oracle->cubin);
  if (job.replay) f.push_back(job.replay->record_dir);
  return f;
}

namespace {

class LocalBackend : public GpuBackend {
 public:
  LocalBackend(std::function<std::unique_ptr<GpuRunner>(int)> make, unsigned devices) : make_(std::move(make)) {
    runners_.push_back(make_(-1));  // sees every device; device 0 decides the architecture
    probe_ = runners_[0]->probe();
    const unsigned n = devices ? devices : std::max(1u, probe_.available ? probe_.count : 1u);
    if (n > 1) {
      // Variants are compiled for device 0's architecture: only devices of that architecture
      // gate them (the others are named in the probe's reason).
      runners_.clear();
      for (unsigned i = 0; i < n; ++i) {
        auto r = make_(static_cast<int>(i));
        DeviceProbe p = r->probe();
        if (p.available && p.arch == probe_.arch) {
          runners_.push_back(std::move(r));
        } else {
          probe_.reason += (probe_.reason.empty() ? "" : "; ") + std::string("device ") + std::to_string(i) + " (" +
                           (p.available ? p.device + ", " + p.arch : p.reason) + ") not used: not " + probe_.arch;
        }
      }
      if (runners_.empty()) runners_.push_back(make_(-1));
    }
    probe_.count = static_cast<unsigned>(runners_.size());
    busy_.assign(runners_.size(), false);
  }
  ~LocalBackend() override {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  std::string name() const override { return "local"; }
  DeviceProbe probe() override { return probe_; }
  bool canRunMore() const override {
    std::lock_guard<std::mutex> l(m_);
    for (bool b : busy_)
      if (!b) return true;
    return false;
  }
  size_t running() const override {
    std::lock_guard<std::mutex> l(m_);
    return in_flight_;
  }
  void submit(JobBundle b) override {
    size_t dev = 0;
    {
      std::unique_lock<std::mutex> l(m_);
      // A caller that submits without canRunMore() waits for a free device.
      cv_.wait(l, [&] {
        for (bool x : busy_)
          if (!x) return true;
        return false;
      });
      while (busy_[dev]) ++dev;
      busy_[dev] = true;
      ++in_flight_;
    }
    if (threads_.size() <= dev) threads_.resize(dev + 1);
    if (threads_[dev].joinable()) threads_[dev].join();
    threads_[dev] = std::thread([this, dev, b = std::move(b)] {
      GpuRunner& r = *runners_[dev];
      RunnerResult res = b.sanitizer.empty() ? r.run(b.job, b.work_dir, b.timeout_s)
                                             : r.sanitize(b.job, b.work_dir, b.timeout_s, b.sanitizer, b.tool);
      std::lock_guard<std::mutex> l(m_);
      done_.push_back({b.id, std::move(res)});
      busy_[dev] = false;
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
  std::function<std::unique_ptr<GpuRunner>(int)> make_;
  std::vector<std::unique_ptr<GpuRunner>> runners_;
  DeviceProbe probe_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::vector<bool> busy_;
  std::vector<std::thread> threads_;
  std::deque<Finished> done_;
  size_t in_flight_ = 0;
};

}  // namespace

std::unique_ptr<GpuBackend> makeLocalBackend(std::function<std::unique_ptr<GpuRunner>(int)> runner_for,
                                             unsigned devices) {
  return std::make_unique<LocalBackend>(std::move(runner_for), devices);
}

std::unique_ptr<GpuBackend> makeLocalChildBackend(const std::string& runner_path) {
  return makeLocalBackend([runner_path](int d) { return makeChildRunner(runner_path, d); });
}

}  // namespace klineage

namespace klineage {
namespace {
class Borrowed : public GpuRunner {
 public:
  explicit Borrowed(GpuRunner& r) : r_(r) {}
  DeviceProbe probe() override { return r_.probe(); }
  RunnerResult run(const RunnerJob& j, const std::string& wd, double t) override { return r_.run(j, wd, t); }
  RunnerResult sanitize(const RunnerJob& j, const std::string& wd, double t, const std::string& s,
                        const std::string& tool) override {
    return r_.sanitize(j, wd, t, s, tool);
  }

 private:
  GpuRunner& r_;
};
}  // namespace
std::unique_ptr<GpuRunner> borrowedRunner(GpuRunner& r) { return std::make_unique<Borrowed>(r); }
}  // namespace klineage
