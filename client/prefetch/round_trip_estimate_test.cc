#include "client/prefetch/round_trip_estimate.h"

#include <gtest/gtest.h>

namespace cvmfs::client {
namespace {

using std::chrono::milliseconds;

TEST(RoundTripEstimateTest, ZeroBeforeTheFirstSample) {
  RoundTripEstimate rtt;
  EXPECT_EQ(0u, rtt.us());
  rtt.Add(milliseconds(40));
  EXPECT_EQ(40000u, rtt.us());
}

// Samples lengthened by queueing behind other transfers do not raise it:
// the shortest one says what the link costs.
TEST(RoundTripEstimateTest, QueueingDoesNotRaiseIt) {
  RoundTripEstimate rtt;
  rtt.Add(milliseconds(1));
  for (int i = 0; i < RoundTripEstimate::kWindow - 2; ++i)
    rtt.Add(milliseconds(9 + i));
  EXPECT_EQ(1000u, rtt.us());
}

TEST(RoundTripEstimateTest, AFasterLinkIsSeenAtOnce) {
  RoundTripEstimate rtt;
  for (int i = 0; i < 3 * RoundTripEstimate::kWindow; ++i)
    rtt.Add(milliseconds(50));
  rtt.Add(milliseconds(2));
  EXPECT_EQ(2000u, rtt.us());
}

// A link that got slower (a failover to a distant server) is seen once the
// window with the short samples and the one after it are full.
TEST(RoundTripEstimateTest, ASlowerLinkIsSeenWithinTwoWindows) {
  RoundTripEstimate rtt;
  for (int i = 0; i < RoundTripEstimate::kWindow; ++i) rtt.Add(milliseconds(1));
  for (int i = 0; i < RoundTripEstimate::kWindow - 1; ++i) {
    rtt.Add(milliseconds(60));
    EXPECT_EQ(1000u, rtt.us());
  }
  rtt.Add(milliseconds(60));
  EXPECT_EQ(60000u, rtt.us());
}

// 0 means "no sample yet": a sample never makes it 0.
TEST(RoundTripEstimateTest, ASampleIsAtLeastOneMicrosecond) {
  RoundTripEstimate rtt;
  rtt.Add(milliseconds(0));
  EXPECT_EQ(1u, rtt.us());
  rtt.Add(milliseconds(-5));
  EXPECT_EQ(1u, rtt.us());
}

}  // namespace
}  // namespace cvmfs::client
