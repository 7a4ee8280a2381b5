// ObjectFetcher with bundles (bundle_fetcher.h) against an in-memory
// server: a miss of a bundled object fetches the bundle, every member that
// verifies enters the cache, a member that does not is dropped, and a
// bundle that is missing, truncated or corrupted leaves the object to be
// fetched on its own; concurrent opens share one bundle download.
#include "client/bundle_fetcher.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/object_fetcher.h"
#include "cvmfs/compression.h"
#include "cvmfs/hash.h"
#include "cvmfs/mutex.h"
#include "cvmfs/object_name.h"
#include "testing/gated_fetcher.h"
#include "testing/memory_fetcher.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

struct File {
  std::string content, stored, path;
  ObjectRequest request;
};

class BundleFetcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache::CacheOptions options;
    options.dir = tmp_.Sub("cache");
    auto cache = cache::PosixCache::Open(options);
    ASSERT_TRUE(cache.ok()) << cache.status().ToString();
    cache_ = std::move(cache).value();
    for (int i = 0; i < 3; ++i) {
      File f;
      f.content = std::string(3000 + i, static_cast<char>('a' + i)) + "end";
      f.stored = ZlibCompress(f.content);
      f.request.digest = HashString(HashAlgorithm::kSha1, f.stored);
      f.request.description = "/dir/f" + std::to_string(i);
      f.request.expected_size = f.content.size();
      f.path = ObjectPath(f.request.digest, ObjectSuffix::kNone);
      server_.Put(f.path, f.stored);
      files_.push_back(std::move(f));
    }
  }

  // The bundle of all files, with `member` (if >= 0) corrupted inside it;
  // stored on the server unless `store` is false.
  void MakeBundle(int corrupt = -1, bool store = true) {
    std::vector<BundleMember> members;
    std::string body;
    for (size_t i = 0; i < files_.size(); ++i) {
      members.push_back({files_[i].request.digest, files_[i].stored.size()});
      std::string bytes = files_[i].stored;
      if (static_cast<int>(i) == corrupt) bytes[bytes.size() / 2] ^= 0x5a;
      body += bytes;
    }
    bundle_bytes_ = SerializeBundleHeader(members) + body;
    ref_.path = "/dir";
    ref_.first_name = "f0";
    ref_.hash = HashString(HashAlgorithm::kSha1, bundle_bytes_);
    ref_.size = bundle_bytes_.size();
    ref_.members = static_cast<uint32_t>(members.size());
    bundle_path_ = ObjectPath(ref_.hash, ObjectSuffix::kBundle);
    if (store) server_.Put(bundle_path_, bundle_bytes_);
    for (File& f : files_) {
      BundleRef ref = ref_;
      f.request.bundle = [ref] { return std::optional<BundleRef>(ref); };
    }
  }

  std::unique_ptr<ObjectFetcher> Objects(Fetcher* fetcher) {
    auto objects = std::make_unique<ObjectFetcher>(fetcher, cache_.get());
    objects->EnableBundles();
    return objects;
  }

  std::string Read(const cache::CacheHandle& h) {
    std::string out(h.size(), '\0');
    EXPECT_EQ(static_cast<ssize_t>(out.size()),
              ::pread(h.fd(), out.data(), out.size(), 0));
    return out;
  }

  uint64_t SingleRequests() const {
    uint64_t n = 0;
    for (const File& f : files_) n += server_.requests(f.path);
    return n;
  }

  testing::TempDir tmp_;
  std::unique_ptr<cache::PosixCache> cache_;
  MemoryFetcher server_;
  std::vector<File> files_;
  std::string bundle_bytes_, bundle_path_;
  BundleRef ref_;
};

TEST_F(BundleFetcherTest, MissFetchesTheBundleAndCachesEveryMember) {
  MakeBundle();
  auto objects = Objects(&server_);
  auto h = objects->Open(files_[1].request);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(files_[1].content, Read(*h));
  EXPECT_EQ(1u, server_.requests(bundle_path_));
  EXPECT_EQ(0u, SingleRequests());
  for (File& f : files_) {
    auto other = objects->Open(f.request);
    ASSERT_TRUE(other.ok()) << other.status().ToString();
    EXPECT_EQ(f.content, Read(*other));
  }
  EXPECT_EQ(1u, server_.total_requests()) << "the others were cache hits";
  const BundleCounters c = objects->counters().bundles;
  EXPECT_EQ(1u, c.fetched);
  EXPECT_EQ(bundle_bytes_.size(), c.bytes);
  EXPECT_EQ(3u, c.members_stored);
  EXPECT_EQ(0u, c.fallbacks);
  EXPECT_EQ(0u, c.errors);
}

TEST_F(BundleFetcherTest, CachedMembersAreSkipped) {
  MakeBundle();
  auto objects = Objects(&server_);
  ObjectRequest single = files_[0].request;
  single.bundle = nullptr;
  ASSERT_TRUE(objects->Open(single).ok());
  ASSERT_TRUE(objects->Open(files_[2].request).ok());
  const BundleCounters c = objects->counters().bundles;
  EXPECT_EQ(1u, c.members_skipped);
  EXPECT_EQ(2u, c.members_stored);
}

TEST_F(BundleFetcherTest, WithoutEnableBundlesObjectsAreFetchedSingly) {
  MakeBundle();
  ObjectFetcher objects(&server_, cache_.get());
  for (File& f : files_) ASSERT_TRUE(objects.Open(f.request).ok());
  EXPECT_EQ(0u, server_.requests(bundle_path_));
  EXPECT_EQ(3u, SingleRequests());
}

TEST_F(BundleFetcherTest, CoveredNonMemberFallsBackWithoutRefetching) {
  MakeBundle();
  auto objects = Objects(&server_);
  ASSERT_TRUE(objects->Open(files_[0].request).ok());
  // A file of the same directory that is no member (too large, say).
  File other;
  other.content = "not in the bundle";
  other.stored = ZlibCompress(other.content);
  other.request.digest = HashString(HashAlgorithm::kSha1, other.stored);
  other.request.description = "/dir/zz";
  other.request.bundle = files_[0].request.bundle;
  server_.Put(ObjectPath(other.request.digest, ObjectSuffix::kNone),
              other.stored);
  ASSERT_TRUE(objects->Open(other.request).ok());
  EXPECT_EQ(1u, server_.requests(bundle_path_));
  // A member evicted since: the bundle is worth fetching again.
  ASSERT_TRUE(cache_->Evict(files_[2].request.digest).ok());
  ASSERT_TRUE(objects->Open(files_[2].request).ok());
  EXPECT_EQ(2u, server_.requests(bundle_path_));
  EXPECT_EQ(0u, SingleRequests());
}

TEST_F(BundleFetcherTest, CorruptedMemberIsDroppedAndFetchedOnItsOwn) {
  MakeBundle(/*corrupt=*/1);
  auto objects = Objects(&server_);
  ASSERT_TRUE(objects->Open(files_[0].request).ok());
  EXPECT_FALSE(cache_->Contains(files_[1].request.digest));
  EXPECT_TRUE(cache_->Contains(files_[2].request.digest));
  BundleCounters c = objects->counters().bundles;
  EXPECT_EQ(1u, c.members_failed);
  EXPECT_EQ(2u, c.members_stored);
  auto h = objects->Open(files_[1].request);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(files_[1].content, Read(*h));
  EXPECT_EQ(1u, server_.requests(files_[1].path));
  EXPECT_EQ(1u, server_.requests(bundle_path_)) << "a bundle is asked once";
  EXPECT_EQ(1u, objects->counters().bundles.fallbacks);
}

TEST_F(BundleFetcherTest, CorruptedWantedMemberFallsBackAtOnce) {
  MakeBundle(/*corrupt=*/0);
  auto objects = Objects(&server_);
  auto h = objects->Open(files_[0].request);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(files_[0].content, Read(*h));
  EXPECT_EQ(1u, server_.requests(files_[0].path));
  EXPECT_EQ(1u, objects->counters().bundles.members_failed);
}

TEST_F(BundleFetcherTest, TruncatedBundleKeepsTheMembersBeforeTheCut) {
  MakeBundle(-1, /*store=*/false);
  // Cut inside the last member: the first two verified and stay.
  server_.Put(bundle_path_, bundle_bytes_.substr(0, bundle_bytes_.size() - 5));
  auto objects = Objects(&server_);
  ASSERT_TRUE(objects->Open(files_[0].request).ok());
  EXPECT_TRUE(cache_->Contains(files_[1].request.digest));
  EXPECT_FALSE(cache_->Contains(files_[2].request.digest));
  EXPECT_EQ(1u, objects->counters().bundles.errors);
  auto h = objects->Open(files_[2].request);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(files_[2].content, Read(*h));
  EXPECT_EQ(1u, server_.requests(files_[2].path));
  EXPECT_EQ(1u, server_.requests(bundle_path_));
}

TEST_F(BundleFetcherTest, ConnectionCutMidBundleIsAFallbackNotAnError) {
  MakeBundle();
  server_.TruncateNext(bundle_path_, bundle_bytes_.size() / 2, 100);
  auto objects = Objects(&server_);
  auto h = objects->Open(files_[2].request);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(files_[2].content, Read(*h));
  EXPECT_EQ(1u, objects->counters().bundles.fallbacks);
}

TEST_F(BundleFetcherTest, MissingBundleFallsBackAndIsNotAskedAgain) {
  MakeBundle(-1, /*store=*/false);
  auto objects = Objects(&server_);
  for (File& f : files_) {
    auto h = objects->Open(f.request);
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    EXPECT_EQ(f.content, Read(*h));
  }
  EXPECT_EQ(1u, server_.requests(bundle_path_));
  EXPECT_EQ(3u, SingleRequests());
  const BundleCounters c = objects->counters().bundles;
  EXPECT_EQ(1u, c.errors);
  EXPECT_EQ(3u, c.fallbacks);
}

TEST_F(BundleFetcherTest, ServerWithoutBundlesStopsBeingAsked) {
  auto objects = Objects(&server_);
  // Each file in a bundle of its own, none on the server.
  for (int i = 0; i < BundleFetcher::kMissingInARow + 3; ++i) {
    File f;
    f.content = "file " + std::to_string(i);
    f.stored = ZlibCompress(f.content);
    f.request.digest = HashString(HashAlgorithm::kSha1, f.stored);
    f.request.description = "/d" + std::to_string(i) + "/f";
    server_.Put(ObjectPath(f.request.digest, ObjectSuffix::kNone), f.stored);
    BundleRef ref;
    ref.path = "/d" + std::to_string(i);
    ref.hash = HashString(HashAlgorithm::kSha1, "bundle " + f.content);
    f.request.bundle = [ref] { return std::optional<BundleRef>(ref); };
    ASSERT_TRUE(objects->Open(f.request).ok());
  }
  EXPECT_EQ(static_cast<uint64_t>(BundleFetcher::kMissingInARow),
            objects->counters().bundles.errors);
}

TEST_F(BundleFetcherTest, ConcurrentOpensShareOneBundleDownload) {
  MakeBundle();
  testing::GatedFetcher gate(&server_);
  gate.Hold(bundle_path_);
  auto objects = Objects(&gate);
  std::vector<std::thread> readers;
  std::atomic<int> ok{0};
  for (File& f : files_)
    readers.emplace_back([&, request = f.request] {
      auto h = objects->Open(request);
      if (h.ok() && Read(*h).size() == request.expected_size) ++ok;
    });
  ASSERT_TRUE(gate.WaitForWaiting(1));
  // Every reader is waiting: one for the bundle, two for its download.
  for (int i = 0; i < 500 && objects->demand_waiting() < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(3, objects->demand_waiting());
  gate.Release();
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(3, ok.load());
  EXPECT_EQ(1u, server_.requests(bundle_path_));
  EXPECT_EQ(0u, SingleRequests());
  EXPECT_EQ(0u, objects->counters().bundles.fallbacks);
}

// An open that missed the cache just before another's bundle download
// stored its member, and reaches Fill() after that download ended, takes
// the member from the cache instead of fetching the bundle again.
TEST_F(BundleFetcherTest, LateArrivalAfterTheDownloadEndedDoesNotFetchAgain) {
  MakeBundle();
  BundleFetcher bundles(&server_, cache_.get());
  BundleWant first;
  first.digest = files_[0].request.digest;
  first.size = files_[0].request.expected_size;
  ASSERT_TRUE(bundles.Fill(first, ref_));
  BundleWant late = first;
  late.digest = files_[2].request.digest;
  late.size = files_[2].request.expected_size;
  EXPECT_TRUE(bundles.Fill(late, ref_));
  EXPECT_EQ(1u, server_.requests(bundle_path_));
  EXPECT_EQ(0u, bundles.counters().fallbacks);
}

// Serves `path` in pieces: up to cuts[0] bytes, then up to cuts[1] after
// the first Release(), the rest after the second (a bundle whose end is
// slow to come).
class StallingFetcher : public Fetcher {
 public:
  StallingFetcher(std::string path, std::string bytes, std::vector<size_t> cuts)
      : path_(std::move(path)), bytes_(std::move(bytes)), cuts_(cuts) {
    cuts_.push_back(bytes_.size());
  }
  DownloadResult Fetch(const DownloadRequest& request,
                       DownloadSink* sink) override {
    DownloadResult result;
    if (request.url_path != path_) {
      result.status = Status::NotFound(request.url_path);
      return result;
    }
    {
      cvmfs::MutexLock lock(&mu_);
      ++fetches_;
      cv_.notify_all();
    }
    size_t done = 0;
    for (size_t i = 0; i < cuts_.size() && result.status.ok(); ++i) {
      {
        cvmfs::MutexLock lock(&mu_);
        while (released_ < static_cast<int>(i)) lock.Wait(&cv_);
      }
      result.status = sink->Write(bytes_.data() + done, cuts_[i] - done);
      done = cuts_[i];
    }
    return result;
  }
  void Release() {
    cvmfs::MutexLock lock(&mu_);
    ++released_;
    cv_.notify_all();
  }
  // Waits until the bundle's download has begun (its leader is known).
  void WaitForFetch() {
    cvmfs::MutexLock lock(&mu_);
    while (fetches_ == 0) lock.Wait(&cv_);
  }

 private:
  const std::string path_, bytes_;
  std::vector<size_t> cuts_;
  cvmfs::Mutex mu_;
  std::condition_variable cv_;
  int released_ GUARDED_BY(mu_) = 0;
  int fetches_ GUARDED_BY(mu_) = 0;
};

TEST_F(BundleFetcherTest, AWaiterGoesOnOnceItsMemberArrived) {
  MakeBundle();
  // The header and half of member 0; then up to the middle of member 2.
  const size_t header = bundle_bytes_.size() - files_[0].stored.size() -
                        files_[1].stored.size() - files_[2].stored.size();
  StallingFetcher server(bundle_path_, bundle_bytes_,
                         {header + files_[0].stored.size() / 2,
                          bundle_bytes_.size() - files_[2].stored.size() / 2});
  auto objects = Objects(&server);
  std::thread leader(
      [&] { EXPECT_TRUE(objects->Open(files_[2].request).ok()); });
  // The waiter must not become the bundle's leader itself.
  server.WaitForFetch();
  auto waiter = std::async(std::launch::async, [&] {
    auto h = objects->Open(files_[0].request);
    return h.ok() ? Read(*h) : h.status().ToString();
  });
  for (int i = 0; i < 1000 && objects->demand_waiting() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  server.Release();  // member 0 completes; the bundle does not
  const bool early =
      waiter.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  server.Release();
  leader.join();
  EXPECT_TRUE(early) << "the waiter waited for the end of the bundle";
  EXPECT_EQ(files_[0].content, waiter.get());
  EXPECT_EQ(3u, objects->counters().bundles.members_stored);
}

}  // namespace
}  // namespace cvmfs::client
