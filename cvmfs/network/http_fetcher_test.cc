#include "cvmfs/network/http_fetcher.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cvmfs/file_util.h"
#include "cvmfs/network/clock.h"
#include "cvmfs/network/string_sink.h"
#include "cvmfs/testing/test_env.h"

namespace cvmfs {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

const char kRepo[] = "/cvmfs/repo.example.org";

// An HTTP server on 127.0.0.1 with an ephemeral port, one thread per
// connection, that serves a map of paths and records what it saw. As a
// proxy it accepts absolute-form targets ("GET http://host/path").
class TestServer {
 public:
  TestServer() {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    daemon_ = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
            MHD_USE_AUTO,
        0, nullptr, nullptr, &TestServer::OnRequest, this, MHD_OPTION_SOCK_ADDR,
        &addr, MHD_OPTION_NOTIFY_CONNECTION, &TestServer::OnConnection, this,
        MHD_OPTION_END);
    if (daemon_ != nullptr) {
      port_ = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT)->port;
    }
  }
  ~TestServer() {
    if (daemon_ != nullptr) MHD_stop_daemon(daemon_);
  }

  bool ok() const { return daemon_ != nullptr; }
  std::string Origin() const {
    return "http://127.0.0.1:" + std::to_string(port_);
  }
  std::string RepoUrl() const { return Origin() + kRepo; }

  void Put(const std::string& rel, std::string body) {
    std::lock_guard<std::mutex> lock(mu_);
    files_[std::string(kRepo) + "/" + rel] = std::move(body);
  }
  // Every request is answered with `code` (0: serve files normally).
  void set_status(int code, bool squid_error = false) {
    status_ = code;
    squid_error_ = squid_error;
  }
  void set_delay_ms(int ms) { delay_ms_ = ms; }
  // `rel` announces `size` bytes but the connection breaks after `sent`.
  void BreakAfter(const std::string& rel, size_t size, size_t sent) {
    std::lock_guard<std::mutex> lock(mu_);
    broken_[std::string(kRepo) + "/" + rel] = {size, sent};
  }

  int connections() const { return connections_; }
  int requests() const { return requests_; }
  int max_concurrent() const { return max_concurrent_; }
  int requests_for(const std::string& rel) {
    std::lock_guard<std::mutex> lock(mu_);
    return per_path_[std::string(kRepo) + "/" + rel];
  }
  std::map<std::string, std::string> last_headers() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_headers_;
  }
  std::string last_target() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_target_;
  }

 private:
  struct Break {
    size_t size, sent;
  };

  static void OnConnection(void* cls, MHD_Connection*, void**,
                           MHD_ConnectionNotificationCode code) {
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      static_cast<TestServer*>(cls)->connections_++;
    }
  }

  static MHD_Result CollectHeader(void* cls, MHD_ValueKind, const char* key,
                                  const char* value) {
    (*static_cast<std::map<std::string, std::string>*>(cls))[key] =
        value ? value : "";
    return MHD_YES;
  }

  static ssize_t ReadBroken(void* cls, uint64_t pos, char* buf, size_t max) {
    auto* b = static_cast<Break*>(cls);
    if (pos >= b->sent) return MHD_CONTENT_READER_END_WITH_ERROR;
    size_t n = std::min<size_t>(max, b->sent - pos);
    std::fill(buf, buf + n, 'x');
    return static_cast<ssize_t>(n);
  }

  // Answers on the second call for a request: a response queued on the
  // first one (before the request is complete) makes MHD close the
  // connection, and keep-alive is under test.
  static MHD_Result OnRequest(void* cls, MHD_Connection* c, const char* url,
                              const char*, const char*, const char*, size_t*,
                              void** request_state) {
    auto* server = static_cast<TestServer*>(cls);
    if (*request_state == nullptr) {
      *request_state = server;
      return MHD_YES;
    }
    return server->Serve(c, url);
  }

  MHD_Result Serve(MHD_Connection* c, std::string target) {
    std::string path = target;
    if (path.rfind("http://", 0) == 0) {  // proxy request
      size_t slash = path.find('/', 7);
      path = slash == std::string::npos ? "/" : path.substr(slash);
    }
    const int now = ++in_flight_;
    int seen = max_concurrent_.load();
    while (now > seen && !max_concurrent_.compare_exchange_weak(seen, now)) {
    }
    if (delay_ms_ > 0) std::this_thread::sleep_for(milliseconds(delay_ms_));
    in_flight_--;
    requests_++;
    unsigned code = MHD_HTTP_OK;
    MHD_Response* response = MakeResponse(c, target, path, &code);
    MHD_Result ret = MHD_queue_response(c, code, response);
    MHD_destroy_response(response);
    return ret;
  }

  MHD_Response* MakeResponse(MHD_Connection* c, const std::string& target,
                             const std::string& path, unsigned* code) {
    std::lock_guard<std::mutex> lock(mu_);
    per_path_[path]++;
    last_target_ = target;
    last_headers_.clear();
    MHD_get_connection_values(c, MHD_HEADER_KIND, &CollectHeader,
                              &last_headers_);
    auto broken = broken_.find(path);
    auto file = files_.find(path);
    std::string body;
    if (status_ != 0) {
      *code = status_;
      body = "error page";
    } else if (broken != broken_.end()) {
      return MHD_create_response_from_callback(
          broken->second.size, 4096, &ReadBroken, &broken->second, nullptr);
    } else if (file != files_.end()) {
      body = file->second;
    } else {
      *code = MHD_HTTP_NOT_FOUND;
      body = "not found";
    }
    MHD_Response* r = MHD_create_response_from_buffer(body.size(), body.data(),
                                                      MHD_RESPMEM_MUST_COPY);
    if (squid_error_) MHD_add_response_header(r, "X-Squid-Error", "ERR_X 0");
    return r;
  }

  MHD_Daemon* daemon_ = nullptr;
  uint16_t port_ = 0;
  std::atomic<int> status_{0};
  std::atomic<bool> squid_error_{false};
  std::atomic<int> delay_ms_{0};
  std::atomic<int> connections_{0}, requests_{0};
  std::atomic<int> in_flight_{0}, max_concurrent_{0};
  std::mutex mu_;  // guards the members below
  std::map<std::string, std::string> files_;
  std::map<std::string, Break> broken_;
  std::map<std::string, int> per_path_;
  std::map<std::string, std::string> last_headers_;
  std::string last_target_;
};

// A port on 127.0.0.1 where nothing listens (connections are refused).
uint16_t ClosedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Accepts TCP connections (in the kernel backlog) but never answers.
class SilentListener {
 public:
  SilentListener() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::listen(fd_, 16);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~SilentListener() { ::close(fd_); }
  std::string Url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + kRepo;
  }

 private:
  int fd_;
  uint16_t port_ = 0;
};

std::string Pattern(size_t size, unsigned seed) {
  std::string s(size, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (char& c : s) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

HttpFetcherOptions FastOptions(std::vector<std::string> hosts) {
  HttpFetcherOptions o;
  o.hosts = std::move(hosts);
  o.timeout_s = o.timeout_direct_s = 3;
  o.backoff_init_ms = 5;
  o.backoff_max_ms = 20;
  return o;
}

std::unique_ptr<HttpFetcher> MakeFetcher(HttpFetcherOptions options) {
  auto fetcher = HttpFetcher::Create(std::move(options));
  EXPECT_TRUE(fetcher.ok()) << fetcher.status().ToString();
  return fetcher.ok() ? std::move(fetcher).value() : nullptr;
}

std::string DeadHost() {
  return "http://127.0.0.1:" + std::to_string(ClosedPort()) + kRepo;
}

TEST(HttpFetcherTest, DownloadsSmallAndLargeBodies) {
  TestServer server;
  ASSERT_TRUE(server.ok());
  const std::string big = Pattern(5 << 20, 1);
  server.Put(".cvmfspublished", "Cabc\n");
  server.Put("data/ab/cdef", big);
  auto fetcher = MakeFetcher(FastOptions({server.RepoUrl()}));
  ASSERT_NE(fetcher, nullptr);

  StringSink small;
  DownloadResult r = fetcher->Fetch({".cvmfspublished"}, &small);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(small.body(), "Cabc\n");
  EXPECT_EQ(r.http_code, 200);
  EXPECT_EQ(r.host, server.RepoUrl());
  EXPECT_EQ(r.proxy, "DIRECT");

  StringSink large;
  r = fetcher->Fetch({"data/ab/cdef"}, &large);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.bytes, big.size());
  EXPECT_TRUE(large.body() == big) << "5 MiB body differs";
  EXPECT_EQ(large.resets(), 0);

  auto headers = server.last_headers();
  EXPECT_EQ(headers["User-Agent"], "cvmfs Fuse 2.12.0");
  EXPECT_EQ(headers["Connection"], "Keep-Alive");
  EXPECT_EQ(headers.count("Pragma"), 0u);
  EXPECT_EQ(headers.count("Cache-Control"), 0u);
  HttpFetcher::Counters c = fetcher->counters();
  EXPECT_EQ(c.requests, 2u);
  EXPECT_EQ(c.bytes, big.size() + 5);
  EXPECT_EQ(c.errors, 0u);
}

TEST(HttpFetcherTest, NoCacheSendsBothHeaders) {
  TestServer server;
  ASSERT_TRUE(server.ok());
  server.Put("x", "x");
  auto fetcher = MakeFetcher(FastOptions({server.RepoUrl()}));
  StringSink sink;
  ASSERT_TRUE(fetcher->Fetch({"x", /*no_cache=*/true}, &sink).status.ok());
  auto headers = server.last_headers();
  EXPECT_EQ(headers["Pragma"], "no-cache");
  EXPECT_EQ(headers["Cache-Control"], "no-cache");
}

TEST(HttpFetcherTest, NotFoundIsFinalWithoutFailover) {
  TestServer first, second;
  ASSERT_TRUE(first.ok() && second.ok());
  second.Put("data/00/missing", "here");
  auto fetcher = MakeFetcher(FastOptions({first.RepoUrl(), second.RepoUrl()}));
  StringSink sink;
  DownloadResult r = fetcher->Fetch({"data/00/missing"}, &sink);
  EXPECT_TRUE(r.status.IsNotFound()) << r.status.ToString();
  EXPECT_NE(r.status.message().find(first.RepoUrl() + "/data/00/missing"),
            std::string::npos)
      << r.status.message();
  EXPECT_EQ(r.http_code, 404);
  EXPECT_TRUE(sink.body().empty()) << "error body must not reach the sink";
  EXPECT_EQ(second.requests(), 0);
  EXPECT_EQ(fetcher->counters().errors, 0u);
  // The error page was drained: the connection is reused.
  EXPECT_TRUE(fetcher->Fetch({"data/00/other"}, &sink).status.IsNotFound());
  EXPECT_EQ(first.connections(), 1);
}

// A Stratum 0 reads its own storage through file:// URLs (the publisher's
// read-only mount): bytes as stored, a missing object is NotFound (final,
// no failover), and a configured proxy does not apply.
TEST(HttpFetcherTest, FileUrlReadsLocalStorage) {
  testing::TempDir dir;
  const std::string body = Pattern(300000, 7);
  ASSERT_TRUE(MakeDirs(dir.Sub("repo/data/ab")).ok());
  ASSERT_TRUE(WriteFileAtomic(dir.Sub("repo/data/ab/cdef"), body).ok());
  HttpFetcherOptions options = FastOptions({"file://" + dir.Sub("repo")});
  options.proxy_groups = {{"http://127.0.0.1:" + std::to_string(ClosedPort())}};
  auto fetcher = MakeFetcher(options);
  ASSERT_NE(fetcher, nullptr);

  StringSink sink;
  DownloadResult r = fetcher->Fetch({"data/ab/cdef"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(sink.body() == body) << "file:// body differs";
  EXPECT_EQ(r.bytes, body.size());

  StringSink missing;
  r = fetcher->Fetch({"data/00/missing"}, &missing);
  EXPECT_TRUE(r.status.IsNotFound()) << r.status.ToString();
  EXPECT_NE(r.status.message().find(dir.Sub("repo/data/00/missing")),
            std::string::npos)
      << r.status.message();
  EXPECT_TRUE(missing.body().empty());
  EXPECT_EQ(fetcher->counters().failovers, 0u);
}

TEST(HttpFetcherTest, SequentialFetchesReuseTheConnection) {
  TestServer server;
  ASSERT_TRUE(server.ok());
  server.Put("obj", Pattern(1000, 2));
  auto fetcher = MakeFetcher(FastOptions({server.RepoUrl()}));
  for (int i = 0; i < 50; ++i) {
    StringSink sink;
    ASSERT_TRUE(fetcher->Fetch({"obj"}, &sink).status.ok());
    ASSERT_EQ(sink.body().size(), 1000u);
  }
  EXPECT_EQ(server.requests(), 50);
  EXPECT_LE(server.connections(), 2);
}

TEST(HttpFetcherTest, ConcurrentCallersOverlapAndGetTheirBytes) {
  TestServer server;
  ASSERT_TRUE(server.ok());
  constexpr int kCallers = 32;
  for (int i = 0; i < kCallers; ++i) {
    server.Put("data/" + std::to_string(i), Pattern(20000 + i, i));
  }
  server.set_delay_ms(200);
  auto fetcher = MakeFetcher(FastOptions({server.RepoUrl()}));
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kCallers; ++i) {
    threads.emplace_back([&, i] {
      StringSink sink;
      DownloadResult r = fetcher->Fetch({"data/" + std::to_string(i)}, &sink);
      if (r.status.ok() && sink.body() == Pattern(20000 + i, i)) good++;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), kCallers);
  // Serialized, 32 requests would take 6.4 s; in parallel they overlap.
  EXPECT_GE(server.max_concurrent(), 8);
}

TEST(HttpFetcherTest, FailsOverFromDeadHostToSecond) {
  TestServer server;
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

TEST(HttpFetcherTest, ServerErrorFailsOverThenGivesUp) {
  TestServer broken, good;
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
    TestServer first, second;
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
  TestServer squid, origin;
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
  TestServer server;
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
  TestServer proxy;
  ASSERT_TRUE(proxy.ok());
  proxy.Put("x", "proxied");
  // The repository host does not exist; only the proxy can answer.
  HttpFetcherOptions o =
      FastOptions({"http://stratum1.invalid" + std::string(kRepo)});
  o.proxy_groups = {{proxy.Origin()}};
  auto fetcher = MakeFetcher(o);
  StringSink sink;
  DownloadResult r = fetcher->Fetch({"x"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(sink.body(), "proxied");
  EXPECT_EQ(r.proxy, proxy.Origin());
  EXPECT_EQ(proxy.last_target(),
            "http://stratum1.invalid" + std::string(kRepo) + "/x");
  // curl would add "Pragma: no-cache" for proxies; CVMFS suppresses it.
  EXPECT_EQ(proxy.last_headers().count("Pragma"), 0u);
}

// A 503 marked by X-Squid-Error is the proxy's fault: next proxy, not next
// host. Without the mark it would end here (one host, nothing left).
TEST(HttpFetcherTest, ProxyReportedErrorFailsOverToNextProxy) {
  TestServer squid, origin;
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
  TestServer server;
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

// Fails on the first Write with a Corruption status.
class RefusingSink : public StringSink {
 public:
  Status Write(const void*, size_t) override {
    return Status::Corruption("hash mismatch, refusing more");
  }
};

TEST(HttpFetcherTest, SinkErrorAbortsOnlyItsTransfer) {
  TestServer server;
  ASSERT_TRUE(server.ok());
  const std::string body = Pattern(1 << 20, 3);
  server.Put("big", body);
  server.set_delay_ms(100);
  auto fetcher = MakeFetcher(FastOptions({server.RepoUrl()}));
  StringSink good;
  DownloadResult good_result;
  std::thread other([&] { good_result = fetcher->Fetch({"big"}, &good); });
  RefusingSink refusing;
  DownloadResult r = fetcher->Fetch({"big"}, &refusing);
  other.join();
  EXPECT_TRUE(r.status.IsCorruption()) << r.status.ToString();
  EXPECT_EQ(r.status.message(), "hash mismatch, refusing more");
  EXPECT_EQ(refusing.resets(), 0) << "a sink error is not retried";
  ASSERT_TRUE(good_result.status.ok()) << good_result.status.ToString();
  EXPECT_TRUE(good.body() == body);
  EXPECT_EQ(server.requests(), 2);
}

TEST(HttpFetcherTest, DestructorFailsPendingRequests) {
  SilentListener stalled;
  HttpFetcherOptions o = FastOptions({stalled.Url()});
  o.timeout_direct_s = 30;
  std::unique_ptr<HttpFetcher> fetcher = MakeFetcher(o);
  HttpFetcher* raw = fetcher.get();
  DownloadResult r;
  std::thread caller([&r, raw] {
    StringSink sink;
    r = raw->Fetch({"x"}, &sink);
  });
  std::this_thread::sleep_for(milliseconds(200));
  auto start = steady_clock::now();
  // Destroying while a Fetch is blocked: the caller must be released.
  fetcher.reset();
  caller.join();
  EXPECT_LT(steady_clock::now() - start, milliseconds(3000));
  EXPECT_EQ(r.status.code(), Status::Code::kUnavailable);
  EXPECT_NE(r.status.message().find("shut down"), std::string::npos)
      << r.status.message();
}

TEST(HttpFetcherTest, CreateRejectsBadOptions) {
  EXPECT_EQ(HttpFetcher::Create(FastOptions({})).status().code(),
            Status::Code::kInvalidArgument);
  HttpFetcherOptions o = FastOptions({"http://127.0.0.1:1/cvmfs/r"});
  o.max_connections = 0;
  Status st = HttpFetcher::Create(o).status();
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("max_connections"), std::string::npos);
  o = FastOptions({"127.0.0.1/cvmfs/r"});
  EXPECT_FALSE(HttpFetcher::Create(o).ok());
  o = FastOptions({"http://127.0.0.1:1/cvmfs/r"});
  o.host_reset_after_s = -1;
  st = HttpFetcher::Create(o).status();
  EXPECT_NE(st.message().find("host_reset_after"), std::string::npos);
}

TEST(HttpFetcherTest, AdministrativeSwitchesAndTimeouts) {
  HttpFetcherOptions o = FastOptions({"http://a/cvmfs/r", "http://b/cvmfs/r"});
  o.proxy_groups = {{"http://p1:3128"}, {"http://p2:3128"}};
  auto fetcher = MakeFetcher(o);
  EXPECT_EQ(fetcher->Hosts().size(), 2u);
  EXPECT_EQ(fetcher->CurrentHost(), "http://a/cvmfs/r");
  fetcher->SwitchHost();
  EXPECT_EQ(fetcher->CurrentHost(), "http://b/cvmfs/r");
  EXPECT_EQ(fetcher->CurrentProxy(), "http://p1:3128");
  fetcher->SwitchProxy();
  EXPECT_EQ(fetcher->CurrentProxy(), "http://p2:3128");
  EXPECT_EQ(fetcher->counters().failovers, 2u)
      << "explicit switches are failovers too";
  fetcher->SetTimeouts(7, 0);
  EXPECT_EQ(fetcher->timeout_s(), 7);
  EXPECT_EQ(fetcher->timeout_direct_s(), 1);
}

TEST(HttpFetcherTest, SwitchingAmongOneEntryIsNoFailover) {
  HttpFetcherOptions o = FastOptions({"http://a/cvmfs/r"});
  o.proxy_groups = {{"http://p1:3128"}};
  auto fetcher = MakeFetcher(o);
  fetcher->SwitchHost();
  fetcher->SwitchProxy();
  EXPECT_EQ(fetcher->CurrentHost(), "http://a/cvmfs/r");
  EXPECT_EQ(fetcher->counters().failovers, 0u);
}

}  // namespace
}  // namespace cvmfs
