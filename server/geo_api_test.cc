#include "server/geo_api.h"

#include <gtest/gtest.h>

#include <map>

namespace server {
namespace {

// Places: the requester's networks and four servers.
constexpr char kTable[] =
    "192.0.2.0/24   46.2044  6.1432    # Geneva: the clients\n"
    "198.51.100.7   41.8781  -87.6298  # Chicago: a proxy\n"
    "203.0.113.1    35.6762  139.6503  # Tokyo\n"
    "2001:db8::1    53.5511  9.9937    # Hamburg\n"
    "s1.example.org 41.8781  -87.6298  # Chicago, by name\n";

class GeoApiTest : public ::testing::Test {
 protected:
  GeoApiTest() {
    names_["hamburg.example.org"] = {"2001:db8::1"};
    names_["tokyo.example.org"] = {"203.0.113.1", "2001:db8::1"};
    names_["proxy.example.org"] = {"198.51.100.7"};
    names_["ip.cdn.example.org"] = {"203.0.113.1"};
    names_["cdn.example.org"] = {"2001:db8::1"};
    auto table = LocationTable::Parse(kTable, "test");
    EXPECT_TRUE(table.ok());
    api_ = std::make_unique<GeoApi>(
        nullptr, std::move(*table), [this](const std::string& name) {
          // Like getaddrinfo: an address is
          // itself.
          if (IpAddress::Parse(name)) return std::vector<std::string>{name};
          auto it = names_.find(name);
          return it == names_.end() ? std::vector<std::string>() : it->second;
        });
  }

  GeoAnswer Ask(const std::string& path, const std::string& from = "192.0.2.5",
                std::optional<std::string> xff = std::nullopt,
                std::optional<std::string> cf = std::nullopt) {
    path_ = path;
    GeoRequest r;
    r.path = path_;
    r.remote_address = from;
    r.forwarded_for = std::move(xff);
    r.cf_connecting_ip = std::move(cf);
    return api_->Answer(r);
  }

  std::map<std::string, std::vector<std::string>> names_;
  std::string path_;
  std::unique_ptr<GeoApi> api_;
};

const char kList[] =
    "tokyo.example.org,s1.example.org,hamburg.example.org";  // T, C, H

TEST_F(GeoApiTest, RecognizesApiPaths) {
  EXPECT_TRUE(GeoApi::IsApiPath("repo.org/api/v1.0/geo/x/a"));
  EXPECT_TRUE(GeoApi::IsApiPath("repo.org/api/"));
  EXPECT_FALSE(GeoApi::IsApiPath("repo.org/data/api/x"));
  EXPECT_FALSE(GeoApi::IsApiPath("repo.org/apix"));
  EXPECT_FALSE(GeoApi::IsApiPath("/api/v1.0"));
  EXPECT_FALSE(GeoApi::IsApiPath("repo.org"));
}

TEST_F(GeoApiTest, SortsFromTheConnectionsAddress) {
  GeoAnswer a = Ask(std::string("r.org/api/v1.0/geo/x/") + kList);
  EXPECT_EQ(200u, a.status);
  EXPECT_EQ("3,2,1\n", a.body);
  EXPECT_EQ(3600, a.max_age_s);
  // From Tokyo: Tokyo (its IPv4 address is the one located), Hamburg
  // (8,900 km), Chicago (10,100 km).
  a = Ask(std::string("r.org/api/v1.0/geo/x/") + kList, "203.0.113.1");
  EXPECT_EQ("1,3,2\n", a.body);
}

TEST_F(GeoApiTest, ProxyNameThatResolvesWins) {
  // The proxy (Chicago) is the requester, not the connection (Geneva).
  GeoAnswer a =
      Ask(std::string("r.org/api/v1.0/geo/proxy.example.org/") + kList);
  EXPECT_EQ("2,3,1\n", a.body);
  // A name that does not resolve (a client's UUID) falls back.
  a = Ask(std::string("r.org/api/v1.0/geo/0b6c3e6e-uuid/") + kList);
  EXPECT_EQ("3,2,1\n", a.body);
}

TEST_F(GeoApiTest, ForwardedForAndCloudflare) {
  const std::string path = std::string("r.org/api/v1.0/geo/x/") + kList;
  // The last address of X-Forwarded-For (after a blank, else a comma).
  EXPECT_EQ("1,3,2\n", Ask(path, "10.9.9.9", "192.0.2.9, 203.0.113.1").body);
  EXPECT_EQ("1,3,2\n", Ask(path, "10.9.9.9", "192.0.2.9,203.0.113.1").body);
  // An unknown forwarded address falls back to the connection's.
  EXPECT_EQ("3,2,1\n", Ask(path, "192.0.2.1", "10.0.0.1").body);
  // CF-Connecting-IP comes before X-Forwarded-For.
  EXPECT_EQ("2,3,1\n",
            Ask(path, "10.9.9.9", "203.0.113.1", "198.51.100.7").body);
  // Through Cloudflare a server is tried as ip.<name> first: cdn.example.org
  // is Hamburg, ip.cdn.example.org Tokyo.
  const std::string cdn = "r.org/api/v1.0/geo/x/cdn.example.org,s1.example.org";
  EXPECT_EQ("1,2\n", Ask(cdn, "192.0.2.1").body);
  EXPECT_EQ("2,1\n", Ask(cdn, "10.0.0.1", std::nullopt, "192.0.2.1").body);
}

TEST_F(GeoApiTest, UnknownServersLastInGivenOrder) {
  GeoAnswer a = Ask(
      "r.org/api/v1.0/geo/x/nowhere.org,tokyo.example.org,,hamburg.example.org"
      ",bad!name");
  EXPECT_EQ(200u, a.status);
  EXPECT_EQ("4,2,1,3,5\n", a.body);
}

TEST_F(GeoApiTest, BadRequests) {
  auto expect = [this](const std::string& path, const std::string& body,
                       const std::string& from = "192.0.2.5") {
    GeoAnswer a = Ask(path, from);
    EXPECT_EQ(400u, a.status) << path;
    EXPECT_EQ("Bad Request: " + body + "\n", a.body) << path;
    EXPECT_EQ(300, a.max_age_s);
  };
  expect(std::string("r.org/api/v1.0/geo/x/") + kList,
         "remote addr not found in database", "10.0.0.1");
  expect("r.org/api/v1.0/geo/x/nowhere.org,elsewhere.org",
         "no server addr found in database");
  expect("r.org/api/v1.0/geo/nolist", "no slash in geo path");
  expect("r.org/api/v1.0/stats/x/a", "unrecognized api function");
  expect("r.org/api/1.0/geo/x/a", "malformed api URL: /r.org/api/1.0/geo/x/a");
  expect("r.org/api/v1.0", "malformed api URL: /r.org/api/v1.0");
}

TEST_F(GeoApiTest, ProxySeparatorSortsFromTheClosestFallbackProxy) {
  // Servers Tokyo, Hamburg; fallback proxies unknown, Chicago, Tokyo.
  // From Geneva the proxies order Chicago(2), Tokyo(3), unknown(1); the
  // servers are sorted from Chicago: Tokyo closer than Hamburg? Chicago-
  // Tokyo is ~10,100 km, Chicago-Hamburg ~6,900 km: Hamburg first.
  GeoAnswer a =
      Ask("r.org/api/v1.0/geo/x/tokyo.example.org,hamburg.example.org,+PXYSEP+,"
          "nowhere.org,proxy.example.org,203.0.113.1");
  EXPECT_EQ(200u, a.status);
  EXPECT_EQ("2,1,5,6,4,3\n", a.body);
}

}  // namespace
}  // namespace server
