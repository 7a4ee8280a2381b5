#include "cvmfs/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace cvmfs {
namespace {

TEST(ParallelForTest, CallsEveryIndexOnce) {
  for (size_t threads : {1, 2, 3, 8}) {
    std::vector<std::atomic<int>> calls(1000);
    ParallelFor(calls.size(), threads, [&](size_t i) { ++calls[i]; });
    for (size_t i = 0; i < calls.size(); ++i)
      ASSERT_EQ(calls[i].load(), 1) << "index " << i << ", threads " << threads;
  }
}

TEST(ParallelForTest, NothingToDoCallsNothing) {
  bool called = false;
  ParallelFor(0, 4, [&](size_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ParallelForTest, UsesAtMostTheThreadsGivenAndTheCaller) {
  std::mutex mu;
  std::set<std::thread::id> seen;
  ParallelFor(64, 3, [&](size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::lock_guard<std::mutex> lock(mu);
    seen.insert(std::this_thread::get_id());
  });
  EXPECT_LE(seen.size(), 3u);
  EXPECT_GE(seen.size(), 1u);
  // One thread: everything on the caller's.
  seen.clear();
  ParallelFor(5, 1, [&](size_t) {
    std::lock_guard<std::mutex> lock(mu);
    seen.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(seen, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(ParallelForTest, CoreThreadsIsWithinItsCap) {
  EXPECT_GE(CoreThreads(), 1u);
  EXPECT_LE(CoreThreads(), 8u);
  EXPECT_EQ(CoreThreads(1), 1u);
}

}  // namespace
}  // namespace cvmfs
