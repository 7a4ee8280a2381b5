#include "server/geo_name_cache.h"

#include <gtest/gtest.h>

#include <map>

namespace server {
namespace {

using std::chrono::seconds;

class NameCacheTest : public ::testing::Test {
 protected:
  NameResolver Make(size_t max_entries = 100) {
    NameCacheOptions options;
    options.clock = &clock_;
    options.max_entries = max_entries;
    return CachingResolver(
        [this](const std::string& name) {
          ++lookups_[name];
          auto it = dns_.find(name);
          return it == dns_.end() ? std::vector<std::string>() : it->second;
        },
        options);
  }
  cvmfs::ManualClock clock_;
  std::map<std::string, std::vector<std::string>> dns_;
  std::map<std::string, int> lookups_;
};

TEST_F(NameCacheTest, RemembersForFiveMinutes) {
  dns_["s1.org"] = {"192.0.2.1"};
  NameResolver resolve = Make();
  EXPECT_EQ(std::vector<std::string>{"192.0.2.1"}, resolve("s1.org"));
  dns_["s1.org"] = {"192.0.2.2"};
  clock_.Advance(seconds(299));
  EXPECT_EQ(std::vector<std::string>{"192.0.2.1"}, resolve("s1.org"));
  EXPECT_EQ(1, lookups_["s1.org"]);
  clock_.Advance(seconds(1));
  EXPECT_EQ(std::vector<std::string>{"192.0.2.2"}, resolve("s1.org"));
  EXPECT_EQ(2, lookups_["s1.org"]);
}

TEST_F(NameCacheTest, FailuresAreRememberedAndOutagesKeepOldAddresses) {
  NameResolver resolve = Make();
  EXPECT_TRUE(resolve("uuid-of-a-client").empty());
  EXPECT_TRUE(resolve("uuid-of-a-client").empty());
  EXPECT_EQ(1, lookups_["uuid-of-a-client"]);
  dns_["s1.org"] = {"192.0.2.1"};
  resolve("s1.org");
  dns_.erase("s1.org");  // DNS outage
  clock_.Advance(seconds(600));
  EXPECT_EQ(std::vector<std::string>{"192.0.2.1"}, resolve("s1.org"));
  EXPECT_EQ(2, lookups_["s1.org"]);
}

TEST_F(NameCacheTest, FullCacheDropsTheOldest) {
  NameResolver resolve = Make(2);
  resolve("a");
  clock_.Advance(seconds(1));
  resolve("b");
  clock_.Advance(seconds(1));
  resolve("c");  // drops "a"
  resolve("b");
  resolve("c");
  resolve("a");
  EXPECT_EQ(1, lookups_["b"]);
  EXPECT_EQ(1, lookups_["c"]);
  EXPECT_EQ(2, lookups_["a"]);
}

}  // namespace
}  // namespace server
