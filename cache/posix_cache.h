// PosixCache: the client's local disk cache in the CVMFS posix cache layout
// (client.md 4.3; names in cache_layout.h), with CVMFS's LRU quota
// (lru_quota.h) persisted to cachedb (cache_db.h).
//
// Objects are content-addressed files XX/<rest> holding the bytes the caller
// wrote (decompressed and verified by the caller; the cache does not hash).
// They enter only through StartTxn() + Commit() and are read through
// CacheHandles.
//
// Managed cache (quota_limit > 0): this process owns the directory's quota,
// holding an flock on lock_cachedb for its lifetime; a second owner gets
// Busy. The quota is kept in memory and written behind to cachedb in
// batches (one SQLite transaction each); destruction flushes it, so a clean
// shutdown leaves cachedb exact. Open() reconciles cachedb with the files
// (cache_recovery.h): a missing or corrupt cachedb is rebuilt from a scan,
// leftovers in txn/ are deleted, and after a crash (cachemgr.running still
// present) every size is re-read.
//
// Unmanaged cache (quota_limit == -1, CVMFS's "unmanaged"/alien mode): no
// cachedb, no lock, nothing evicted. Objects are known from the files; only
// those used by this process appear in List() and usage(), which reports
// limit = UINT64_MAX. Several processes may share such a directory.
//
// Thread safety: all methods may be called concurrently.
// Lifetime: every CacheHandle and CacheTransaction must be destroyed before
// the PosixCache.
#ifndef CACHE_POSIX_CACHE_H_
#define CACHE_POSIX_CACHE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "cache/breadcrumb.h"
#include "cache/cache_handle.h"
#include "cache/cache_transaction.h"
#include "cache/lru_quota.h"
#include "cache/object_type.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace cache {

class CacheDb;

struct CacheOptions {
  // The cache directory itself: $CVMFS_CACHE_BASE/shared or .../<fqrn>.
  std::string dir;
  // Bytes; -1 = unmanaged (no accounting, no eviction).
  int64_t quota_limit = -1;
};

class PosixCache {
 public:
  struct Entry {
    std::string hash;  // digest text form (hex + algorithm id)
    uint64_t size;
    ObjectType type;
    bool pinned;
    std::string description;
  };
  struct Usage {
    uint64_t size, pinned, limit;  // bytes; limit UINT64_MAX if unmanaged
    uint64_t hits, misses, evictions;
  };
  using Breadcrumb = cache::Breadcrumb;

  // Creates the layout if needed and takes over the directory.
  // InvalidArgument for a bad limit (neither -1 nor positive); Busy if
  // another process (or PosixCache) owns the directory's quota.
  static cvmfs::Result<std::unique_ptr<PosixCache>> Open(
      const CacheOptions& options);
  ~PosixCache();
  PosixCache(const PosixCache&) = delete;
  PosixCache& operator=(const PosixCache&) = delete;

  // Opens a cached object; NotFound if absent. Counts as a use (LRU).
  cvmfs::Result<CacheHandle> Open(const cvmfs::Digest& id);
  // Starts writing an object. `description` is the repository path, shown
  // by `cvmfs_talk cache list`.
  cvmfs::Result<std::unique_ptr<CacheTransaction>> StartTxn(
      const cvmfs::Digest& id, ObjectType type, std::string description);

  // Pins are counted (see LruQuota). A pinned object is never evicted.
  // NotFound if absent (pin while holding the handle from Commit() or
  // Open()); NoSpace if pinned bytes would exceed half the limit.
  cvmfs::Status Pin(const cvmfs::Digest& id);
  cvmfs::Status Unpin(const cvmfs::Digest& id);
  bool Contains(const cvmfs::Digest& id);
  // `cvmfs_talk evict`: NotFound if absent, Busy if open or pinned.
  cvmfs::Status Evict(const cvmfs::Digest& id);
  // Evicts least recently used unpinned, unopened objects until the cache
  // holds at most `target_bytes`; Busy if pinned/open data prevents it.
  // NotSupported for an unmanaged cache.
  cvmfs::Status Cleanup(uint64_t target_bytes);
  // Objects, least recently used first.
  std::vector<Entry> List(bool pinned_only) const;
  Usage usage() const;
  // Changes the quota limit of a managed cache (cleans up if now above it).
  cvmfs::Status SetLimit(int64_t bytes);

  // The breadcrumb of a repository: the newest revision this cache has
  // seen. nullopt if there is none; Corruption if the file is malformed.
  cvmfs::Result<std::optional<Breadcrumb>> LoadBreadcrumb(
      const std::string& fqrn);
  // Written atomically (temporary file + rename), mode 0600.
  cvmfs::Status StoreBreadcrumb(const std::string& fqrn,
                                const Breadcrumb& crumb);

  const std::string& dir() const { return options_.dir; }
  bool managed() const { return managed_; }

 private:
  friend class CacheHandle;
  friend class CacheTransaction;

  // cachedb is written when this many objects changed since the last write.
  static constexpr size_t kFlushBatch = 256;

  explicit PosixCache(const CacheOptions& options);
  cvmfs::Status LockDirectory();
  cvmfs::Status RemoveTxnLeftovers();
  cvmfs::Status LoadQuota();

  // The methods below require mu_.
  const LruQuota::Entry* FindOrAdopt(const cvmfs::Digest& id);
  void DropFiles(const std::vector<cvmfs::Digest>& ids);
  void MarkDirty(const cvmfs::Digest& id);
  void MaybeFlush();
  cvmfs::Status Flush();

  // Called by CacheTransaction::Commit() and ~CacheHandle().
  cvmfs::Result<CacheHandle> CommitTxn(CacheTransaction* txn);
  void ReleaseHandle(const cvmfs::Digest& id);

  const CacheOptions options_;
  const bool managed_;
  cvmfs::UniqueFd lock_fd_;  // flock()ed lock_cachedb (managed only)
  // The quota was loaded and the crash marker written (managed only): the
  // destructor flushes cachedb and removes the marker.
  bool loaded_ = false;

  // Guards everything below. A leaf lock: no other lock is taken while it is
  // held. File system calls made under it are short (open, rename, unlink),
  // which keeps the quota and the files in step: an object is in the quota
  // exactly when its file is in place, as seen by any thread.
  mutable std::mutex mu_;
  LruQuota quota_;
  std::unique_ptr<CacheDb> db_;  // null if unmanaged
  std::unordered_set<cvmfs::Digest, cvmfs::DigestHasher> dirty_;  // unflushed
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace cache

#endif  // CACHE_POSIX_CACHE_H_
