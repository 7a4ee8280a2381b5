#include "cache/local_quota.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "cache/cache_layout.h"
#include "cache/cache_recovery.h"

namespace cache {

using cvmfs::Digest;
using cvmfs::Result;
using cvmfs::Status;
using cvmfs::UniqueFd;

Result<std::unique_ptr<LocalQuota>> LocalQuota::Open(const std::string& dir,
                                                     int64_t limit) {
  CVMFS_ASSIGN_OR_RETURN(std::unique_ptr<QuotaStore> store,
                         QuotaStore::Open(dir, limit));
  // Only the owner may clear txn/: in an unmanaged cache other processes
  // may be writing there.
  if (store->managed()) CVMFS_RETURN_IF_ERROR(RemoveStaleTransactions(dir, 0));
  return std::unique_ptr<LocalQuota>(new LocalQuota(std::move(store)));
}

Result<UniqueFd> LocalQuota::Open(const Digest& id, Access access) {
  cvmfs::MutexLock lock(&mu_);
  if (store_->Find(id) == nullptr)
    return Status::NotFound(id.ToString() + " is not in the cache " +
                            store_->dir());
  std::string path = ObjectPath(store_->dir(), id);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno != ENOENT) return Status::FromErrno(errno, "open " + path);
    // Deleted behind our back. Forget it unless in use (then the next
    // commit of the object puts the file back).
    store_->Forget(id);
    return Status::NotFound(path + " vanished from the cache");
  }
  CVMFS_RETURN_IF_ERROR(store_->Open(id, access));
  return fd;
}

void LocalQuota::Close(const Digest& id) {
  cvmfs::MutexLock lock(&mu_);
  (void)store_->Close(id);
}

Result<uint64_t> LocalQuota::MaxObjectSize() {
  cvmfs::MutexLock lock(&mu_);
  return store_->max_object_size();
}

Status LocalQuota::Commit(const Digest& id, uint64_t size, ObjectType type,
                          const std::string& description,
                          const std::string& temp_path, Access access) {
  cvmfs::MutexLock lock(&mu_);
  std::string path = ObjectPath(store_->dir(), id);
  // A known object was stored concurrently (or its file vanished): the
  // content is the same by its name, so the rename below just refreshes it.
  const bool known = store_->Find(id) != nullptr;
  if (!known)
    CVMFS_RETURN_IF_ERROR(store_->Insert(id, size, type, description, access));
  if (::rename(temp_path.c_str(), path.c_str()) != 0) {
    Status st = Status::FromErrno(errno, "rename " + temp_path + " to " + path);
    if (!known) store_->Forget(id);
    return st;
  }
  return store_->Open(id, Access::kSpeculative);  // held; Insert ordered it
}

Status LocalQuota::Pin(const Digest& id) {
  cvmfs::MutexLock lock(&mu_);
  return store_->Pin(id);
}

Status LocalQuota::Unpin(const Digest& id) {
  cvmfs::MutexLock lock(&mu_);
  return store_->Unpin(id);
}

bool LocalQuota::Contains(const Digest& id) {
  cvmfs::MutexLock lock(&mu_);
  return store_->Find(id) != nullptr;
}

Status LocalQuota::Evict(const Digest& id) {
  cvmfs::MutexLock lock(&mu_);
  return store_->Evict(id);
}

Status LocalQuota::Cleanup(uint64_t target_bytes) {
  cvmfs::MutexLock lock(&mu_);
  return store_->Cleanup(target_bytes);
}

Status LocalQuota::SetLimit(uint64_t bytes) {
  cvmfs::MutexLock lock(&mu_);
  return store_->SetLimit(bytes);
}

std::vector<QuotaEntry> LocalQuota::List(bool pinned_only) {
  cvmfs::MutexLock lock(&mu_);
  return store_->List(pinned_only);
}

QuotaUsage LocalQuota::usage() {
  cvmfs::MutexLock lock(&mu_);
  return store_->usage();
}

}  // namespace cache
