#include "server/geo_order.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

namespace server {
namespace {

const GeoPoint kGeneva{46.2044, 6.1432};
const GeoPoint kChicago{41.8781, -87.6298};
const GeoPoint kHamburg{53.5511, 9.9937};
const GeoPoint kTokyo{35.6762, 139.6503};
constexpr double kEarthKm = 6371.0;

TEST(GeoOrderTest, ArcIsTheGreatCircleDistance) {
  EXPECT_EQ(0.0, ArcBetween(kGeneva, kGeneva));
  // Geneva-Hamburg is about 860 km, Geneva-Chicago about 7,000 km.
  EXPECT_NEAR(862, ArcBetween(kGeneva, kHamburg) * kEarthKm, 5);
  EXPECT_NEAR(7000, ArcBetween(kGeneva, kChicago) * kEarthKm, 100);
  // Symmetric; antipodes are pi apart; across the date line is short.
  EXPECT_DOUBLE_EQ(ArcBetween(kTokyo, kChicago), ArcBetween(kChicago, kTokyo));
  EXPECT_NEAR(M_PI, ArcBetween({0, 0}, {0, 180}), 1e-9);
  EXPECT_NEAR(2 * M_PI / 180, ArcBetween({0, 179}, {0, -179}), 1e-9);
  EXPECT_NEAR(M_PI, ArcBetween({90, 0}, {-90, 0}), 1e-9);
}

TEST(GeoOrderTest, ClosestFirstUnknownLastInGivenOrder) {
  const std::vector<std::optional<GeoPoint>> servers = {
      kTokyo, std::nullopt, kChicago, kHamburg, std::nullopt, kGeneva};
  EXPECT_EQ((std::vector<size_t>{5, 3, 2, 0, 1, 4}),
            OrderByDistance(kGeneva, servers));
  EXPECT_EQ((std::vector<size_t>{0, 1}),
            OrderByDistance(kGeneva, {std::nullopt, std::nullopt}));
  EXPECT_TRUE(OrderByDistance(kGeneva, {}).empty());
}

TEST(GeoOrderTest, TiesKeepTheGivenOrder) {
  EXPECT_EQ((std::vector<size_t>{1, 0, 2}),
            OrderByDistance(kGeneva, {kHamburg, kGeneva, kHamburg}));
}

// Against the obvious model: the result is a permutation, sorted by arc.
TEST(GeoOrderTest, RandomizedAgainstModel) {
  const unsigned seed = std::random_device()();
  std::printf("seed %u\n", seed);
  std::mt19937 prng(seed);
  std::uniform_real_distribution<double> lat(-90, 90), lon(-180, 180);
  for (int round = 0; round < 200; ++round) {
    const GeoPoint origin{lat(prng), lon(prng)};
    std::vector<std::optional<GeoPoint>> servers(prng() % 12);
    for (auto& s : servers)
      if (prng() % 4 != 0) s = GeoPoint{lat(prng), lon(prng)};
    const std::vector<size_t> order = OrderByDistance(origin, servers);
    ASSERT_EQ(servers.size(), order.size());
    std::vector<bool> seen(servers.size());
    for (size_t i = 0; i < order.size(); ++i) {
      ASSERT_FALSE(seen[order[i]]) << "seed " << seed;
      seen[order[i]] = true;
      if (i == 0) continue;
      const auto& a = servers[order[i - 1]];
      const auto& b = servers[order[i]];
      if (!b) {
        if (!a) {
          ASSERT_LT(order[i - 1], order[i]) << "seed " << seed;
        }
        continue;
      }
      ASSERT_TRUE(a.has_value()) << "seed " << seed;
      ASSERT_LE(ArcBetween(origin, *a), ArcBetween(origin, *b))
          << "seed " << seed;
    }
  }
}

}  // namespace
}  // namespace server
