#include "cache/posix_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "cache/cache_layout.h"
#include "cache/local_quota.h"
#include "cache/remote_quota.h"

namespace cache {

using cvmfs::Digest;
using cvmfs::Result;
using cvmfs::Status;
using cvmfs::UniqueFd;

namespace {

Result<std::unique_ptr<QuotaBackend>> OpenBackend(const CacheOptions& o) {
  if (o.shared && o.quota_limit > 0) {
    RemoteQuotaOptions remote;
    remote.launch.dir = o.dir;
    remote.launch.quota_limit = o.quota_limit;
    remote.launch.exe = o.manager_exe;
    remote.launch.user = o.manager_user;
    remote.client_name = o.client_name;
    CVMFS_ASSIGN_OR_RETURN(std::unique_ptr<RemoteQuota> quota,
                           RemoteQuota::Connect(remote));
    return std::unique_ptr<QuotaBackend>(std::move(quota));
  }
  CVMFS_ASSIGN_OR_RETURN(std::unique_ptr<LocalQuota> quota,
                         LocalQuota::Open(o.dir, o.quota_limit));
  return std::unique_ptr<QuotaBackend>(std::move(quota));
}

}  // namespace

Result<std::unique_ptr<PosixCache>> PosixCache::Open(
    const CacheOptions& options) {
  if (options.dir.empty())
    return Status::InvalidArgument("no cache directory given");
  if (options.quota_limit != -1 && options.quota_limit <= 0)
    return Status::InvalidArgument("invalid cache quota limit " +
                                   std::to_string(options.quota_limit) +
                                   " (bytes; -1 for an unmanaged cache)");
  if (options.alien && options.quota_limit != -1)
    return Status::InvalidArgument("an alien cache is unmanaged (quota -1)");
  CVMFS_RETURN_IF_ERROR(CreateLayout(options.dir, !options.alien));
  CVMFS_ASSIGN_OR_RETURN(std::unique_ptr<QuotaBackend> quota,
                         OpenBackend(options));
  return std::unique_ptr<PosixCache>(new PosixCache(options, std::move(quota)));
}

PosixCache::~PosixCache() = default;

Result<CacheHandle> PosixCache::Open(const Digest& id, Access access) {
  const bool use = access == Access::kUse;
  auto fd = quota_->Open(id, access);
  if (!fd.ok()) {
    if (fd.status().IsNotFound() && use) ++misses_;
    return fd.status();
  }
  struct stat st;
  if (::fstat(fd->get(), &st) != 0) {
    Status err = Status::FromErrno(errno, "stat " + ObjectPath(dir(), id));
    quota_->Close(id);
    return err;
  }
  if (use) ++hits_;
  return CacheHandle(this, id, std::move(fd).value(),
                     static_cast<uint64_t>(st.st_size));
}

Result<std::unique_ptr<CacheTransaction>> PosixCache::StartTxn(
    const Digest& id, ObjectType type, std::string description, Access access) {
  CVMFS_ASSIGN_OR_RETURN(uint64_t max_size, quota_->MaxObjectSize());
  std::string tmpl =
      cvmfs::JoinPath(cvmfs::JoinPath(options_.dir, kTxnDir), kTxnTemplate);
  UniqueFd fd(::mkostemp(tmpl.data(), O_CLOEXEC));  // mode 0600
  if (!fd.valid()) return Status::FromErrno(errno, "create " + tmpl);
  if (options_.owner && ::geteuid() == 0 &&
      ::fchown(fd.get(), options_.owner->uid, options_.owner->gid) != 0) {
    Status err = Status::FromErrno(errno, "chown " + tmpl);
    ::unlink(tmpl.c_str());
    return err;
  }
  return std::unique_ptr<CacheTransaction>(
      new CacheTransaction(this, id, type, std::move(description), tmpl,
                           std::move(fd), max_size, access));
}

Result<CacheHandle> PosixCache::CommitTxn(CacheTransaction* txn) {
  CVMFS_RETURN_IF_ERROR(quota_->Commit(txn->id_, txn->size_, txn->type_,
                                       txn->description_, txn->temp_path_,
                                       txn->access_));
  txn->temp_path_.clear();  // renamed into place
  recent_.Add(txn->id_);
  UniqueFd fd = std::move(txn->fd_);
  ::lseek(fd.get(), 0, SEEK_SET);
  return CacheHandle(this, txn->id_, std::move(fd), txn->size_);
}

void PosixCache::ReleaseHandle(const Digest& id) { quota_->Close(id); }

Status PosixCache::Pin(const Digest& id) { return quota_->Pin(id); }

Status PosixCache::Unpin(const Digest& id) { return quota_->Unpin(id); }

bool PosixCache::Contains(const Digest& id) { return quota_->Contains(id); }

Result<uint64_t> PosixCache::ReadAhead(const Digest& id) {
  const std::string path = ObjectPath(dir(), id);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return Status::NotFound(path + " is not cached");
    return Status::FromErrno(errno, "open " + path);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0)
    return Status::FromErrno(errno, "stat " + path);
  (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_WILLNEED);
  return static_cast<uint64_t>(st.st_size);
}

Status PosixCache::Evict(const Digest& id) { return quota_->Evict(id); }

Status PosixCache::Cleanup(uint64_t target_bytes) {
  if (!managed_)
    return Status::NotSupported("the cache " + options_.dir +
                                " is unmanaged (CVMFS_QUOTA_LIMIT=-1)");
  return quota_->Cleanup(target_bytes);
}

std::vector<PosixCache::Entry> PosixCache::List(bool pinned_only) const {
  return quota_->List(pinned_only);
}

PosixCache::Usage PosixCache::usage() const {
  Usage u = quota_->usage();
  u.hits = hits_.load();
  u.misses = misses_.load();
  return u;
}

Status PosixCache::SetLimit(int64_t bytes) {
  if (!managed_)
    return Status::NotSupported("the cache " + options_.dir +
                                " is unmanaged (CVMFS_QUOTA_LIMIT=-1); its "
                                "limit cannot change at runtime");
  if (bytes <= 0)
    return Status::InvalidArgument("invalid cache quota limit " +
                                   std::to_string(bytes) +
                                   " (bytes; must be positive)");
  return quota_->SetLimit(static_cast<uint64_t>(bytes));
}

Result<std::optional<PosixCache::Breadcrumb>> PosixCache::LoadBreadcrumb(
    const std::string& fqrn) {
  CVMFS_ASSIGN_OR_RETURN(std::string path, BreadcrumbPath(options_.dir, fqrn));
  auto text = cvmfs::ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) return std::optional<Breadcrumb>();
    return text.status();
  }
  auto crumb = ParseBreadcrumb(*text);
  if (!crumb.ok()) return crumb.status().Annotate(path);
  return std::optional<Breadcrumb>(*crumb);
}

Status PosixCache::StoreBreadcrumb(const std::string& fqrn,
                                   const Breadcrumb& crumb) {
  CVMFS_ASSIGN_OR_RETURN(std::string path, BreadcrumbPath(options_.dir, fqrn));
  return cvmfs::WriteFileAtomic(path, FormatBreadcrumb(crumb), 0600);
}

}  // namespace cache
