#include "cache/posix_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "cache/cache_db.h"
#include "cache/cache_layout.h"
#include "cache/cache_recovery.h"

namespace cache {

using cvmfs::Digest;
using cvmfs::Result;
using cvmfs::Status;
using cvmfs::UniqueFd;

namespace {

std::string InDir(const std::string& dir, std::string_view name) {
  return cvmfs::JoinPath(dir, name);
}

Status ValidateLimit(int64_t bytes) {
  if (bytes == -1 || bytes > 0) return Status::Ok();
  return Status::InvalidArgument("invalid cache quota limit " +
                                 std::to_string(bytes) +
                                 " (bytes; -1 for an unmanaged cache)");
}

CacheDb::Row ToRow(const Digest& id, const LruQuota::Entry& e) {
  CacheDb::Row row;
  row.sha1 = id.ToString();
  row.size = e.size;
  row.acseq = e.acseq;
  row.path = e.description;
  row.type = static_cast<int>(e.type);
  row.pinned = e.pins > 0 ? 1 : 0;
  return row;
}

// Opens cachedb and reads its rows; a corrupt or foreign file is replaced
// by an empty database (the caller then rebuilds from the files).
Result<std::vector<CacheDb::Row>> OpenCacheDb(const std::string& path,
                                              std::unique_ptr<CacheDb>* db) {
  auto opened = CacheDb::Open(path);
  Status st = opened.status();
  if (opened.ok()) {
    *db = std::move(opened).value();
    auto rows = (*db)->LoadAll();
    if (rows.ok()) return rows;
    st = rows.status();
    db->reset();
  }
  using Code = Status::Code;
  if (st.code() != Code::kCorruption && st.code() != Code::kIoError)
    return st.Annotate("cannot open cache database");
  CVMFS_RETURN_IF_ERROR(CacheDb::Remove(path));
  CVMFS_ASSIGN_OR_RETURN(*db, CacheDb::Open(path));
  return std::vector<CacheDb::Row>();
}

}  // namespace

PosixCache::PosixCache(const CacheOptions& options)
    : options_(options),
      managed_(options.quota_limit > 0),
      quota_(managed_ ? static_cast<uint64_t>(options.quota_limit)
                      : LruQuota::kUnlimited) {}

Result<std::unique_ptr<PosixCache>> PosixCache::Open(
    const CacheOptions& options) {
  if (options.dir.empty())
    return Status::InvalidArgument("no cache directory given");
  CVMFS_RETURN_IF_ERROR(ValidateLimit(options.quota_limit));
  CVMFS_RETURN_IF_ERROR(CreateLayout(options.dir));
  std::unique_ptr<PosixCache> cache(new PosixCache(options));
  if (cache->managed_) {
    CVMFS_RETURN_IF_ERROR(cache->LockDirectory());
    // Only the owner may clear txn/: in an unmanaged cache other processes
    // may be writing there.
    CVMFS_RETURN_IF_ERROR(cache->RemoveTxnLeftovers());
    CVMFS_RETURN_IF_ERROR(cache->LoadQuota());
  }
  return cache;
}

PosixCache::~PosixCache() {
  if (!loaded_) return;
  std::lock_guard<std::mutex> lock(mu_);
  // Only an exact cachedb may lose the crash marker.
  if (Flush().ok())
    ::unlink(InDir(options_.dir, kRunningMarkerName).c_str());
}

Status PosixCache::LockDirectory() {
  std::string path = InDir(options_.dir, kCacheDbLockName);
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) return Status::FromErrno(errno, "open " + path);
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) return Status::FromErrno(errno, "flock " + path);
    return Status::Busy(
        "the cache directory " + options_.dir +
        " is in use by another process (" + path + " is locked); sharing a "
        "cache between mounts needs the cache manager, which is not "
        "available yet: mount this repository with CVMFS_SHARED_CACHE=no");
  }
  lock_fd_ = std::move(fd);
  return Status::Ok();
}

Status PosixCache::RemoveTxnLeftovers() {
  std::string txn = InDir(options_.dir, kTxnDir);
  CVMFS_ASSIGN_OR_RETURN(std::vector<std::string> names,
                         cvmfs::ListDirectory(txn));
  for (const std::string& name : names)
    CVMFS_RETURN_IF_ERROR(cvmfs::RemoveTree(cvmfs::JoinPath(txn, name)));
  return Status::Ok();
}

Status PosixCache::LoadQuota() {
  const std::string marker = InDir(options_.dir, kRunningMarkerName);
  const bool crashed = cvmfs::PathExists(marker);
  CVMFS_ASSIGN_OR_RETURN(
      std::vector<CacheDb::Row> rows,
      OpenCacheDb(InDir(options_.dir, kCacheDbName), &db_));
  CVMFS_ASSIGN_OR_RETURN(
      Reconciled state,
      ReconcileWithFiles(options_.dir, rows, crashed || rows.empty()));
  for (const CacheDb::Row& row : state.rows) {
    auto id = Digest::Parse(row.sha1);  // validated by the reconciliation
    CVMFS_RETURN_IF_ERROR(quota_.Restore(*id, row.size, row.acseq,
                                         static_cast<ObjectType>(row.type),
                                         row.path));
  }
  if (state.changed) CVMFS_RETURN_IF_ERROR(db_->ReplaceAll(state.rows));
  // The limit may have been lowered since the last run.
  std::lock_guard<std::mutex> lock(mu_);
  if (quota_.size() > quota_.limit()) {
    DropFiles(quota_.Cleanup(quota_.threshold()));
    CVMFS_RETURN_IF_ERROR(Flush());
  }
  UniqueFd fd(::open(marker.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) return Status::FromErrno(errno, "create " + marker);
  loaded_ = true;
  return Status::Ok();
}

const LruQuota::Entry* PosixCache::FindOrAdopt(const Digest& id) {
  const LruQuota::Entry* entry = quota_.Find(id);
  if (entry != nullptr || managed_) return entry;
  // Unmanaged: the files are the truth; learn about this one.
  struct stat st;
  std::string path = ObjectPath(options_.dir, id);
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  std::vector<Digest> none;
  (void)quota_.Insert(id, static_cast<uint64_t>(st.st_size),
                      ObjectType::kRegular, "", &none);
  return quota_.Find(id);
}

void PosixCache::DropFiles(const std::vector<Digest>& ids) {
  for (const Digest& id : ids) {
    // A file that cannot be removed is found again by the next start-up
    // scan and re-enters the quota then.
    ::unlink(ObjectPath(options_.dir, id).c_str());
    MarkDirty(id);
  }
}

void PosixCache::MarkDirty(const Digest& id) {
  if (managed_) dirty_.insert(id);
}

void PosixCache::MaybeFlush() {
  // A failed write leaves the entries dirty for the next attempt and the
  // crash marker in place; the cache itself keeps working.
  if (dirty_.size() >= kFlushBatch) (void)Flush();
}

Status PosixCache::Flush() {
  if (!managed_ || dirty_.empty()) return Status::Ok();
  std::vector<CacheDb::Row> upserts;
  std::vector<std::string> deletes;
  for (const Digest& id : dirty_) {
    const LruQuota::Entry* e = quota_.Find(id);
    if (e != nullptr) {
      upserts.push_back(ToRow(id, *e));
    } else {
      deletes.push_back(id.ToString());
    }
  }
  CVMFS_RETURN_IF_ERROR(db_->Apply(upserts, deletes));
  dirty_.clear();
  return Status::Ok();
}

Result<CacheHandle> PosixCache::Open(const Digest& id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (FindOrAdopt(id) == nullptr) {
    ++misses_;
    return Status::NotFound(id.ToString() + " is not in the cache " +
                            options_.dir);
  }
  std::string path = ObjectPath(options_.dir, id);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno != ENOENT) return Status::FromErrno(errno, "open " + path);
    // Deleted behind our back. Forget it unless in use (then the next
    // commit of the object puts the file back).
    if (quota_.Remove(id).ok()) MarkDirty(id);
    ++misses_;
    return Status::NotFound(path + " vanished from the cache");
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0)
    return Status::FromErrno(errno, "stat " + path);
  (void)quota_.Open(id);
  MarkDirty(id);
  ++hits_;
  MaybeFlush();
  return CacheHandle(this, id, std::move(fd),
                     static_cast<uint64_t>(st.st_size));
}

Result<std::unique_ptr<CacheTransaction>> PosixCache::StartTxn(
    const Digest& id, ObjectType type, std::string description) {
  std::string tmpl =
      cvmfs::JoinPath(InDir(options_.dir, kTxnDir), kTxnTemplate);
  UniqueFd fd(::mkostemp(tmpl.data(), O_CLOEXEC));  // mode 0600
  if (!fd.valid()) return Status::FromErrno(errno, "create " + tmpl);
  uint64_t max_size;
  {
    std::lock_guard<std::mutex> lock(mu_);
    max_size = quota_.max_object_size();
  }
  return std::unique_ptr<CacheTransaction>(
      new CacheTransaction(this, id, type, std::move(description), tmpl,
                           std::move(fd), max_size));
}

Result<CacheHandle> PosixCache::CommitTxn(CacheTransaction* txn) {
  const Digest& id = txn->id_;
  std::string path = ObjectPath(options_.dir, id);
  std::lock_guard<std::mutex> lock(mu_);
  // A known object was stored concurrently (or its file vanished): the
  // content is the same by its name, so the rename below just refreshes it.
  const bool known = quota_.Find(id) != nullptr;
  if (!known) {
    std::vector<Digest> evicted;
    Status st = quota_.Insert(id, txn->size_, txn->type_, txn->description_,
                              &evicted);
    DropFiles(evicted);
    if (!st.ok()) return st.Annotate("cache " + options_.dir);
  }
  if (::rename(txn->temp_path_.c_str(), path.c_str()) != 0) {
    Status st = Status::FromErrno(
        errno, "rename " + txn->temp_path_ + " to " + path);
    if (!known) (void)quota_.Remove(id);
    return st;
  }
  txn->temp_path_.clear();
  (void)quota_.Open(id);
  MarkDirty(id);
  MaybeFlush();
  UniqueFd fd = std::move(txn->fd_);
  ::lseek(fd.get(), 0, SEEK_SET);
  return CacheHandle(this, id, std::move(fd), txn->size_);
}

void PosixCache::ReleaseHandle(const Digest& id) {
  std::lock_guard<std::mutex> lock(mu_);
  (void)quota_.Close(id);
}

Status PosixCache::Pin(const Digest& id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (FindOrAdopt(id) == nullptr)
    return Status::NotFound("cannot pin " + id.ToString() +
                            ": not in the cache " + options_.dir);
  CVMFS_RETURN_IF_ERROR(quota_.Pin(id).Annotate("cache " + options_.dir));
  MarkDirty(id);
  MaybeFlush();
  return Status::Ok();
}

Status PosixCache::Unpin(const Digest& id) {
  std::lock_guard<std::mutex> lock(mu_);
  CVMFS_RETURN_IF_ERROR(quota_.Unpin(id).Annotate("cache " + options_.dir));
  MarkDirty(id);
  MaybeFlush();
  return Status::Ok();
}

bool PosixCache::Contains(const Digest& id) {
  std::lock_guard<std::mutex> lock(mu_);
  return FindOrAdopt(id) != nullptr;
}

Status PosixCache::Evict(const Digest& id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (FindOrAdopt(id) == nullptr)
    return Status::NotFound(id.ToString() + " is not in the cache " +
                            options_.dir);
  CVMFS_RETURN_IF_ERROR(
      quota_.Remove(id).Annotate("cannot evict from " + options_.dir));
  DropFiles({id});
  MaybeFlush();
  return Status::Ok();
}

Status PosixCache::Cleanup(uint64_t target_bytes) {
  if (!managed_)
    return Status::NotSupported("the cache " + options_.dir +
                                " is unmanaged (CVMFS_QUOTA_LIMIT=-1)");
  std::lock_guard<std::mutex> lock(mu_);
  DropFiles(quota_.Cleanup(target_bytes));
  MaybeFlush();
  if (quota_.size() > target_bytes) {
    return Status::Busy("cache " + options_.dir + " still holds " +
                        std::to_string(quota_.size()) +
                        " bytes after cleaning up to " +
                        std::to_string(target_bytes) +
                        ": the rest is pinned or open");
  }
  return Status::Ok();
}

std::vector<PosixCache::Entry> PosixCache::List(bool pinned_only) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Entry> out;
  for (const auto& [id, e] : quota_.InLruOrder()) {
    if (pinned_only && e->pins == 0) continue;
    out.push_back({id.ToString(), e->size, e->type, e->pins > 0,
                   e->description});
  }
  return out;
}

PosixCache::Usage PosixCache::usage() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Usage{quota_.size(), quota_.pinned(), quota_.limit(),
               hits_,         misses_,         quota_.evictions()};
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
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Digest> evicted;
  quota_.SetLimit(static_cast<uint64_t>(bytes), &evicted);
  DropFiles(evicted);
  MaybeFlush();
  return Status::Ok();
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
