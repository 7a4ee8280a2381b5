// The prefetch engine against an in-memory server whose requests can be
// held at a gate (testing::GatedFetcher): demand reads overtake queued
// prefetches and share the ones in flight, the budget and the throttles stop
// it, an object evicted before use is not fetched twice, failures never reach a
// reader.
#include "client/prefetch/prefetcher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
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

using testing::GatedFetcher;

// Polls `done` for up to 10 s.
bool Eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 1000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

class PrefetcherTest : public ::testing::Test {
 protected:
  static constexpr size_t kObjects = 12;
  static constexpr size_t kSize = 1000;

  void SetUp() override { OpenCache(-1); }

  void OpenCache(int64_t quota_limit) {
    cache::CacheOptions options;
    options.dir = tmp_.Sub("cache");
    options.quota_limit = quota_limit;
    auto cache = cache::PosixCache::Open(options);
    ASSERT_TRUE(cache.ok()) << cache.status().ToString();
    cache_ = std::move(cache).value();
    objects_ = std::make_unique<ObjectFetcher>(&gate_, cache_.get());
    for (size_t i = 0; i < kObjects; ++i) {
      std::string content(kSize, static_cast<char>('a' + i));
      std::string stored = ZlibCompress(content);
      ObjectRequest r;
      r.digest = HashString(HashAlgorithm::kSha1, stored);
      r.description = "/dir/file" + std::to_string(i);
      r.expected_size = content.size();
      server_.Put(Path(r), stored);
      requests_.push_back(r);
    }
  }

  static std::string Path(const ObjectRequest& r) {
    return ObjectPath(r.digest, ObjectSuffix::kNone);
  }
  std::vector<ObjectRequest> Range(size_t from, size_t to) const {
    return {requests_.begin() + from, requests_.begin() + to};
  }
  void Start(PrefetchOptions options) {
    engine_ =
        std::make_unique<Prefetcher>(options, objects_.get(), cache_.get());
  }
  PrefetchOptions Options(int parallel) const {
    PrefetchOptions o;
    o.parallel = parallel;
    o.max_objects = 100;
    o.max_bytes = 1 << 20;
    return o;
  }
  // A fast link (round trips of 1 ms, speculation from 6 ms) and a clock
  // the test moves.
  void StartOnAFastLink(int parallel, ManualClock* clock) {
    PrefetchOptions o = Options(parallel);
    o.speculate_after = std::chrono::milliseconds(6);
    o.clock = clock;
    Start(o);
    objects_->NoteRoundTrip(std::chrono::milliseconds(1));
  }
  // Waits until nothing is queued or running.
  bool Idle() {
    return Eventually([&] {
      PrefetchCounters c = engine_->counters();
      return c.in_flight == 0 && c.pending == 0;
    });
  }

  testing::TempDir tmp_;
  MemoryFetcher server_;
  GatedFetcher gate_{&server_};
  std::unique_ptr<cache::PosixCache> cache_;
  std::unique_ptr<ObjectFetcher> objects_;
  std::vector<ObjectRequest> requests_;
  std::unique_ptr<Prefetcher> engine_;  // declared last: stopped first
};

TEST_F(PrefetcherTest, FetchesInParallelUpToTheLimit) {
  Start(Options(4));
  gate_.HoldAll();
  EXPECT_EQ(kObjects, engine_->Enqueue(requests_, PrefetchPriority::kNext));
  ASSERT_TRUE(gate_.WaitForWaiting(4));
  EXPECT_EQ(4u, engine_->counters().in_flight);
  gate_.Release();
  ASSERT_TRUE(Idle());
  EXPECT_EQ(4, gate_.max_running());
  for (const ObjectRequest& r : requests_)
    EXPECT_TRUE(cache_->Contains(r.digest)) << r.description;
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(kObjects, c.queued);
  EXPECT_EQ(kObjects, c.fetched);
  EXPECT_EQ(kObjects * kSize, c.fetched_bytes);
  EXPECT_EQ(kObjects * kSize, c.wasted_bytes);  // nobody read them yet
  EXPECT_EQ(kObjects, server_.total_requests());
}

// kParallelDemand demand reads waiting for downloads make prefetch
// pointless while round trips are short (the readers are CPU-bound); on a
// slow link it still adds parallelism. Once seen, the state holds for
// kParallelHold: the readers' count dips whenever their files happen to be
// cached.
TEST_F(PrefetcherTest, ParallelDemandCountsOnlyOnAFastLink) {
  ManualClock clock;
  StartOnAFastLink(4, &clock);
  gate_.HoldAll();
  std::vector<std::thread> readers;
  for (int i = 0; i < Prefetcher::kParallelDemand - 1; ++i)
    readers.emplace_back([this, i] {
      EXPECT_TRUE(objects_->Open(requests_[i % kObjects]).ok());
    });
  ASSERT_TRUE(gate_.WaitForWaiting(static_cast<int>(kObjects)));
  ASSERT_TRUE(Eventually([&] {
    return objects_->demand_waiting() == Prefetcher::kParallelDemand - 1;
  }));
  EXPECT_FALSE(engine_->demand_parallel());  // one reader short
  // Readers the caller counts (reading from the cache) count as well.
  EXPECT_TRUE(engine_->demand_parallel(Prefetcher::kParallelDemand));
  clock.Advance(Prefetcher::kParallelHold - std::chrono::milliseconds(1));
  EXPECT_TRUE(engine_->demand_parallel(Prefetcher::kParallelDemand - 1));
  clock.Advance(std::chrono::milliseconds(1));
  EXPECT_FALSE(engine_->demand_parallel(Prefetcher::kParallelDemand - 1));
  readers.emplace_back(
      [this] { EXPECT_TRUE(objects_->Open(requests_[0]).ok()); });
  ASSERT_TRUE(Eventually([&] { return engine_->demand_parallel(); }));
  // Round trips of 4 x speculate_after and more: a slow link.
  for (int i = 0; i < 40; ++i)
    objects_->NoteRoundTrip(std::chrono::milliseconds(30));
  EXPECT_FALSE(engine_->demand_parallel());
  gate_.Release();
  for (std::thread& t : readers) t.join();
}

// Work queued before the parallel readers were seen (the first reads of a
// cold start) is dropped once they are, and queued again after them.
TEST_F(PrefetcherTest, ParallelReadersOnAFastLinkDropQueuedWork) {
  ManualClock clock;
  StartOnAFastLink(1, &clock);
  gate_.Hold(Path(requests_[0]));
  engine_->Enqueue(Range(0, 4), PrefetchPriority::kNext);
  ASSERT_TRUE(gate_.WaitForWaiting(1));  // the only slot is busy with [0]
  EXPECT_FALSE(engine_->counters().parallel_readers);
  ASSERT_TRUE(engine_->demand_parallel(Prefetcher::kParallelDemand));
  EXPECT_TRUE(engine_->counters().parallel_readers);
  gate_.Release();
  ASSERT_TRUE(Idle());
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(1u, c.fetched);  // [0], in flight already
  EXPECT_EQ(3u, c.skipped_throttled);
  EXPECT_EQ(0u, engine_->Enqueue(Range(4, 6), PrefetchPriority::kNext));
  clock.Advance(Prefetcher::kParallelHold);
  EXPECT_FALSE(engine_->counters().parallel_readers);
  EXPECT_EQ(5u, engine_->Enqueue(Range(1, 6), PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(6u, engine_->counters().fetched);
  for (const ObjectRequest& r : Range(0, 6))
    EXPECT_EQ(1u, server_.requests(Path(r))) << r.description;
}

TEST_F(PrefetcherTest, DemandReadOvertakesQueuedPrefetch) {
  Start(Options(1));
  gate_.Hold(Path(requests_[0]));
  engine_->Enqueue(Range(0, 4), PrefetchPriority::kNext);
  ASSERT_TRUE(gate_.WaitForWaiting(1));  // the only slot is busy with [0]
  // The reader wants [3], queued behind [1] and [2]: it gets it now.
  engine_->OnDemand(requests_[3].digest);
  ASSERT_TRUE(objects_->Open(requests_[3]).ok());
  EXPECT_EQ(0u, server_.requests(Path(requests_[1])));
  gate_.Release();
  ASSERT_TRUE(Idle());
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(1u, c.overtaken);
  EXPECT_EQ(3u, c.fetched);  // [0], [1], [2]
  EXPECT_EQ(1u, server_.requests(Path(requests_[3])));
}

TEST_F(PrefetcherTest, DemandReadWaitsForThePrefetchInFlight) {
  Start(Options(2));
  gate_.Hold(Path(requests_[0]));
  engine_->Enqueue(Range(0, 1), PrefetchPriority::kNext);
  ASSERT_TRUE(gate_.WaitForWaiting(1));
  engine_->OnDemand(requests_[0].digest);
  Status reader;
  std::thread t([&] { reader = objects_->Open(requests_[0]).status(); });
  ASSERT_TRUE(Eventually([&] { return objects_->counters().collapsed == 1; }));
  gate_.Release();
  t.join();
  EXPECT_TRUE(reader.ok()) << reader.ToString();
  ASSERT_TRUE(Idle());
  EXPECT_EQ(1u, server_.requests(Path(requests_[0])));
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(1u, c.used);
  EXPECT_EQ(0u, c.wasted_bytes);
}

TEST_F(PrefetcherTest, UsedObjectsAreCountedAndFreeTheBudget) {
  PrefetchOptions o = Options(2);
  o.max_objects = 3;
  Start(o);
  // Three fit; the rest waits in the backlog for the reader to catch up.
  EXPECT_EQ(3u, engine_->Enqueue(Range(0, 6), PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(3u, engine_->counters().backlog);
  EXPECT_EQ(3u, server_.total_requests());
  engine_->OnDemand(requests_[0].digest);
  engine_->OnDemand(requests_[1].digest);
  ASSERT_TRUE(Idle());
  // [3] and [4] followed; [5] still waits.
  EXPECT_EQ(5u, server_.total_requests());
  EXPECT_EQ(0u, server_.requests(Path(requests_[5])));
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(5u, c.fetched);
  EXPECT_EQ(2u, c.used);
  EXPECT_EQ(2 * kSize, c.used_bytes);
  EXPECT_EQ(3 * kSize, c.wasted_bytes);
  EXPECT_EQ(1u, c.backlog);
  EXPECT_EQ(0u, c.skipped_budget);
}

TEST_F(PrefetcherTest, BacklogIsBounded) {
  PrefetchOptions o = Options(1);
  o.max_objects = 1;  // backlog: kBacklogFactor objects per lane
  Start(o);
  gate_.HoldAll();
  EXPECT_EQ(1u, engine_->Enqueue(requests_, PrefetchPriority::kNext));
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(Prefetcher::kBacklogFactor, c.backlog);
  EXPECT_EQ(kObjects - 1 - Prefetcher::kBacklogFactor, c.skipped_budget);
  gate_.Release();
}

TEST_F(PrefetcherTest, StopsAtTheByteBudget) {
  PrefetchOptions o = Options(2);
  o.max_bytes = 3 * kSize + kSize / 2;
  Start(o);
  EXPECT_EQ(3u, engine_->Enqueue(requests_, PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(3u, server_.total_requests());
  EXPECT_EQ(kObjects - 3, engine_->counters().backlog);
}

// A link that needs 1 s per 1000-byte object (1000 B/s) fetches 4000 bytes
// in drain_seconds = 4: the byte budget shrinks from 12000 to that, so
// fewer objects are in flight or waiting to be read, and the rest waits in
// the backlog.
TEST_F(PrefetcherTest, SlowLinkShrinksTheBudget) {
  ManualClock clock;
  gate_.set_on_fetch([&clock] { clock.Advance(std::chrono::seconds(1)); });
  PrefetchOptions o = Options(1);
  o.max_bytes = kObjects * kSize;
  o.drain_seconds = 4;
  o.clock = &clock;
  Start(o);
  EXPECT_EQ(6u, engine_->Enqueue(Range(0, 6), PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(1000u, c.rate);
  EXPECT_EQ(4 * kSize, c.budget_bytes);
  for (size_t i = 0; i < 6; ++i) engine_->OnDemand(requests_[i].digest);
  EXPECT_EQ(4u, engine_->Enqueue(Range(6, 12), PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(2u, engine_->counters().backlog);
  EXPECT_EQ(10u, server_.total_requests());
  // The floor: never less than 1/8 of the configured budget.
  gate_.set_on_fetch([&clock] { clock.Advance(std::chrono::seconds(1000)); });
  for (size_t i = 6; i < 10; ++i) engine_->OnDemand(requests_[i].digest);
  ASSERT_TRUE(Idle());
  EXPECT_EQ(o.max_bytes / 8, engine_->counters().budget_bytes);
}

TEST_F(PrefetcherTest, UnusedObjectsStopCountingAfterTheGracePeriod) {
  ManualClock clock;
  PrefetchOptions o = Options(2);
  o.max_objects = 2;
  o.clock = &clock;
  Start(o);
  EXPECT_EQ(2u, engine_->Enqueue(Range(0, 4), PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(0u, engine_->Enqueue(Range(2, 4), PrefetchPriority::kNext));
  clock.Advance(o.unused_grace);
  EXPECT_EQ(2u, engine_->Enqueue(Range(2, 4), PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(4u, server_.total_requests());
}

TEST_F(PrefetcherTest, SpeculationGetsHalfTheBudgetAndIsDisplaced) {
  PrefetchOptions o = Options(1);
  o.max_objects = 6;
  Start(o);
  gate_.HoldAll();
  // kLater: half of the budget (3), one of them in flight at once.
  EXPECT_EQ(3u, engine_->Enqueue(Range(0, 6), PrefetchPriority::kLater));
  ASSERT_TRUE(gate_.WaitForWaiting(1));
  // kNext: the other half, then room made by dropping queued speculation
  // from the back ([2], then [1]); the one in flight stays.
  EXPECT_EQ(5u, engine_->Enqueue(Range(6, 11), PrefetchPriority::kNext));
  gate_.Release();
  ASSERT_TRUE(Idle());
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(6u, c.fetched);
  EXPECT_EQ(0u, server_.requests(Path(requests_[1])));
  EXPECT_EQ(0u, server_.requests(Path(requests_[2])));
  EXPECT_EQ(1u, server_.requests(Path(requests_[0])));
  // Dropped speculation may be queued again later.
  engine_->OnDemand(requests_[6].digest);
  EXPECT_EQ(1u, engine_->Enqueue(Range(1, 2), PrefetchPriority::kNext));
}

TEST_F(PrefetcherTest, SpeculationOverTheBudgetWaitsInTheBacklog) {
  PrefetchOptions o = Options(1);
  o.max_objects = 4;  // kLater: 2
  Start(o);
  EXPECT_EQ(2u, engine_->Enqueue(Range(0, 6), PrefetchPriority::kLater));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(4u, engine_->counters().backlog);
  EXPECT_EQ(2u, server_.total_requests());
  // The program reads what was fetched: the next ones follow.
  engine_->OnDemand(requests_[0].digest);
  engine_->OnDemand(requests_[1].digest);
  ASSERT_TRUE(Idle());
  EXPECT_EQ(4u, server_.total_requests());
  EXPECT_EQ(1u, server_.requests(Path(requests_[2])));
  EXPECT_EQ(1u, server_.requests(Path(requests_[3])));
  // A newer trigger's speculation goes before the older backlog.
  EXPECT_EQ(0u, engine_->Enqueue(Range(6, 8), PrefetchPriority::kLater));
  engine_->OnDemand(requests_[2].digest);
  ASSERT_TRUE(Idle());
  EXPECT_EQ(1u, server_.requests(Path(requests_[6])));
  EXPECT_EQ(0u, server_.requests(Path(requests_[4])));
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(0u, c.skipped_budget);
  EXPECT_EQ(3u, c.backlog);  // [7], [4], [5]
}

TEST_F(PrefetcherTest, NextMovesQueuedSpeculationToTheFront) {
  Start(Options(1));
  gate_.Hold(Path(requests_[0]));
  engine_->Enqueue(Range(0, 5), PrefetchPriority::kLater);
  ASSERT_TRUE(gate_.WaitForWaiting(1));
  EXPECT_EQ(1u, engine_->Enqueue(Range(4, 5), PrefetchPriority::kNext));
  gate_.Release();
  ASSERT_TRUE(Idle());
  std::vector<DownloadRequest> log = server_.request_log();
  ASSERT_EQ(5u, log.size());
  EXPECT_EQ(Path(requests_[4]), log[1].url_path);
}

TEST_F(PrefetcherTest, ObjectEvictedBeforeUseIsNotFetchedTwice) {
  Start(Options(2));
  engine_->Enqueue(Range(0, 1), PrefetchPriority::kNext);
  ASSERT_TRUE(Idle());
  ASSERT_TRUE(cache_->Evict(requests_[0].digest).ok());
  EXPECT_EQ(0u, engine_->Enqueue(Range(0, 1), PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(1u, server_.total_requests());
  // A new generation (a new revision) may fetch it again.
  engine_->NewGeneration();
  EXPECT_EQ(1u, engine_->Enqueue(Range(0, 1), PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(2u, server_.total_requests());
}

TEST_F(PrefetcherTest, CachedObjectsCostNoRequest) {
  ASSERT_TRUE(objects_->Open(requests_[0]).ok());
  Start(Options(2));
  engine_->Enqueue(Range(0, 2), PrefetchPriority::kNext);
  ASSERT_TRUE(Idle());
  EXPECT_EQ(2u, server_.total_requests());  // the demand read, then [1]
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(1u, c.cached);
  EXPECT_EQ(1u, c.fetched);
}

// Speculation over cached objects costs no I/O; when the same objects become
// next work (the program reached their directory), they are read ahead
// from the disk after all, once.
TEST_F(PrefetcherTest, CachedSpeculationIsReadAheadWhenItBecomesNext) {
  for (size_t i = 0; i < 4; ++i) ASSERT_TRUE(objects_->Open(requests_[i]).ok());
  Start(Options(2));
  EXPECT_EQ(4u, engine_->Enqueue(Range(0, 4), PrefetchPriority::kLater));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(4u, engine_->counters().cached);
  EXPECT_EQ(4u, engine_->Enqueue(Range(0, 4), PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(0u, engine_->Enqueue(Range(0, 4), PrefetchPriority::kNext));
  EXPECT_EQ(0u, engine_->Enqueue(Range(0, 4), PrefetchPriority::kLater));
  ASSERT_TRUE(Idle());
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(8u, c.cached);
  EXPECT_EQ(0u, c.fetched);
  EXPECT_EQ(4u, server_.total_requests());  // the demand reads only
}

// A window of cached objects wakes only a few workers (kCachedWorkers),
// which go through all of it; the downloads in the same batch still get a
// worker each, so a held download does not keep the rest waiting.
TEST_F(PrefetcherTest, AFewWorkersReadAheadABatchOfCachedObjects) {
  for (size_t i = 0; i < 8; ++i) ASSERT_TRUE(objects_->Open(requests_[i]).ok());
  Start(Options(16));
  gate_.HoldAll();
  EXPECT_EQ(12u, engine_->Enqueue(Range(0, 12), PrefetchPriority::kNext));
  ASSERT_TRUE(gate_.WaitForWaiting(4));  // the four downloads run at once
  gate_.Release();
  ASSERT_TRUE(Idle());
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(8u, c.cached);
  EXPECT_EQ(4u, c.fetched);
  // A batch of cached objects only: still some worker goes through it.
  engine_->NewGeneration();
  EXPECT_EQ(12u, engine_->Enqueue(Range(0, 12), PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(20u, engine_->counters().cached);
}

TEST_F(PrefetcherTest, NearlyFullCacheStopsPrefetchAndEvictsNothing) {
  engine_.reset();
  cache_.reset();
  objects_.reset();
  requests_.clear();
  OpenCache(64 * 1024);
  // A used object; the free space under the quota is less than the budget.
  auto used = objects_->Open(requests_[0]);
  ASSERT_TRUE(used.ok());
  used->Reset();
  PrefetchOptions o = Options(2);
  o.max_bytes = 1 << 20;
  Start(o);
  EXPECT_EQ(0u, engine_->Enqueue(Range(1, 6), PrefetchPriority::kNext));
  PrefetchCounters c = engine_->counters();
  EXPECT_EQ(5u, c.skipped_throttled);
  EXPECT_TRUE(c.cache_full);
  EXPECT_EQ(1u, server_.total_requests());
  EXPECT_TRUE(cache_->Contains(requests_[0].digest));
  EXPECT_EQ(0u, cache_->usage().evictions);
}

TEST_F(PrefetcherTest, OfflinePausesUntilTheNetworkIsBack) {
  ManualClock clock;
  PrefetchOptions o = Options(1);
  o.error_pause_after = 2;
  o.clock = &clock;
  Start(o);
  for (const ObjectRequest& r : Range(0, 4))
    server_.FailNext(Path(r), 1, Status::Unavailable("no route"));
  engine_->Enqueue(Range(0, 2), PrefetchPriority::kNext);
  ASSERT_TRUE(Eventually([&] { return engine_->counters().errors == 2; }));
  ASSERT_TRUE(Idle());
  EXPECT_TRUE(engine_->counters().paused);
  EXPECT_EQ(0u, engine_->Enqueue(Range(2, 4), PrefetchPriority::kNext));
  EXPECT_EQ(2u, server_.total_requests());
  // After the pause it probes again.
  clock.Advance(o.error_pause);
  EXPECT_EQ(1u, engine_->Enqueue(Range(2, 3), PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  EXPECT_EQ(3u, engine_->counters().errors);  // [2] still fails once
  EXPECT_TRUE(engine_->counters().paused);
  // A demand download that works resumes prefetch at once; the failed
  // objects were forgotten and are fetched now.
  ASSERT_TRUE(objects_->Open(requests_[5]).ok());
  EXPECT_EQ(2u, engine_->Enqueue(Range(0, 2), PrefetchPriority::kNext));
  ASSERT_TRUE(Idle());
  PrefetchCounters c = engine_->counters();
  EXPECT_FALSE(c.paused);
  EXPECT_EQ(2u, c.fetched);
}

TEST_F(PrefetcherTest, FailedPrefetchIsNotTheReadersFailure) {
  Start(Options(1));
  gate_.Hold(Path(requests_[0]));
  server_.FailNext(Path(requests_[0]), 1, Status::Unavailable("reset"));
  engine_->Enqueue(Range(0, 1), PrefetchPriority::kNext);
  ASSERT_TRUE(gate_.WaitForWaiting(1));
  engine_->OnDemand(requests_[0].digest);
  Status reader;
  std::thread t([&] { reader = objects_->Open(requests_[0]).status(); });
  ASSERT_TRUE(Eventually([&] { return objects_->counters().collapsed == 1; }));
  gate_.Release();
  t.join();
  EXPECT_TRUE(reader.ok()) << reader.ToString();
  EXPECT_EQ(2u, server_.requests(Path(requests_[0])));
  // The worker counts its failure after its Open returns, which may be after
  // the reader's own download finished.
  EXPECT_TRUE(Eventually([&] { return engine_->counters().errors == 1; }));
}

TEST_F(PrefetcherTest, OffDoesNothing) {
  PrefetchOptions o = Options(4);
  o.enabled = false;
  Start(o);
  EXPECT_EQ(0u, engine_->Enqueue(requests_, PrefetchPriority::kNext));
  engine_->OnDemand(requests_[0].digest);
  EXPECT_FALSE(engine_->counters().enabled);
  EXPECT_EQ(0u, server_.total_requests());
}

TEST(PrefetchOptionsTest, FollowTheSettings) {
  ClientSettings s;
  s.prefetch_files = 100;
  s.prefetch_budget_mb = 8;
  s.prefetch_parallel = 16;
  PrefetchOptions o = PrefetchOptionsFrom(s);
  EXPECT_TRUE(o.enabled);
  EXPECT_EQ(100u, o.max_objects);
  EXPECT_EQ(8u << 20, o.max_bytes);
  EXPECT_EQ(16, o.parallel);
  s.prefetch = false;
  EXPECT_FALSE(PrefetchOptionsFrom(s).enabled);
  s.prefetch = true;
  s.prefetch_files = 0;
  EXPECT_FALSE(PrefetchOptionsFrom(s).enabled);
}

}  // namespace
}  // namespace cvmfs::client
