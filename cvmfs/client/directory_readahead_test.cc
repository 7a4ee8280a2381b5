#include "cvmfs/client/directory_readahead.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cvmfs::client {
namespace {

std::vector<ObjectRequest> Files(size_t n, const std::string& dir = "/d") {
  std::vector<ObjectRequest> files(n);
  for (size_t i = 0; i < n; ++i)
    files[i].description = dir + "/f" + std::to_string(i);
  return files;
}

std::vector<size_t> Positions(const std::vector<ObjectRequest>& batch) {
  std::vector<size_t> out;
  for (const ObjectRequest& r : batch)
    out.push_back(
        std::stoul(r.description.substr(r.description.rfind('f') + 1)));
  return out;
}

// A reader going through the directory in order (tar) has a window that
// doubles each time it reaches it, until everything is queued.
TEST(DirectoryReadaheadTest, SequentialReaderGrowsTheWindow) {
  DirectoryReadahead r;
  EXPECT_EQ((std::vector<size_t>{1, 2, 3, 4}),
            Positions(r.Start("/d", Files(40), "/d/f0")));
  EXPECT_EQ((std::vector<size_t>{5, 6, 7, 8, 9, 10, 11, 12}),
            Positions(r.Opened("/d", "/d/f1")));
  EXPECT_TRUE(r.Opened("/d", "/d/f2").empty());
  EXPECT_TRUE(r.Opened("/d", "/d/f4").empty());
  EXPECT_EQ(16u, r.Opened("/d", "/d/f5").size());   // 13..28
  EXPECT_EQ(11u, r.Opened("/d", "/d/f13").size());  // 29..39: the rest
  EXPECT_EQ(0u, r.directories());                   // done: forgotten
  EXPECT_TRUE(r.Opened("/d", "/d/f30").empty());
}

// With a warm cache the first window of a directory waits for two reads
// in order, unless the last reads were in order (a tree reader going on).
TEST(DirectoryReadaheadTest,
     AWarmCacheQueuesTheFirstWindowOnlyAfterReadsInOrder) {
  DirectoryReadahead r;
  EXPECT_TRUE(r.Start("/d", Files(40), "/d/f3", true).empty());
  EXPECT_TRUE(r.Opened("/d", "/d/f9").empty());  // scattered: still nothing
  // Two neighbours (a compiler's includes now and then): still nothing.
  EXPECT_TRUE(r.Opened("/d", "/d/f10").empty());
  EXPECT_TRUE(r.Opened("/d", "/d/f20").empty());
  EXPECT_TRUE(r.Opened("/d", "/d/f21").empty());
  EXPECT_TRUE(r.Opened("/d", "/d/f8").empty());
  EXPECT_TRUE(r.Opened("/d", "/d/f9").empty());
  // The second read in order in a row opens the window.
  EXPECT_EQ((std::vector<size_t>{11, 12, 13, 14}),
            Positions(r.Opened("/d", "/d/f10")));
  EXPECT_EQ(8u, r.Opened("/d", "/d/f11").size());  // then it grows: 15..22
  // The reader went in order: the next directory gets its first window.
  EXPECT_EQ((std::vector<size_t>{1, 2, 3, 4}),
            Positions(r.Start("/e", Files(40), "/d/f0", true)));
  // A read out of order there: the next directory waits again.
  EXPECT_TRUE(r.Opened("/e", "/d/f20").empty());
  EXPECT_TRUE(r.Start("/g", Files(40), "/d/f0", true).empty());
  // A cold cache always gets it.
  EXPECT_EQ(4u, r.Start("/h", Files(40), "/d/f0", false).size());
}

// Runs of reads in order count per directory: a compiler reading
// neighbours in two directories in turns does not open a warm window.
TEST(DirectoryReadaheadTest, AWarmCacheCountsRunsPerDirectory) {
  DirectoryReadahead r;
  EXPECT_TRUE(r.Start("/a", Files(40, "/a"), "/a/f3", true).empty());
  EXPECT_TRUE(r.Start("/b", Files(40, "/b"), "/b/f7", true).empty());
  EXPECT_TRUE(r.Opened("/a", "/a/f4").empty());  // /a: one in order
  EXPECT_TRUE(r.Opened("/b", "/b/f8").empty());  // /b: one in order
  // The second in a row in /b.
  EXPECT_EQ((std::vector<size_t>{10, 11, 12, 13}),
            Positions(r.Opened("/b", "/b/f9")));
}

// A program that picks a few files (Python importing some modules) costs
// one small window.
TEST(DirectoryReadaheadTest, ScatteredReadsQueueOneSmallWindow) {
  DirectoryReadahead r;
  EXPECT_EQ(4u, r.Start("/d", Files(100), "/d/f10").size());  // 11..14
  for (const char* f : {"/d/f40", "/d/f3", "/d/f77", "/d/f20", "/d/f90"})
    EXPECT_TRUE(r.Opened("/d", f).empty()) << f;
  EXPECT_TRUE(r.Opened("/d", "/d/unknown").empty());
  EXPECT_TRUE(r.Opened("/other", "/other/f1").empty());
  // Two in a row beyond the window: the reader goes on from there.
  EXPECT_EQ((std::vector<size_t>{92, 93, 94, 95}),
            Positions(r.Opened("/d", "/d/f91")));
}

TEST(DirectoryReadaheadTest, StartFromAnUnknownFileBeginsAtTheTop) {
  DirectoryReadahead r;
  EXPECT_EQ((std::vector<size_t>{0, 1}),
            Positions(r.Start("/d", Files(2), "/elsewhere")));
  EXPECT_EQ(0u, r.directories());
}

}  // namespace
}  // namespace cvmfs::client
