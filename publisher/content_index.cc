#include "publisher/content_index.h"

#include <openssl/evp.h>
#include <unistd.h>

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

namespace {

constexpr char kSchema[] =
    "CREATE TABLE IF NOT EXISTS content ("
    "  sha256 BLOB NOT NULL, size INTEGER NOT NULL, compression INTEGER NOT "
    "NULL,"
    "  algorithm INTEGER NOT NULL, object TEXT NOT NULL,"
    "  PRIMARY KEY (sha256, size, compression, algorithm)) WITHOUT ROWID;";

std::string Sha256(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(md), len);
}

cvmfs::SqliteStatement& BindKey(cvmfs::SqliteStatement& s,
                                const ContentIndex::Key& k) {
  return s.BindBlob(1, k.sha256)
      .BindInt64(2, static_cast<int64_t>(k.size))
      .BindInt64(3, static_cast<int64_t>(k.compression))
      .BindInt64(4, static_cast<int64_t>(k.algorithm));
}

}  // namespace

ContentIndex::Key ContentIndex::KeyOf(std::string_view data,
                                      cvmfs::Compression compression,
                                      cvmfs::HashAlgorithm algorithm) {
  return Key{Sha256(data), data.size(), compression, algorithm};
}

Result<std::unique_ptr<ContentIndex>> ContentIndex::OpenOnce(
    const std::string& path) {
  CVMFS_ASSIGN_OR_RETURN(
      auto db, cvmfs::SqliteDb::Open(path, cvmfs::SqliteDb::OpenMode::kCreate));
  // Lookups of a large publish touch pages all over the key space: a 16 MiB
  // cache (about 200,000 entries) holds the inner pages and the hot leaves;
  // no memory map, so that the publisher's memory does not grow with the
  // index.
  // Only the publisher holding the repository's transaction lock opens the
  // index: an exclusive lock, taken once, spares every lookup its file lock
  // calls (a busy index reads as errors, that is as misses).
  CVMFS_RETURN_IF_ERROR(
      db->Exec("PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=WAL; "
               "PRAGMA synchronous=NORMAL; PRAGMA cache_size=-16384;"));
  CVMFS_RETURN_IF_ERROR(db->Exec(kSchema));
  CVMFS_ASSIGN_OR_RETURN(
      int64_t ok, db->QueryInt64("SELECT count(*) FROM content LIMIT 1"));
  (void)ok;
  CVMFS_ASSIGN_OR_RETURN(
      cvmfs::SqliteStatement lookup,
      db->Prepare("SELECT object FROM content WHERE sha256 = ? "
                  "AND size = ? AND compression = ? AND algorithm = ?"));
  return std::unique_ptr<ContentIndex>(
      new ContentIndex(std::move(db), std::move(lookup)));
}

Result<std::unique_ptr<ContentIndex>> ContentIndex::Open(
    const std::string& path) {
  auto index = OpenOnce(path);
  if (index.ok() || index.status().code() != Status::Code::kCorruption)
    return index;
  // Not an index (damaged, or some other file): start again from empty.
  for (const char* suffix : {"", "-wal", "-shm"})
    ::unlink((path + suffix).c_str());
  return OpenOnce(path);
}

ContentIndex::~ContentIndex() {
  cvmfs::MutexLock l(&mu_);
  (void)FlushLocked();
  lookup_ = cvmfs::SqliteStatement();  // statements go before the database
}

std::optional<cvmfs::Digest> ContentIndex::Lookup(const Key& key) {
  cvmfs::MutexLock l(&mu_);
  auto p = pending_.find(key);
  if (p != pending_.end()) return p->second;
  lookup_.Reset();
  auto row = BindKey(lookup_, key).Step();
  if (!row.ok()) {
    ++lookup_errors_;
    return std::nullopt;
  }
  if (!*row) return std::nullopt;
  auto digest = cvmfs::Digest::Parse(lookup_.ColumnText(0));
  lookup_.Reset();
  if (!digest.ok() || digest->algorithm != key.algorithm) {
    ++lookup_errors_;
    return std::nullopt;
  }
  return *digest;
}

void ContentIndex::Add(const Key& key, const cvmfs::Digest& digest) {
  cvmfs::MutexLock l(&mu_);
  pending_[key] = digest;
  if (pending_.size() >= kFlushEvery) (void)FlushLocked();
}

Status ContentIndex::Flush() {
  cvmfs::MutexLock l(&mu_);
  return FlushLocked();
}

Status ContentIndex::FlushLocked() {
  if (pending_.empty()) return Status::Ok();
  std::map<Key, cvmfs::Digest> batch;
  batch.swap(pending_);  // dropped on failure: the index is only a cache
  CVMFS_RETURN_IF_ERROR(db_->Exec("BEGIN"));
  CVMFS_ASSIGN_OR_RETURN(
      auto insert,
      db_->Prepare("INSERT OR REPLACE INTO content "
                   "(sha256, size, compression, algorithm, object) "
                   "VALUES (?, ?, ?, ?, ?)"));
  for (const auto& [key, digest] : batch) {
    insert.Reset();
    Status st = BindKey(insert, key).BindText(5, digest.ToString()).Run();
    if (!st.ok()) {
      (void)db_->Exec("ROLLBACK");
      return st.Annotate("content index " + db_->path());
    }
  }
  return db_->Exec("COMMIT");
}

uint64_t ContentIndex::lookup_errors() const {
  cvmfs::MutexLock l(&mu_);
  return lookup_errors_;
}

}  // namespace publisher
