// ObjectCopier: copies content-addressed objects from a source into a
// replica's storage with a pool of worker threads, each blocking in its own
// Fetch (HttpFetcher runs the transfers in parallel on its I/O thread).
//
// Work arrives in batches: the catalog walk puts every object one catalog
// references into that catalog's batch and later waits for the batch before
// it stores the catalog itself. This is what makes "a catalog exists in the
// replica" imply "everything below it exists" (the invariant that lets a
// snapshot skip whole subtrees).
//
// An object is downloaded at most once per snapshot. When a second batch
// references an object that an earlier batch already queued, the second
// batch shares that object's task and waits for it too, so the invariant
// also holds for objects several catalogs reference.
//
// A bundle (doc/format-bundles.md: many small whole-file objects of one
// directory in one object) is enqueued with EnqueueBundle: its task
// downloads it (verified as a whole), stores each member as its own object,
// each verified against its digest, and only then stores the bundle itself,
// so a bundle present in the storage implies its members are. The members
// become tasks that are already done: a later Enqueue of one of them
// shares that task and downloads nothing.
//
// Objects already present in the destination are not downloaded (a stat()
// of a local storage, a HEAD on S3: snapshot_destination.h).
// After the first failure every queued task ends at once with a "snapshot
// aborted" status and Wait() reports the first real error.
//
// Thread safety: Enqueue and Wait may be called from any thread; a Batch is
// filled by one thread. Lock order: mu_ is a leaf lock.
#ifndef SERVER_REPLICATION_OBJECT_COPIER_H_
#define SERVER_REPLICATION_OBJECT_COPIER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cvmfs/hash.h"
#include "cvmfs/mutex.h"
#include "cvmfs/network/fetcher.h"
#include "cvmfs/object_name.h"
#include "cvmfs/progress.h"
#include "cvmfs/status.h"
#include "server/replication/snapshot_destination.h"

namespace replication {

struct CopyCounters {
  uint64_t copied = 0;           // objects downloaded and stored
  uint64_t bytes = 0;            // their size as stored
  uint64_t already_present = 0;  // found in the storage, not downloaded
  uint64_t bundles = 0;          // bundles downloaded (also in copied)
  uint64_t from_bundles = 0;     // members stored from them (also in copied)
  // Bundles the source does not have (HTTP 404: removed by CVMFS's gc, say):
  // skipped; their members are copied one by one, as CVMFS copies them.
  uint64_t bundles_missing = 0;
};

class ObjectCopier {
 public:
  struct Task;  // one object; shared by the batches that reference it
  // The objects one catalog (or the final step) references.
  class Batch {
   public:
    size_t size() const { return tasks_.size(); }

   private:
    friend class ObjectCopier;
    std::vector<std::shared_ptr<Task>> tasks_;
  };

  // `fetcher` and `destination` are borrowed and must outlive the copier.
  // `progress` (not owned, may be null) counts each distinct object as
  // work to do when it is enqueued and as done when it is stored or found.
  ObjectCopier(cvmfs::Fetcher* fetcher, SnapshotDestination* destination,
               int workers, cvmfs::ProgressCounters* progress = nullptr);
  ~ObjectCopier();  // cancels what is still queued and joins the workers
  ObjectCopier(const ObjectCopier&) = delete;
  ObjectCopier& operator=(const ObjectCopier&) = delete;

  void Enqueue(Batch* batch, const cvmfs::Digest& digest,
               cvmfs::ObjectSuffix suffix);
  // The bundle object `digest` (suffix B) and, through it, its members.
  void EnqueueBundle(Batch* batch, const cvmfs::Digest& digest);
  // Blocks until every task of `batch` ended; ok if all are stored.
  cvmfs::Status Wait(const Batch& batch);
  // Makes every queued task fail with `why`; the first error wins.
  void Abort(const cvmfs::Status& why);

  CopyCounters counters() const;

 private:
  void WorkerLoop() EXCLUDES(mu_);
  void EnqueueTask(Batch* batch, const cvmfs::Digest& digest,
                   cvmfs::ObjectSuffix suffix, bool bundle) EXCLUDES(mu_);
  cvmfs::Status Copy(const Task& task) EXCLUDES(mu_);
  cvmfs::Status CopyBundle(const Task& task) EXCLUDES(mu_);
  void Complete(const std::shared_ptr<Task>& task, cvmfs::Status status)
      EXCLUDES(mu_);

  cvmfs::Fetcher* const fetcher_;            // not owned
  SnapshotDestination* const destination_;   // not owned
  cvmfs::ProgressCounters* const progress_;  // not owned; may be null

  // Guards everything below and Task::done, Task::status; leaf lock.
  mutable cvmfs::Mutex mu_;
  std::condition_variable work_cv_;  // queue_ not empty, or stopping_
  std::condition_variable done_cv_;  // some task completed
  std::deque<std::shared_ptr<Task>> queue_ GUARDED_BY(mu_);
  // Every object this copier has seen, by object path.
  std::unordered_map<std::string, std::shared_ptr<Task>> tasks_ GUARDED_BY(mu_);
  cvmfs::Status first_error_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  CopyCounters counters_ GUARDED_BY(mu_);

  std::vector<std::thread> workers_;  // last: started after the state above
};

}  // namespace replication

#endif  // SERVER_REPLICATION_OBJECT_COPIER_H_
