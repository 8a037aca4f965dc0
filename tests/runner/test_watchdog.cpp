#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "runner/watchdog.h"

using klineage::runner::Watchdog;
using namespace std::chrono_literals;

TEST_CASE("watchdog: fires once a wait outlasts its limit, naming what was waited for", "[watchdog]") {
  std::atomic<int> fired{0};
  std::string what;
  Watchdog w(0.2, [&](const std::string& s, double seconds) {
    what = s;
    CHECK(seconds == 0.2);
    ++fired;
  });
  w.arm("the variant kernel spin");
  std::this_thread::sleep_for(600ms);
  CHECK(fired == 1);
  CHECK(what == "the variant kernel spin");
}

TEST_CASE("watchdog: a wait that ends in time, re-armed many times, never fires", "[watchdog]") {
  std::atomic<int> fired{0};
  Watchdog w(0.3, [&](const std::string&, double) { ++fired; });
  for (int i = 0; i < 20; ++i) {
    w.arm("a kernel");
    std::this_thread::sleep_for(20ms);
    w.disarm();
  }
  std::this_thread::sleep_for(400ms);
  CHECK(fired == 0);
}

TEST_CASE("watchdog: no limit never fires", "[watchdog]") {
  std::atomic<int> fired{0};
  Watchdog w(0, [&](const std::string&, double) { ++fired; });
  w.arm("a kernel");
  std::this_thread::sleep_for(100ms);
  CHECK(fired == 0);
}
