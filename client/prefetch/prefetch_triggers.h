// PrefetchTriggers: when the file system's events start prefetch work
// (doc/client.md, "Prefetch"). The file system reports what programs do (a
// file opened, a directory listed, a stream read past a chunk, a revision
// switched); this class decides what, if anything, to queue on the prefetch
// engine it owns (prefetcher.h), and keeps the state of those decisions:
// which directories were planned in this revision, when a file was last
// opened, the read-ahead window of each directory (directory_readahead.h).
//
// Catalog queries for a plan run on one planner thread, never on the
// caller's: every method returns without waiting for the network or a
// catalog, and takes only leaf locks.
//
// Time: the options' clock (prefetch.clock), so tests advance it.
//
// Thread safety: all methods may be called from many FUSE threads at once.
// Lifetime: the destructor (or Shutdown) stops the planner, the engine and
// the read-ahead queue before any state they use is gone.
#ifndef CLIENT_PREFETCH_PREFETCH_TRIGGERS_H_
#define CLIENT_PREFETCH_PREFETCH_TRIGGERS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cache/posix_cache.h"
#include "client/bundle_index.h"
#include "client/inode_table.h"
#include "client/object_fetcher.h"
#include "client/prefetch/directory_readahead.h"
#include "client/prefetch/prefetcher.h"
#include "client/task_queue.h"
#include "cvmfs/clock.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

class PrefetchTriggers {
 public:
  // What the file system knows about an inode (its directory, for a file
  // opened); called on the thread of FileOpened only.
  using InodeLookup =
      std::function<Result<std::shared_ptr<const InodeInfo>>(uint64_t inode)>;

  // `objects` and `cache` are borrowed and outlive the triggers.
  // `readahead_threads` fetch chunks ahead of a stream while prefetch is
  // off (with it on, the engine does). `bundles` (borrowed, outlives the
  // triggers; null: bundles off) names the bundles of the files planned.
  PrefetchTriggers(const PrefetchOptions& options, ObjectFetcher* objects,
                   cache::PosixCache* cache, int readahead_threads,
                   InodeLookup lookup, BundleIndex* bundles = nullptr);
  ~PrefetchTriggers();
  PrefetchTriggers(const PrefetchTriggers&) = delete;
  PrefetchTriggers& operator=(const PrefetchTriggers&) = delete;

  // Stops the background work (planner, engine, read-ahead); idempotent.
  void Shutdown();

  // The prefetch engine (never null; Enqueue does nothing when prefetch is
  // off). Callers with their own lists of objects queue them here.
  Prefetcher* engine() const { return engine_.get(); }

  // The regular file `file` is opened for reading, before its content is
  // fetched; `busy` opens and reads of the file system are running now
  // (how many programs read in parallel: Prefetcher::demand_parallel).
  void FileOpened(const InodeInfo& file, int busy);
  // The directory `dir` was listed from the catalog (`rows`).
  void DirectoryListed(const InodeInfo& dir,
                       const std::vector<DirectoryEntry>& rows)
      EXCLUDES(planned_mu_);
  // A stream reader will read `chunks` next (open_file.h).
  void ChunksAhead(std::vector<ObjectRequest> chunks);
  // A new revision is mounted: plans of the old one no longer count.
  void RevisionSwitched() EXCLUDES(planned_mu_);

  // Waits until the plans and read-ahead handed to the background so far
  // are done (their objects are then queued on the engine, or fetched).
  void WaitIdle();

 private:
  // Directories are planned once per revision: `planned_` holds their
  // paths (true: planned while speculating, with the subtree; a directory
  // planned without is planned again once speculation starts), `listed_`
  // those whose files an earlier plan listed already (as another
  // directory's subtree). `files_queued`: the caller queued dir's files.
  // `opened`: the file whose first read triggered it (for the readahead
  // window while speculation is off), else empty.
  void PlanDirectory(const InodeInfo& dir, bool files_queued,
                     const std::string& opened) EXCLUDES(planned_mu_);

  // The requests of `files` that name a bundle, one per bundle (looked up
  // now: call on the planner thread).
  static std::vector<ObjectRequest> OnePerBundle(
      std::vector<ObjectRequest> files);

  const PrefetchOptions options_;
  ObjectFetcher* const objects_;  // borrowed
  const InodeLookup lookup_;
  BundleIndex* const bundles_;  // borrowed, may be null
  std::unique_ptr<Prefetcher> engine_;
  TaskQueue planner_;        // catalog queries of the plans
  TaskQueue readahead_;      // chunks ahead while prefetch is off
  cvmfs::Mutex planned_mu_;  // guards planned_ and listed_; leaf lock
  std::unordered_map<std::string, bool> planned_ GUARDED_BY(planned_mu_);
  std::unordered_set<std::string> listed_ GUARDED_BY(planned_mu_);
  // When a file was last opened for reading (clock ticks since the clock's
  // epoch): a listing queues its files only while a program reads files.
  std::atomic<Clock::Duration::rep> last_open_{0};
  DirectoryReadahead dir_readahead_;  // while speculation is off
};

}  // namespace cvmfs::client

#endif  // CLIENT_PREFETCH_PREFETCH_TRIGGERS_H_
