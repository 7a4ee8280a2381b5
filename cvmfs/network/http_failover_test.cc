// HttpFetcher failover against real HTTP servers on 127.0.0.1: dead and
// broken hosts, proxies, resets, cut bodies and stalled servers
// (http_fetcher.h, "Failover").
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cvmfs/clock.h"
#include "cvmfs/mutex.h"
#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/network/string_sink.h"
#include "testing/http_test_server.h"

namespace cvmfs {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;
using testing::ClosedPort;
using testing::DeadHost;
using testing::FastOptions;
using testing::HttpTestServer;
using testing::kTestRepo;
using testing::MakeFetcher;
using testing::SilentListener;

TEST(HttpFetcherTest, FailsOverFromDeadHostToSecond) {
  HttpTestServer server;
  ASSERT_TRUE(server.ok());
  server.Put("x", "payload");
  const std::string dead = DeadHost();
  auto fetcher = MakeFetcher(FastOptions({dead, server.RepoUrl()}));
  StringSink sink;
  DownloadResult r = fetcher->Fetch({"x"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(sink.body(), "payload");
  EXPECT_EQ(r.host, server.RepoUrl());
  EXPECT_EQ(fetcher->CurrentHost(), server.RepoUrl());
  HttpFetcher::Counters c = fetcher->counters();
  EXPECT_EQ(c.retries, 1u) << "one retry on the dead host first";
  EXPECT_EQ(c.failovers, 1u);
  EXPECT_EQ(sink.resets(), 2) << "before the retry and before the failover";
  // The switch is global: the next request goes straight to the second.
  StringSink again;
  ASSERT_TRUE(fetcher->Fetch({"x"}, &again).status.ok());
  EXPECT_EQ(fetcher->counters().retries, 1u);
}

// The switches are told (the client's syslog) with what failed; a second
// request on the new route is not a switch.
TEST(HttpFetcherTest, FailoverIsReportedWithTheReason) {
  HttpTestServer server;
  ASSERT_TRUE(server.ok());
  server.Put("x", "payload");
  const std::string dead = DeadHost();
  const std::string proxy = "http://127.0.0.1:" + std::to_string(ClosedPort());
  HttpFetcherOptions o = FastOptions({dead, server.RepoUrl()});
  o.proxy_groups = {{proxy}, {"DIRECT"}};
  cvmfs::Mutex mu;
  std::vector<std::string> told;
  o.on_failover = [&](const std::string& what) {
    cvmfs::MutexLock lock(&mu);
    told.push_back(what);
  };
  auto fetcher = MakeFetcher(o);
  StringSink sink;
  ASSERT_TRUE(fetcher->Fetch({"x"}, &sink).status.ok());
  StringSink again;
  ASSERT_TRUE(fetcher->Fetch({"x"}, &again).status.ok());
  cvmfs::MutexLock lock(&mu);
  ASSERT_EQ(told.size(), 2u);
  EXPECT_EQ(told[0].rfind("switching proxy from " + proxy + " to DIRECT (", 0),
            0u)
      << told[0];
  EXPECT_NE(told[0].find(dead), std::string::npos) << "names the URL";
  EXPECT_EQ(
      told[1].rfind(
          "switching host from " + dead + " to " + server.RepoUrl() + " (", 0),
      0u)
      << told[1];
}

TEST(HttpFetcherTest, ServerErrorFailsOverThenGivesUp) {
  HttpTestServer broken, good;
  ASSERT_TRUE(broken.ok() && good.ok());
  broken.set_status(503);
  good.Put("x", "ok");
  auto fetcher = MakeFetcher(FastOptions({broken.RepoUrl(), good.RepoUrl()}));
  StringSink sink;
  DownloadResult r = fetcher->Fetch({"x"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(sink.body(), "ok");
  EXPECT_EQ(broken.requests(), 1) << "HTTP errors are not retried in place";

  auto lone = MakeFetcher(FastOptions({broken.RepoUrl()}));
  StringSink none;
  r = lone->Fetch({"x"}, &none);
  EXPECT_EQ(r.status.code(), Status::Code::kUnavailable);
  EXPECT_NE(r.status.message().find("HTTP 503"), std::string::npos)
      << r.status.message();
  EXPECT_NE(r.status.message().find(broken.RepoUrl() + "/x"),
            std::string::npos);
  EXPECT_EQ(r.http_code, 503);
  EXPECT_TRUE(none.body().empty());
  EXPECT_EQ(lone->counters().errors, 1u);
}

// CVMFS_HOST_RESET_AFTER: once the first host works again, requests go
// back to it after the interval; with 0 they stay on the second.
TEST(HttpFetcherTest, HostResetAfterReturnsToTheFirstHost) {
  for (int reset_after : {0, 30}) {
    SCOPED_TRACE("host_reset_after_s = " + std::to_string(reset_after));
    HttpTestServer first, second;
    ASSERT_TRUE(first.ok() && second.ok());
    first.Put("x", "first");
    second.Put("x", "second");
    first.set_status(503);
    ManualClock clock;
    HttpFetcherOptions o = FastOptions({first.RepoUrl(), second.RepoUrl()});
    o.host_reset_after_s = reset_after;
    o.clock = &clock;
    auto fetcher = MakeFetcher(o);
    StringSink sink;
    ASSERT_TRUE(fetcher->Fetch({"x"}, &sink).status.ok());
    EXPECT_EQ(sink.body(), "second");
    first.set_status(0);  // repaired
    clock.Advance(std::chrono::seconds(29));
    StringSink early;
    ASSERT_TRUE(fetcher->Fetch({"x"}, &early).status.ok());
    EXPECT_EQ(early.body(), "second") << "interval not over yet";
    clock.Advance(std::chrono::seconds(1));
    StringSink late;
    DownloadResult r = fetcher->Fetch({"x"}, &late);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(late.body(), reset_after > 0 ? "first" : "second");
    EXPECT_EQ(fetcher->CurrentHost(),
              reset_after > 0 ? first.RepoUrl() : second.RepoUrl());
    EXPECT_EQ(fetcher->counters().failovers, 1u) << "a reset is no failover";
  }
}

// CVMFS_PROXY_RESET_AFTER: back from DIRECT to the first proxy group.
TEST(HttpFetcherTest, ProxyResetAfterReturnsToTheFirstGroup) {
  HttpTestServer squid, origin;
  ASSERT_TRUE(squid.ok() && origin.ok());
  squid.set_status(503, /*squid_error=*/true);
  squid.Put("x", "proxied");
  origin.Put("x", "origin");
  ManualClock clock;
  HttpFetcherOptions o = FastOptions({origin.RepoUrl()});
  o.proxy_groups = {{squid.Origin()}, {"DIRECT"}};
  o.proxy_reset_after_s = 10;
  o.clock = &clock;
  auto fetcher = MakeFetcher(o);
  StringSink sink;
  ASSERT_TRUE(fetcher->Fetch({"x"}, &sink).status.ok());
  EXPECT_EQ(fetcher->CurrentProxy(), "DIRECT");
  squid.set_status(0);
  clock.Advance(std::chrono::seconds(10));
  EXPECT_EQ(fetcher->CurrentProxy(), "DIRECT") << "applied by a request";
  StringSink again;
  DownloadResult r = fetcher->Fetch({"x"}, &again);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.proxy, squid.Origin());
  EXPECT_EQ(squid.requests(), 2);
  EXPECT_EQ(fetcher->CurrentProxy(), squid.Origin());
}

TEST(HttpFetcherTest, DirectGroupAfterDeadProxy) {
  HttpTestServer server;
  ASSERT_TRUE(server.ok());
  server.Put("x", "via direct");
  HttpFetcherOptions o = FastOptions({server.RepoUrl()});
  const std::string proxy = "http://127.0.0.1:" + std::to_string(ClosedPort());
  o.proxy_groups = {{proxy}, {"DIRECT"}};
  auto fetcher = MakeFetcher(o);
  EXPECT_EQ(fetcher->CurrentProxy(), proxy);
  StringSink sink;
  DownloadResult r = fetcher->Fetch({"x"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(sink.body(), "via direct");
  EXPECT_EQ(r.proxy, "DIRECT");
  EXPECT_EQ(fetcher->CurrentProxy(), "DIRECT");
}

TEST(HttpFetcherTest, RequestsGoThroughTheProxy) {
  HttpTestServer proxy;
  ASSERT_TRUE(proxy.ok());
  proxy.Put("x", "proxied");
  // The repository host does not exist; only the proxy can answer.
  HttpFetcherOptions o =
      FastOptions({"http://stratum1.invalid" + std::string(kTestRepo)});
  o.proxy_groups = {{proxy.Origin()}};
  auto fetcher = MakeFetcher(o);
  StringSink sink;
  DownloadResult r = fetcher->Fetch({"x"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(sink.body(), "proxied");
  EXPECT_EQ(r.proxy, proxy.Origin());
  EXPECT_EQ(proxy.last_target(),
            "http://stratum1.invalid" + std::string(kTestRepo) + "/x");
  // curl would add "Pragma: no-cache" for proxies; CVMFS suppresses it.
  EXPECT_EQ(proxy.last_headers().count("Pragma"), 0u);
}

// Answers "squid" from a table that the test changes; counts lookups.
class SwitchableResolver : public DnsResolver {
 public:
  Result<ResolvedHost> Resolve(const std::string& name) override {
    MutexLock lock(&mu_);
    ++calls_;
    if (name != "squid") return Status::NotFound("unknown " + name);
    ResolvedHost h;
    h.name = "squid.site";
    h.ipv4 = addresses_;
    return h;
  }
  void Set(std::vector<std::string> a) {
    MutexLock lock(&mu_);
    addresses_ = std::move(a);
  }
  int calls() {
    MutexLock lock(&mu_);
    return calls_;
  }

 private:
  Mutex mu_;
  std::vector<std::string> addresses_ GUARDED_BY(mu_) = {"127.0.0.1"};
  int calls_ GUARDED_BY(mu_) = 0;
};

// A proxy name is used by its address and resolved again after its TTL
// (CVMFS_DNS_MIN_TTL); the proxy in use stays while it is still listed.
TEST(HttpFetcherTest, ProxyNameResolvedAndRefreshedAfterTtl) {
  HttpTestServer proxy;
  ASSERT_TRUE(proxy.ok());
  proxy.Put("x", "proxied");
  const std::string port = proxy.Origin().substr(proxy.Origin().rfind(':') + 1);
  SwitchableResolver dns;
  ManualClock clock;
  HttpFetcherOptions o =
      FastOptions({"http://stratum1.invalid" + std::string(kTestRepo)});
  o.proxy_groups = {{"http://squid:" + port}, {"DIRECT"}};
  o.resolver = &dns;
  o.clock = &clock;
  o.proxy_dns.min_ttl = std::chrono::seconds(60);
  auto fetcher = MakeFetcher(o);
  const std::string first = "http://127.0.0.1:" + port;
  EXPECT_EQ(fetcher->Proxies(), (ProxyGroups{{first}, {"DIRECT"}}));
  StringSink sink;
  DownloadResult r = fetcher->Fetch({"x"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.proxy, first);
  EXPECT_EQ(dns.calls(), 1);
  dns.Set({"127.0.0.1", "127.0.0.3"});
  clock.Advance(std::chrono::seconds(59));
  StringSink again;
  ASSERT_TRUE(fetcher->Fetch({"x"}, &again).status.ok());
  EXPECT_EQ(dns.calls(), 1) << "within the TTL";
  clock.Advance(std::chrono::seconds(2));
  StringSink third;
  r = fetcher->Fetch({"x"}, &third);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(dns.calls(), 2);
  EXPECT_EQ(fetcher->Proxies(),
            (ProxyGroups{{first, "http://127.0.0.3:" + port}, {"DIRECT"}}));
  EXPECT_EQ(fetcher->CurrentProxy(), first);
  const std::string info =
      fetcher->ProxyInfo().groups[0][1].Describe(fetcher->ProxyInfo().now);
  EXPECT_EQ(info, "http://127.0.0.3:" + port + " (squid.site, +1m)");
}

// CVMFS_FALLBACK_PROXY removes DIRECT: only the fallback proxy is used.
TEST(HttpFetcherTest, FallbackProxyReplacesDirect) {
  HttpTestServer proxy;
  ASSERT_TRUE(proxy.ok());
  proxy.Put("x", "proxied");
  HttpFetcherOptions o =
      FastOptions({"http://stratum1.invalid" + std::string(kTestRepo)});
  o.proxy_groups = {{"DIRECT"}};
  o.fallback_proxy_groups = {{proxy.Origin(), "DIRECT"}};
  auto fetcher = MakeFetcher(o);
  EXPECT_EQ(fetcher->Proxies(), (ProxyGroups{{proxy.Origin()}}));
  EXPECT_EQ(fetcher->ProxyInfo().first_fallback, 0u);
  StringSink sink;
  DownloadResult r = fetcher->Fetch({"x"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.proxy, proxy.Origin());
  // proxy set replaces the regular list; the fallback group stays last.
  ASSERT_TRUE(fetcher->SetProxies({{"http://127.0.0.9:1"}, {"DIRECT"}}).ok());
  EXPECT_EQ(fetcher->Proxies(),
            (ProxyGroups{{"http://127.0.0.9:1"}, {proxy.Origin()}}));
  EXPECT_EQ(fetcher->ProxyInfo().first_fallback, 1u);
}

// A 503 marked by X-Squid-Error is the proxy's fault: next proxy, not next
// host. Without the mark it would end here (one host, nothing left).
TEST(HttpFetcherTest, ProxyReportedErrorFailsOverToNextProxy) {
  HttpTestServer squid, origin;
  ASSERT_TRUE(squid.ok() && origin.ok());
  squid.set_status(503, /*squid_error=*/true);
  origin.Put("x", "origin");
  HttpFetcherOptions o = FastOptions({origin.RepoUrl()});
  o.proxy_groups = {{squid.Origin()}, {"DIRECT"}};
  auto fetcher = MakeFetcher(o);
  StringSink sink;
  DownloadResult r = fetcher->Fetch({"x"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(sink.body(), "origin");
  EXPECT_EQ(squid.requests(), 1);
}

TEST(HttpFetcherTest, BodyCutShortIsRetriedThenUnavailable) {
  HttpTestServer server;
  ASSERT_TRUE(server.ok());
  server.BreakAfter("data/cut", 100000, 30000);
  auto fetcher = MakeFetcher(FastOptions({server.RepoUrl()}));
  StringSink sink;
  DownloadResult r = fetcher->Fetch({"data/cut"}, &sink);
  EXPECT_EQ(r.status.code(), Status::Code::kUnavailable) << r.status.ToString();
  const std::string& msg = r.status.message();
  EXPECT_NE(msg.find(server.RepoUrl() + "/data/cut"), std::string::npos) << msg;
  EXPECT_NE(msg.find("proxy DIRECT"), std::string::npos) << msg;
  EXPECT_NE(msg.find("curl error"), std::string::npos) << msg;
  EXPECT_EQ(server.requests_for("data/cut"), 2);
  EXPECT_EQ(sink.resets(), 1);
  EXPECT_EQ(fetcher->counters().retries, 1u);
}

// The caller's thread is still writing the first attempt's bytes when the
// retry has failed too: the sink is reset all the same (the reset used to be
// dropped with the failed retry's body, leaving the sink one attempt's bytes
// and one reset short, depending on thread timing).
TEST(HttpFetcherTest, ResetOfARetryReachesALateSink) {
  HttpTestServer server;
  ASSERT_TRUE(server.ok());
  server.BreakAfter("data/cut", 400000, 100000);  // > kWakeBody: streamed
  auto fetcher = MakeFetcher(FastOptions({server.RepoUrl()}));
  struct LateSink : StringSink {
    HttpTestServer* server = nullptr;
    bool waited = false;
    Status Write(const void* data, size_t size) override {
      if (!waited) {  // until the retry was sent, and a while for it to fail
        waited = true;
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (server->requests_for("data/cut") < 2 &&
               std::chrono::steady_clock::now() < deadline) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
      }
      return StringSink::Write(data, size);
    }
  } sink;
  sink.server = &server;
  DownloadResult r = fetcher->Fetch({"data/cut"}, &sink);
  EXPECT_EQ(r.status.code(), Status::Code::kUnavailable) << r.status.ToString();
  EXPECT_EQ(server.requests_for("data/cut"), 2);
  EXPECT_EQ(sink.resets(), 1);
}

TEST(HttpFetcherTest, StalledServerTimesOut) {
  SilentListener stalled;
  HttpFetcherOptions o = FastOptions({stalled.Url()});
  o.timeout_direct_s = 1;
  o.max_retries = 0;
  auto fetcher = MakeFetcher(o);
  StringSink sink;
  auto start = steady_clock::now();
  DownloadResult r = fetcher->Fetch({"x"}, &sink);
  auto elapsed = steady_clock::now() - start;
  EXPECT_EQ(r.status.code(), Status::Code::kUnavailable) << r.status.ToString();
  EXPECT_NE(r.status.message().find("curl error 28"), std::string::npos)
      << r.status.message();
  EXPECT_GE(elapsed, milliseconds(900));
  EXPECT_LT(elapsed, milliseconds(5000));
}

// A signed file or a catalog (DownloadRequest::metadata) from a server that
// trickles just above the low-speed limit: the attempt ends at the
// metadata deadline, the host counts as failed without a retry on it, and
// the next host serves the file. Without the deadline the trickle (256 KiB
// at about 5 KB/s) would hold the fetch for some 50 s.
TEST(HttpFetcherTest, TrickledMetadataFailsOverAtTheDeadline) {
  HttpTestServer trickle, good;
  ASSERT_TRUE(trickle.ok() && good.ok());
  trickle.Trickle(".cvmfspublished", 256 << 10, 256, 50);
  good.Put(".cvmfspublished", "manifest");
  HttpFetcherOptions o = FastOptions({trickle.RepoUrl(), good.RepoUrl()});
  o.low_speed_limit = 1024;
  o.timeout_s = o.timeout_direct_s = 2;
  o.metadata_deadline_ms = 800;
  auto fetcher = MakeFetcher(o);
  DownloadRequest request{".cvmfspublished"};
  request.metadata = true;
  StringSink sink;
  const auto start = steady_clock::now();
  DownloadResult r = fetcher->Fetch(request, &sink);
  const auto took = steady_clock::now() - start;
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(sink.body(), "manifest");
  EXPECT_EQ(r.host, good.RepoUrl());
  // curl's timer may end the attempt a fraction of a millisecond before our
  // clock shows 800 ms; what matters is that the trickle was not given up at
  // once, nor held for its 50 s.
  EXPECT_GE(took, milliseconds(750));
  EXPECT_LT(took, milliseconds(4000));
  EXPECT_EQ(trickle.requests_for(".cvmfspublished"), 1)
      << "no retry on the host that used up the deadline";
  EXPECT_EQ(fetcher->counters().retries, 0u);
  EXPECT_EQ(fetcher->counters().failovers, 1u);
}

// With no other host the fetch fails, naming the deadline, in its time.
TEST(HttpFetcherTest, TrickledCatalogOnTheOnlyHostFailsAtTheDeadline) {
  HttpTestServer trickle;
  ASSERT_TRUE(trickle.ok());
  const std::string catalog = "data/ab/cdefC";
  trickle.Trickle(catalog, 256 << 10, 256, 50);
  HttpFetcherOptions o = FastOptions({trickle.RepoUrl()});
  o.low_speed_limit = 1024;
  o.timeout_s = o.timeout_direct_s = 2;
  o.metadata_deadline_ms = 500;
  auto fetcher = MakeFetcher(o);
  DownloadRequest request{catalog};
  request.metadata = true;
  StringSink sink;
  const auto start = steady_clock::now();
  DownloadResult r = fetcher->Fetch(request, &sink);
  EXPECT_LT(steady_clock::now() - start, milliseconds(3000));
  EXPECT_EQ(r.status.code(), Status::Code::kUnavailable);
  EXPECT_NE(r.status.message().find("deadline"), std::string::npos)
      << r.status.ToString();
}

// File content is bounded by the low-speed window only: a slow but steady
// transfer that takes longer than the metadata deadline completes.
TEST(HttpFetcherTest, ContentIsNotBoundedByTheMetadataDeadline) {
  HttpTestServer trickle;
  ASSERT_TRUE(trickle.ok());
  trickle.Trickle("data/ab/cdef", 4096, 512, 60);  // about 420 ms
  HttpFetcherOptions o = FastOptions({trickle.RepoUrl()});
  o.low_speed_limit = 1024;
  o.metadata_deadline_ms = 200;
  auto fetcher = MakeFetcher(o);
  StringSink content;
  DownloadResult r = fetcher->Fetch({"data/ab/cdef"}, &content);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(content.body(), std::string(4096, 'x'));
  DownloadRequest as_metadata{"data/ab/cdef"};
  as_metadata.metadata = true;
  StringSink metadata;
  EXPECT_FALSE(fetcher->Fetch(as_metadata, &metadata).status.ok());
}

}  // namespace
}  // namespace cvmfs
