// HistoryDb: the tag database of a repository (the `H` object named by the
// manifest), schema 1.0 revision 3 exactly as CVMFS 2.12 writes it
// (doc/format-catalog.md, "History database").
//
// Tables: tags (one row per named snapshot: root catalog hash, revision,
// timestamp, description, root catalog size, branch), branches (only the
// trunk branch '' in practice) and the deprecated, always empty recycle_bin;
// properties fqrn, schema, schema_revision and previous_revision (hash of the
// previous history object, set by the publisher).
//
// A HistoryDb opened for writing applies each change immediately (autocommit;
// the database is small). Close() (or destruction) finishes the file before
// it is compressed and stored.
//
// Thread safety: none; one thread at a time.
#ifndef CVMFS_CATALOG_HISTORY_DB_H_
#define CVMFS_CATALOG_HISTORY_DB_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/hash.h"
#include "cvmfs/sqlite_db.h"
#include "cvmfs/status.h"

namespace cvmfs {

struct Tag {
  std::string name;
  Digest root_hash;  // root catalog of the tagged revision
  uint64_t revision = 0;
  int64_t timestamp = 0;  // publish time, Unix seconds
  std::string description;
  uint64_t size = 0;   // uncompressed size of the root catalog
  std::string branch;  // "" = trunk

  bool operator==(const Tag& o) const {
    return name == o.name && root_hash == o.root_hash &&
           revision == o.revision && timestamp == o.timestamp &&
           description == o.description && size == o.size && branch == o.branch;
  }
};

// Tags the publisher maintains itself.
inline constexpr std::string_view kTagTrunk = "trunk";
inline constexpr std::string_view kTagTrunkPrevious = "trunk-previous";

class HistoryDb {
 public:
  // Creates `file` (which must not exist) with the schema, the trunk branch
  // and the properties schema/schema_revision/fqrn.
  static Result<std::unique_ptr<HistoryDb>> Create(const std::string& file,
                                                   const std::string& fqrn);
  static Result<std::unique_ptr<HistoryDb>> OpenReadOnly(
      const std::string& file);
  static Result<std::unique_ptr<HistoryDb>> OpenForWriting(
      const std::string& file);
  ~HistoryDb();
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  // Inserts or replaces the tag of that name.
  Status Insert(const Tag& tag);
  // NotFound if there is no such tag.
  Status Remove(std::string_view name);
  Result<std::optional<Tag>> Get(std::string_view name);
  // Newest revision first; equal revisions by name.
  Result<std::vector<Tag>> List();
  // The first tag (by name) of that revision.
  Result<std::optional<Tag>> GetByRevision(uint64_t revision);
  // The newest trunk tag published at or before `timestamp` (Unix seconds),
  // as CVMFS's History::GetByDate: what CVMFS_REPOSITORY_DATE mounts.
  Result<std::optional<Tag>> GetByDate(int64_t timestamp);

  const std::string& fqrn() const { return fqrn_; }
  Result<std::optional<std::string>> GetProperty(std::string_view key);
  Status SetProperty(std::string_view key, std::string_view value);
  // The hash of the previous history object (property previous_revision).
  Status SetPreviousRevision(const Digest& hash);
  Result<std::optional<Digest>> GetPreviousRevision();

  // Closes the file; afterwards every call fails.
  Status Close();

 private:
  explicit HistoryDb(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
  static Result<std::unique_ptr<HistoryDb>> Open(const std::string& file,
                                                 bool writable);
  Status CheckWritable() const;
  Result<std::vector<Tag>> Query(
      const std::string& where_and_order,
      const std::function<void(SqliteStatement*)>& bind);

  std::unique_ptr<SqliteDb> db_;
  std::string fqrn_;
};

}  // namespace cvmfs

#endif  // CVMFS_CATALOG_HISTORY_DB_H_
