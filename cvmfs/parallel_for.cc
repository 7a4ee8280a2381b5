#include "cvmfs/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace cvmfs {

size_t CoreThreads(size_t cap) {
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp<size_t>(cores, 1, std::max<size_t>(cap, 1));
}

void ParallelFor(size_t n, size_t threads,
                 const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  auto work = [&next, n, &fn]() {
    for (size_t i = next++; i < n; i = next++) fn(i);
  };
  std::vector<std::thread> others;
  const size_t total = std::min(std::max<size_t>(threads, 1), n);
  for (size_t t = 1; t < total; ++t) others.emplace_back(work);
  work();
  for (std::thread& t : others) t.join();
}

}  // namespace cvmfs
