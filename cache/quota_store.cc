#include "cache/quota_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

QuotaStore::QuotaStore(const std::string& dir, int64_t limit)
    : dir_(dir),
      managed_(limit > 0),
      quota_(managed_ ? static_cast<uint64_t>(limit) : LruQuota::kUnlimited) {}

Result<std::unique_ptr<QuotaStore>> QuotaStore::Open(const std::string& dir,
                                                     int64_t limit) {
  if (dir.empty()) return Status::InvalidArgument("no cache directory given");
  CVMFS_RETURN_IF_ERROR(ValidateLimit(limit));
  // An unmanaged directory may be an alien cache, whose mode is the site's
  // (PosixCache::Open has closed a private one already).
  CVMFS_RETURN_IF_ERROR(CreateLayout(dir, /*private_dir=*/limit > 0));
  std::unique_ptr<QuotaStore> store(new QuotaStore(dir, limit));
  if (store->managed_) {
    CVMFS_RETURN_IF_ERROR(store->LockDirectory());
    CVMFS_RETURN_IF_ERROR(store->Load());
  }
  return store;
}

QuotaStore::~QuotaStore() {
  if (!loaded_) return;
  // Only an exact cachedb may lose the crash marker.
  if (Flush().ok()) ::unlink(InDir(dir_, kRunningMarkerName).c_str());
}

Status QuotaStore::LockDirectory() {
  std::string path = InDir(dir_, kCacheDbLockName);
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) return Status::FromErrno(errno, "open " + path);
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) return Status::FromErrno(errno, "flock " + path);
    return Status::Busy(
        "the cache directory " + dir_ + " is in use by another process (" +
        path +
        " is locked): either a mount with CVMFS_SHARED_CACHE=no or "
        "with a different CVMFS_CACHE_BASE layout uses this directory, or "
        "its cache manager is still running");
  }
  lock_fd_ = std::move(fd);
  return Status::Ok();
}

Status QuotaStore::Load() {
  const std::string marker = InDir(dir_, kRunningMarkerName);
  const bool crashed = cvmfs::PathExists(marker);
  CVMFS_ASSIGN_OR_RETURN(std::vector<CacheDb::Row> rows,
                         OpenCacheDb(InDir(dir_, kCacheDbName), &db_));
  CVMFS_ASSIGN_OR_RETURN(
      Reconciled state,
      ReconcileWithFiles(dir_, rows, crashed || rows.empty()));
  for (const CacheDb::Row& row : state.rows) {
    auto id = Digest::Parse(row.sha1);  // validated by the reconciliation
    CVMFS_RETURN_IF_ERROR(quota_.Restore(
        *id, row.size, row.acseq, static_cast<ObjectType>(row.type), row.path));
  }
  if (state.changed) CVMFS_RETURN_IF_ERROR(db_->ReplaceAll(state.rows));
  // The limit may have been lowered since the last run.
  if (quota_.size() > quota_.limit()) {
    std::vector<Digest> evicted = quota_.Cleanup(quota_.threshold());
    NoteCleanup(evicted);
    DropFiles(evicted);
    CVMFS_RETURN_IF_ERROR(Flush());
  }
  UniqueFd fd(::open(marker.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) return Status::FromErrno(errno, "create " + marker);
  loaded_ = true;
  return Status::Ok();
}

const LruQuota::Entry* QuotaStore::Find(const Digest& id) {
  const LruQuota::Entry* entry = quota_.Find(id);
  if (entry != nullptr || managed_) return entry;
  // Unmanaged: the files are the truth; learn about this one.
  struct stat st;
  std::string path = ObjectPath(dir_, id);
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;
  std::vector<Digest> none;
  (void)quota_.Insert(id, static_cast<uint64_t>(st.st_size),
                      ObjectType::kRegular, "", &none);
  return quota_.Find(id);
}

void QuotaStore::DropFiles(const std::vector<Digest>& ids) {
  for (const Digest& id : ids) {
    // A file that cannot be removed is found again by the next start-up
    // scan and re-enters the quota then.
    ::unlink(ObjectPath(dir_, id).c_str());
    MarkDirty(id);
  }
}

void QuotaStore::MarkDirty(const Digest& id) {
  if (managed_) dirty_.insert(id);
}

void QuotaStore::MaybeFlush() {
  // A failed write leaves the entries dirty for the next attempt and the
  // crash marker in place; the cache itself keeps working.
  if (dirty_.size() >= kFlushBatch) (void)Flush();
}

Status QuotaStore::Flush() {
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

Status QuotaStore::Insert(const Digest& id, uint64_t size, ObjectType type,
                          const std::string& description, Access access) {
  std::vector<Digest> evicted;
  Status st = quota_.Insert(id, size, type, description, &evicted, access);
  NoteCleanup(evicted);
  DropFiles(evicted);
  if (!st.ok()) return st.Annotate("cache " + dir_);
  MarkDirty(id);
  MaybeFlush();
  return Status::Ok();
}

Status QuotaStore::Open(const Digest& id, Access access) {
  if (Find(id) == nullptr)
    return Status::NotFound(id.ToString() + " is not in the cache " + dir_);
  CVMFS_RETURN_IF_ERROR(quota_.Open(id, access));
  MarkDirty(id);  // the access sequence changed
  MaybeFlush();
  return Status::Ok();
}

Status QuotaStore::Close(const Digest& id) { return quota_.Close(id); }

Status QuotaStore::Pin(const Digest& id) {
  if (Find(id) == nullptr)
    return Status::NotFound("cannot pin " + id.ToString() +
                            ": not in the cache " + dir_);
  CVMFS_RETURN_IF_ERROR(quota_.Pin(id).Annotate("cache " + dir_));
  MarkDirty(id);
  MaybeFlush();
  return Status::Ok();
}

Status QuotaStore::Unpin(const Digest& id) {
  CVMFS_RETURN_IF_ERROR(quota_.Unpin(id).Annotate("cache " + dir_));
  MarkDirty(id);
  MaybeFlush();
  return Status::Ok();
}

Status QuotaStore::Evict(const Digest& id) {
  if (Find(id) == nullptr)
    return Status::NotFound(id.ToString() + " is not in the cache " + dir_);
  CVMFS_RETURN_IF_ERROR(
      quota_.Remove(id).Annotate("cannot evict from " + dir_));
  DropFiles({id});
  MaybeFlush();
  return Status::Ok();
}

void QuotaStore::Forget(const Digest& id) {
  if (quota_.Remove(id).ok()) MarkDirty(id);
}

Status QuotaStore::Cleanup(uint64_t target_bytes) {
  if (!managed_)
    return Status::NotSupported("the cache " + dir_ +
                                " is unmanaged (CVMFS_QUOTA_LIMIT=-1)");
  std::vector<Digest> evicted = quota_.Cleanup(target_bytes);
  NoteCleanup(evicted);
  DropFiles(evicted);
  MaybeFlush();
  if (quota_.size() > target_bytes) {
    return Status::Busy(
        "cache " + dir_ + " still holds " + std::to_string(quota_.size()) +
        " bytes after cleaning up to " + std::to_string(target_bytes) +
        ": the rest is pinned or open");
  }
  return Status::Ok();
}

Status QuotaStore::SetLimit(uint64_t bytes) {
  if (!managed_)
    return Status::NotSupported("the cache " + dir_ +
                                " is unmanaged (CVMFS_QUOTA_LIMIT=-1); its "
                                "limit cannot change at runtime");
  if (bytes == 0 || bytes == LruQuota::kUnlimited)
    return Status::InvalidArgument("invalid cache quota limit " +
                                   std::to_string(bytes) +
                                   " (bytes; must be positive)");
  std::vector<Digest> evicted;
  quota_.SetLimit(bytes, &evicted);
  NoteCleanup(evicted);
  DropFiles(evicted);
  MaybeFlush();
  return Status::Ok();
}

std::vector<QuotaEntry> QuotaStore::List(bool pinned_only) const {
  std::vector<QuotaEntry> out;
  for (const auto& [id, e] : quota_.InLruOrder()) {
    if (pinned_only && e->pins == 0) continue;
    out.push_back(
        {id.ToString(), e->size, e->type, e->pins > 0, e->description});
  }
  return out;
}

void QuotaStore::NoteCleanup(const std::vector<Digest>& evicted) {
  if (evicted.empty()) return;
  const time_t now = ::time(nullptr);
  cleanups_.push_back(now);
  while (!cleanups_.empty() && cleanups_.front() < now - 24 * 3600)
    cleanups_.pop_front();
}

QuotaUsage QuotaStore::usage() const {
  QuotaUsage u{quota_.size(),     quota_.pinned(), quota_.limit(), 0, 0,
               quota_.evictions()};
  if (managed_) {
    const time_t since = ::time(nullptr) - 24 * 3600;
    u.cleanups_24h = std::count_if(cleanups_.begin(), cleanups_.end(),
                                   [since](time_t t) { return t >= since; });
  }
  return u;
}

}  // namespace cache
