// OpenRecorder: first-open order, once per path, only while recording, a
// bounded list, and many FUSE threads at once.
#include "client/prefetch/open_recorder.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

namespace cvmfs::client {
namespace {

TEST(OpenRecorderTest, RecordsFirstOpensInOrderWhileRecording) {
  OpenRecorder r(100);
  r.OnOpen("/before");
  EXPECT_FALSE(r.Stop().has_value());
  r.Start();
  EXPECT_TRUE(r.recording());
  for (const char* p : {"/b", "/a", "/b", "/c", "/a"}) r.OnOpen(p);
  EXPECT_EQ(r.size(), 3u);
  auto done = r.Stop();
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->paths, (std::vector<std::string>{"/b", "/a", "/c"}));
  EXPECT_EQ(done->dropped, 0u);
  r.OnOpen("/after");
  EXPECT_FALSE(r.recording());
  EXPECT_FALSE(r.Stop().has_value());
}

TEST(OpenRecorderTest, StartDiscardsAnUnfinishedRecording) {
  OpenRecorder r(100);
  r.Start();
  r.OnOpen("/old");
  r.Start();
  r.OnOpen("/new");
  EXPECT_EQ(r.Stop()->paths, std::vector<std::string>{"/new"});
}

TEST(OpenRecorderTest, KeepsAtMostTheLimitAndCountsTheRest) {
  OpenRecorder r(2);
  r.Start();
  for (const char* p : {"/1", "/2", "/3", "/4", "/3"}) r.OnOpen(p);
  auto done = r.Stop();
  EXPECT_EQ(done->paths, (std::vector<std::string>{"/1", "/2"}));
  EXPECT_EQ(done->dropped, 2u);
}

TEST(OpenRecorderTest, ConcurrentOpensAreEachRecordedOnce) {
  OpenRecorder r(100000);
  r.Start();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&r] {
      for (int i = 0; i < 2000; ++i) r.OnOpen("/f" + std::to_string(i));
    });
  for (auto& t : threads) t.join();
  auto done = r.Stop();
  ASSERT_EQ(done->paths.size(), 2000u);
  EXPECT_EQ(
      std::set<std::string>(done->paths.begin(), done->paths.end()).size(),
      2000u);
}

}  // namespace
}  // namespace cvmfs::client
