#include "cvmfs/progress.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cvmfs {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class ProgressMeterTest : public ::testing::Test {
 protected:
  ProgressMeter MakeMeter(const char* label = "publish") {
    return ProgressMeter(
        label, &counters_, &clock_,
        [this](const std::string& s) { written_.push_back(s); });
  }
  ProgressCounters counters_{"files"};
  ManualClock clock_;
  std::vector<std::string> written_;
};

TEST_F(ProgressMeterTest, DrawsNothingBeforeTheFirstInterval) {
  ProgressMeter meter = MakeMeter();
  counters_.Add(10, 1000);
  clock_.Advance(milliseconds(249));
  meter.Tick();
  EXPECT_TRUE(written_.empty());
}

TEST_F(ProgressMeterTest, RedrawsAtMostOncePerInterval) {
  ProgressMeter meter = MakeMeter();
  for (int i = 0; i < 20; ++i) {  // 2 s in steps of 100 ms: 4 Hz is 8 draws
    counters_.Add(1);
    clock_.Advance(milliseconds(100));
    meter.Tick();
  }
  EXPECT_EQ(written_.size(), 6u);  // at 300, 600, ..., 1800 ms
}

TEST_F(ProgressMeterTest, RendersCountBytesAndRatesOnOneLine) {
  ProgressMeter meter = MakeMeter();
  counters_.Add(1500, 3 * 1024 * 1024);
  clock_.Advance(seconds(2));
  meter.Tick();
  ASSERT_EQ(written_.size(), 1u);
  EXPECT_EQ(written_[0],
            "\rpublish: 1500 files, 3.0 MiB, 750 files/s, 1.5 MiB/s\033[K");
}

TEST_F(ProgressMeterTest, WithATotalShowsPercentAndTimeLeft) {
  ProgressMeter meter = MakeMeter("check");
  counters_.StartPhase("entries", 1000);
  counters_.Add(250);
  clock_.Advance(seconds(5));
  meter.Tick();
  ASSERT_EQ(written_.size(), 1u);
  EXPECT_EQ(written_[0],
            "\rcheck: 250/1000 entries (25%), 50 entries/s, 0:15 left\033[K");
}

TEST_F(ProgressMeterTest, PercentNeverExceedsAHundred) {
  ProgressMeter meter = MakeMeter("check");
  counters_.StartPhase("entries", 10);
  counters_.Add(12);
  EXPECT_EQ(meter.Render(false), "check: 12/10 entries (100%)");
}

TEST_F(ProgressMeterTest, WorkStillBeingFoundHasNoPercentOrTimeLeft) {
  ProgressMeter meter = MakeMeter("snapshot");
  counters_.StartPhase("objects");
  counters_.AddFound(30);
  counters_.Add(10, 1024);
  counters_.AddFound(10);
  clock_.Advance(seconds(1));
  EXPECT_EQ(meter.Render(false),
            "snapshot: 10/40 objects (found so far), 1.0 KiB, 10 objects/s, "
            "1.0 KiB/s");
  counters_.Add(30);
  EXPECT_EQ(meter.Render(true),
            "snapshot: 40 objects, 1.0 KiB, 40 objects/s, 1.0 KiB/s, in 0:01");
}

TEST_F(ProgressMeterTest, FinalLineEndsWithNewlineAndIsWrittenOnce) {
  ProgressMeter meter = MakeMeter("gc");
  counters_.StartPhase("objects deleted", 4);
  counters_.Add(4, 2048);
  clock_.Advance(seconds(64));
  meter.Finish();
  meter.Finish();
  meter.Tick();
  ASSERT_EQ(written_.size(), 1u);
  EXPECT_EQ(written_[0],
            "\rgc: 4/4 objects deleted (100%), 2.0 KiB, 0 objects deleted/s, "
            "32 B/s, in 1:04\033[K\n");
}

TEST_F(ProgressMeterTest, ANewPhaseRestartsCountAndRate) {
  ProgressMeter meter = MakeMeter("gc");
  counters_.StartPhase("objects marked");
  counters_.Add(100);
  clock_.Advance(seconds(10));
  meter.Tick();
  counters_.StartPhase("objects scanned", 40);
  meter.Tick();  // notices the phase
  counters_.Add(20);
  clock_.Advance(seconds(2));
  meter.Tick();
  ASSERT_EQ(written_.size(), 2u);
  EXPECT_EQ(written_[0], "\rgc: 100 objects marked, 10 objects marked/s\033[K");
  EXPECT_EQ(written_[1],
            "\rgc: 20/40 objects scanned (50%), 10 objects scanned/s, 0:02 "
            "left\033[K");
}

TEST_F(ProgressMeterTest, TickerFinishesTheMeterWhenDestroyed) {
  ProgressMeter meter = MakeMeter("ingest");
  counters_.Add(3, 5);
  { ProgressTicker ticker(&meter, milliseconds(1)); }
  ASSERT_FALSE(written_.empty());
  EXPECT_EQ(written_.back(), "\ringest: 3 files, 5 B, in 0:00\033[K\n");
}

TEST(ProgressFormatTest, BytesAndDurations) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(5ull << 30), "5.0 GiB");
  EXPECT_EQ(FormatDuration(seconds(7)), "0:07");
  EXPECT_EQ(FormatDuration(seconds(754)), "12:34");
  EXPECT_EQ(FormatDuration(seconds(3723)), "1:02:03");
}

TEST(ProgressWantedTest, AutoFollowsTheTerminal) {
  EXPECT_TRUE(*ProgressWanted("", true));
  EXPECT_FALSE(*ProgressWanted("", false));
  EXPECT_FALSE(*ProgressWanted("auto", false));
  EXPECT_TRUE(*ProgressWanted("on", false));
  EXPECT_FALSE(*ProgressWanted("off", true));
  EXPECT_FALSE(ProgressWanted("sometimes", true).ok());
}

}  // namespace
}  // namespace cvmfs
