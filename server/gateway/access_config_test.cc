#include "server/gateway/access_config.h"

#include <gtest/gtest.h>

namespace gateway {
namespace {

cvmfs::Result<cvmfs::GatewayKey> FakeKeys(const std::string& path) {
  if (path == "/keys/simple.org.gw")
    return cvmfs::GatewayKey{"simple-key", "s1"};
  if (path == "/k/team-a.gw") return cvmfs::GatewayKey{"team-a", "sa"};
  return cvmfs::Status::NotFound(path);
}

TEST(AccessConfigTest, Version2) {
  auto c = ParseAccessConfig(R"({
    "version": 2,
    "repos": ["simple.org",
              {"domain": "shared.org",
               "keys": [{"id": "team-a", "path": "/a"},
                        {"id": "team-b", "path": "/b/"}]}],
    "keys": [{"type": "file", "file_name": "/k/team-a.gw"},
             {"type": "plain_text", "id": "team-b", "secret": "sb"},
             {"type": "plain_text", "id": "adm", "secret": "x", "admin": true}]
  })",
                             "/keys", FakeKeys);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->keys.at("simple-key").secret, "s1");
  EXPECT_TRUE(c->keys.at("adm").admin);
  EXPECT_FALSE(c->keys.at("team-a").admin);
  EXPECT_TRUE(c->Check("simple-key", "simple.org", "/").ok());
  EXPECT_TRUE(c->Check("team-a", "shared.org", "/a/x").ok());
  EXPECT_EQ(c->Check("team-a", "shared.org", "/b").message(), "invalid_path");
  EXPECT_EQ(c->Check("team-a", "shared.org", "/").message(), "invalid_path");
  EXPECT_TRUE(c->Check("team-b", "shared.org", "/b").ok());
  EXPECT_EQ(c->Check("nobody", "shared.org", "/a").message(), "invalid_key");
  EXPECT_EQ(c->Check("team-a", "other.org", "/").message(), "invalid_repo");
}

TEST(AccessConfigTest, Version1) {
  auto c = ParseAccessConfig(R"({
    "repos": [{"domain": "r.org", "keys": ["k1"]}],
    "keys": [{"type": "plain_text", "id": "k1", "secret": "s",
              "repo_subpath": "/sub"}]
  })",
                             "/keys", FakeKeys);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->Check("k1", "r.org", "/sub/x").ok());
  EXPECT_FALSE(c->Check("k1", "r.org", "/").ok());
}

TEST(AccessConfigTest, RefusesBadFiles) {
  for (const char* bad : {
           "",
           "[]",
           "{\"repos\": 3}",
           "{\"repos\": [\"missing.org\"]}",
           "{\"keys\": [{\"type\": \"rsa\"}]}",
           "{\"version\": 2, \"repos\": [{\"domain\": \"r\", \"keys\": "
           "[{\"id\": \"k\", \"path\": \"/../x\"}]}]}",
       }) {
    EXPECT_FALSE(ParseAccessConfig(bad, "/keys", FakeKeys).ok()) << bad;
  }
}

TEST(GatewaySettingsTest, DefaultsAndOverrides) {
  auto d = ParseGatewaySettings("{}");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->port, 4929);
  EXPECT_EQ(d->max_lease_time_s, 7200);
  auto s =
      ParseGatewaySettings(R"({"fe_tcp_port": 5000, "max_lease_time": 30})");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->port, 5000);
  EXPECT_EQ(s->max_lease_time_s, 30);
  EXPECT_FALSE(ParseGatewaySettings(R"({"port": "x"})").ok());
  EXPECT_FALSE(ParseGatewaySettings(R"({"max_lease_time": -1})").ok());
}

}  // namespace
}  // namespace gateway
