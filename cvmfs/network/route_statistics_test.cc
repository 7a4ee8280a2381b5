#include "cvmfs/network/route_statistics.h"

#include <gtest/gtest.h>

namespace cvmfs {
namespace {

using std::chrono::milliseconds;

TEST(RouteStatisticsTest, CountsPerRouteAndBucket) {
  RouteStatistics stats;
  stats.Record("http://b", "DIRECT", milliseconds(3), false, 100);
  stats.Record("http://a", "http://p:3128", milliseconds(200), true, 0);
  stats.Record("http://b", "DIRECT", milliseconds(60000), false, 5);
  auto snap = stats.Snapshot();
  ASSERT_EQ(snap.size(), 2u);
  EXPECT_EQ(snap[0].host, "http://a");
  EXPECT_EQ(snap[0].proxy, "http://p:3128");
  EXPECT_EQ(snap[0].requests, 1u);
  EXPECT_EQ(snap[0].errors, 1u);
  EXPECT_EQ(snap[0].buckets[5], 1u);  // (0.1, 0.25]
  EXPECT_EQ(snap[1].requests, 2u);
  EXPECT_EQ(snap[1].errors, 0u);
  EXPECT_EQ(snap[1].bytes, 105u);
  EXPECT_EQ(snap[1].buckets[0], 1u);  // <= 5 ms
  uint64_t bucketed = 0;
  for (uint64_t n : snap[1].buckets) bucketed += n;
  EXPECT_EQ(bucketed, 1u);  // 60 s is beyond the last bound
  EXPECT_NEAR(snap[1].seconds, 60.003, 1e-9);
}

TEST(RouteStatisticsTest, BoundsTheNumberOfRoutes) {
  RouteStatistics stats;
  for (size_t i = 0; i < RouteStatistics::kMaxRoutes + 10; ++i)
    stats.Record("http://h" + std::to_string(i), "DIRECT", milliseconds(1),
                 false, 1);
  auto snap = stats.Snapshot();
  EXPECT_EQ(snap.size(), RouteStatistics::kMaxRoutes + 1);
  uint64_t total = 0;
  for (const auto& c : snap) total += c.requests;
  EXPECT_EQ(total, RouteStatistics::kMaxRoutes + 10);
}

}  // namespace
}  // namespace cvmfs
