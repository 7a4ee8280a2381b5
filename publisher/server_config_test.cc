#include "publisher/server_config.h"

#include <gtest/gtest.h>

namespace publisher {
namespace {

KeyValueFile GatewayPublisher(const std::string& upstream) {
  KeyValueFile kv;
  kv.Set("CVMFS_REPOSITORY_NAME", "r.example.org");
  kv.Set("CVMFS_STRATUM0", "http://gw.example.org/cvmfs/r.example.org");
  kv.Set("CVMFS_UPSTREAM_STORAGE", upstream);
  return kv;
}

TEST(ServerConfigTest, GatewayUpstreamRoundTrips) {
  auto c = ServerConfig::FromKeyValues(GatewayPublisher(
      "gw,/var/spool/cvmfs/r.example.org/tmp,http://gw.example.org:4929/"
      "api/v1/"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->on_gateway());
  EXPECT_FALSE(c->on_s3());
  EXPECT_EQ(c->gateway_url, "http://gw.example.org:4929/api/v1");
  EXPECT_TRUE(c->storage_dir.empty());
  c->spool_dir = "/var/spool/cvmfs/r.example.org";
  auto again = ServerConfig::FromKeyValues(c->ToKeyValues());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->gateway_url, c->gateway_url);
  EXPECT_EQ(c->ToKeyValues().Get("CVMFS_UPSTREAM_STORAGE"),
            "gw,/var/spool/cvmfs/r.example.org/tmp,"
            "http://gw.example.org:4929/api/v1");
}

TEST(ServerConfigTest, GatewayUpstreamNeedsAnHttpUrlAndAStratum0) {
  EXPECT_FALSE(ServerConfig::FromKeyValues(GatewayPublisher("gw,/tmp")).ok());
  EXPECT_FALSE(
      ServerConfig::FromKeyValues(GatewayPublisher("gw,/tmp,gw.example.org"))
          .ok());
  KeyValueFile no_stratum0 =
      GatewayPublisher("gw,/tmp,http://gw.example.org:4929/api/v1");
  no_stratum0.Set("CVMFS_STRATUM0", "");
  EXPECT_FALSE(ServerConfig::FromKeyValues(no_stratum0).ok());
}

}  // namespace
}  // namespace publisher
