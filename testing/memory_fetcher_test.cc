#include "testing/memory_fetcher.h"

#include <gtest/gtest.h>

#include <string>

#include "cvmfs/network/string_sink.h"

namespace cvmfs {
namespace {

TEST(MemoryFetcherTest, ServesContentInChunks) {
  MemoryFetcher fetcher;
  fetcher.set_chunk_size(3);
  fetcher.Put("data/ab/cd", "0123456789");
  // Counts the Write calls to see that the body streams in pieces.
  struct CountingSink : StringSink {
    int writes = 0;
    Status Write(const void* d, size_t n) override {
      writes++;
      return StringSink::Write(d, n);
    }
  } sink;
  DownloadResult r = fetcher.Fetch({"data/ab/cd"}, &sink);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(sink.body(), "0123456789");
  EXPECT_EQ(sink.writes, 4);
  EXPECT_EQ(r.bytes, 10u);
  EXPECT_EQ(r.http_code, 200);
  EXPECT_EQ(r.proxy, "DIRECT");
}

TEST(MemoryFetcherTest, MissingAndRemovedAreNotFound) {
  MemoryFetcher fetcher;
  StringSink sink;
  DownloadResult r = fetcher.Fetch({"nope"}, &sink);
  EXPECT_TRUE(r.status.IsNotFound());
  EXPECT_EQ(r.http_code, 404);
  fetcher.Put("x", "1");
  fetcher.Remove("x");
  EXPECT_TRUE(fetcher.Fetch({"x"}, &sink).status.IsNotFound());
}

TEST(MemoryFetcherTest, CountsRequestsAndLogsNoCache) {
  MemoryFetcher fetcher;
  fetcher.Put("a", "A");
  StringSink sink;
  fetcher.Fetch({"a"}, &sink);
  fetcher.Fetch({"a", /*no_cache=*/true}, &sink);
  fetcher.Fetch({"b"}, &sink);
  EXPECT_EQ(fetcher.requests("a"), 2u);
  EXPECT_EQ(fetcher.requests("b"), 1u);
  EXPECT_EQ(fetcher.requests("c"), 0u);
  EXPECT_EQ(fetcher.total_requests(), 3u);
  auto log = fetcher.request_log();
  ASSERT_EQ(log.size(), 3u);
  EXPECT_FALSE(log[0].no_cache);
  EXPECT_TRUE(log[1].no_cache);
  fetcher.ResetCounters();
  EXPECT_EQ(fetcher.total_requests(), 0u);
  EXPECT_EQ(fetcher.requests("a"), 0u);
}

TEST(MemoryFetcherTest, FailNextFailsExactlyNTimes) {
  MemoryFetcher fetcher;
  fetcher.Put("a", "A");
  fetcher.FailNext("a", 2, Status::Unavailable("down"));
  for (int i = 0; i < 2; ++i) {
    StringSink sink;
    DownloadResult r = fetcher.Fetch({"a"}, &sink);
    EXPECT_EQ(r.status.code(), Status::Code::kUnavailable);
    EXPECT_EQ(r.status.message(), "down");
    EXPECT_TRUE(sink.body().empty());
  }
  StringSink sink;
  EXPECT_TRUE(fetcher.Fetch({"a"}, &sink).status.ok());
  EXPECT_EQ(sink.body(), "A");
}

TEST(MemoryFetcherTest, ServeOnceThenRealContent) {
  MemoryFetcher fetcher;
  fetcher.Put("a", "good");
  fetcher.ServeOnce("a", "evil");
  StringSink first, second;
  fetcher.Fetch({"a"}, &first);
  fetcher.Fetch({"a"}, &second);
  EXPECT_EQ(first.body(), "evil");
  EXPECT_EQ(second.body(), "good");
}

TEST(MemoryFetcherTest, TruncateDeliversPrefixThenUnavailable) {
  MemoryFetcher fetcher;
  fetcher.Put("a", "0123456789");
  fetcher.TruncateNext("a", 4);
  StringSink sink;
  DownloadResult r = fetcher.Fetch({"a"}, &sink);
  EXPECT_EQ(r.status.code(), Status::Code::kUnavailable);
  EXPECT_EQ(sink.body(), "0123");
  EXPECT_EQ(r.bytes, 4u);
  StringSink again;
  EXPECT_TRUE(fetcher.Fetch({"a"}, &again).status.ok());
  EXPECT_EQ(again.body(), "0123456789");
}

TEST(MemoryFetcherTest, SinkErrorPassesThrough) {
  MemoryFetcher fetcher;
  fetcher.Put("a", std::string(100, 'x'));
  StringSink small(10);
  DownloadResult r = fetcher.Fetch({"a"}, &small);
  EXPECT_TRUE(r.status.IsCorruption()) << r.status.ToString();
}

}  // namespace
}  // namespace cvmfs
