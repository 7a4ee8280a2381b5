// The CVMFS_EXTERNAL_* parameters, and the external servers' fetcher
// options built from them and the repository's.
#include "client/external_settings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "client/repository_mount.h"

namespace cvmfs {
namespace {

using Groups = std::vector<std::vector<std::string>>;

class ExternalSettingsTest : public ::testing::Test {
 protected:
  Result<ExternalDataSettings> Read() const {
    return ReadExternalDataSettings(OptionReader(opts_), "data.example.org",
                                    "data", 7, 11);
  }
  OptionsManager opts_;
};

TEST_F(ExternalSettingsTest,
       DefaultsAreNoServersDirectAndTheRepositoryTimeouts) {
  auto s = Read();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->urls.empty());
  EXPECT_EQ(Groups{{"DIRECT"}}, s->proxy_groups);
  EXPECT_EQ(Groups{}, s->fallback_proxy_groups);
  EXPECT_EQ(7, s->timeout_s);
  EXPECT_EQ(11, s->timeout_direct_s);
}

TEST_F(ExternalSettingsTest, ServersProxiesTimeoutsAndMaxServers) {
  opts_.Set("CVMFS_EXTERNAL_URL",
            "http://a.example.org/@org@/;http://b/@fqrn@;http://c", "t");
  opts_.Set("CVMFS_EXTERNAL_MAX_SERVERS", "2", "t");
  opts_.Set("CVMFS_EXTERNAL_HTTP_PROXY", "http://p1:3128|http://p2:3128", "t");
  opts_.Set("CVMFS_EXTERNAL_FALLBACK_PROXY", "http://f:3128", "t");
  opts_.Set("CVMFS_EXTERNAL_TIMEOUT", "20", "t");
  opts_.Set("CVMFS_EXTERNAL_TIMEOUT_DIRECT", "30", "t");
  auto s = Read();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((std::vector<std::string>{"http://a.example.org/data",
                                      "http://b/data.example.org"}),
            s->urls);
  EXPECT_EQ((Groups{{"http://p1:3128", "http://p2:3128"}}), s->proxy_groups);
  EXPECT_EQ((Groups{{"http://f:3128"}}), s->fallback_proxy_groups);
  EXPECT_EQ(20, s->timeout_s);
  EXPECT_EQ(30, s->timeout_direct_s);

  HttpFetcherOptions repository;
  repository.hosts = {"http://stratum1/cvmfs/data.example.org"};
  repository.max_retries = 3;
  auto external = client::ExternalHttpOptions(repository, *s);
  ASSERT_TRUE(external.has_value());
  EXPECT_EQ(s->urls, external->hosts);
  EXPECT_EQ((Groups{{"http://p1:3128", "http://p2:3128"}, {"http://f:3128"}}),
            external->proxy_groups);
  EXPECT_EQ(20, external->timeout_s);
  EXPECT_EQ(30, external->timeout_direct_s);
  EXPECT_EQ(3, external->max_retries) << "the repository's retries";
  EXPECT_FALSE(client::ExternalHttpOptions(repository, ExternalDataSettings())
                   .has_value())
      << "no CVMFS_EXTERNAL_URL, no external fetcher";
}

TEST_F(ExternalSettingsTest, MalformedValuesAreRefusedByName) {
  for (auto [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"CVMFS_EXTERNAL_URL", "ftp://x"},
           {"CVMFS_EXTERNAL_MAX_SERVERS", "-1"},
           {"CVMFS_EXTERNAL_HTTP_PROXY", "squid:3128"},
           {"CVMFS_EXTERNAL_FALLBACK_PROXY", "nonsense"},
           {"CVMFS_EXTERNAL_TIMEOUT", "0"},
           {"CVMFS_EXTERNAL_TIMEOUT_DIRECT", "soon"}}) {
    OptionsManager before = opts_;
    opts_.Set(name, value, "test.conf");
    auto s = Read();
    opts_ = before;
    ASSERT_FALSE(s.ok()) << name << "=" << value;
    EXPECT_EQ(Status::Code::kInvalidArgument, s.status().code());
    EXPECT_NE(std::string::npos, s.status().message().find(name))
        << s.status().ToString();
  }
}

}  // namespace
}  // namespace cvmfs
