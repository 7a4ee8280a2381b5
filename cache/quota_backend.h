// QuotaBackend: the seam between PosixCache and whoever keeps the quota of
// its directory.
//
//   LocalQuota   this process owns the quota (lock_cachedb, cachedb); the
//                private cache of CVMFS_SHARED_CACHE=no, unmanaged caches,
//                and the cache manager itself.
//   RemoteQuota  the cache manager process owns it; quota operations go
//                over <dir>/cachemgr (doc/format-cache-protocol.md).
//
// Object files are plain files in either case: a backend opens them by
// name for reading, and Commit() renames a finished txn/ file into place.
// Only the owner of the quota deletes objects. Invariant for both: an
// object counted as open (Open() or Commit() until Close()) or pinned is
// never evicted, by anyone.
//
// Thread safety: implementations are safe for concurrent calls.
#ifndef CACHE_QUOTA_BACKEND_H_
#define CACHE_QUOTA_BACKEND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cache/access.h"
#include "cache/object_type.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace cache {

struct QuotaEntry {
  std::string hash;  // digest text form (hex + algorithm id)
  uint64_t size;
  ObjectType type;
  bool pinned;
  std::string description;
};

struct QuotaUsage {
  uint64_t size, pinned, limit;  // bytes; limit UINT64_MAX if unmanaged
  uint64_t hits, misses, evictions;
  // Cleanups (evictions to make room) in the last 24 hours, CVMFS's
  // user.ncleanup24; -1 if the backend cannot tell (unmanaged, or kept by
  // the cache manager).
  int64_t cleanups_24h = -1;
};

class QuotaBackend {
 public:
  virtual ~QuotaBackend() = default;

  // False for an unmanaged cache (no limit, nothing evicted).
  virtual bool managed() const = 0;

  // Opens the object's file read-only and counts it open (kUse: touching
  // it in the LRU order; access.h). NotFound if the object is absent.
  virtual cvmfs::Result<cvmfs::UniqueFd> Open(const cvmfs::Digest& id,
                                              Access access) = 0;
  // Releases one Open() or Commit().
  virtual void Close(const cvmfs::Digest& id) = 0;

  // The largest object Commit() can accept now.
  virtual cvmfs::Result<uint64_t> MaxObjectSize() = 0;
  // Charges the object (evicting others as needed; NoSpace if it cannot
  // fit; kSpeculative stores it volatile), renames `temp_path` to the
  // object's name and counts it open. On failure `temp_path` is left for
  // the caller to delete.
  virtual cvmfs::Status Commit(const cvmfs::Digest& id, uint64_t size,
                               ObjectType type, const std::string& description,
                               const std::string& temp_path, Access access) = 0;

  virtual cvmfs::Status Pin(const cvmfs::Digest& id) = 0;
  virtual cvmfs::Status Unpin(const cvmfs::Digest& id) = 0;
  virtual bool Contains(const cvmfs::Digest& id) = 0;
  virtual cvmfs::Status Evict(const cvmfs::Digest& id) = 0;
  virtual cvmfs::Status Cleanup(uint64_t target_bytes) = 0;
  virtual cvmfs::Status SetLimit(uint64_t bytes) = 0;
  // Least recently used first; empty if the owner cannot be reached.
  virtual std::vector<QuotaEntry> List(bool pinned_only) = 0;
  // hits and misses are left 0 (the cache counts them).
  virtual QuotaUsage usage() = 0;
  // The pid of the other process that keeps the quota (the shared cache's
  // manager), 0 if this process keeps it or there is none.
  virtual uint32_t manager_pid() const { return 0; }
};

}  // namespace cache

#endif  // CACHE_QUOTA_BACKEND_H_
