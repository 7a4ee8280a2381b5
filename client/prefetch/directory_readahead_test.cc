#include "client/prefetch/directory_readahead.h"

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

// A reader that picks a file here and there in many directories leaves
// their listings behind: at most kMaxFiles files are held in all.
TEST(DirectoryReadaheadTest, ListingsHeldAreBoundedInFiles) {
  DirectoryReadahead r;
  for (size_t d = 0; d < 1000; ++d) {
    const std::string dir = "/d" + std::to_string(d);
    EXPECT_TRUE(r.Start(dir, Files(100, dir), dir + "/f7").empty());
    EXPECT_LE(r.files(), DirectoryReadahead::kMaxFiles);
  }
  EXPECT_GT(r.files(), 0u);
}

// A reader going through the directory in order (tar) gets a window at
// its third file, which doubles each time the reader reaches it, until
// everything is queued; the next directory it reads gets its first window
// at once.
TEST(DirectoryReadaheadTest, SequentialReaderGrowsTheWindow) {
  DirectoryReadahead r;
  EXPECT_TRUE(r.Start("/d", Files(40), "/d/f0").empty());
  EXPECT_TRUE(r.Opened("/d", "/d/f1").empty());
  EXPECT_EQ((std::vector<size_t>{3, 4, 5, 6}),
            Positions(r.Opened("/d", "/d/f2")));
  EXPECT_EQ((std::vector<size_t>{7, 8, 9, 10, 11, 12, 13, 14}),
            Positions(r.Opened("/d", "/d/f3")));
  EXPECT_TRUE(r.Opened("/d", "/d/f4").empty());
  EXPECT_TRUE(r.Opened("/d", "/d/f6").empty());
  EXPECT_EQ(16u, r.Opened("/d", "/d/f7").size());  // 15..30
  EXPECT_EQ(9u, r.Opened("/d", "/d/f15").size());  // 31..39: the rest
  EXPECT_EQ(0u, r.directories());                  // done
  EXPECT_TRUE(r.Opened("/d", "/d/f30").empty());
  EXPECT_EQ((std::vector<size_t>{1, 2, 3, 4}),
            Positions(r.Start("/e", Files(40, "/e"), "/e/f0")));
}

// The first window of a directory waits for two reads in order, unless
// the reader's last reads were in order (a tree reader going on).
TEST(DirectoryReadaheadTest, TheFirstWindowWaitsForReadsInOrder) {
  DirectoryReadahead r;
  EXPECT_TRUE(r.Start("/d", Files(40), "/d/f3").empty());
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
            Positions(r.Start("/e", Files(40), "/d/f0")));
  // A read out of order there: the next directory waits again.
  EXPECT_TRUE(r.Opened("/e", "/d/f20").empty());
  EXPECT_TRUE(r.Start("/g", Files(40), "/d/f0").empty());
}

// Runs of reads in order count per directory: a compiler reading
// neighbours in two directories in turns opens no window.
TEST(DirectoryReadaheadTest, RunsCountPerDirectory) {
  DirectoryReadahead r;
  EXPECT_TRUE(r.Start("/a", Files(40, "/a"), "/a/f3").empty());
  EXPECT_TRUE(r.Start("/b", Files(40, "/b"), "/b/f7").empty());
  EXPECT_TRUE(r.Opened("/a", "/a/f4").empty());  // /a: one in order
  EXPECT_TRUE(r.Opened("/b", "/b/f8").empty());  // /b: one in order
  // The second in a row in /b.
  EXPECT_EQ((std::vector<size_t>{10, 11, 12, 13}),
            Positions(r.Opened("/b", "/b/f9")));
}

// A program that picks a few files (Python importing some modules) queues
// nothing.
TEST(DirectoryReadaheadTest, ScatteredReadsQueueNothing) {
  DirectoryReadahead r;
  EXPECT_TRUE(r.Start("/d", Files(100), "/d/f10").empty());
  for (const char* f : {"/d/f40", "/d/f3", "/d/f77", "/d/f20", "/d/f90"})
    EXPECT_TRUE(r.Opened("/d", f).empty()) << f;
  EXPECT_TRUE(r.Opened("/d", "/d/unknown").empty());
  EXPECT_TRUE(r.Opened("/other", "/other/f1").empty());
  // Three in a row: the reader goes on from there.
  EXPECT_TRUE(r.Opened("/d", "/d/f91").empty());
  EXPECT_EQ((std::vector<size_t>{93, 94, 95, 96}),
            Positions(r.Opened("/d", "/d/f92")));
}

TEST(DirectoryReadaheadTest, StartFromAnUnknownFileBeginsAtTheTop) {
  DirectoryReadahead r;
  r.Start("/c", Files(40, "/c"), "/c/f0");
  r.Opened("/c", "/c/f1");
  r.Opened("/c", "/c/f2");  // a run long enough
  EXPECT_EQ((std::vector<size_t>{0, 1}),
            Positions(r.Start("/d", Files(2), "/elsewhere")));
  EXPECT_EQ(1u, r.directories());  // /d is done, /c is not
}

// A tree reader: a run of kTreeRun reads in listing order, carried from
// directory to directory (tar reads a few files in each small directory).
// One read out of order ends it.
TEST(DirectoryReadaheadTest, ATreeReaderReadsInOrderAcrossDirectories) {
  DirectoryReadahead r;
  size_t reads = 0;
  for (const std::string dir : {"/a", "/b", "/c", "/d"}) {
    r.Start(dir, Files(3, dir), dir + "/f0");
    r.Opened(dir, dir + "/f1");
    r.Opened(dir, dir + "/f2");
    reads += 2;
    EXPECT_EQ(reads >= DirectoryReadahead::kTreeRun, r.TreeReader()) << dir;
  }
  // Reads of a directory done are still followed.
  r.Start("/e", Files(20, "/e"), "/e/f5");
  EXPECT_TRUE(r.TreeReader());
  r.Opened("/e", "/e/f1");  // back, out of order and out of the window
  EXPECT_FALSE(r.TreeReader());
}

}  // namespace
}  // namespace cvmfs::client
