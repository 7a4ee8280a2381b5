#include "server/byte_range.h"

#include <gtest/gtest.h>

namespace server {
namespace {

using Kind = RangeDecision::Kind;

struct Case {
  const char* header;
  uint64_t size;
  Kind kind;
  uint64_t first, last;
};

TEST(ByteRangeTest, Decisions) {
  const Case cases[] = {
      {"", 100, Kind::kFull, 0, 0},
      {"bytes=0-9", 100, Kind::kPartial, 0, 9},
      {"bytes=10-19", 100, Kind::kPartial, 10, 19},
      {" bytes=10-19 ", 100, Kind::kPartial, 10, 19},
      {"bytes=90-", 100, Kind::kPartial, 90, 99},
      {"bytes=90-1000", 100, Kind::kPartial, 90, 99},  // clipped to the end
      {"bytes=99-99", 100, Kind::kPartial, 99, 99},
      {"bytes=-10", 100, Kind::kPartial, 90, 99},
      {"bytes=-1000", 100, Kind::kPartial, 0, 99},
      {"bytes=100-", 100, Kind::kUnsatisfiable, 0, 0},
      {"bytes=100-200", 100, Kind::kUnsatisfiable, 0, 0},
      {"bytes=-0", 100, Kind::kUnsatisfiable, 0, 0},
      {"bytes=0-", 0, Kind::kUnsatisfiable, 0, 0},
      {"bytes=-5", 0, Kind::kUnsatisfiable, 0, 0},
      // Ignored: the whole file is a valid answer.
      {"bytes=0-9,20-29", 100, Kind::kFull, 0, 0},
      {"bytes=20-10", 100, Kind::kFull, 0, 0},
      {"bytes=a-b", 100, Kind::kFull, 0, 0},
      {"bytes=5", 100, Kind::kFull, 0, 0},
      {"bytes=-", 100, Kind::kFull, 0, 0},
      {"items=0-9", 100, Kind::kFull, 0, 0},
      {"bytes=100-", 100, Kind::kUnsatisfiable, 0, 0},
      // Positions beyond 64 bits are valid syntax (1*DIGIT): an end past
      // the file is clamped, a start past it is unsatisfiable.
      {"bytes=0-99999999999999999999", 100, Kind::kPartial, 0, 99},
      {"bytes=5-18446744073709551615", 100, Kind::kPartial, 5, 99},
      {"bytes=5-18446744073709551616", 100, Kind::kPartial, 5, 99},
      {"bytes=0-0000000000000000000000009", 100, Kind::kPartial, 0, 9},
      {"bytes=99999999999999999999-", 100, Kind::kUnsatisfiable, 0, 0},
      {"bytes=18446744073709551615-", 100, Kind::kUnsatisfiable, 0, 0},
      {"bytes=99999999999999999999-99999999999999999999", 100,
       Kind::kUnsatisfiable, 0, 0},
      {"bytes=-99999999999999999999", 100, Kind::kPartial, 0, 99},
      // ... and still compared exactly: last < first is invalid, ignored.
      {"bytes=99999999999999999999-99999999999999999998", 100, Kind::kFull, 0,
       0},
      {"bytes=100000000000000000000-99999999999999999999", 100, Kind::kFull, 0,
       0},
      {"bytes=99999999999999999999-5", 100, Kind::kFull, 0, 0},
      // The unit is case-insensitive (RFC 9110 14.1).
      {"Bytes=0-9", 100, Kind::kPartial, 0, 9},
      {"bytes=0x10-20", 100, Kind::kFull, 0, 0},
      {"bytes=+1-20", 100, Kind::kFull, 0, 0},
  };
  for (const Case& c : cases) {
    RangeDecision d = DecideRange(c.header, c.size);
    EXPECT_EQ(d.kind, c.kind) << "'" << c.header << "' size " << c.size;
    if (c.kind == Kind::kPartial && d.kind == Kind::kPartial) {
      EXPECT_EQ(d.first, c.first) << c.header;
      EXPECT_EQ(d.last, c.last) << c.header;
    }
  }
}

TEST(ByteRangeTest, ContentRange) {
  EXPECT_EQ(ContentRangeValue(DecideRange("bytes=10-19", 100), 100),
            "bytes 10-19/100");
  EXPECT_EQ(ContentRangeValue(DecideRange("bytes=200-", 100), 100),
            "bytes */100");
  EXPECT_EQ(DecideRange("bytes=10-19", 100).length(), 10u);
}

}  // namespace
}  // namespace server
