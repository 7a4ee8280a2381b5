#include "client/open_file.h"

#include <gtest/gtest.h>

namespace cvmfs::client {
namespace {

// A sequential reader's chunk window grows with how far it has read:
// a reader of a file's first chunk costs two chunks ahead, one deep into
// a large file keeps 16 in flight.
TEST(OpenFileTest, ChunksAheadGrowWithTheSequentialReader) {
  EXPECT_EQ(2u, OpenFile::ChunksAhead(1));  // reading chunk 0
  EXPECT_EQ(2u, OpenFile::ChunksAhead(2));
  EXPECT_EQ(4u, OpenFile::ChunksAhead(4));  // reading chunk 3: 4..7
  EXPECT_EQ(8u, OpenFile::ChunksAhead(8));
  EXPECT_EQ(16u, OpenFile::ChunksAhead(16));
  EXPECT_EQ(16u, OpenFile::ChunksAhead(1000));
}

}  // namespace
}  // namespace cvmfs::client
