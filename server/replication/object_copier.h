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
// Objects already present in the storage are not downloaded (a stat()).
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

namespace replication {

struct CopyCounters {
  uint64_t copied = 0;           // objects downloaded and stored
  uint64_t bytes = 0;            // their size as stored
  uint64_t already_present = 0;  // found in the storage, not downloaded
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

  // `fetcher` is borrowed and must outlive the copier; objects are stored
  // below `storage_root` (which has data/txn).
  // `progress` (not owned, may be null) counts each distinct object as
  // work to do when it is enqueued and as done when it is stored or found.
  ObjectCopier(cvmfs::Fetcher* fetcher, std::string storage_root, int workers,
               cvmfs::ProgressCounters* progress = nullptr);
  ~ObjectCopier();  // cancels what is still queued and joins the workers
  ObjectCopier(const ObjectCopier&) = delete;
  ObjectCopier& operator=(const ObjectCopier&) = delete;

  void Enqueue(Batch* batch, const cvmfs::Digest& digest,
               cvmfs::ObjectSuffix suffix);
  // Blocks until every task of `batch` ended; ok if all are stored.
  cvmfs::Status Wait(const Batch& batch);
  // Makes every queued task fail with `why`; the first error wins.
  void Abort(const cvmfs::Status& why);

  CopyCounters counters() const;

 private:
  void WorkerLoop() EXCLUDES(mu_);
  cvmfs::Status Copy(const Task& task) EXCLUDES(mu_);
  void Complete(const std::shared_ptr<Task>& task, cvmfs::Status status)
      EXCLUDES(mu_);

  cvmfs::Fetcher* const fetcher_;  // not owned
  const std::string storage_root_;
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
