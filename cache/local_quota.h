// LocalQuota: the QuotaBackend of a process that owns its cache directory's
// quota itself (a QuotaStore): CVMFS_SHARED_CACHE=no, unmanaged caches.
//
// Opening a file and counting the open, or charging an object and renaming
// its file into place, happen under one lock, so that an object is in the
// quota exactly when its file is in place, as seen by any thread here.
//
// Thread safety: all methods may be called concurrently.
#ifndef CACHE_LOCAL_QUOTA_H_
#define CACHE_LOCAL_QUOTA_H_

#include <memory>
#include <string>
#include <vector>

#include "cache/quota_backend.h"
#include "cache/quota_store.h"
#include "cvmfs/mutex.h"

namespace cache {

class LocalQuota : public QuotaBackend {
 public:
  // Takes over the directory (QuotaStore::Open) and, if managed, deletes
  // everything left in txn/ (nobody else may write there).
  static cvmfs::Result<std::unique_ptr<LocalQuota>> Open(const std::string& dir,
                                                         int64_t limit);

  bool managed() const override { return managed_; }
  cvmfs::Result<cvmfs::UniqueFd> Open(const cvmfs::Digest& id,
                                      Access access) override;
  void Close(const cvmfs::Digest& id) override;
  cvmfs::Result<uint64_t> MaxObjectSize() override;
  cvmfs::Status Commit(const cvmfs::Digest& id, uint64_t size, ObjectType type,
                       const std::string& description,
                       const std::string& temp_path, Access access) override;
  cvmfs::Status Pin(const cvmfs::Digest& id) override;
  cvmfs::Status Unpin(const cvmfs::Digest& id) override;
  bool Contains(const cvmfs::Digest& id) override;
  cvmfs::Status Evict(const cvmfs::Digest& id) override;
  cvmfs::Status Cleanup(uint64_t target_bytes) override;
  cvmfs::Status SetLimit(uint64_t bytes) override;
  std::vector<QuotaEntry> List(bool pinned_only) override;
  QuotaUsage usage() override;

 private:
  explicit LocalQuota(std::unique_ptr<QuotaStore> store)
      : managed_(store->managed()), store_(std::move(store)) {}

  const bool managed_;
  // Guards the store. A leaf lock; file system calls under it are short
  // (open, rename, unlink).
  cvmfs::Mutex mu_;
  const std::unique_ptr<QuotaStore> store_ PT_GUARDED_BY(mu_);
};

}  // namespace cache

#endif  // CACHE_LOCAL_QUOTA_H_
