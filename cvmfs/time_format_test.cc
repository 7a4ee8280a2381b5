#include "cvmfs/time_format.h"

#include <gtest/gtest.h>

#include <ctime>

namespace cvmfs {
namespace {

constexpr int64_t kT = 1795888019;  // 2026-11-28 17:46:59 UTC, a Saturday

TEST(TimeFormatTest, WritesUtcInEachSharedFormat) {
  EXPECT_EQ(FormatTime(kT, kDateTimeFormat, TimeZone::kUtc),
            "2026-11-28 17:46:59");
  EXPECT_EQ(FormatTime(kT, kRfc3339UtcFormat, TimeZone::kUtc),
            "2026-11-28T17:46:59Z");
  EXPECT_EQ(FormatTime(kT, kDateCommandUtcFormat, TimeZone::kUtc),
            "Sat Nov 28 17:46:59 UTC 2026");
  EXPECT_EQ(FormatTime(0, "%d %b %Y %H:%M:%S UTC", TimeZone::kUtc),
            "01 Jan 1970 00:00:00 UTC");
}

TEST(TimeFormatTest, DateCommandFormatPadsTheDayWithABlank) {
  EXPECT_EQ(FormatTime(86400 * 3, kDateCommandUtcFormat, TimeZone::kUtc),
            "Sun Jan  4 00:00:00 UTC 1970");
}

TEST(TimeFormatTest, LocalTimeFollowsTheProcessTimeZone) {
  struct tm tm {};
  const time_t t = static_cast<time_t>(kT);
  ASSERT_TRUE(localtime_r(&t, &tm));
  char expected[64];
  std::strftime(expected, sizeof(expected), "%Y-%m-%d %H:%M:%S", &tm);
  EXPECT_EQ(FormatTime(kT, kDateTimeFormat, TimeZone::kLocal), expected);
}

TEST(TimeFormatTest, EmptyWhenTheTimeCannotBeBrokenDown) {
  EXPECT_EQ(FormatTime(INT64_MAX, kDateTimeFormat, TimeZone::kUtc), "");
}

}  // namespace
}  // namespace cvmfs
