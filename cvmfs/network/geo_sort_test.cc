#include "cvmfs/network/geo_sort.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/network/string_sink.h"
#include "cvmfs/network/url_host.h"
#include "testing/http_test_server.h"

namespace cvmfs {
namespace {

using testing::DeadHost;
using testing::FastOptions;
using testing::HttpTestServer;
using testing::MakeFetcher;

TEST(UrlHostNameTest, AsCvmfsExtractsIt) {
  EXPECT_EQ("s1.example.org", UrlHostName("http://s1.example.org/cvmfs/x"));
  EXPECT_EQ("s1.example.org", UrlHostName("http://s1.example.org:8000/cvmfs"));
  EXPECT_EQ("squid", UrlHostName("http://squid:3128"));
  EXPECT_EQ("squid", UrlHostName("http://user@squid:3128"));
  EXPECT_EQ("[::1]", UrlHostName("http://[::1]:3128/x"));
  EXPECT_EQ("127.0.0.2", UrlHostName("https://127.0.0.2"));
  EXPECT_EQ("", UrlHostName("s1.example.org"));
  EXPECT_EQ("", UrlHostName("DIRECT"));
  EXPECT_EQ("", UrlHostName("http://[::1"));
}

TEST(ParseGeoReplyTest, ValidAnswers) {
  auto order = ParseGeoReply("3,1,2\n", 3);
  ASSERT_TRUE(order.ok()) << order.status().ToString();
  EXPECT_EQ((std::vector<size_t>{2, 0, 1}), *order);
  EXPECT_EQ((std::vector<size_t>{0}), *ParseGeoReply("1", 1));
  EXPECT_EQ((std::vector<size_t>{1, 0}), *ParseGeoReply(" 2 , 1 \n", 2));
  EXPECT_EQ((std::vector<size_t>{1, 0}), *ParseGeoReply("2,\n1", 2));
}

TEST(ParseGeoReplyTest, InvalidAnswers) {
  for (const char* bad :
       {"", "\n", "1,2", "1,2,3,4", "1,1,2", "0,1,2", "1,2,4", "1,,2,3",
        "1,2,3,", ",1,2,3", "3;1;2", "1,2,x", "1,2,-3", "<html>", "1 2,3",
        "Bad Request: remote addr not found in database\n",
        "99999999999999999999,1,2"}) {
    auto order = ParseGeoReply(bad, 3);
    EXPECT_FALSE(order.ok()) << "'" << bad << "' accepted";
  }
}

// Answers a Geo-API request per server (by host URL); records requests.
class FakeGeoFetcher : public Fetcher {
 public:
  DownloadResult Fetch(const DownloadRequest& request,
                       DownloadSink* sink) override {
    requests.push_back(request);
    DownloadResult r;
    r.host = request.host;
    auto it = answers.find(request.host);
    if (it == answers.end()) {
      r.status = Status::Unavailable("connection refused");
      return r;
    }
    r.status = sink->Write(it->second.data(), it->second.size());
    return r;
  }
  std::map<std::string, std::string> answers;
  std::vector<DownloadRequest> requests;
};

const std::vector<std::string> kHosts = {
    "http://tokyo.example.org/cvmfs/r.org",         // names sorted:
    "http://chicago.example.org/cvmfs/r.org",       // chicago(1) hamburg(2)
    "http://hamburg.example.org:8000/cvmfs/r.org",  // tokyo(3)
};

TEST(GeoSortHostsTest, AsksWithSortedNamesAndReordersByTheAnswer) {
  FakeGeoFetcher fetcher;
  for (const std::string& h : kHosts) fetcher.answers[h] = "2,1,3\n";
  GeoSortOptions options;
  options.direct_name = "the-uuid";
  auto sorted = GeoSortHosts(&fetcher, kHosts, options);
  ASSERT_TRUE(sorted.ok()) << sorted.status().ToString();
  EXPECT_EQ((std::vector<std::string>{kHosts[2], kHosts[1], kHosts[0]}),
            sorted->hosts);
  ASSERT_EQ(1u, fetcher.requests.size());
  const DownloadRequest& r = fetcher.requests[0];
  EXPECT_EQ(
      "api/v1.0/geo/@proxy@/"
      "chicago.example.org,hamburg.example.org,tokyo.example.org",
      r.url_path);
  EXPECT_EQ("the-uuid", r.direct_proxy_name);
  EXPECT_EQ(UrlHostName(r.host), sorted->answered_by);
}

TEST(GeoSortHostsTest, ProxyTemplateReplacesTheProxyName) {
  FakeGeoFetcher fetcher;
  for (const std::string& h : kHosts) fetcher.answers[h] = "1,2,3";
  GeoSortOptions options;
  options.proxy_template = "site-squids";
  ASSERT_TRUE(GeoSortHosts(&fetcher, kHosts, options).ok());
  EXPECT_EQ(0u, fetcher.requests[0].url_path.find("api/v1.0/geo/site-squids/"));
}

TEST(GeoSortHostsTest, BadAnswersAreSkippedAndReported) {
  FakeGeoFetcher fetcher;
  fetcher.answers[kHosts[0]] = "1,2";     // too short
  fetcher.answers[kHosts[1]] = "banana";  // nonsense
  // kHosts[2] refuses connections.
  std::vector<std::string> failures;
  GeoSortOptions options;
  options.on_failure = [&](const std::string& f) { failures.push_back(f); };
  auto sorted = GeoSortHosts(&fetcher, kHosts, options);
  EXPECT_EQ(Status::Code::kUnavailable, sorted.status().code());
  EXPECT_EQ(3u, fetcher.requests.size());
  ASSERT_EQ(3u, failures.size());
  std::string all;
  for (const auto& f : failures) all += f + "\n";
  EXPECT_NE(std::string::npos, all.find("invalid Geo-API reply from "));
  EXPECT_NE(std::string::npos, all.find("[banana]"));
  EXPECT_NE(std::string::npos, all.find("connection refused"));
}

TEST(GeoSortHostsTest, AsksAtMostThreeDifferentServersInRandomOrder) {
  std::vector<std::string> hosts;
  for (int i = 0; i < 6; ++i)
    hosts.push_back("http://s" + std::to_string(i) + ".org/cvmfs/r");
  std::set<std::string> first_asked;
  for (uint32_t seed = 0; seed < 20; ++seed) {
    FakeGeoFetcher fetcher;
    GeoSortOptions options;
    options.seed = seed;
    EXPECT_FALSE(GeoSortHosts(&fetcher, hosts, options).ok());
    ASSERT_EQ(kGeoMaxAttempts, fetcher.requests.size());
    std::set<std::string> asked;
    for (const auto& r : fetcher.requests) asked.insert(r.host);
    EXPECT_EQ(kGeoMaxAttempts, asked.size());
    first_asked.insert(fetcher.requests[0].host);
  }
  EXPECT_GT(first_asked.size(), 1u);
}

TEST(GeoSortHostsTest, OneHostIsNotAsked) {
  FakeGeoFetcher fetcher;
  auto sorted = GeoSortHosts(&fetcher, {kHosts[0]}, GeoSortOptions());
  ASSERT_TRUE(sorted.ok());
  EXPECT_EQ(std::vector<std::string>{kHosts[0]}, sorted->hosts);
  EXPECT_TRUE(fetcher.requests.empty());
}

// The HttpFetcher side: a request to one given host, "@proxy@" replaced by
// the proxy's host name or the direct name, and no host failover.
TEST(GeoSortHostsTest, HttpFetcherSendsTheProxyNameToTheGivenHost) {
  HttpTestServer server, proxy;
  ASSERT_TRUE(server.ok() && proxy.ok());
  server.Put("api/v1.0/geo/the-uuid/a,b", "2,1\n");
  server.Put("api/v1.0/geo/127.0.0.1/a,b", "1,2\n");
  // The configured host is dead: the request goes to `server` all the same.
  auto direct = MakeFetcher(FastOptions({DeadHost()}));
  ASSERT_NE(direct, nullptr);
  DownloadRequest request;
  request.host = server.RepoUrl();
  request.url_path = "api/v1.0/geo/@proxy@/a,b";
  request.direct_proxy_name = "the-uuid";
  StringSink sink;
  DownloadResult r = direct->Fetch(request, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ("2,1\n", sink.body());

  HttpFetcherOptions options = FastOptions({DeadHost()});
  options.proxy_groups = {{proxy.Origin()}};
  auto proxied = MakeFetcher(options);
  ASSERT_NE(proxied, nullptr);
  StringSink through;
  r = proxied->Fetch(request, &through);
  EXPECT_EQ(server.RepoUrl() + "/api/v1.0/geo/127.0.0.1/a,b",
            proxy.last_target());

  // A dead given host: no failover to the configured hosts.
  HttpTestServer configured;
  ASSERT_TRUE(configured.ok());
  auto fetcher = MakeFetcher(FastOptions({configured.RepoUrl()}));
  request.host = DeadHost();
  StringSink none;
  r = fetcher->Fetch(request, &none);
  EXPECT_EQ(Status::Code::kUnavailable, r.status.code());
  EXPECT_EQ(0, configured.requests());
  EXPECT_EQ(configured.RepoUrl(), fetcher->CurrentHost());
}

}  // namespace
}  // namespace cvmfs
