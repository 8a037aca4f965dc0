#include "runner/watchdog.h"

namespace klineage::runner {

Watchdog::Watchdog(double seconds, Fire fire) : seconds_(seconds), fire_(std::move(fire)) {
  if (seconds_ > 0) thread_ = std::thread([this] { loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(m_);
    quit_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::arm(const std::string& what) {
  if (seconds_ <= 0) return;
  {
    std::lock_guard<std::mutex> lock(m_);
    armed_ = true;
    what_ = what;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds_));
  }
  cv_.notify_all();
}

void Watchdog::disarm() {
  if (seconds_ <= 0) return;
  std::lock_guard<std::mutex> lock(m_);
  armed_ = false;
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> lock(m_);
  while (!quit_) {
    if (!armed_) {
      cv_.wait(lock);
      continue;
    }
    if (cv_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ && !quit_ &&
        std::chrono::steady_clock::now() >= deadline_) {
      const std::string what = what_;
      armed_ = false;
      lock.unlock();
      fire_(what, seconds_);  // normally does not return
      lock.lock();
    }
  }
}

}  // namespace klineage::runner
