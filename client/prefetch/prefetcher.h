// Prefetcher: objects fetched into the cache in the background, many at a
// time, before a program asks for them (doc/client.md, "Prefetch").
//
// Callers (the directory/sibling triggers in FileSystem, recorded prefetch
// lists) Enqueue() objects; `parallel` worker threads take them from the
// front of the queue (a batch of objects already in the cache, which cost
// a disk readahead each, wakes only kCachedWorkers of them) and download
// them through the ObjectFetcher, so a
// demand read of an object being prefetched waits for that download instead
// of starting a second one (ObjectFetcher collapses them).
//
// Demand reads always come first:
//   * OnDemand(digest) is called before every demand open: a queued object
//     leaves the queue (the reader fetches it now, on its own thread and
//     connection); an object in flight is waited for by the reader through
//     ObjectFetcher's collapsing.
//   * At most `parallel` prefetches are in flight; they are speculative
//     requests, background transfers for the HTTP fetcher
//     (DownloadRequest::background), which starts them only when no demand
//     request waits for a connection and on at most half of its limit.
//   * kNext work goes before everything queued and displaces kLater work
//     from the back of the queue when the budget is full.
//
// The budget: queued + in flight + fetched-but-not-yet-used objects ("the
// outstanding objects") are at most `max_objects` objects and `max_bytes`
// bytes (sizes as stored in the cache). kLater work is admitted only while
// the outstanding objects take less than half of either limit, so
// speculation never blocks work that is likely to be read next. Work that
// does not fit waits in a backlog per priority (newest batch first, at most
// kBacklogFactor x max_objects objects each) and is queued as the budget
// frees up, so a program reading a large directory or walking a tree finds
// the pipeline full. A
// prefetched object stops counting when a demand read uses it, or when it
// was not used within `unused_grace` (then it is waste, and the budget is
// free again for new work): a program that lists directories without
// reading them costs at most the budget per grace period.
//
// Generations: the engine remembers every object it queued (up to
// `generation_size`) and never queues one twice, even if the cache evicted
// it before it was used; NewGeneration() forgets them (a revision switch,
// or automatically when the memory is full).
//
// Throttling (each stops new work; what is queued meanwhile is dropped and
// counted as throttled, never reported to a reader):
//   * parallel readers: demand_parallel() below (held for kParallelHold);
//     work queued before the readers were seen (the first reads of a cold
//     start, a plan of the whole subtree) would run against them.
//   * cache: the free space under the quota is less than the byte budget,
//     so a prefetch never makes the cache evict data to make room.
//   * offline: `error_pause_after` prefetches failed in a row: paused for
//     `error_pause`, or until a demand download succeeds.
//   * slow link: the aggregate rate measured while prefetch had more work
//     than slots would need more than `drain_seconds` to fetch the byte
//     budget: the byte budget shrinks to what that rate fetches in
//     `drain_seconds` (at least 1/8 of it), and grows back when the rate
//     does. (Parallelism stays: on a latency-bound link fewer transfers
//     would measure a lower rate and ratchet the budget down.)
//
// Thread safety: every public method is thread-safe. The ObjectFetcher and
// the cache are borrowed and must outlive the Prefetcher; the destructor
// drops what is queued and waits for the downloads in flight.
#ifndef CLIENT_PREFETCH_PREFETCHER_H_
#define CLIENT_PREFETCH_PREFETCHER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cache/posix_cache.h"
#include "client/client_settings.h"
#include "client/object_fetcher.h"
#include "cvmfs/clock.h"
#include "cvmfs/mutex.h"

namespace cvmfs::client {

struct PrefetchOptions {
  bool enabled = true;  // CVMFS_PREFETCH
  // Prefetch downloads in flight at most (CVMFS_PREFETCH_PARALLEL).
  int parallel = 64;
  // The budget of outstanding objects (CVMFS_PREFETCH_FILES) and bytes
  // (CVMFS_PREFETCH_BUDGET, in megabytes there).
  size_t max_objects = 4096;
  uint64_t max_bytes = 32ull << 20;
  // Files larger than this are not prefetched whole (the triggers' filter).
  uint64_t max_object_size = 1 << 20;
  // Fetched objects not used within this time stop counting (waste).
  std::chrono::seconds unused_grace{60};
  // Offline: this many failures in a row pause prefetch for error_pause.
  int error_pause_after = 3;
  std::chrono::seconds error_pause{30};
  // Slow link: the byte budget should take at most this long to fetch.
  int drain_seconds = 30;
  // Objects remembered per generation.
  size_t generation_size = 1 << 16;
  // Speculation (kLater work) only while a small download takes at least
  // this long on the link (ObjectFetcher::round_trip_us, the shortest
  // recent one, which the mount seeds with its manifest download;
  // CVMFS_PREFETCH_SPECULATE_MS), and only once a
  // demand read missed the cache: when a miss costs little, fetching what
  // may never be read costs more (CPU, disk, bandwidth) than it saves, and
  // a warm cache needs no guessing. 0 = always.
  std::chrono::milliseconds speculate_after{6};
  const Clock* clock = SteadyClock();  // borrowed, never null
};

// The options of the CVMFS_PREFETCH_* parameters (client_settings.h).
PrefetchOptions PrefetchOptionsFrom(const ClientSettings& settings);

enum class PrefetchPriority {
  kNext,   // likely read soon: front of the queue, displaces kLater work
  kLater,  // speculation: behind kNext work, half the budget, displaced first
};

struct PrefetchCounters {
  uint64_t queued = 0;               // objects accepted into the queue
  uint64_t fetched = 0;              // objects downloaded by prefetch
  uint64_t fetched_bytes = 0;        // their sizes (as stored in the cache)
  uint64_t used = 0;                 // of those, later opened by a demand read
  uint64_t used_bytes = 0;           //   and their sizes
  uint64_t wasted_bytes = 0;         // fetched_bytes - used_bytes
  uint64_t cached = 0;               // found in the cache already (no download)
  uint64_t overtaken = 0;            // queued, then asked for by a demand read
  uint64_t skipped_budget = 0;       // not queued or dropped: over the budget
  uint64_t skipped_throttled = 0;    // not queued or dropped: full cache,
                                     // offline, parallel readers, stopping
  uint64_t errors = 0;               // prefetch downloads that failed
  uint64_t directories_planned = 0;  // directories listed to plan prefetch
  // Now:
  uint64_t pending = 0;    // queued objects
  uint64_t backlog = 0;    // objects waiting for budget (both backlogs)
  uint64_t in_flight = 0;  // downloads running
  uint64_t outstanding_objects = 0, outstanding_bytes = 0;
  uint64_t budget_bytes = 0;   // the byte budget after slow-link throttling
  uint64_t rate = 0;           // measured bytes/s, 0 = not measured yet
  uint64_t round_trip_us = 0;  // ObjectFetcher::round_trip_us()
  uint64_t demand_misses = 0;  // ObjectFetcher::demand_misses()
  bool speculating = false;    // see PrefetchOptions::speculate_after
  bool enabled = false;
  bool paused = false;            // offline
  bool cache_full = false;        // free space under the quota below the budget
  bool parallel_readers = false;  // see Prefetcher::demand_parallel
};

class Prefetcher {
 public:
  // Each backlog holds at most this many times max_objects objects.
  static constexpr size_t kBacklogFactor = 4;
  // Workers woken for a batch of objects already in the cache.
  static constexpr size_t kCachedWorkers = 4;

  Prefetcher(PrefetchOptions options, ObjectFetcher* objects,
             cache::PosixCache* cache);
  ~Prefetcher();
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  const PrefetchOptions& options() const { return options_; }
  // False when off (options.enabled false, or a zero budget).
  bool enabled() const { return !threads_.empty(); }
  // Whether speculation pays now (PrefetchOptions::speculate_after).
  bool speculating() const;
  // Whether the programs read so much in parallel by themselves that
  // prefetch would add only work on the CPUs they need: at least
  // kParallelDemand demand requests wait for a download, or `busy_readers`
  // (the caller's count of opens and reads running) are at least that
  // many, while round trips take less than kParallelLatencyFactor x
  // speculate_after (64 parallel readers of a tree: 1.1-1.2x slower with
  // prefetch at 0 and 10 ms, 1.1x faster at 50 ms). Reads then trigger
  // nothing. The state holds for kParallelHold after it was last seen: the
  // count of busy readers dips whenever their files happen to be cached
  // (what prefetch queued in such a dip makes the next dip likelier), and
  // 64 readers of `fs/` at 0 ms were still 1.1x slower with prefetch when
  // only the moment's count decided.
  static constexpr int kParallelDemand = 16;
  static constexpr int kParallelLatencyFactor = 4;
  static constexpr auto kParallelHold = std::chrono::seconds(1);
  bool demand_parallel(int busy_readers = 0) const;
  // Whether demand_parallel() saw many readers within kParallelHold, on a
  // fast link: prefetch is held back (it drops new work), and planning
  // more is pointless.
  bool held_back() const;

  // Queues `objects` (in this order) for background fetching; objects known
  // in this generation are left out (kNext moves a queued kLater one up),
  // objects over the budget wait in the backlog. Returns how many were
  // queued now. Never blocks on I/O (the cache fill is looked up at most
  // every 250 ms).
  size_t Enqueue(const std::vector<ObjectRequest>& objects,
                 PrefetchPriority priority) EXCLUDES(mu_);

  // A demand read is about to open `digest` (see the contract above).
  void OnDemand(const Digest& digest) EXCLUDES(mu_);

  // Counts directories the caller listed to plan prefetch (a cost figure).
  void NotePlanned(size_t directories) EXCLUDES(mu_);

  // Forgets which objects were prefetched (queued and running work stays).
  void NewGeneration() EXCLUDES(mu_);

  // Drops what is queued and waits for the downloads in flight;
  // idempotent. Enqueue does nothing afterwards.
  void Shutdown() EXCLUDES(mu_);

  PrefetchCounters counters() const EXCLUDES(mu_);

  // Waits up to `timeout` until nothing is queued or in flight (objects in
  // the backlog wait for budget, not for a worker); false on timeout.
  bool WaitIdle(std::chrono::milliseconds timeout) const EXCLUDES(mu_);

 private:
  using TimePoint = Clock::TimePoint;
  enum class State { kQueued, kInFlight, kFetched, kDone };
  struct Known {
    State state = State::kQueued;
    uint64_t ticket = 0;  // the queue item that is current for this object
    uint64_t size = 0;
    bool counted = false;   // in the outstanding budget
    bool demanded = false;  // a demand read asked while in flight
    PrefetchPriority priority = PrefetchPriority::kLater;
  };
  struct Item {
    ObjectRequest request;
    uint64_t ticket = 0;
    PrefetchPriority priority = PrefetchPriority::kLater;  // set when taken
  };

  void Run() EXCLUDES(mu_);
  enum class Admission { kQueued, kKnown, kThrottled, kOverBudget };
  Admission Admit(const ObjectRequest& request, PrefetchPriority priority)
      REQUIRES(mu_);
  void Backlog(std::vector<ObjectRequest> requests, PrefetchPriority p)
      REQUIRES(mu_);
  void OnDemandLocked(const Digest& digest) REQUIRES(mu_);
  // Moves backlog work that fits into the queue; returns how many items.
  size_t Refill() REQUIRES(mu_);
  // Wakes a worker for each of `items` new queue items.
  void Wake(size_t items) EXCLUDES(mu_);
  bool MakeRoom(uint64_t size, uint64_t object_limit, uint64_t byte_limit)
      REQUIRES(mu_);
  bool Throttled() REQUIRES(mu_);
  bool CacheNearlyFull() REQUIRES(mu_);
  void ExpireUnused() REQUIRES(mu_);
  void Release(Known* known) REQUIRES(mu_);
  bool TakeNext(Item* item) EXCLUDES(mu_);
  void Finish(const Item& item, Status status, bool downloaded, uint64_t size,
              TimePoint started) EXCLUDES(mu_);
  void MeasureRate(uint64_t bytes, TimePoint started) REQUIRES(mu_);
  void ForgetDone() REQUIRES(mu_);

  const PrefetchOptions options_;
  ObjectFetcher* const objects_;    // borrowed
  cache::PosixCache* const cache_;  // borrowed

  // Guards everything below up to counts_ (never held during I/O, a cache
  // lookup excepted in CacheNearlyFull, which is rate limited). No other
  // client lock is taken under it; it is taken before the cache's own locks
  // (that lookup).
  mutable cvmfs::Mutex mu_;
  std::condition_variable work_cv_;  // a queue grew, or stopping
  // Nothing queued or in flight (a worker is about to wait), or stopping.
  mutable std::condition_variable idle_cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  // By priority (index 0: kNext, 1: kLater). Workers take kNext work
  // first. Work over the budget waits in the backlogs.
  std::deque<Item> queue_[2] GUARDED_BY(mu_);
  std::deque<ObjectRequest> backlog_[2] GUARDED_BY(mu_);
  static size_t Lane(PrefetchPriority p) {
    return p == PrefetchPriority::kNext ? 0 : 1;
  }
  size_t QueuedItems() const REQUIRES(mu_) {
    return queue_[0].size() + queue_[1].size();
  }
  std::unordered_map<Digest, Known, DigestHasher> known_ GUARDED_BY(mu_);
  // Fetched, oldest first.
  std::deque<std::pair<TimePoint, Digest>> unused_ GUARDED_BY(mu_);
  uint64_t next_ticket_ GUARDED_BY(mu_) = 1;
  uint64_t outstanding_objects_ GUARDED_BY(mu_) = 0;
  uint64_t outstanding_bytes_ GUARDED_BY(mu_) = 0;
  int active_ GUARDED_BY(mu_) = 0;
  // Offline detection.
  int failures_in_row_ GUARDED_BY(mu_) = 0;
  TimePoint paused_until_ GUARDED_BY(mu_){};
  uint64_t demand_downloads_at_pause_ GUARDED_BY(mu_) = 0;
  // Cache fill, looked up at most every kCacheCheckInterval.
  TimePoint cache_checked_ GUARDED_BY(mu_){};
  bool cache_full_ GUARDED_BY(mu_) = false;
  // Slow link: bytes/s measured over windows in which prefetch had more
  // work than slots; 0 = not measured yet.
  TimePoint window_start_ GUARDED_BY(mu_){};
  uint64_t window_bytes_ GUARDED_BY(mu_) = 0;
  double rate_ GUARDED_BY(mu_) = 0;
  uint64_t budget_bytes_ GUARDED_BY(mu_);
  PrefetchCounters counts_ GUARDED_BY(mu_);
  // When demand_parallel() last saw many readers (clock ticks since the
  // clock's epoch; 0 = never). Outside mu_: read on every open.
  mutable std::atomic<Clock::Duration::rep> parallel_seen_{0};

  // Not guarded: filled by the constructor, joined by Shutdown().
  std::vector<std::thread> threads_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_PREFETCH_PREFETCHER_H_
