// SqliteDb / SqliteStatement: thin RAII owners of sqlite3* and sqlite3_stmt*.
//
// Every SQLite error becomes a Status that carries SQLite's message and the
// database file name (SQLITE_CORRUPT/NOTADB -> Corruption, BUSY/LOCKED ->
// Busy, FULL -> NoSpace, CONSTRAINT -> AlreadyExists, CANTOPEN -> IoError or
// NotFound, READONLY/PERM -> Permission, anything else -> IoError).
//
// Read-only databases (catalogs, history and reflog objects: immutable,
// content-addressed files) are opened through a `file:...?immutable=1` URI:
// no locking, no journal look-ups, which makes opening them cheap.
//
// Thread safety: a SqliteDb and its statements belong to one thread at a time
// (connections are opened with SQLITE_OPEN_NOMUTEX). Statements borrow the
// database: every SqliteStatement must be destroyed before its SqliteDb.
#ifndef CVMFS_SQLITE_DB_H_
#define CVMFS_SQLITE_DB_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cvmfs/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace cvmfs {

// One prepared statement. Bind* record the first failure, which Step()
// reports; this keeps binding code linear. Parameter and column indices are
// as in SQLite: parameters count from 1, columns from 0. Text and blob values
// are copied at bind time (SQLITE_TRANSIENT).
class SqliteStatement {
 public:
  SqliteStatement() = default;
  SqliteStatement(sqlite3_stmt* stmt, std::string db_name);
  ~SqliteStatement();
  SqliteStatement(SqliteStatement&& o) noexcept;
  SqliteStatement& operator=(SqliteStatement&& o) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  bool valid() const { return stmt_ != nullptr; }

  SqliteStatement& BindInt64(int index, int64_t value);
  SqliteStatement& BindText(int index, std::string_view value);
  SqliteStatement& BindBlob(int index, std::string_view value);
  SqliteStatement& BindNull(int index);

  // Runs one step: true when a row is available, false when done.
  Result<bool> Step();
  // Steps until done, for statements that return no rows.
  Status Run();
  // Resets the statement for re-execution and clears its bindings.
  void Reset();

  bool ColumnIsNull(int col) const;
  int64_t ColumnInt64(int col) const;
  std::string ColumnText(int col) const;
  // Valid until the next Step() or Reset().
  std::string_view ColumnBlob(int col) const;

 private:
  Status Error(int rc) const;
  void Finalize();

  sqlite3_stmt* stmt_ = nullptr;
  std::string db_name_;
  int bind_error_ = 0;  // first failed bind (SQLite result code) or 0
};

class SqliteDb {
 public:
  enum class OpenMode {
    kReadOnly,   // immutable file; no locks, no journal
    kReadWrite,  // an existing file
    kCreate,     // read-write, created when missing
  };

  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path,
                                                OpenMode mode);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements that return no rows.
  Status Exec(const std::string& sql);
  Result<SqliteStatement> Prepare(std::string_view sql);

  int64_t LastInsertRowId() const;
  // Rows changed by the most recent INSERT/UPDATE/DELETE.
  int64_t Changes() const;
  // Runs a query that yields a single integer (e.g. PRAGMA page_count).
  Result<int64_t> QueryInt64(const std::string& sql);
  bool read_only() const { return mode_ == OpenMode::kReadOnly; }
  const std::string& path() const { return path_; }

 private:
  SqliteDb(sqlite3* db, std::string path, OpenMode mode)
      : db_(db), path_(std::move(path)), mode_(mode) {}

  sqlite3* db_;
  std::string path_;
  OpenMode mode_;
};

// Maps an SQLite result code plus message to a Status.
Status SqliteError(int rc, const std::string& message);

// The `properties (key TEXT, value TEXT)` table every CVMFS database has
// (catalogs, history, reflog). Values are stored as text.
Result<std::optional<std::string>> ReadProperty(SqliteDb* db,
                                                std::string_view key);
// INSERT OR REPLACE, as CVMFS does (a replaced key gets a new rowid).
Status WriteProperty(SqliteDb* db, std::string_view key,
                     std::string_view value);

// The process-wide counters of SQLite's allocator (sqlite3_status64), for
// the metrics (doc/metrics.md): bytes and allocations now, and their
// high-water marks since the process started.
struct SqliteMemoryStatus {
  int64_t memory_used = 0, memory_used_highwater = 0;
  int64_t malloc_count = 0, largest_malloc = 0;
  int64_t pagecache_used = 0, pagecache_used_highwater = 0;
  int64_t pagecache_overflow = 0, pagecache_overflow_highwater = 0;
  int64_t largest_pagecache = 0;
};
SqliteMemoryStatus SqliteMemory();

}  // namespace cvmfs

#endif  // CVMFS_SQLITE_DB_H_
