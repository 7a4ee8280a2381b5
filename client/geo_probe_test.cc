#include "client/geo_probe.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "cvmfs/file_util.h"
#include "testing/http_test_server.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

using testing::FastOptions;
using testing::HttpTestServer;
using testing::MakeFetcher;

TEST(CacheUuidTest, CreatedOnceThenKept) {
  testing::TempDir tmp;
  const std::string uuid = CacheUuid(tmp.path());
  EXPECT_EQ(36u, uuid.size());
  EXPECT_EQ(uuid + "\n", *ReadFile(tmp.Sub("uuid")));
  EXPECT_EQ(uuid, CacheUuid(tmp.path()));
  // A damaged file is replaced.
  ASSERT_TRUE(WriteFileAtomic(tmp.Sub("uuid"), "garbage").ok());
  EXPECT_NE(uuid, CacheUuid(tmp.path()));
  // An unwritable directory still gives a UUID.
  EXPECT_EQ(36u, CacheUuid("/nonexistent/dir").size());
}

// Two names for one test server: "127.0.0.1" and "localhost".
class GeoProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.ok());
    ip_ = server_.RepoUrl();
    name_ = "http://localhost:" + ip_.substr(ip_.rfind(':') + 1);
    http_ = MakeFetcher(FastOptions({ip_, name_}));
    ASSERT_NE(http_, nullptr);
    options_.cache_dir = tmp_.path();
    path_ = "api/v1.0/geo/" + CacheUuid(tmp_.path()) + "/127.0.0.1,localhost";
  }
  Status Probe() {
    return ProbeGeo(http_.get(), options_,
                    [this](Severity s, const std::string& what) {
                      log_.emplace_back(s, what);
                    });
  }
  bool Logged(Severity s, const std::string& text) const {
    for (const auto& [severity, what] : log_)
      if (severity == s && what.find(text) != std::string::npos) return true;
    return false;
  }

  testing::TempDir tmp_;
  HttpTestServer server_;
  std::string ip_, name_, path_;
  std::unique_ptr<HttpFetcher> http_;
  GeoProbeOptions options_;
  std::vector<std::pair<Severity, std::string>> log_;
};

TEST_F(GeoProbeTest, AValidAnswerReordersAndMarksTheHosts) {
  server_.Put(path_, "2,1\n");
  ASSERT_TRUE(Probe().ok());
  EXPECT_EQ((std::vector<std::string>{name_, ip_}), http_->Hosts());
  EXPECT_EQ(name_, http_->CurrentHost());
  EXPECT_TRUE(http_->HostsGeoOrdered());
  EXPECT_TRUE(Logged(Severity::kInfo, "geographic order of servers retrieved"));
  // Any other host list is not geo-ordered.
  ASSERT_TRUE(http_->SetHosts({ip_, name_}).ok());
  EXPECT_FALSE(http_->HostsGeoOrdered());
}

TEST_F(GeoProbeTest, ABrokenAnswerKeepsTheOrderAndIsLogged) {
  server_.Put(path_, "2,banana\n");
  EXPECT_FALSE(Probe().ok());
  EXPECT_EQ((std::vector<std::string>{ip_, name_}), http_->Hosts());
  EXPECT_FALSE(http_->HostsGeoOrdered());
  EXPECT_TRUE(Logged(Severity::kWarning, "[2,banana]"));
  EXPECT_TRUE(Logged(Severity::kWarning, "failed to retrieve geographic"));
  // No answer at all (404) is the same.
  log_.clear();
  server_.Put(path_ + "x", "");
  options_.proxy_template = "elsewhere";
  EXPECT_FALSE(Probe().ok());
  EXPECT_TRUE(Logged(Severity::kWarning, "api/v1.0/geo/elsewhere/"));
}

TEST_F(GeoProbeTest, OneHostIsLeftAlone) {
  ASSERT_TRUE(http_->SetHosts({ip_}).ok());
  EXPECT_TRUE(Probe().ok());
  EXPECT_FALSE(http_->HostsGeoOrdered());
  EXPECT_EQ(0, server_.requests());
}

}  // namespace
}  // namespace cvmfs::client
