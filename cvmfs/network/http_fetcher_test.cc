// HttpFetcher against a real HTTP server on 127.0.0.1: bodies, headers,
// keep-alive, parallel transfers, sinks, shutdown and options. Failover:
// http_failover_test.cc.
#include "cvmfs/network/http_fetcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cvmfs/file_util.h"
#include "cvmfs/network/string_sink.h"
#include "testing/http_test_server.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;
using testing::ClosedPort;
using testing::FastOptions;
using testing::HttpTestServer;
using testing::MakeFetcher;
using testing::Pattern;
using testing::SilentListener;

TEST(HttpFetcherTest, DownloadsSmallAndLargeBodies) {
  HttpTestServer server;
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
  HttpTestServer server;
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
  HttpTestServer first, second;
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

// A large local file with a sink slower than the disk arrives whole (curl's
// file:// reader cannot pause: it is written on the I/O thread).
TEST(HttpFetcherTest, FileUrlDeliversALargeFileToASlowSink) {
  testing::TempDir dir;
  const std::string body = Pattern(3 << 20, 8);
  ASSERT_TRUE(MakeDirs(dir.Sub("repo/data/ab")).ok());
  ASSERT_TRUE(WriteFileAtomic(dir.Sub("repo/data/ab/big"), body).ok());
  auto fetcher = MakeFetcher(FastOptions({"file://" + dir.Sub("repo")}));
  ASSERT_NE(fetcher, nullptr);
  class SlowSink : public StringSink {
   public:
    Status Write(const void* data, size_t size) override {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      return StringSink::Write(data, size);
    }
  } sink;
  DownloadResult r = fetcher->Fetch({"data/ab/big"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.bytes, body.size());
  EXPECT_TRUE(sink.body() == body) << "file:// body differs";
}

TEST(HttpFetcherTest, SequentialFetchesReuseTheConnection) {
  HttpTestServer server;
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
  HttpTestServer server;
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

class RefusingSink : public StringSink {
 public:
  Status Write(const void*, size_t) override {
    return Status::Corruption("hash mismatch, refusing more");
  }
};

TEST(HttpFetcherTest, SinkErrorAbortsOnlyItsTransfer) {
  HttpTestServer server;
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

// Sinks run on the thread that called Fetch, not on the I/O thread: the
// client's inflating and hashing run in parallel.
TEST(HttpFetcherTest, SinksRunOnTheCallersThread) {
  HttpTestServer server;
  ASSERT_TRUE(server.ok());
  server.Put("big", Pattern(3 << 20, 4));
  auto fetcher = MakeFetcher(FastOptions({server.RepoUrl()}));
  ASSERT_NE(fetcher, nullptr);
  class ThreadSink : public StringSink {
   public:
    Status Write(const void* data, size_t size) override {
      if (std::this_thread::get_id() != caller) others++;
      return StringSink::Write(data, size);
    }
    std::thread::id caller = std::this_thread::get_id();
    int others = 0;
  } sink;
  DownloadResult r = fetcher->Fetch({"big"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_TRUE(sink.body() == Pattern(3 << 20, 4));
  EXPECT_EQ(sink.others, 0) << "writes from another thread";
}

// A sink that blocks holds up its own transfer only: another one goes on
// and completes meanwhile.
TEST(HttpFetcherTest, ASlowSinkHoldsUpOnlyItsOwnTransfer) {
  HttpTestServer server;
  ASSERT_TRUE(server.ok());
  server.Put("slow", Pattern(1 << 20, 5));
  server.Put("quick", "small body");
  auto fetcher = MakeFetcher(FastOptions({server.RepoUrl()}));
  ASSERT_NE(fetcher, nullptr);
  std::atomic<bool> blocked{false};
  class BlockingSink : public StringSink {
   public:
    explicit BlockingSink(std::atomic<bool>* blocked) : blocked_(blocked) {}
    Status Write(const void* data, size_t size) override {
      if (!blocked_->exchange(true))
        std::this_thread::sleep_for(milliseconds(1500));
      return StringSink::Write(data, size);
    }

   private:
    std::atomic<bool>* blocked_;
  } slow_sink(&blocked);
  DownloadResult slow_result;
  std::thread slow([&] { slow_result = fetcher->Fetch({"slow"}, &slow_sink); });
  while (!blocked.load()) std::this_thread::sleep_for(milliseconds(5));
  auto start = steady_clock::now();
  StringSink quick;
  DownloadResult r = fetcher->Fetch({"quick"}, &quick);
  const auto took =
      std::chrono::duration_cast<milliseconds>(steady_clock::now() - start);
  slow.join();
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(quick.body(), "small body");
  EXPECT_LT(took.count(), 1000) << "waited for the other transfer's sink";
  ASSERT_TRUE(slow_result.status.ok()) << slow_result.status.ToString();
  EXPECT_TRUE(slow_sink.body() == Pattern(1 << 20, 5));
}

// A sink slower than the network: the transfer pauses while the caller
// catches up (at most 512 KiB wait for it), and the body arrives whole.
TEST(HttpFetcherTest, ASlowSinkGetsALargeBodyWholeInBoundedPieces) {
  HttpTestServer server;
  ASSERT_TRUE(server.ok());
  const std::string big = Pattern(6 << 20, 6);
  server.Put("big", big);
  auto fetcher = MakeFetcher(FastOptions({server.RepoUrl()}));
  ASSERT_NE(fetcher, nullptr);
  class SlowSink : public StringSink {
   public:
    Status Write(const void* data, size_t size) override {
      largest = std::max(largest, size);
      writes++;
      std::this_thread::sleep_for(milliseconds(40));
      return StringSink::Write(data, size);
    }
    size_t largest = 0;
    int writes = 0;
  } sink;
  DownloadResult r = fetcher->Fetch({"big"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.bytes, big.size());
  EXPECT_TRUE(sink.body() == big) << "6 MiB body differs";
  EXPECT_EQ(sink.resets(), 0);
  // Without the bound the whole rest would pile up behind the first write.
  EXPECT_LE(sink.largest, size_t{1} << 20);
  EXPECT_GE(sink.writes, 6);
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
