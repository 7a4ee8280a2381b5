#include "cvmfs/sqlite_db.h"

#include <sqlite3.h>

#include <utility>

namespace cvmfs {

Status SqliteError(int rc, const std::string& message) {
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FORMAT:
      return Status::Corruption(message);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Busy(message);
    case SQLITE_FULL:
      return Status::NoSpace(message);
    case SQLITE_CONSTRAINT:
      return Status::AlreadyExists(message);
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return Status::Permission(message);
    case SQLITE_RANGE:
    case SQLITE_MISUSE:
      return Status::InvalidArgument(message);
    default:
      return Status::IoError(message);
  }
}

// ---------------------------------------------------------------------------
// SqliteStatement

SqliteStatement::SqliteStatement(sqlite3_stmt* stmt, std::string db_name)
    : stmt_(stmt), db_name_(std::move(db_name)) {}

SqliteStatement::~SqliteStatement() { Finalize(); }

SqliteStatement::SqliteStatement(SqliteStatement&& o) noexcept
    : stmt_(std::exchange(o.stmt_, nullptr)),
      db_name_(std::move(o.db_name_)),
      bind_error_(o.bind_error_) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& o) noexcept {
  if (this != &o) {
    Finalize();
    stmt_ = std::exchange(o.stmt_, nullptr);
    db_name_ = std::move(o.db_name_);
    bind_error_ = o.bind_error_;
  }
  return *this;
}

void SqliteStatement::Finalize() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
  stmt_ = nullptr;
}

Status SqliteStatement::Error(int rc) const {
  std::string msg = db_name_ + ": ";
  if (stmt_ != nullptr) {
    msg += sqlite3_errmsg(sqlite3_db_handle(stmt_));
    const char* sql = sqlite3_sql(stmt_);
    if (sql != nullptr) msg += std::string(" (in: ") + sql + ")";
  } else {
    msg += sqlite3_errstr(rc);
  }
  return SqliteError(rc, msg);
}

SqliteStatement& SqliteStatement::BindInt64(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

SqliteStatement& SqliteStatement::BindText(int index, std::string_view value) {
  int rc = sqlite3_bind_text64(stmt_, index, value.data(), value.size(),
                               SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

SqliteStatement& SqliteStatement::BindBlob(int index, std::string_view value) {
  // A zero-length blob is still a blob, not NULL: pass a non-null pointer.
  static const char kEmpty = 0;
  const void* data = value.empty() ? &kEmpty : value.data();
  int rc =
      sqlite3_bind_blob64(stmt_, index, data, value.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

SqliteStatement& SqliteStatement::BindNull(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Result<bool> SqliteStatement::Step() {
  if (stmt_ == nullptr)
    return Status::InvalidArgument(db_name_ + ": no statement");
  if (bind_error_ != 0) {
    Status s = Error(bind_error_).Annotate("bind");
    return s;
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Error(rc);
}

Status SqliteStatement::Run() {
  while (true) {
    CVMFS_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return Status::Ok();
  }
}

void SqliteStatement::Reset() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = 0;
}

bool SqliteStatement::ColumnIsNull(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

int64_t SqliteStatement::ColumnInt64(int col) const {
  return sqlite3_column_int64(stmt_, col);
}

std::string SqliteStatement::ColumnText(int col) const {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  int size = sqlite3_column_bytes(stmt_, col);
  if (text == nullptr) return std::string();
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(size));
}

std::string_view SqliteStatement::ColumnBlob(int col) const {
  const void* data = sqlite3_column_blob(stmt_, col);
  int size = sqlite3_column_bytes(stmt_, col);
  if (data == nullptr) return std::string_view();
  return std::string_view(static_cast<const char*>(data),
                          static_cast<size_t>(size));
}

// ---------------------------------------------------------------------------
// SqliteDb

// Percent-escapes the characters that have a meaning in an SQLite URI.
static std::string FileUri(const std::string& path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      uri += '%';
      uri += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
      uri += kHex[static_cast<unsigned char>(c) & 0xf];
    } else {
      uri += c;
    }
  }
  return uri;
}

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path,
                                                 OpenMode mode) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_NOMUTEX;
  std::string name = path;
  switch (mode) {
    case OpenMode::kReadOnly:
      flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
      name = FileUri(path) + "?immutable=1";
      break;
    case OpenMode::kReadWrite:
      flags |= SQLITE_OPEN_READWRITE;
      break;
    case OpenMode::kCreate:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
  }
  int rc = sqlite3_open_v2(name.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg =
        path + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    if ((rc & 0xff) == SQLITE_CANTOPEN && mode != OpenMode::kCreate)
      return Status::NotFound(msg);
    return SqliteError(rc, msg);
  }
  sqlite3_extended_result_codes(db, 1);
  auto result = std::unique_ptr<SqliteDb>(new SqliteDb(db, path, mode));
  if (mode != OpenMode::kReadOnly) sqlite3_busy_timeout(db, 5000);
  return result;
}

SqliteDb::~SqliteDb() { sqlite3_close_v2(db_); }

Status SqliteDb::Exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string msg =
      path_ + ": " + (err ? err : sqlite3_errstr(rc)) + " (in: " + sql + ")";
  sqlite3_free(err);
  return SqliteError(rc, msg);
}

Result<SqliteStatement> SqliteDb::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()),
                              &stmt, nullptr);
  if (rc != SQLITE_OK) {
    return SqliteError(rc, path_ + ": " + sqlite3_errmsg(db_) +
                               " (in: " + std::string(sql) + ")");
  }
  return SqliteStatement(stmt, path_);
}

int64_t SqliteDb::LastInsertRowId() const {
  return sqlite3_last_insert_rowid(db_);
}

int64_t SqliteDb::Changes() const { return sqlite3_changes64(db_); }

Result<int64_t> SqliteDb::QueryInt64(const std::string& sql) {
  CVMFS_ASSIGN_OR_RETURN(SqliteStatement stmt, Prepare(sql));
  CVMFS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::NotFound(path_ + ": no result for " + sql);
  return stmt.ColumnInt64(0);
}

Result<std::optional<std::string>> ReadProperty(SqliteDb* db,
                                                std::string_view key) {
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db->Prepare("SELECT value FROM properties WHERE key = ?1;"));
  stmt.BindText(1, key);
  CVMFS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(stmt.ColumnText(0));
}

Status WriteProperty(SqliteDb* db, std::string_view key,
                     std::string_view value) {
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db->Prepare(
          "INSERT OR REPLACE INTO properties (key, value) VALUES (?1, ?2);"));
  stmt.BindText(1, key).BindText(2, value);
  return stmt.Run();
}

SqliteMemoryStatus SqliteMemory() {
  SqliteMemoryStatus s;
  sqlite3_int64 current = 0, highwater = 0;
  auto read = [&](int op) {
    current = highwater = 0;
    sqlite3_status64(op, &current, &highwater, 0);
  };
  read(SQLITE_STATUS_MEMORY_USED);
  s.memory_used = current;
  s.memory_used_highwater = highwater;
  read(SQLITE_STATUS_MALLOC_COUNT);
  s.malloc_count = current;
  read(SQLITE_STATUS_MALLOC_SIZE);
  s.largest_malloc = highwater;
  read(SQLITE_STATUS_PAGECACHE_USED);
  s.pagecache_used = current;
  s.pagecache_used_highwater = highwater;
  read(SQLITE_STATUS_PAGECACHE_OVERFLOW);
  s.pagecache_overflow = current;
  s.pagecache_overflow_highwater = highwater;
  read(SQLITE_STATUS_PAGECACHE_SIZE);
  s.largest_pagecache = highwater;
  return s;
}

}  // namespace cvmfs
