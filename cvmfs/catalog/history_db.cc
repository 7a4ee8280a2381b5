#include "cvmfs/catalog/history_db.h"

#include <utility>

#include "cvmfs/file_util.h"

namespace cvmfs {

namespace {

// Verbatim as CVMFS 2.12 creates them (the text lands in sqlite_master).
const char* const kHistorySchemaSql[] = {
    "CREATE TABLE properties (key TEXT, value TEXT, "
    "CONSTRAINT pk_properties PRIMARY KEY (key));",
    "CREATE TABLE branches (branch TEXT, parent TEXT, initial_revision "
    "INTEGER,  "
    "CONSTRAINT pk_branch PRIMARY KEY (branch),   "
    "FOREIGN KEY (parent) REFERENCES branches (branch),   "
    "CHECK ((branch <> '') OR (parent IS NULL)),   "
    "CHECK ((branch = '') OR (parent IS NOT NULL)));",
    "CREATE TABLE tags (name TEXT, hash TEXT, revision INTEGER,   "
    "timestamp INTEGER, channel INTEGER, description TEXT, size INTEGER,   "
    "branch TEXT, CONSTRAINT pk_tags PRIMARY KEY (name),   "
    "FOREIGN KEY (branch) REFERENCES branches (branch));",
    "CREATE TABLE recycle_bin (hash TEXT, flags INTEGER,   "
    "CONSTRAINT pk_hash PRIMARY KEY (hash));",
};

constexpr char kTagColumns[] =
    "SELECT name, hash, revision, timestamp, description, size, branch FROM "
    "tags ";

}  // namespace

HistoryDb::~HistoryDb() = default;

Result<std::unique_ptr<HistoryDb>> HistoryDb::Create(const std::string& file,
                                                     const std::string& fqrn) {
  if (PathExists(file))
    return Status::AlreadyExists(file + ": history database exists");
  CVMFS_ASSIGN_OR_RETURN(auto db,
                         SqliteDb::Open(file, SqliteDb::OpenMode::kCreate));
  std::unique_ptr<HistoryDb> history(new HistoryDb(std::move(db)));
  SqliteDb* sql = history->db_.get();
  CVMFS_RETURN_IF_ERROR(sql->Exec("PRAGMA synchronous = OFF; BEGIN;"));
  for (const char* statement : kHistorySchemaSql)
    CVMFS_RETURN_IF_ERROR(sql->Exec(statement));
  CVMFS_RETURN_IF_ERROR(WriteProperty(sql, "schema", "1.0"));
  CVMFS_RETURN_IF_ERROR(WriteProperty(sql, "schema_revision", "3"));
  CVMFS_RETURN_IF_ERROR(WriteProperty(sql, "fqrn", fqrn));
  CVMFS_RETURN_IF_ERROR(
      sql->Exec("INSERT INTO branches (branch, parent, initial_revision) "
                "VALUES ('', NULL, 0);"));
  CVMFS_RETURN_IF_ERROR(sql->Exec("COMMIT;"));
  history->fqrn_ = fqrn;
  return history;
}

Result<std::unique_ptr<HistoryDb>> HistoryDb::Open(const std::string& file,
                                                   bool writable) {
  CVMFS_ASSIGN_OR_RETURN(
      auto db, SqliteDb::Open(file, writable ? SqliteDb::OpenMode::kReadWrite
                                             : SqliteDb::OpenMode::kReadOnly));
  std::unique_ptr<HistoryDb> history(new HistoryDb(std::move(db)));
  auto fqrn = ReadProperty(history->db_.get(), "fqrn");
  if (!fqrn.ok() || !fqrn->has_value()) {
    return Status::Corruption(
        file + ": not a history database" +
        (fqrn.ok() ? "" : " (" + fqrn.status().message() + ")"));
  }
  history->fqrn_ = **fqrn;
  if (writable)
    CVMFS_RETURN_IF_ERROR(history->db_->Exec("PRAGMA synchronous = OFF;"));
  return history;
}

Result<std::unique_ptr<HistoryDb>> HistoryDb::OpenReadOnly(
    const std::string& file) {
  return Open(file, false);
}

Result<std::unique_ptr<HistoryDb>> HistoryDb::OpenForWriting(
    const std::string& file) {
  return Open(file, true);
}

Status HistoryDb::CheckWritable() const {
  if (!db_) return Status::InvalidArgument("history database is closed");
  if (db_->read_only())
    return Status::InvalidArgument(db_->path() +
                                   ": history database is read-only");
  return Status::Ok();
}

Status HistoryDb::Insert(const Tag& tag) {
  CVMFS_RETURN_IF_ERROR(CheckWritable());
  if (tag.name.empty()) return Status::InvalidArgument("empty tag name");
  CVMFS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                         db_->Prepare("INSERT OR REPLACE INTO tags (name, "
                                      "hash, revision, timestamp, channel, "
                                      "description, size, branch) VALUES (?1, "
                                      "?2, ?3, ?4, 0, ?5, ?6, ?7);"));
  stmt.BindText(1, tag.name)
      .BindText(2, tag.root_hash.ToString())
      .BindInt64(3, static_cast<int64_t>(tag.revision))
      .BindInt64(4, tag.timestamp)
      .BindText(5, tag.description)
      .BindInt64(6, static_cast<int64_t>(tag.size))
      .BindText(7, tag.branch);
  return stmt.Run();
}

Status HistoryDb::Remove(std::string_view name) {
  CVMFS_RETURN_IF_ERROR(CheckWritable());
  CVMFS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                         db_->Prepare("DELETE FROM tags WHERE name = ?1;"));
  stmt.BindText(1, name);
  CVMFS_RETURN_IF_ERROR(stmt.Run());
  if (db_->Changes() == 0)
    return Status::NotFound("no tag '" + std::string(name) + "'");
  return Status::Ok();
}

Result<std::vector<Tag>> HistoryDb::Query(
    const std::string& where_and_order,
    const std::function<void(SqliteStatement*)>& bind) {
  if (!db_) return Status::InvalidArgument("history database is closed");
  CVMFS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                         db_->Prepare(kTagColumns + where_and_order));
  if (bind) bind(&stmt);
  std::vector<Tag> tags;
  while (true) {
    CVMFS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    Tag tag;
    tag.name = stmt.ColumnText(0);
    auto hash = Digest::Parse(stmt.ColumnText(1));
    if (!hash.ok())
      return hash.status().Annotate(db_->path() + ": tag '" + tag.name + "'");
    tag.root_hash = *hash;
    tag.revision = static_cast<uint64_t>(stmt.ColumnInt64(2));
    tag.timestamp = stmt.ColumnInt64(3);
    tag.description = stmt.ColumnText(4);
    tag.size = static_cast<uint64_t>(stmt.ColumnInt64(5));
    tag.branch = stmt.ColumnText(6);
    tags.push_back(std::move(tag));
  }
  return tags;
}

Result<std::optional<Tag>> HistoryDb::Get(std::string_view name) {
  CVMFS_ASSIGN_OR_RETURN(std::vector<Tag> tags,
                         Query("WHERE name = ?1;", [name](SqliteStatement* s) {
                           s->BindText(1, name);
                         }));
  if (tags.empty()) return std::optional<Tag>();
  return std::optional<Tag>(std::move(tags.front()));
}

Result<std::vector<Tag>> HistoryDb::List() {
  return Query("ORDER BY revision DESC, name ASC;", nullptr);
}

Result<std::optional<Tag>> HistoryDb::GetByRevision(uint64_t revision) {
  CVMFS_ASSIGN_OR_RETURN(std::vector<Tag> tags,
                         Query("WHERE revision = ?1 ORDER BY name ASC LIMIT 1;",
                               [revision](SqliteStatement* s) {
                                 s->BindInt64(1,
                                              static_cast<int64_t>(revision));
                               }));
  if (tags.empty()) return std::optional<Tag>();
  return std::optional<Tag>(std::move(tags.front()));
}

Result<std::optional<Tag>> HistoryDb::GetByDate(int64_t timestamp) {
  CVMFS_ASSIGN_OR_RETURN(
      std::vector<Tag> tags,
      Query("WHERE branch = '' AND timestamp <= ?1 "
            "ORDER BY revision DESC, name ASC LIMIT 1;",
            [timestamp](SqliteStatement* s) { s->BindInt64(1, timestamp); }));
  if (tags.empty()) return std::optional<Tag>();
  return std::optional<Tag>(std::move(tags.front()));
}

Result<std::optional<std::string>> HistoryDb::GetProperty(
    std::string_view key) {
  if (!db_) return Status::InvalidArgument("history database is closed");
  return ReadProperty(db_.get(), key);
}

Status HistoryDb::SetProperty(std::string_view key, std::string_view value) {
  CVMFS_RETURN_IF_ERROR(CheckWritable());
  return WriteProperty(db_.get(), key, value);
}

Status HistoryDb::SetPreviousRevision(const Digest& hash) {
  return SetProperty("previous_revision", hash.ToString());
}

Result<std::optional<Digest>> HistoryDb::GetPreviousRevision() {
  CVMFS_ASSIGN_OR_RETURN(std::optional<std::string> text,
                         GetProperty("previous_revision"));
  if (!text) return std::optional<Digest>();
  CVMFS_ASSIGN_OR_RETURN(Digest hash, Digest::Parse(*text));
  return std::optional<Digest>(hash);
}

Status HistoryDb::Close() {
  if (!db_) return Status::InvalidArgument("history database is closed");
  db_.reset();
  return Status::Ok();
}

}  // namespace cvmfs
