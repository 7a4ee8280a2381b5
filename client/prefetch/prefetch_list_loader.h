// PrefetchListLoader: the recorded prefetch lists of the mounted revision,
// and their use (doc/format-prefetch-list.md, "Using").
//
//   Load(root catalog) ─► worker: fetch + verify + parse the list set object
//   OnOpen(path)       ─► path is a list's trigger? ─► worker feeds the
//                         list's objects to the Prefetcher (kNext), as
//                         much as its budget has room for, until done
//
// A list fires at most once per loaded revision. Opens that happen while
// the list set is still loading are remembered (a few thousand) and fire
// their lists once it has loaded, so a workload that starts right with the
// mount (autofs) is not missed. Objects already cached are skipped without
// costing budget; when the Prefetcher is off nothing is fed; when its cache
// is full feeding stops; while it is paused (offline) feeding waits.
//
// Nothing here is needed for a read to succeed: a list set that fails to
// load, or objects that fail to download, are logged and counted only.
//
// Thread safety: every public method is thread-safe; OnOpen() runs on FUSE
// threads and never blocks on I/O (a leaf mutex and a hash lookup). One
// worker thread does the fetching and feeding. The ObjectFetcher, cache and
// Prefetcher are borrowed and must outlive the loader (the destructor joins
// the worker).
#ifndef CLIENT_PREFETCH_PREFETCH_LIST_LOADER_H_
#define CLIENT_PREFETCH_PREFETCH_LIST_LOADER_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cache/posix_cache.h"
#include "client/catalog_set.h"
#include "client/object_fetcher.h"
#include "client/prefetch/prefetcher.h"
#include "cvmfs/mutex.h"
#include "cvmfs/prefetch_list.h"

namespace cvmfs::client {

struct PrefetchListCounters {
  uint64_t lists_fired = 0;
  uint64_t queued = 0;       // objects the Prefetcher accepted
  uint64_t cached = 0;       // objects that were in the cache already
  uint64_t left_out = 0;     // objects the Prefetcher did not take (already
                             // queued by another trigger, too large, throttled)
  uint64_t load_errors = 0;  // list set objects that did not load
};

class PrefetchListLoader {
 public:
  using Logger = std::function<void(const std::string&)>;
  PrefetchListLoader(ObjectFetcher* objects, cache::PosixCache* cache,
                     Prefetcher* prefetcher, Logger log);
  ~PrefetchListLoader();
  PrefetchListLoader(const PrefetchListLoader&) = delete;
  PrefetchListLoader& operator=(const PrefetchListLoader&) = delete;

  // `catalogs` (revision `revision`) is mounted now: its lists, if its root
  // catalog references any, replace the previous ones. Returns at once; the
  // list set loads in the background.
  void Load(CatalogSet* catalogs, uint64_t revision) EXCLUDES(mu_);

  // `path` (a repository path) was opened.
  void OnOpen(const std::string& path) EXCLUDES(mu_);

  // Waits until no list set is loading and no fired list has objects left
  // to feed, or `timeout_ms` passed; true if idle. For tests and talk.
  bool WaitIdle(int timeout_ms) EXCLUDES(mu_);

  PrefetchListCounters counters() const EXCLUDES(mu_);
  // For `cvmfs_talk prefetch lists`: one line for the list set, one per
  // list.
  std::string Report() const EXCLUDES(mu_);

 private:
  struct ListState {
    PrefetchList list;
    std::vector<ObjectRequest> objects;  // list order
    size_t next = 0;                     // objects[next..] not fed yet
    bool fired = false;
    std::string stopped;  // why feeding stopped early ("" = it did not)
  };
  enum class Phase { kNone, kLoading, kLoaded, kFailed };

  void Run() EXCLUDES(mu_);
  // Called by Run() with mu_ held; they release it around I/O and take it
  // again before returning. FeedRound: true if the worker is to wait
  // kFeedRetry (or until woken) before the next round.
  void LoadPending() REQUIRES(mu_);
  bool FeedRound() REQUIRES(mu_);
  void FireLocked(size_t list) REQUIRES(mu_);
  bool IdleLocked() const REQUIRES(mu_) {
    return phase_ != Phase::kLoading && feeding_.empty();
  }

  // Fetches, verifies and parses one list set object (no lock held).
  Result<std::vector<PrefetchList>> Fetch(const Digest& digest,
                                          uint64_t revision);

  ObjectFetcher* const objects_;    // borrowed
  cache::PosixCache* const cache_;  // borrowed
  Prefetcher* const prefetcher_;    // borrowed
  const Logger log_;

  // Guards everything below up to counts_; a leaf lock, never held during
  // I/O (the worker releases it around fetching, cache lookups and
  // Enqueue). RepositoryMount::update_mu_ comes before it (Load()).
  mutable cvmfs::Mutex mu_;
  std::condition_variable work_cv_;  // load request, fired list, or stop
  std::condition_variable idle_cv_;  // became idle
  bool stop_ GUARDED_BY(mu_) = false;
  // Bumped by Load(); stale work is dropped.
  uint64_t generation_ GUARDED_BY(mu_) = 0;
  bool load_pending_ GUARDED_BY(mu_) = false;
  std::optional<Digest> pending_digest_ GUARDED_BY(mu_);
  uint64_t revision_ GUARDED_BY(mu_) = 0;
  Phase phase_ GUARDED_BY(mu_) = Phase::kNone;
  std::string load_error_ GUARDED_BY(mu_);
  std::vector<ListState> lists_ GUARDED_BY(mu_);
  // Trigger path -> indexes into lists_ (lists may share a trigger).
  std::unordered_map<std::string, std::vector<size_t>> triggers_
      GUARDED_BY(mu_);
  // Opens while loading.
  std::vector<std::string> early_opens_ GUARDED_BY(mu_);
  // Fired lists with objects left.
  std::deque<size_t> feeding_ GUARDED_BY(mu_);
  PrefetchListCounters counts_ GUARDED_BY(mu_);

  // Not guarded: started by the constructor, joined by the destructor.
  std::thread worker_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_PREFETCH_PREFETCH_LIST_LOADER_H_
