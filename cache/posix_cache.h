// PosixCache: the client's local disk cache in the CVMFS posix cache layout
// (doc/client.md, "The cache"; names in cache_layout.h), with CVMFS's LRU quota
// (lru_quota.h) persisted to cachedb (cache_db.h).
//
// Objects are content-addressed files XX/<rest> holding the bytes the caller
// wrote (decompressed and verified by the caller; the cache does not hash).
// They enter only through StartTxn() + Commit() and are read through
// CacheHandles.
//
// Who keeps the quota is a QuotaBackend (quota_backend.h):
//
// Private managed cache (quota_limit > 0, !shared): this process owns the
// directory's quota (LocalQuota), holding an flock on lock_cachedb for its
// lifetime; a second owner gets Busy. The quota is kept in memory and
// written behind to cachedb in batches; destruction flushes it, so a clean
// shutdown leaves cachedb exact. Open() reconciles cachedb with the files
// (cache_recovery.h): a missing or corrupt cachedb is rebuilt from a scan,
// leftovers in txn/ are deleted, and after a crash (cachemgr.running still
// present) every size is re-read.
//
// Shared managed cache (quota_limit > 0, shared; CVMFS_SHARED_CACHE=yes):
// every mount of the node uses the directory and one quota, kept by the
// cache manager process (cache_manager.h), started on demand
// (RemoteQuota). Objects are still read and written here directly.
//
// Unmanaged cache (quota_limit == -1, CVMFS's "unmanaged"/alien mode): no
// cachedb, no lock, nothing evicted. Objects are known from the files; only
// those used by this process appear in List() and usage(), which reports
// limit = UINT64_MAX. Several processes, on several nodes of a cluster file
// system (CVMFS_ALIEN_CACHE), may share such a directory: an object is
// written to txn/ under a unique temporary name and renamed into place, so
// a reader anywhere sees a whole verified object or none.
//
// Thread safety: all methods may be called concurrently.
// Lifetime: every CacheHandle and CacheTransaction must be destroyed before
// the PosixCache.
#ifndef CACHE_POSIX_CACHE_H_
#define CACHE_POSIX_CACHE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cache/access.h"
#include "cache/breadcrumb.h"
#include "cache/cache_handle.h"
#include "cache/cache_transaction.h"
#include "cache/object_type.h"
#include "cache/quota_backend.h"
#include "cache/recent_digests.h"
#include "cvmfs/credentials.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace cache {

struct CacheOptions {
  // The cache directory itself: $CVMFS_CACHE_BASE/shared or .../<fqrn>.
  std::string dir;
  // Bytes; -1 = unmanaged (no accounting, no eviction).
  int64_t quota_limit = -1;
  // CVMFS_SHARED_CACHE: a managed quota is kept by the cache manager.
  bool shared = false;
  // The program started as the cache manager (`<exe> __cachemgr__ ...`,
  // cache_manager_launch.h); empty: only connect to a running one.
  std::string manager_exe{};
  // Who this is (the repository), for the cache manager's log.
  std::string client_name{};
  // The user a cache manager started by root switches to (CVMFS_USER).
  std::string manager_user{};
  // CVMFS_USER's ids. A cvmfs2 started by root is that user except around
  // mount(2), when it is briefly root again (cvmfs/credentials.h); a
  // download that lands in that window is handed to the user as well, or
  // the user could not read it afterwards.
  std::optional<cvmfs::UserIds> owner{};
  // CVMFS_ALIEN_CACHE: `dir` is shared by many nodes and belongs to the
  // site (unmanaged only); its mode is left as the site made it.
  bool alien = false;
};

class PosixCache {
 public:
  using Entry = QuotaEntry;
  using Usage = QuotaUsage;
  using Breadcrumb = cache::Breadcrumb;

  // Creates the layout if needed and takes over the directory (or, if
  // shared, connects to its cache manager, starting it if needed).
  // InvalidArgument for a bad limit (neither -1 nor positive); Busy if
  // another process (or PosixCache) owns the directory's quota;
  // Unavailable if a shared cache's manager cannot be reached.
  static cvmfs::Result<std::unique_ptr<PosixCache>> Open(
      const CacheOptions& options);
  ~PosixCache();
  PosixCache(const PosixCache&) = delete;
  PosixCache& operator=(const PosixCache&) = delete;

  // Opens a cached object; NotFound if absent. kUse counts as a use (LRU,
  // hit rate); kSpeculative (a prefetch) only holds it open (access.h).
  cvmfs::Result<CacheHandle> Open(const cvmfs::Digest& id,
                                  Access access = Access::kUse);
  // Starts writing an object. `description` is the repository path, shown
  // by `cvmfs_talk cache list`. A kSpeculative object is stored volatile:
  // evicted before every used object until a kUse Open().
  cvmfs::Result<std::unique_ptr<CacheTransaction>> StartTxn(
      const cvmfs::Digest& id, ObjectType type, std::string description,
      Access access = Access::kUse);

  // Pins are counted (see LruQuota). A pinned object is never evicted.
  // NotFound if absent (pin while holding the handle from Commit() or
  // Open()); NoSpace if pinned bytes would exceed half the limit.
  cvmfs::Status Pin(const cvmfs::Digest& id);
  cvmfs::Status Unpin(const cvmfs::Digest& id);
  bool Contains(const cvmfs::Digest& id);
  // Asks the kernel to read a cached object's file into the page cache
  // (POSIX_FADV_WILLNEED) and returns its size; NotFound if it is not
  // there. Opens no handle and leaves the quota alone (no lock held while
  // the disk answers, no LRU or database update): an object evicted
  // meanwhile is just not read ahead, or read from its unlinked inode.
  cvmfs::Result<uint64_t> ReadAhead(const cvmfs::Digest& id);
  // Whether the object is one of the last kRecentObjects this cache stored
  // (recent_digests.h): its pages are in the page cache still, reading it
  // ahead would do nothing.
  bool RecentlyStored(const cvmfs::Digest& id) const {
    return recent_.Contains(id);
  }
  static constexpr size_t kRecentObjects = 8192;
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
  // The shared cache manager's pid (QuotaBackend::manager_pid), 0 if none.
  uint32_t quota_manager_pid() const { return quota_->manager_pid(); }

 private:
  friend class CacheHandle;
  friend class CacheTransaction;

  PosixCache(const CacheOptions& options, std::unique_ptr<QuotaBackend> quota)
      : options_(options),
        managed_(quota->managed()),
        quota_(std::move(quota)) {}

  // Called by CacheTransaction::Commit() and ~CacheHandle().
  cvmfs::Result<CacheHandle> CommitTxn(CacheTransaction* txn);
  void ReleaseHandle(const cvmfs::Digest& id);

  const CacheOptions options_;
  const bool managed_;
  const std::unique_ptr<QuotaBackend> quota_;  // thread-safe itself
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
  RecentDigests recent_{kRecentObjects};
};

}  // namespace cache

#endif  // CACHE_POSIX_CACHE_H_
