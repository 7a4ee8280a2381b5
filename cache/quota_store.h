// QuotaStore: the quota of a cache directory as its owner keeps it: the
// LRU bookkeeping (lru_quota.h), persisted to cachedb (cache_db.h), and the
// deletion of evicted objects' files.
//
// Managed (limit > 0): Open() takes an exclusive flock on lock_cachedb for
// the store's lifetime (a second owner gets Busy), reconciles cachedb with
// the files (cache_recovery.h; after a crash, marked by cachemgr.running,
// every size is re-read) and writes cachemgr.running. Changes are written
// behind to cachedb in batches; Flush() and the destructor write them out,
// and the destructor removes the marker once cachedb is exact.
//
// Unmanaged (limit == -1): no lock, no cachedb, nothing evicted; the files
// are the truth and Find() learns about them on first use.
//
// Open counts and pins here are totals; who holds them is the caller's
// business (LocalQuota: this process; CacheManager: its connections).
//
// Thread safety: none; the owner serializes calls.
#ifndef CACHE_QUOTA_STORE_H_
#define CACHE_QUOTA_STORE_H_

#include <cstdint>
#include <ctime>
#include <deque>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "cache/lru_quota.h"
#include "cache/object_type.h"
#include "cache/quota_backend.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace cache {

class CacheDb;

class QuotaStore {
 public:
  // Creates the layout if needed. InvalidArgument for a bad limit (neither
  // -1 nor positive); Busy if another process owns the quota.
  static cvmfs::Result<std::unique_ptr<QuotaStore>> Open(const std::string& dir,
                                                         int64_t limit);
  ~QuotaStore();
  QuotaStore(const QuotaStore&) = delete;
  QuotaStore& operator=(const QuotaStore&) = delete;

  bool managed() const { return managed_; }
  const std::string& dir() const { return dir_; }
  uint64_t max_object_size() const { return quota_.max_object_size(); }

  // Null if absent (unmanaged: if there is no such file). Valid until the
  // next non-const call.
  const LruQuota::Entry* Find(const cvmfs::Digest& id);

  // A new object, most recently used; evicted objects' files are deleted.
  // AlreadyExists, NoSpace (nothing changed then).
  cvmfs::Status Insert(const cvmfs::Digest& id, uint64_t size, ObjectType type,
                       const std::string& description,
                       Access access = Access::kUse);
  // Counts an open; kUse also touches (LruQuota::Open).
  cvmfs::Status Open(const cvmfs::Digest& id, Access access = Access::kUse);
  cvmfs::Status Close(const cvmfs::Digest& id);
  cvmfs::Status Pin(const cvmfs::Digest& id);
  cvmfs::Status Unpin(const cvmfs::Digest& id);
  // Removes the entry and deletes the file: NotFound, Busy if locked.
  cvmfs::Status Evict(const cvmfs::Digest& id);
  // The file vanished: drops the entry unless it is locked.
  void Forget(const cvmfs::Digest& id);
  // Busy if locked data keeps the cache above the target.
  cvmfs::Status Cleanup(uint64_t target_bytes);
  cvmfs::Status SetLimit(uint64_t bytes);

  std::vector<QuotaEntry> List(bool pinned_only) const;
  QuotaUsage usage() const;

  // Writes pending changes to cachedb (no-op if none or unmanaged).
  cvmfs::Status Flush();

 private:
  // cachedb is written when this many objects changed since the last write.
  static constexpr size_t kFlushBatch = 256;

  QuotaStore(const std::string& dir, int64_t limit);
  cvmfs::Status LockDirectory();
  cvmfs::Status Load();
  void DropFiles(const std::vector<cvmfs::Digest>& ids);
  void MarkDirty(const cvmfs::Digest& id);
  void MaybeFlush();

  // Remembers a cleanup that removed `evicted` (if any), for usage().
  void NoteCleanup(const std::vector<cvmfs::Digest>& evicted);

  const std::string dir_;
  const bool managed_;
  // When the cleanups of the last 24 hours happened (wall clock: the
  // count is what an administrator reads; oldest first).
  std::deque<time_t> cleanups_;
  cvmfs::UniqueFd lock_fd_;  // flock()ed lock_cachedb (managed only)
  // cachedb was loaded and the crash marker written: the destructor
  // flushes and removes the marker.
  bool loaded_ = false;
  LruQuota quota_;
  std::unique_ptr<CacheDb> db_;  // null if unmanaged
  std::unordered_set<cvmfs::Digest, cvmfs::DigestHasher> dirty_;  // unflushed
};

}  // namespace cache

#endif  // CACHE_QUOTA_STORE_H_
