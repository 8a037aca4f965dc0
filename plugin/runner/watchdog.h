// A per-launch time limit inside the runner: armed around every wait for a kernel, it calls
// `fire` (which writes a timeout result and ends the process) when a kernel has not finished in
// time. So TIMEOUT bounds one kernel run, while a job may run many; the gate's process limit is
// only a backstop.
#pragma once
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace klineage::runner {

class Watchdog {
 public:
  using Fire = std::function<void(const std::string& what, double seconds)>;
  // seconds <= 0: never fires.
  Watchdog(double seconds, Fire fire);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(const std::string& what);  // the deadline is now + seconds
  void disarm();

 private:
  void loop();
  double seconds_;
  Fire fire_;
  std::mutex m_;
  std::condition_variable cv_;
  bool armed_ = false, quit_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::string what_;
  std::thread thread_;
};

}  // namespace klineage::runner
