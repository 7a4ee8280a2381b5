#include "client/read_stream.h"

#include <gtest/gtest.h>

namespace cvmfs::client {
namespace {

constexpr uint64_t kKiB = 1 << 10;
constexpr uint64_t kMiB = 1 << 20;

// Notes one read of `record` bytes at `offset` in 128 KiB pieces, as the
// kernel passes it on; true if any piece found a stream.
bool Record(ReadStream* s, uint64_t offset, uint64_t record) {
  bool stream = false;
  for (uint64_t done = 0; done < record; done += 128 * kKiB)
    stream = s->Note(offset + done, 128 * kKiB) || stream;
  return stream;
}

TEST(ReadStreamTest, AReadFromTheStartIsAStream) {
  ReadStream s;
  EXPECT_TRUE(s.Note(0, 128 * kKiB));
  EXPECT_TRUE(s.Note(128 * kKiB, 128 * kKiB));
}

TEST(ReadStreamTest, RandomRecordsAreNot) {
  ReadStream s;
  const uint64_t offsets[] = {97 * kMiB, 13 * kMiB,  200 * kMiB,
                              51 * kMiB, 250 * kMiB, 3 * kMiB};
  for (uint64_t off : offsets) EXPECT_FALSE(Record(&s, off, kMiB)) << off;
}

TEST(ReadStreamTest, ReadingTheSameRegionAgainDoesNotGrowTheRun) {
  ReadStream s;
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(Record(&s, 40 * kMiB, kMiB));
}

TEST(ReadStreamTest, AReaderFromTheMiddleBecomesAStreamAfterTwoMiB) {
  ReadStream s;
  EXPECT_FALSE(Record(&s, 64 * kMiB, kMiB));
  EXPECT_FALSE(s.Note(65 * kMiB, kMiB - 1));
  EXPECT_TRUE(s.Note(66 * kMiB - 1, 1));
  EXPECT_TRUE(Record(&s, 66 * kMiB, kMiB));
}

// Pieces served out of order by several threads stay one run.
TEST(ReadStreamTest, PiecesOutOfOrderStayOneRun) {
  ReadStream s;
  EXPECT_FALSE(s.Note(10 * kMiB + 256 * kKiB, 128 * kKiB));
  EXPECT_FALSE(s.Note(10 * kMiB, 128 * kKiB));
  EXPECT_FALSE(s.Note(10 * kMiB + 128 * kKiB, 128 * kKiB));
  EXPECT_TRUE(Record(&s, 10 * kMiB + 384 * kKiB, 2 * kMiB));
  // A jump further than the slack starts over.
  EXPECT_FALSE(s.Note(20 * kMiB, 128 * kKiB));
}

}  // namespace
}  // namespace cvmfs::client
