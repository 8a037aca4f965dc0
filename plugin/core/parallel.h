// Running independent pieces of work on a few threads: fn(i) for every i in [0, count), on up to
// `threads` threads, the calling thread one of them. Each i runs exactly once; which thread runs it
// is not fixed, so fn(i) writes only what belongs to i.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace klineage {

template <typename Fn>
void parallelFor(size_t count, size_t threads, Fn&& fn) {
  threads = std::min(count, std::max<size_t>(1, threads));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < count;) fn(i);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

}  // namespace klineage
