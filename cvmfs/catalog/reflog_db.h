// ReflogDb: the reference log `.cvmfsreflog`, schema 1.0 revision 0 exactly
// as CVMFS 2.12 writes it (doc/format-catalog.md, "Reflog").
//
// One row per root object ever published (every catalog revision,
// certificate, history database and metainfo), keyed by its hash text
// (hex plus algorithm id, no type suffix), with the object type and the time
// it was added. Garbage collection starts from these references. The file is
// uploaded raw (not compressed); the manifest's Y line carries its hash.
//
// Writes apply immediately (autocommit); Close() or destruction finishes the
// file.
//
// Thread safety: none; one thread at a time.
#ifndef CVMFS_CATALOG_REFLOG_DB_H_
#define CVMFS_CATALOG_REFLOG_DB_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cvmfs/hash.h"
#include "cvmfs/sqlite_db.h"
#include "cvmfs/status.h"

namespace cvmfs {

// Values of refs.type.
enum class ReflogType : int {
  kCatalog = 0,
  kCertificate = 1,
  kHistory = 2,
  kMetainfo = 3,
};

class ReflogDb {
 public:
  // Creates `file` (which must not exist) with the schema and the properties
  // schema/schema_revision/fqrn.
  static Result<std::unique_ptr<ReflogDb>> Create(const std::string& file,
                                                  const std::string& fqrn);
  static Result<std::unique_ptr<ReflogDb>> OpenReadOnly(
      const std::string& file);
  static Result<std::unique_ptr<ReflogDb>> OpenForWriting(
      const std::string& file);
  ~ReflogDb();
  ReflogDb(const ReflogDb&) = delete;
  ReflogDb& operator=(const ReflogDb&) = delete;

  // Insert or replace; `timestamp` is Unix seconds (CVMFS uses "now").
  Status Add(const Digest& hash, ReflogType type, int64_t timestamp);
  Status AddCatalog(const Digest& hash, int64_t timestamp) {
    return Add(hash, ReflogType::kCatalog, timestamp);
  }
  Status AddCertificate(const Digest& hash, int64_t timestamp) {
    return Add(hash, ReflogType::kCertificate, timestamp);
  }
  Status AddHistory(const Digest& hash, int64_t timestamp) {
    return Add(hash, ReflogType::kHistory, timestamp);
  }
  Status AddMetainfo(const Digest& hash, int64_t timestamp) {
    return Add(hash, ReflogType::kMetainfo, timestamp);
  }

  // All references with their type (ReflogType as int), in insertion order.
  Result<std::vector<std::pair<Digest, int>>> List();
  // References of one type that were added before `timestamp`.
  Result<std::vector<Digest>> ListOlderThan(ReflogType type, int64_t timestamp);
  // NotFound if the hash is not referenced.
  Status Remove(const Digest& hash);
  Result<bool> Contains(const Digest& hash);
  // The type and timestamp of a reference, if present.
  Result<std::optional<std::pair<ReflogType, int64_t>>> Get(const Digest& hash);

  const std::string& fqrn() const { return fqrn_; }
  Status Close();

 private:
  explicit ReflogDb(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
  static Result<std::unique_ptr<ReflogDb>> Open(const std::string& file,
                                                bool writable);
  Status CheckWritable() const;

  std::unique_ptr<SqliteDb> db_;
  std::string fqrn_;
};

}  // namespace cvmfs

#endif  // CVMFS_CATALOG_REFLOG_DB_H_
