#include "cvmfs/network/connection_limit.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>

namespace cvmfs {
namespace {

using std::chrono::milliseconds;

class ConnectionLimitTest : public ::testing::Test {
 protected:
  // A healthy attempt on a new connection, started now, at the limit.
  ConnectionLimit::Sample Healthy() {
    ConnectionLimit::Sample s;
    s.started = clock_.Now();
    s.connect = milliseconds(2);
    s.first_byte = milliseconds(3);
    s.new_connection = true;
    s.in_use = true;
    return s;
  }
  // Feeds healthy samples until the limit stops moving (or `n` of them).
  void Healthy(ConnectionLimit* limit, int n) {
    for (int i = 0; i < n; ++i) {
      clock_.Advance(milliseconds(1));
      limit->Record(Healthy());
    }
  }

  ManualClock clock_;
};

TEST_F(ConnectionLimitTest, SlowStartReachesMaxQuickly) {
  ConnectionLimit limit(16, &clock_);
  EXPECT_EQ(limit.limit(), ConnectionLimit::kInitial);
  EXPECT_LT(limit.limit(), 5) << "must fit a listen backlog of 5";
  // Two rounds: 4 attempts, then 8.
  Healthy(&limit, 12);
  EXPECT_EQ(limit.limit(), 16);
  Healthy(&limit, 1000);
  EXPECT_EQ(limit.limit(), 16) << "never above max";
}

TEST_F(ConnectionLimitTest, InitialNeverAboveMax) {
  ConnectionLimit limit(2, &clock_);
  EXPECT_EQ(limit.limit(), 2);
  Healthy(&limit, 100);
  EXPECT_EQ(limit.limit(), 2);
  ConnectionLimit zero(0, &clock_);
  EXPECT_EQ(zero.limit(), 1);
}

TEST_F(ConnectionLimitTest, GrowsOnlyWhenInUse) {
  ConnectionLimit limit(16, &clock_);
  for (int i = 0; i < 100; ++i) {
    ConnectionLimit::Sample s = Healthy();
    s.in_use = false;
    limit.Record(s);
  }
  EXPECT_EQ(limit.limit(), ConnectionLimit::kInitial);
}

TEST_F(ConnectionLimitTest, FailedConnectHalvesThenGrowsAdditively) {
  ConnectionLimit limit(16, &clock_);
  Healthy(&limit, 20);
  ASSERT_EQ(limit.limit(), 16);
  clock_.Advance(milliseconds(10));
  ConnectionLimit::Sample failed = Healthy();
  failed.failed = true;
  limit.Record(failed);
  EXPECT_EQ(limit.limit(), 8);
  // Additive: 8 healthy attempts make one more connection.
  Healthy(&limit, 7);
  EXPECT_EQ(limit.limit(), 8);
  Healthy(&limit, 1);
  EXPECT_EQ(limit.limit(), 9);
  Healthy(&limit, 9 + 10 + 11 + 12 + 13 + 14 + 15);
  EXPECT_EQ(limit.limit(), 16);
}

// Slow start ran ahead while the verdict on a connect was a second away:
// the decrease halves what was in flight, and the ceiling is below it.
TEST_F(ConnectionLimitTest, DecreaseHalvesWhatWasInFlight) {
  ConnectionLimit limit(16, &clock_);
  Healthy(&limit, 20);
  ASSERT_EQ(limit.limit(), 16);
  ConnectionLimit::Sample s = Healthy();
  s.connect = milliseconds(1000);
  s.in_flight = 7;
  limit.Record(s);
  EXPECT_EQ(limit.limit(), 3);
  Healthy(&limit, 200);
  EXPECT_EQ(limit.limit(), 6) << "below the 7 that dropped a SYN";
}

// A server whose accept queue overflows at 8: the limit settles below
// instead of dropping a SYN every few dozen requests.
TEST_F(ConnectionLimitTest, SettlesBelowTheLimitThatDropsSyns) {
  ConnectionLimit limit(16, &clock_);
  int drops = 0;
  for (int i = 0; i < 2000; ++i) {
    clock_.Advance(milliseconds(5));  // 10 s in all
    ConnectionLimit::Sample s = Healthy();
    if (limit.limit() >= 8) {
      s.connect = milliseconds(1000);
      ++drops;
    }
    limit.Record(s);
  }
  EXPECT_EQ(limit.limit(), 7);
  EXPECT_LE(drops, 2);
}

TEST_F(ConnectionLimitTest, DroppedSynBacksOff) {
  ConnectionLimit limit(16, &clock_);
  Healthy(&limit, 20);
  ConnectionLimit::Sample syn = Healthy();
  syn.connect = milliseconds(1005);
  limit.Record(syn);
  EXPECT_EQ(limit.limit(), 8);
  Healthy(&limit, 8 + 9 + 10 + 11 + 12 + 13);
  EXPECT_EQ(limit.limit(), 14);
  Healthy(&limit, 1000);
  EXPECT_EQ(limit.limit(), 15) << "below the limit that dropped a SYN";
  clock_.Advance(ConnectionLimit::kCeilingHold);
  Healthy(&limit, 15);
  EXPECT_EQ(limit.limit(), 16) << "then it probes the full limit again";
}

TEST_F(ConnectionLimitTest, OneDecreasePerRound) {
  ConnectionLimit limit(16, &clock_);
  Healthy(&limit, 20);
  const auto round_start = clock_.Now();
  clock_.Advance(milliseconds(1000));
  // Sixteen connects started together, all dropped: one halving.
  for (int i = 0; i < 16; ++i) {
    ConnectionLimit::Sample s = Healthy();
    s.started = round_start;
    s.connect = milliseconds(1000);
    limit.Record(s);
  }
  EXPECT_EQ(limit.limit(), 8);
  // An attempt started after the decrease counts again.
  clock_.Advance(milliseconds(1));
  ConnectionLimit::Sample again = Healthy();
  again.failed = true;
  limit.Record(again);
  EXPECT_EQ(limit.limit(), 4);
}

TEST_F(ConnectionLimitTest, SlowFirstByteAgainstBaselineBacksOff) {
  ConnectionLimit limit(16, &clock_);
  Healthy(&limit, 20);
  ConnectionLimit::Sample s = Healthy();
  s.new_connection = false;
  s.first_byte = milliseconds(50);  // 16x, but within kSlowExcess: noise
  limit.Record(s);
  EXPECT_EQ(limit.limit(), 16);
  clock_.Advance(milliseconds(1));
  s = Healthy();
  s.first_byte = milliseconds(400);
  limit.Record(s);
  EXPECT_EQ(limit.limit(), 16) << "one slow first byte: a proxy's cache miss";
  clock_.Advance(milliseconds(1));
  limit.Record(s);
  EXPECT_EQ(limit.limit(), 8) << "two in a row: the server slowed down";
}

TEST_F(ConnectionLimitTest, ReusedConnectionHasNoConnectToJudge) {
  ConnectionLimit limit(16, &clock_);
  Healthy(&limit, 20);
  ConnectionLimit::Sample reused = Healthy();
  reused.new_connection = false;
  reused.connect = milliseconds(5000);  // not a connect of this attempt
  limit.Record(reused);
  EXPECT_EQ(limit.limit(), 16);
}

TEST_F(ConnectionLimitTest, SlowConnectAgainstBaselineBacksOff) {
  ConnectionLimit limit(16, &clock_);
  Healthy(&limit, 20);
  ConnectionLimit::Sample s = Healthy();
  s.connect = milliseconds(300);
  limit.Record(s);
  EXPECT_EQ(limit.limit(), 8);
}

// A server that became slower for good is a new baseline, not a reason to
// stay at one connection.
TEST_F(ConnectionLimitTest, PersistentSlowdownBecomesTheBaseline) {
  ConnectionLimit limit(16, &clock_);
  Healthy(&limit, 20);
  for (int i = 0; i < 200; ++i) {
    clock_.Advance(milliseconds(1));
    ConnectionLimit::Sample s = Healthy();
    s.new_connection = false;
    s.first_byte = milliseconds(500);
    limit.Record(s);
  }
  EXPECT_GT(limit.first_byte_baseline(), milliseconds(250));
  EXPECT_EQ(limit.limit(), 16) << "recovered at the new baseline";
}

TEST_F(ConnectionLimitTest, NeverBelowOne) {
  ConnectionLimit limit(16, &clock_);
  for (int i = 0; i < 50; ++i) {
    clock_.Advance(milliseconds(1));
    ConnectionLimit::Sample s = Healthy();
    s.failed = true;
    limit.Record(s);
    EXPECT_GE(limit.limit(), 1);
  }
  EXPECT_EQ(limit.limit(), 1);
  Healthy(&limit, 1);
  EXPECT_EQ(limit.limit(), 2) << "grows again when connects recover";
  Healthy(&limit, 2);
  EXPECT_EQ(limit.limit(), 3) << "additively";
}

// Random samples against the invariants: 1 <= limit <= max, a decrease only
// halves, an increase only adds one.
TEST_F(ConnectionLimitTest, RandomSamplesKeepBounds) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 prng(seed);
  for (int max : {1, 2, 5, 16, 64}) {
    ConnectionLimit limit(max, &clock_);
    for (int i = 0; i < 5000; ++i) {
      clock_.Advance(milliseconds(prng() % 50));
      ConnectionLimit::Sample s;
      s.started = clock_.Now() - milliseconds(prng() % 2000);
      s.new_connection = prng() % 2;
      s.connect = milliseconds(s.new_connection ? prng() % 1200 : 0);
      s.first_byte = milliseconds(prng() % 600);
      s.failed = prng() % 10 == 0;
      s.in_use = prng() % 3 != 0;
      const int before = limit.limit();
      limit.Record(s);
      const int after = limit.limit();
      ASSERT_GE(after, 1);
      ASSERT_LE(after, max);
      ASSERT_TRUE(after == before || after == before + 1 ||
                  after == std::max(1, before / 2))
          << before << " -> " << after;
    }
  }
}

}  // namespace
}  // namespace cvmfs
