#include "client/open_file.h"

#include <gtest/gtest.h>

namespace cvmfs::client {
namespace {

// Once a sequential reader missed the cache its chunk window grows with
// how far it has read: a reader of a file's first chunk costs two chunks
// ahead, one deep into a large file keeps 4 in flight on a fast link and
// 16 on a slow one.
TEST(OpenFileTest, ChunksAheadGrowWithTheSequentialReader) {
  for (bool slow : {false, true}) {
    EXPECT_EQ(2u, OpenFile::ChunksAhead(1, true, slow));  // reading chunk 0
    EXPECT_EQ(2u, OpenFile::ChunksAhead(2, true, slow));
    EXPECT_EQ(3u, OpenFile::ChunksAhead(3, true, slow));
    EXPECT_EQ(4u, OpenFile::ChunksAhead(4, true, slow));  // chunk 3: 4..7
  }
  EXPECT_EQ(4u, OpenFile::ChunksAhead(8, true, false));
  EXPECT_EQ(4u, OpenFile::ChunksAhead(1000, true, false));
  EXPECT_EQ(8u, OpenFile::ChunksAhead(8, true, true));
  EXPECT_EQ(16u, OpenFile::ChunksAhead(16, true, true));
  EXPECT_EQ(16u, OpenFile::ChunksAhead(1000, true, true));
}

// A reader of cached chunks keeps two ahead: they keep the disk busy.
TEST(OpenFileTest, CachedChunksAreReadTwoAhead) {
  for (size_t next : {1, 4, 1000}) {
    EXPECT_EQ(2u, OpenFile::ChunksAhead(next, false, false));
    EXPECT_EQ(2u, OpenFile::ChunksAhead(next, false, true));
  }
}

}  // namespace
}  // namespace cvmfs::client
