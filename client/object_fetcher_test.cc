// ObjectFetcher's recovery order for bad or missing objects, against an
// in-memory server: a hash mismatch is retried once with no-cache, then the
// host failover hook is asked (with no-cache kept), as CVMFS does; a 404 goes
// to the hook directly; nothing unverified reaches the cache.
#include "client/object_fetcher.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cvmfs/compression.h"
#include "cvmfs/hash.h"
#include "cvmfs/object_name.h"
#include "testing/gated_fetcher.h"
#include "testing/memory_fetcher.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

class ObjectFetcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache::CacheOptions options;
    options.dir = tmp_.Sub("cache");
    auto cache = cache::PosixCache::Open(options);
    ASSERT_TRUE(cache.ok()) << cache.status().ToString();
    cache_ = std::move(cache).value();
    stored_ = ZlibCompress(content_);
    request_.digest = HashString(HashAlgorithm::kSha1, stored_);
    request_.description = "/dir/file";
    request_.expected_size = content_.size();
    path_ = ObjectPath(request_.digest, ObjectSuffix::kNone);
    server_.Put(path_, stored_);
    objects_ = std::make_unique<ObjectFetcher>(&server_, cache_.get());
  }

  // The stored object with one byte flipped: same size, wrong hash.
  std::string Corrupted() const {
    std::string bad = stored_;
    bad[bad.size() / 2] ^= 0x5a;
    return bad;
  }

  // A hook that allows `switches` host switches and records its calls.
  void AllowHostSwitches(int switches) {
    objects_->set_missing_object_failover([this, switches](int attempt) {
      hook_calls_.push_back(attempt);
      return attempt < switches;
    });
  }

  std::vector<bool> NoCacheFlags() const {
    std::vector<bool> flags;
    for (const DownloadRequest& r : server_.request_log()) {
      EXPECT_EQ(path_, r.url_path);
      flags.push_back(r.no_cache);
    }
    return flags;
  }

  std::string ReadCached() {
    auto handle = cache_->Open(request_.digest);
    if (!handle.ok()) return "not cached: " + handle.status().ToString();
    std::string out(handle->size(), '\0');
    EXPECT_EQ(static_cast<ssize_t>(out.size()),
              ::pread(handle->fd(), out.data(), out.size(), 0));
    return out;
  }

  testing::TempDir tmp_;
  std::unique_ptr<cache::PosixCache> cache_;
  MemoryFetcher server_;
  std::unique_ptr<ObjectFetcher> objects_;
  const std::string content_ = std::string(5000, 'x') + "the right content";
  std::string stored_, path_;
  ObjectRequest request_;
  std::vector<int> hook_calls_;
};

TEST_F(ObjectFetcherTest, ProxyCopyCorruptedIsRefetchedWithNoCache) {
  AllowHostSwitches(1);
  server_.ServeOnce(path_, Corrupted());
  auto handle = objects_->Open(request_);
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  EXPECT_EQ((std::vector<bool>{false, true}), NoCacheFlags());
  EXPECT_TRUE(hook_calls_.empty()) << "the same host served it with no-cache";
  EXPECT_EQ(content_, ReadCached());
}

TEST_F(ObjectFetcherTest, HostCorruptedEvenWithNoCacheFailsOverToTheNextHost) {
  AllowHostSwitches(1);
  server_.ServeOnce(path_, Corrupted());
  server_.ServeOnce(path_, Corrupted());
  auto handle = objects_->Open(request_);
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  // The next host is asked with no-cache too: its proxies may be stale alike.
  EXPECT_EQ((std::vector<bool>{false, true, true}), NoCacheFlags());
  EXPECT_EQ((std::vector<int>{0}), hook_calls_);
  EXPECT_EQ(content_, ReadCached());
}

TEST_F(ObjectFetcherTest, CorruptedOnEveryHostIsCorruptionAndNothingCached) {
  AllowHostSwitches(1);
  for (int i = 0; i < 3; ++i) server_.ServeOnce(path_, Corrupted());
  auto handle = objects_->Open(request_);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(Status::Code::kCorruption, handle.status().code())
      << handle.status().ToString();
  EXPECT_EQ((std::vector<bool>{false, true, true}), NoCacheFlags());
  EXPECT_EQ((std::vector<int>{0, 1}), hook_calls_);
  EXPECT_FALSE(cache_->Contains(request_.digest));
  EXPECT_EQ(1u, objects_->counters().io_errors);
}

TEST_F(ObjectFetcherTest, WithoutHookASecondMismatchFails) {
  server_.ServeOnce(path_, Corrupted());
  server_.ServeOnce(path_, Corrupted());
  auto handle = objects_->Open(request_);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(Status::Code::kCorruption, handle.status().code());
  EXPECT_EQ((std::vector<bool>{false, true}), NoCacheFlags());
  EXPECT_FALSE(cache_->Contains(request_.digest));
}

TEST_F(ObjectFetcherTest, MissingObjectFailsOverWithoutNoCache) {
  AllowHostSwitches(2);
  server_.FailNext(path_, 1, Status::NotFound("404 on the lagging host"));
  auto handle = objects_->Open(request_);
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  EXPECT_EQ((std::vector<bool>{false, false}), NoCacheFlags());
  EXPECT_EQ((std::vector<int>{0}), hook_calls_);
}

TEST_F(ObjectFetcherTest, MissingEverywhereIsIoErrorForReferencedObjects) {
  AllowHostSwitches(1);
  server_.Remove(path_);
  auto handle = objects_->OpenReferenced(request_);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(Status::Code::kIoError, handle.status().code())
      << handle.status().ToString();
  EXPECT_EQ((std::vector<int>{0, 1}), hook_calls_);
  EXPECT_EQ(2u, server_.total_requests());
}

// A prefetch stores its object as "never used" (volatile): it leads the
// eviction order until a reader opens it, and a reader who waited for the
// prefetch's download makes it used.
TEST_F(ObjectFetcherTest, PrefetchedObjectsStayFirstToGoUntilRead) {
  cache::CacheOptions options;
  options.dir = tmp_.Sub("managed");
  options.quota_limit = 1 << 20;
  auto managed = cache::PosixCache::Open(options);
  ASSERT_TRUE(managed.ok()) << managed.status().ToString();
  ObjectFetcher objects(&server_, managed->get());
  auto put = [&](const std::string& content, const std::string& name) {
    ObjectRequest r;
    const std::string stored = ZlibCompress(content);
    r.digest = HashString(HashAlgorithm::kSha1, stored);
    r.description = name;
    server_.Put(ObjectPath(r.digest, ObjectSuffix::kNone), stored);
    return r;
  };
  ObjectRequest used = put("read by a reader", "/used");
  ObjectRequest prefetched = put("only prefetched", "/prefetched");
  prefetched.speculative = true;
  auto order = [&] {
    std::vector<std::string> names;
    for (const auto& e : (*managed)->List(false))
      names.push_back(e.description);
    return names;
  };
  ASSERT_TRUE(objects.Open(used).ok());
  const uint64_t hits = (*managed)->usage().hits;
  ASSERT_TRUE(objects.Open(prefetched).ok());
  ASSERT_TRUE(objects.Open(prefetched).ok());  // found again: still unused
  EXPECT_EQ((std::vector<std::string>{"/prefetched", "/used"}), order());
  EXPECT_EQ(hits, (*managed)->usage().hits);  // a prefetch is not a hit
  prefetched.speculative = false;             // now a reader wants it
  ASSERT_TRUE(objects.Open(prefetched).ok());
  EXPECT_EQ((std::vector<std::string>{"/used", "/prefetched"}), order());
  EXPECT_EQ(hits + 1, (*managed)->usage().hits);
}

// Downloads of small objects are timed, demand reads and prefetches alike
// (the shortest recent one tells prefetch whether speculation pays); large
// objects and cache hits are not.
TEST_F(ObjectFetcherTest, TimesDownloadsOfSmallObjects) {
  ManualClock clock;
  class Delaying : public Fetcher {
   public:
    Delaying(Fetcher* inner, ManualClock* clock)
        : inner_(inner), clock_(clock) {}
    DownloadResult Fetch(const DownloadRequest& r, DownloadSink* s) override {
      clock_->Advance(delay);
      return inner_->Fetch(r, s);
    }
    std::chrono::milliseconds delay{40};

   private:
    Fetcher* inner_;
    ManualClock* clock_;
  } delaying(&server_, &clock);
  ObjectFetcher objects(&delaying, cache_.get());
  objects.set_clock(&clock);
  EXPECT_EQ(0u, objects.round_trip_us());
  auto put = [&](const std::string& content) {
    ObjectRequest r;
    const std::string stored = ZlibCompress(content);
    r.digest = HashString(HashAlgorithm::kSha1, stored);
    r.description = "/f";
    r.expected_size = content.size();
    server_.Put(ObjectPath(r.digest, ObjectSuffix::kNone), stored);
    return r;
  };
  ASSERT_TRUE(objects.Open(put("first")).ok());
  EXPECT_EQ(40000u, objects.round_trip_us());  // the first sets it
  delaying.delay = std::chrono::milliseconds(8);
  ObjectRequest prefetch = put("second");
  prefetch.speculative = true;
  ASSERT_TRUE(objects.Open(prefetch).ok());
  EXPECT_EQ(8000u, objects.round_trip_us());  // the shortest
  delaying.delay = std::chrono::milliseconds(2);
  ObjectRequest big =
      put(std::string(ObjectFetcher::kLatencySampleSize + 1, 'b'));
  ASSERT_TRUE(objects.Open(big).ok());
  ASSERT_TRUE(objects.Open(put("first")).ok());  // cached: no download
  EXPECT_EQ(8000u, objects.round_trip_us());
}

// A round trip measured elsewhere (the mount's manifest download) joins
// the same samples; misses of demand reads are counted when found, those
// of prefetches and cache hits are not.
TEST_F(ObjectFetcherTest, RoundTripsAndDemandMisses) {
  ObjectFetcher objects(&server_, cache_.get());
  objects.NoteRoundTrip(std::chrono::milliseconds(48));
  EXPECT_EQ(48000u, objects.round_trip_us());  // the first sets it
  objects.NoteRoundTrip(std::chrono::milliseconds(3));
  EXPECT_EQ(3000u, objects.round_trip_us());
  auto put = [&](const std::string& content) {
    ObjectRequest r;
    const std::string stored = ZlibCompress(content);
    r.digest = HashString(HashAlgorithm::kSha1, stored);
    r.description = "/f";
    server_.Put(ObjectPath(r.digest, ObjectSuffix::kNone), stored);
    return r;
  };
  EXPECT_EQ(0u, objects.demand_misses());
  ObjectRequest prefetch = put("prefetched");
  prefetch.speculative = true;
  ASSERT_TRUE(objects.Open(prefetch).ok());
  EXPECT_EQ(0u, objects.demand_misses());
  ObjectRequest read = put("read");
  ASSERT_TRUE(objects.Open(read).ok());
  EXPECT_EQ(1u, objects.demand_misses());
  ASSERT_TRUE(objects.Open(read).ok());  // cached now
  prefetch.speculative = false;
  ASSERT_TRUE(objects.Open(prefetch).ok());  // prefetched: a hit
  EXPECT_EQ(1u, objects.demand_misses());
  EXPECT_EQ(2u, objects.counters().hits);
}

// Crowded downloads (more than kQuietDownloads others running) never make
// the round trip longer than the quiet ones said: on a loopback or LAN
// server they queue for the CPU. They can make it shorter (a slow first
// measurement, then a busy client on a fast link).
TEST_F(ObjectFetcherTest, CrowdedDownloadsDoNotLengthenTheRoundTrip) {
  testing::GatedFetcher gate(std::make_unique<MemoryFetcher>());
  auto* server = static_cast<MemoryFetcher*>(gate.inner());
  ManualClock clock;
  std::atomic<int> delay_ms{30};
  gate.set_on_fetch(
      [&] { clock.Advance(std::chrono::milliseconds(delay_ms)); });
  ObjectFetcher objects(&gate, cache_.get());
  objects.set_clock(&clock);
  int n = 0;
  auto put = [&] {
    const std::string content = "object " + std::to_string(n++);
    ObjectRequest r;
    const std::string stored = ZlibCompress(content);
    r.digest = HashString(HashAlgorithm::kSha1, stored);
    r.description = "/" + content;
    r.expected_size = content.size();
    server->Put(ObjectPath(r.digest, ObjectSuffix::kNone), stored);
    return r;
  };
  // Each crowd: kQuietDownloads + 1 quiet starts, then one more (crowded).
  auto crowd = [&] {
    std::vector<ObjectRequest> requests;
    for (int i = 0; i <= ObjectFetcher::kQuietDownloads + 1; ++i)
      requests.push_back(put());
    gate.HoldAll();
    std::vector<std::thread> readers;
    for (int i = 0; i <= ObjectFetcher::kQuietDownloads + 1; ++i) {
      const ObjectRequest& r = requests[i];
      readers.emplace_back(
          [&objects, &r] { EXPECT_TRUE(objects.Open(r).ok()); });
      ASSERT_TRUE(gate.WaitForWaiting(i + 1));
    }
    gate.Release();
    for (std::thread& t : readers) t.join();
  };
  objects.NoteRoundTrip(std::chrono::milliseconds(2));  // the manifest
  for (int i = 0; i < 2 * RoundTripEstimate::kWindow; ++i) crowd();
  EXPECT_EQ(2000u, objects.round_trip_us());
  // A slow first measurement, then crowded downloads that are faster.
  ObjectFetcher fresh(&gate, cache_.get());
  fresh.set_clock(&clock);
  fresh.NoteRoundTrip(std::chrono::milliseconds(40));
  delay_ms = 0;
  ObjectRequest one = put();
  ASSERT_TRUE(fresh.Open(one).ok());
  EXPECT_LT(fresh.round_trip_us(), 40000u);
}

// Demand requests waiting for a download are counted while they wait,
// whether they lead it or wait for another's; prefetches are not.
TEST_F(ObjectFetcherTest, CountsDemandRequestsWaitingForADownload) {
  testing::GatedFetcher gate(std::make_unique<MemoryFetcher>());
  auto* server = static_cast<MemoryFetcher*>(gate.inner());
  ObjectFetcher objects(&gate, cache_.get());
  auto put = [&](const std::string& content) {
    ObjectRequest r;
    const std::string stored = ZlibCompress(content);
    r.digest = HashString(HashAlgorithm::kSha1, stored);
    r.description = "/f";
    server->Put(ObjectPath(r.digest, ObjectSuffix::kNone), stored);
    return r;
  };
  const ObjectRequest a = put("a"), b = put("b");
  ObjectRequest prefetch = put("p");
  prefetch.speculative = true;
  gate.HoldAll();
  std::vector<std::thread> readers;
  for (const ObjectRequest* r :
       {&a, &a, &b, static_cast<const ObjectRequest*>(&prefetch)})
    readers.emplace_back([&objects, r] { EXPECT_TRUE(objects.Open(*r).ok()); });
  ASSERT_TRUE(gate.WaitForWaiting(3));  // a, b, p
  for (int i = 0; i < 1000 && objects.demand_waiting() < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(3, objects.demand_waiting());  // a twice (collapsed), b
  gate.Release();
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(0, objects.demand_waiting());
  EXPECT_EQ(3u, objects.demand_misses());
}

// Bytes in the files of `dir` (not recursive); 0 if it cannot be read.
uint64_t BytesIn(const std::string& dir) {
  uint64_t total = 0;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  while (dirent* e = ::readdir(d)) {
    struct stat st;
    const std::string path = dir + "/" + e->d_name;
    if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
      total += static_cast<uint64_t>(st.st_size);
  }
  ::closedir(d);
  return total;
}

size_t FilesIn(const std::string& dir) {
  size_t n = 0;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  while (dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
  ::closedir(d);
  return n;
}

// Wraps a fetcher and measures the bytes in the cache's txn/ after every
// piece its sinks accept: the peak a download put on the disk.
class TxnProbe : public Fetcher {
 public:
  TxnProbe(Fetcher* inner, std::string txn_dir)
      : inner_(inner), txn_dir_(std::move(txn_dir)) {}
  DownloadResult Fetch(const DownloadRequest& r, DownloadSink* sink) override {
    class Probing : public DownloadSink {
     public:
      Probing(DownloadSink* s, TxnProbe* p) : sink_(s), probe_(p) {}
      Status Write(const void* data, size_t size) override {
        Status st = sink_->Write(data, size);
        probe_->peak_ = std::max(probe_->peak_, BytesIn(probe_->txn_dir_));
        return st;
      }
      void Reset() override { sink_->Reset(); }

     private:
      DownloadSink* sink_;
      TxnProbe* probe_;
    } probing(sink, this);
    return inner_->Fetch(r, &probing);
  }
  uint64_t peak() const { return peak_; }

 private:
  Fetcher* inner_;
  const std::string txn_dir_;
  uint64_t peak_ = 0;
};

// A zlib bomb: 64 MiB of zeros compress to about 64 KiB, and a signed
// catalog can reference it (the content hash covers the compressed bytes)
// as a file of 13 bytes. The download stops at the first inflated piece
// beyond 13 bytes: nothing reaches txn/, the object fails as corrupt like a
// hash mismatch (no-cache once, then the next host), and the cache keeps
// what it had.
TEST_F(ObjectFetcherTest, ZlibBombStopsAtTheCatalogSize) {
  ObjectRequest kept = request_;
  ASSERT_TRUE(objects_->Open(kept).ok());  // something cached before
  const std::string bomb = ZlibCompress(std::string(64 << 20, '\0'));
  ObjectRequest request;
  request.digest = HashString(HashAlgorithm::kSha1, bomb);
  request.description = "/bomb";
  request.expected_size = 13;
  const std::string path = ObjectPath(request.digest, ObjectSuffix::kNone);
  server_.Put(path, bomb);
  server_.set_chunk_size(4096);
  server_.ResetCounters();
  TxnProbe probe(&server_, tmp_.Sub("cache/txn"));
  ObjectFetcher objects(&probe, cache_.get());
  std::vector<int> hook_calls;
  objects.set_missing_object_failover([&](int attempt) {
    hook_calls.push_back(attempt);
    return attempt < 1;
  });

  auto handle = objects.OpenReferenced(request);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(Status::Code::kCorruption, handle.status().code())
      << handle.status().ToString();
  EXPECT_NE(std::string::npos, handle.status().message().find("inflates"))
      << handle.status().ToString();
  // As for a hash mismatch: the same host with no-cache, then the next.
  EXPECT_EQ(3u, server_.requests(path));
  EXPECT_EQ((std::vector<int>{0, 1}), hook_calls);
  // Each attempt stopped after a few KiB of the compressed stream.
  EXPECT_LT(objects.counters().bytes_downloaded, bomb.size());
  EXPECT_LE(probe.peak(), 13u);
  EXPECT_EQ(0u, FilesIn(tmp_.Sub("cache/txn")));
  EXPECT_FALSE(cache_->Contains(request.digest));
  EXPECT_TRUE(cache_->Contains(kept.digest));
  EXPECT_EQ(content_, ReadCached());
}

// The same bomb into memory (the trust chain's objects): stopped alike.
TEST_F(ObjectFetcherTest, ZlibBombIntoMemoryStopsAtTheCatalogSize) {
  const std::string bomb = ZlibCompress(std::string(64 << 20, '\0'));
  ObjectRequest request;
  request.digest = HashString(HashAlgorithm::kSha1, bomb);
  request.expected_size = 13;
  server_.Put(ObjectPath(request.digest, ObjectSuffix::kNone), bomb);
  server_.set_chunk_size(4096);
  auto out = objects_->FetchToMemory(request);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(Status::Code::kCorruption, out.status().code());
  EXPECT_LT(objects_->counters().bytes_downloaded, bomb.size());
}

// Objects without an expected size (catalogs) inflate up to the limit.
TEST_F(ObjectFetcherTest, UnsizedObjectsStopAtTheLimit) {
  objects_->set_max_unsized_bytes(1 << 20);
  auto put = [&](const std::string& content) {
    ObjectRequest r;
    const std::string stored = ZlibCompress(content);
    r.digest = HashString(HashAlgorithm::kSha1, stored);
    r.suffix = ObjectSuffix::kCatalog;
    r.type = cache::ObjectType::kCatalog;
    r.description = "catalog";
    server_.Put(ObjectPath(r.digest, r.suffix), stored);
    return r;
  };
  const ObjectRequest fits = put(std::string(1 << 20, 'c'));
  EXPECT_TRUE(objects_->Open(fits).ok());
  const ObjectRequest bomb = put(std::string(64 << 20, '\0'));
  auto handle = objects_->Open(bomb);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(Status::Code::kCorruption, handle.status().code())
      << handle.status().ToString();
  EXPECT_NE(std::string::npos, handle.status().message().find("limit"));
  EXPECT_FALSE(cache_->Contains(bomb.digest));
  EXPECT_EQ(0u, FilesIn(tmp_.Sub("cache/txn")));
  EXPECT_EQ(ObjectFetcher::kMaxUnsizedBytes,
            ObjectFetcher(&server_, cache_.get()).max_unsized_bytes());
}

// Fewer bytes than the catalog says is as corrupt as more, and so is any
// byte at all for an empty file (size 0 is a known size, not "unknown").
TEST_F(ObjectFetcherTest, SizeOtherThanTheCatalogsIsCorruption) {
  for (const uint64_t catalog_size : {uint64_t{13}, uint64_t{0}}) {
    const std::string content = "short";
    const std::string stored = ZlibCompress(content);
    ObjectRequest r;
    r.digest = HashString(HashAlgorithm::kSha1, stored);
    r.description = "/f";
    r.expected_size = catalog_size;
    server_.Put(ObjectPath(r.digest, ObjectSuffix::kNone), stored);
    auto handle = objects_->OpenReferenced(r);
    ASSERT_FALSE(handle.ok()) << catalog_size;
    EXPECT_EQ(Status::Code::kCorruption, handle.status().code())
        << handle.status().ToString();
    EXPECT_FALSE(cache_->Contains(r.digest));
  }
  EXPECT_EQ(0u, FilesIn(tmp_.Sub("cache/txn")));
}

// External data (doc/client.md, "External data"): the content of a file
// flagged external comes by path from the external servers, plain, and is
// verified and cached by its hash like any object.
class ExternalObjectTest : public ObjectFetcherTest {
 protected:
  void SetUp() override {
    ObjectFetcherTest::SetUp();
    request_.digest = HashString(HashAlgorithm::kSha1, content_);
    request_.compressed = false;
    request_.external = ExternalLocation{"/dir/my file", 0, 0};
    external_.Put("/dir/my%20file", content_);
  }
  MemoryFetcher external_;
};

TEST_F(ExternalObjectTest, IsFetchedByPathFromTheExternalServers) {
  objects_->set_external_fetcher(&external_);
  auto handle = objects_->Open(request_);
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  EXPECT_EQ(0u, server_.total_requests()) << "not from the repository's";
  ASSERT_EQ(1u, external_.request_log().size());
  EXPECT_EQ("/dir/my%20file", external_.request_log()[0].url_path);
  EXPECT_EQ(0u, external_.request_log()[0].range_size) << "the whole file";
  EXPECT_EQ(content_, ReadCached());
}

TEST_F(ExternalObjectTest, AChunkIsARangeOfTheExternalFile) {
  objects_->set_external_fetcher(&external_);
  request_.suffix = ObjectSuffix::kPartial;
  request_.external = ExternalLocation{"/dir/my file", 4096, 921};
  external_.Put("/dir/my%20file", content_);  // the fake ignores ranges
  ASSERT_TRUE(objects_->Open(request_).ok());
  ASSERT_EQ(1u, external_.request_log().size());
  EXPECT_EQ(4096u, external_.request_log()[0].range_offset);
  EXPECT_EQ(921u, external_.request_log()[0].range_size);
}

TEST_F(ExternalObjectTest, CorruptedIsCorruptionAndNothingIsCached) {
  AllowHostSwitches(3);
  objects_->set_external_fetcher(&external_);
  std::string bad = content_;
  bad[10] ^= 0x20;
  external_.Put("/dir/my%20file", bad);
  auto handle = objects_->OpenReferenced(request_);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(Status::Code::kCorruption, handle.status().code())
      << handle.status().ToString();
  EXPECT_EQ(2u, external_.request_log().size()) << "once more with no-cache";
  EXPECT_TRUE(external_.request_log()[1].no_cache);
  EXPECT_TRUE(hook_calls_.empty())
      << "the repository's hosts are not switched for an external file";
  EXPECT_NE(content_, ReadCached());
  EXPECT_FALSE(cache_->Contains(request_.digest));
  EXPECT_EQ(0u, FilesIn(tmp_.Sub("cache/txn")));
}

TEST_F(ExternalObjectTest, WithoutExternalUrlIsAnIoErrorNamingIt) {
  auto handle = objects_->OpenReferenced(request_);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(Status::Code::kIoError, handle.status().code());
  EXPECT_NE(std::string::npos,
            handle.status().message().find("CVMFS_EXTERNAL_URL"))
      << handle.status().ToString();
  EXPECT_EQ(0u, server_.total_requests());
}

}  // namespace
}  // namespace cvmfs::client
