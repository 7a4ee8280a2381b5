#include "cvmfs/catalog/reflog_db.h"

#include <utility>

#include "cvmfs/file_util.h"

namespace cvmfs {

namespace {

// Verbatim as CVMFS 2.12 creates them (the text lands in sqlite_master).
const char* const kReflogSchemaSql[] = {
    "CREATE TABLE properties (key TEXT, value TEXT, "
    "CONSTRAINT pk_properties PRIMARY KEY (key));",
    "CREATE TABLE refs (hash TEXT, type INTEGER, timestamp INTEGER, "
    "CONSTRAINT pk_refs PRIMARY KEY (hash));",
};

}  // namespace

ReflogDb::~ReflogDb() = default;

Result<std::unique_ptr<ReflogDb>> ReflogDb::Create(const std::string& file,
                                                   const std::string& fqrn) {
  if (PathExists(file)) return Status::AlreadyExists(file + ": reflog exists");
  CVMFS_ASSIGN_OR_RETURN(auto db,
                         SqliteDb::Open(file, SqliteDb::OpenMode::kCreate));
  std::unique_ptr<ReflogDb> reflog(new ReflogDb(std::move(db)));
  SqliteDb* sql = reflog->db_.get();
  CVMFS_RETURN_IF_ERROR(sql->Exec("PRAGMA synchronous = OFF; BEGIN;"));
  for (const char* statement : kReflogSchemaSql)
    CVMFS_RETURN_IF_ERROR(sql->Exec(statement));
  CVMFS_RETURN_IF_ERROR(WriteProperty(sql, "schema", "1.0"));
  CVMFS_RETURN_IF_ERROR(WriteProperty(sql, "schema_revision", "0"));
  CVMFS_RETURN_IF_ERROR(WriteProperty(sql, "fqrn", fqrn));
  CVMFS_RETURN_IF_ERROR(sql->Exec("COMMIT;"));
  reflog->fqrn_ = fqrn;
  return reflog;
}

Result<std::unique_ptr<ReflogDb>> ReflogDb::Open(const std::string& file,
                                                 bool writable) {
  CVMFS_ASSIGN_OR_RETURN(
      auto db, SqliteDb::Open(file, writable ? SqliteDb::OpenMode::kReadWrite
                                             : SqliteDb::OpenMode::kReadOnly));
  std::unique_ptr<ReflogDb> reflog(new ReflogDb(std::move(db)));
  auto fqrn = ReadProperty(reflog->db_.get(), "fqrn");
  if (!fqrn.ok() || !fqrn->has_value()) {
    return Status::Corruption(
        file + ": not a reflog" +
        (fqrn.ok() ? "" : " (" + fqrn.status().message() + ")"));
  }
  reflog->fqrn_ = **fqrn;
  if (writable)
    CVMFS_RETURN_IF_ERROR(reflog->db_->Exec("PRAGMA synchronous = OFF;"));
  return reflog;
}

Result<std::unique_ptr<ReflogDb>> ReflogDb::OpenReadOnly(
    const std::string& file) {
  return Open(file, false);
}

Result<std::unique_ptr<ReflogDb>> ReflogDb::OpenForWriting(
    const std::string& file) {
  return Open(file, true);
}

Status ReflogDb::CheckWritable() const {
  if (!db_) return Status::InvalidArgument("reflog is closed");
  if (db_->read_only())
    return Status::InvalidArgument(db_->path() + ": reflog is read-only");
  return Status::Ok();
}

Status ReflogDb::Add(const Digest& hash, ReflogType type, int64_t timestamp) {
  CVMFS_RETURN_IF_ERROR(CheckWritable());
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db_->Prepare("INSERT OR REPLACE INTO refs (hash, type, timestamp) "
                   "VALUES (?1, ?2, ?3);"));
  stmt.BindText(1, hash.ToString())
      .BindInt64(2, static_cast<int>(type))
      .BindInt64(3, timestamp);
  return stmt.Run();
}

Result<std::vector<std::pair<Digest, int>>> ReflogDb::List() {
  if (!db_) return Status::InvalidArgument("reflog is closed");
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db_->Prepare("SELECT hash, type FROM refs ORDER BY rowid;"));
  std::vector<std::pair<Digest, int>> refs;
  while (true) {
    CVMFS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    auto hash = Digest::Parse(stmt.ColumnText(0));
    if (!hash.ok()) return hash.status().Annotate(db_->path());
    refs.emplace_back(*hash, static_cast<int>(stmt.ColumnInt64(1)));
  }
  return refs;
}

Result<std::vector<Digest>> ReflogDb::ListOlderThan(ReflogType type,
                                                    int64_t timestamp) {
  if (!db_) return Status::InvalidArgument("reflog is closed");
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db_->Prepare("SELECT hash FROM refs WHERE type = ?1 AND timestamp < ?2 "
                   "ORDER BY timestamp, rowid;"));
  stmt.BindInt64(1, static_cast<int>(type)).BindInt64(2, timestamp);
  std::vector<Digest> refs;
  while (true) {
    CVMFS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    auto hash = Digest::Parse(stmt.ColumnText(0));
    if (!hash.ok()) return hash.status().Annotate(db_->path());
    refs.push_back(*hash);
  }
  return refs;
}

Status ReflogDb::Remove(const Digest& hash) {
  CVMFS_RETURN_IF_ERROR(CheckWritable());
  CVMFS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                         db_->Prepare("DELETE FROM refs WHERE hash = ?1;"));
  stmt.BindText(1, hash.ToString());
  CVMFS_RETURN_IF_ERROR(stmt.Run());
  if (db_->Changes() == 0)
    return Status::NotFound("reflog has no reference " + hash.ToString());
  return Status::Ok();
}

Result<std::optional<std::pair<ReflogType, int64_t>>> ReflogDb::Get(
    const Digest& hash) {
  if (!db_) return Status::InvalidArgument("reflog is closed");
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db_->Prepare("SELECT type, timestamp FROM refs WHERE hash = ?1;"));
  stmt.BindText(1, hash.ToString());
  CVMFS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  std::optional<std::pair<ReflogType, int64_t>> result;
  if (row) {
    result.emplace(static_cast<ReflogType>(stmt.ColumnInt64(0)),
                   stmt.ColumnInt64(1));
  }
  return result;
}

Result<bool> ReflogDb::Contains(const Digest& hash) {
  CVMFS_ASSIGN_OR_RETURN(auto ref, Get(hash));
  return ref.has_value();
}

Status ReflogDb::Close() {
  if (!db_) return Status::InvalidArgument("reflog is closed");
  db_.reset();
  return Status::Ok();
}

}  // namespace cvmfs
