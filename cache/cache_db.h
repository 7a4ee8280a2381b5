// CacheDb: the `cachedb` SQLite file, in CVMFS's schema (doc/client.md, "The
// quota database"), so that CVMFS tools and this code can read each other's
// caches:
//
//   cache_catalog (sha1 TEXT, size INTEGER, acseq INTEGER, path TEXT,
//                  type INTEGER, pinned INTEGER, PRIMARY KEY (sha1))
//   UNIQUE INDEX idx_cache_catalog_acseq ON cache_catalog (acseq)
//   properties (key TEXT, value TEXT, PRIMARY KEY (key)); schema = "1.0"
//
// `sha1` is the digest text form (hex plus algorithm id, any algorithm);
// `acseq` the LRU clock (bit 63 = volatile); `type` ObjectType; `pinned`
// 0/1 (CVMFS also writes 2 while a cleanup runs). The database is opened
// with PRAGMA synchronous=0, locking_mode=EXCLUSIVE, auto_vacuum=1 as CVMFS
// does: it is a cache of the directory's state and is rebuilt from the files
// when lost, so durability is not worth an fsync.
//
// Thread safety: one thread at a time (the owner serializes).
#ifndef CACHE_CACHE_DB_H_
#define CACHE_CACHE_DB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/sqlite_db.h"
#include "cvmfs/status.h"

namespace cache {

class CacheDb {
 public:
  struct Row {
    std::string sha1;
    uint64_t size = 0;
    int64_t acseq = 0;
    std::string path;
    int type = 0;
    int pinned = 0;
  };

  // Opens `path`, creating an empty database if the file is missing.
  // Corruption if the file is not a cachedb of schema 1.0 (the caller then
  // deletes it and starts over); other errors as the file system reports.
  static cvmfs::Result<std::unique_ptr<CacheDb>> Open(const std::string& path);
  // Deletes the database file and its journal (missing files are fine).
  static cvmfs::Status Remove(const std::string& path);

  // Every row, least recently used (lowest acseq) first.
  cvmfs::Result<std::vector<Row>> LoadAll();
  // Makes the table hold exactly `rows`, in one transaction.
  cvmfs::Status ReplaceAll(const std::vector<Row>& rows);
  // Inserts or replaces `upserts` and deletes `deletes` (sha1 values), in
  // one transaction.
  cvmfs::Status Apply(const std::vector<Row>& upserts,
                      const std::vector<std::string>& deletes);

  const std::string& path() const { return db_->path(); }

 private:
  explicit CacheDb(std::unique_ptr<cvmfs::SqliteDb> db) : db_(std::move(db)) {}
  cvmfs::Status CheckOrCreateSchema();
  cvmfs::Status Upsert(cvmfs::SqliteStatement* stmt, const Row& row);
  // Runs `body` between BEGIN and COMMIT, rolling back on failure.
  template <typename Body>
  cvmfs::Status InTransaction(Body body);

  std::unique_ptr<cvmfs::SqliteDb> db_;
};

}  // namespace cache

#endif  // CACHE_CACHE_DB_H_
