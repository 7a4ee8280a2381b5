#include "cache/cache_db.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace cache {

using cvmfs::Result;
using cvmfs::SqliteDb;
using cvmfs::SqliteStatement;
using cvmfs::Status;

namespace {

constexpr char kSchemaVersion[] = "1.0";

constexpr char kPragmas[] =
    "PRAGMA synchronous=0; PRAGMA locking_mode=EXCLUSIVE; "
    "PRAGMA auto_vacuum=1;";

constexpr char kCreateSchema[] =
    "CREATE TABLE cache_catalog (sha1 TEXT, size INTEGER, acseq INTEGER, "
    "  path TEXT, type INTEGER, pinned INTEGER, "
    "  CONSTRAINT pk_cache_catalog PRIMARY KEY (sha1)); "
    "CREATE UNIQUE INDEX idx_cache_catalog_acseq ON cache_catalog (acseq); "
    "CREATE TABLE properties (key TEXT, value TEXT, "
    "  CONSTRAINT pk_properties PRIMARY KEY (key));";

constexpr char kUpsert[] =
    "INSERT OR REPLACE INTO cache_catalog "
    "(sha1, size, acseq, path, type, pinned) VALUES (?1, ?2, ?3, ?4, ?5, ?6);";

}  // namespace

Result<std::unique_ptr<CacheDb>> CacheDb::Open(const std::string& path) {
  auto sqlite = SqliteDb::Open(path, SqliteDb::OpenMode::kCreate);
  if (!sqlite.ok()) return sqlite.status();
  // SQLite creates it 0644 (umask permitting): the list of what was read
  // is private (cache_layout.h, kDirMode).
  if (::chmod(path.c_str(), 0600) != 0)
    return Status::FromErrno(errno, "chmod 0600 " + path);
  std::unique_ptr<CacheDb> db(new CacheDb(std::move(sqlite).value()));
  CVMFS_RETURN_IF_ERROR(db->CheckOrCreateSchema());
  return db;
}

Status CacheDb::Remove(const std::string& path) {
  for (const std::string& p : {path, path + "-journal"}) {
    if (::unlink(p.c_str()) != 0 && errno != ENOENT)
      return Status::FromErrno(errno, "unlink " + p);
  }
  return Status::Ok();
}

Status CacheDb::CheckOrCreateSchema() {
  // An SQLite failure here (not a database, missing table or column) means
  // the file is not a usable cachedb: report it as corruption. Locking,
  // permission and space problems are not the file's fault and pass through.
  auto corrupt = [this](const Status& st) {
    using Code = Status::Code;
    if (st.code() == Code::kBusy || st.code() == Code::kPermission ||
        st.code() == Code::kNoSpace)
      return st;
    return Status::Corruption(path() + " is not a cache database of schema " +
                              kSchemaVersion + " (" + st.message() + ")");
  };
  Status pragmas = db_->Exec(kPragmas);
  if (!pragmas.ok()) return corrupt(pragmas);
  auto tables =
      db_->QueryInt64("SELECT count(*) FROM sqlite_master WHERE type='table';");
  if (!tables.ok()) return corrupt(tables.status());
  if (*tables == 0) {
    CVMFS_RETURN_IF_ERROR(db_->Exec(kCreateSchema));
    return cvmfs::WriteProperty(db_.get(), "schema", kSchemaVersion);
  }
  auto schema = cvmfs::ReadProperty(db_.get(), "schema");
  if (!schema.ok()) return corrupt(schema.status());
  if (!schema->has_value() || **schema != kSchemaVersion) {
    return Status::Corruption(path() + " has schema '" +
                              schema->value_or("(none)") + "', expected " +
                              kSchemaVersion);
  }
  auto probe = db_->Prepare(
      "SELECT sha1, size, acseq, path, type, pinned FROM cache_catalog "
      "LIMIT 0;");
  if (!probe.ok()) return corrupt(probe.status());
  return Status::Ok();
}

Result<std::vector<CacheDb::Row>> CacheDb::LoadAll() {
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db_->Prepare("SELECT sha1, size, acseq, path, type, pinned "
                   "FROM cache_catalog ORDER BY acseq;"));
  std::vector<Row> rows;
  while (true) {
    CVMFS_ASSIGN_OR_RETURN(bool more, stmt.Step());
    if (!more) break;
    Row row;
    row.sha1 = stmt.ColumnText(0);
    row.size = static_cast<uint64_t>(stmt.ColumnInt64(1));
    row.acseq = stmt.ColumnInt64(2);
    row.path = stmt.ColumnText(3);
    row.type = static_cast<int>(stmt.ColumnInt64(4));
    row.pinned = static_cast<int>(stmt.ColumnInt64(5));
    rows.push_back(std::move(row));
  }
  return rows;
}

template <typename Body>
Status CacheDb::InTransaction(Body body) {
  CVMFS_RETURN_IF_ERROR(db_->Exec("BEGIN;"));
  Status st = body();
  if (st.ok()) st = db_->Exec("COMMIT;");
  if (!st.ok()) (void)db_->Exec("ROLLBACK;");
  return st;
}

Status CacheDb::Upsert(SqliteStatement* stmt, const Row& row) {
  stmt->Reset();
  stmt->BindText(1, row.sha1)
      .BindInt64(2, static_cast<int64_t>(row.size))
      .BindInt64(3, row.acseq)
      .BindText(4, row.path)
      .BindInt64(5, row.type)
      .BindInt64(6, row.pinned);
  return stmt->Run();
}

Status CacheDb::ReplaceAll(const std::vector<Row>& rows) {
  return InTransaction([&]() -> Status {
    CVMFS_RETURN_IF_ERROR(db_->Exec("DELETE FROM cache_catalog;"));
    CVMFS_ASSIGN_OR_RETURN(SqliteStatement stmt, db_->Prepare(kUpsert));
    for (const Row& row : rows) CVMFS_RETURN_IF_ERROR(Upsert(&stmt, row));
    return Status::Ok();
  });
}

Status CacheDb::Apply(const std::vector<Row>& upserts,
                      const std::vector<std::string>& deletes) {
  return InTransaction([&]() -> Status {
    CVMFS_ASSIGN_OR_RETURN(SqliteStatement del,
                           db_->Prepare("DELETE FROM cache_catalog "
                                        "WHERE sha1 = ?1;"));
    for (const std::string& sha1 : deletes) {
      del.Reset();
      del.BindText(1, sha1);
      CVMFS_RETURN_IF_ERROR(del.Run());
    }
    CVMFS_ASSIGN_OR_RETURN(SqliteStatement up, db_->Prepare(kUpsert));
    for (const Row& row : upserts) CVMFS_RETURN_IF_ERROR(Upsert(&up, row));
    return Status::Ok();
  });
}

}  // namespace cache
