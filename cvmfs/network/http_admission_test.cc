// HttpFetcher's admission against a real HTTP server on 127.0.0.1: never
// more connections than max_connections, demand requests before background
// ones, background ones on at most half of the limit, and the adaptive
// limit backing off (connection_limit.h has the policy's own tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/network/string_sink.h"
#include "testing/http_test_server.h"

namespace cvmfs {
namespace {

using testing::DeadHost;
using testing::FastOptions;
using testing::HttpTestServer;
using testing::MakeFetcher;
using testing::Pattern;

// Fetches `paths` on one thread each; returns how many came back whole.
int FetchAll(HttpFetcher* fetcher, const std::vector<std::string>& paths,
             bool background) {
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (const std::string& path : paths) {
    threads.emplace_back([&, path] {
      DownloadRequest request{path};
      request.background = background;
      StringSink sink;
      DownloadResult r = fetcher->Fetch(request, &sink);
      if (r.status.ok() && sink.body() == Pattern(3000, path.size())) good++;
    });
  }
  for (auto& t : threads) t.join();
  return good.load();
}

std::vector<std::string> PutObjects(HttpTestServer* server, const char* prefix,
                                    int n) {
  std::vector<std::string> paths;
  for (int i = 0; i < n; ++i) {
    paths.push_back(std::string(prefix) + std::to_string(i));
    server->Put(paths.back(), Pattern(3000, paths.back().size()));
  }
  return paths;
}

TEST(HttpAdmissionTest, NeverMoreConnectionsThanMax) {
  HttpTestServer server;
  ASSERT_TRUE(server.ok());
  const std::vector<std::string> paths = PutObjects(&server, "data/a", 60);
  server.set_delay_ms(20);
  HttpFetcherOptions options = FastOptions({server.RepoUrl()});
  options.max_connections = 6;
  auto fetcher = MakeFetcher(options);
  ASSERT_NE(fetcher, nullptr);
  EXPECT_EQ(FetchAll(fetcher.get(), paths, false), 60);
  EXPECT_LE(server.max_open_connections(), 6);
  EXPECT_LE(server.max_concurrent(), 6);
  const HttpFetcher::Counters c = fetcher->counters();
  EXPECT_LE(c.connections_peak, 6u);
  EXPECT_EQ(c.connections_peak, 6u) << "the limit grew from its start";
  EXPECT_EQ(c.connection_limit, 6u) << "a healthy server: the full limit";
  // Kept alive, not one connection per request.
  EXPECT_LE(server.connections(), 12);
}

// With one connection, the transfers that wait for it start demand first,
// whatever order they came in.
TEST(HttpAdmissionTest, DemandBeforeBackground) {
  HttpTestServer server;
  ASSERT_TRUE(server.ok());
  server.Put("first", Pattern(3000, 5));
  server.Put("demand", Pattern(3000, 6));
  const std::vector<std::string> background = PutObjects(&server, "bg", 5);
  server.set_delay_ms(150);
  HttpFetcherOptions options = FastOptions({server.RepoUrl()});
  options.max_connections = 1;
  auto fetcher = MakeFetcher(options);
  ASSERT_NE(fetcher, nullptr);

  std::thread first([&] {
    StringSink sink;
    EXPECT_TRUE(fetcher->Fetch({"first"}, &sink).status.ok());
  });
  while (server.max_concurrent() < 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::thread bg(
      [&] { FetchAll(fetcher.get(), background, /*background=*/true); });
  while (fetcher->counters().requests < 6)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // submitted
  StringSink sink;
  EXPECT_TRUE(fetcher->Fetch({"demand"}, &sink).status.ok());
  first.join();
  bg.join();

  const std::vector<std::string> order = server.request_order();
  ASSERT_EQ(order.size(), 7u);
  EXPECT_NE(order[0].find("/first"), std::string::npos) << order[0];
  EXPECT_NE(order[1].find("/demand"), std::string::npos)
      << "the demand request waited behind background ones: " << order[1];
}

// Background requests hold at most half of the limit, so a demand request
// finds a connection while prefetches run.
TEST(HttpAdmissionTest, BackgroundTakesAtMostHalf) {
  HttpTestServer server;
  ASSERT_TRUE(server.ok());
  const std::vector<std::string> paths = PutObjects(&server, "bg", 12);
  server.Put("demand", Pattern(3000, 6));
  server.set_delay_ms(100);
  HttpFetcherOptions options = FastOptions({server.RepoUrl()});
  options.max_connections = 4;
  auto fetcher = MakeFetcher(options);
  ASSERT_NE(fetcher, nullptr);
  std::thread bg([&] { FetchAll(fetcher.get(), paths, /*background=*/true); });
  while (server.max_concurrent() < 1)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  StringSink sink;
  EXPECT_TRUE(fetcher->Fetch({"demand"}, &sink).status.ok());
  bg.join();
  // The demand request ran beside two background ones, not behind them.
  EXPECT_EQ(server.max_concurrent(), 3) << "2 background + 1 demand";
}

TEST(HttpAdmissionTest, RefusedConnectLowersTheLimit) {
  HttpTestServer server;
  ASSERT_TRUE(server.ok());
  server.Put("x", "x");
  HttpFetcherOptions options = FastOptions({DeadHost(), server.RepoUrl()});
  options.max_retries = 0;
  auto fetcher = MakeFetcher(options);
  ASSERT_NE(fetcher, nullptr);
  EXPECT_EQ(fetcher->counters().connection_limit, 4u);
  StringSink sink;
  ASSERT_TRUE(fetcher->Fetch({"x"}, &sink).status.ok());
  // Halved what was in flight (the one transfer: 1), then one more for
  // the good attempt on the second host, which used the whole limit.
  EXPECT_EQ(fetcher->counters().connection_limit, 2u);
}

}  // namespace
}  // namespace cvmfs
