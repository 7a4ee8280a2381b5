#include "cvmfs/catalog/writable_catalog.h"

#include <algorithm>
#include <string>
#include <utility>

#include "cvmfs/catalog/flags.h"
#include "cvmfs/file_util.h"

namespace cvmfs {

namespace {

// The schema exactly as CVMFS 2.12 creates it (the text ends up verbatim in
// sqlite_master, whitespace included), in CVMFS's order.
const char* const kCatalogSchemaSql[] = {
    "CREATE TABLE properties (key TEXT, value TEXT, "
    "CONSTRAINT pk_properties PRIMARY KEY (key));",
    "CREATE TABLE catalog (md5path_1 INTEGER, md5path_2 INTEGER, parent_1 "
    "INTEGER, "
    "parent_2 INTEGER, hardlinks INTEGER, hash BLOB, size INTEGER, mode "
    "INTEGER, "
    "mtime INTEGER, mtimens INTEGER, flags INTEGER, name TEXT, symlink TEXT, "
    "uid INTEGER, gid INTEGER, xattr BLOB,  "
    "CONSTRAINT pk_catalog PRIMARY KEY (md5path_1, md5path_2));",
    "CREATE INDEX idx_catalog_parent ON catalog (parent_1, parent_2);",
    "CREATE TABLE chunks (md5path_1 INTEGER, md5path_2 INTEGER, offset "
    "INTEGER, "
    "size INTEGER,  hash BLOB,  "
    "CONSTRAINT pk_chunks PRIMARY KEY (md5path_1, md5path_2, offset, size),  "
    "FOREIGN KEY (md5path_1, md5path_2) REFERENCES    "
    "catalog(md5path_1, md5path_2));",
    "CREATE TABLE nested_catalogs (path TEXT, sha1 TEXT, size INTEGER, "
    "CONSTRAINT pk_nested_catalogs PRIMARY KEY (path));",
    "CREATE TABLE bind_mountpoints (path TEXT, sha1 TEXT, size INTEGER, "
    "CONSTRAINT pk_bind_mountpoints PRIMARY KEY (path));",
    "CREATE TABLE statistics (counter TEXT, value INTEGER, "
    "CONSTRAINT pk_statistics PRIMARY KEY (counter));",
};

// Parameters 1-16 in BindEntry order.
const char kInsertSql[] =
    "INSERT INTO catalog (md5path_1, md5path_2, parent_1, parent_2, hash, "
    "hardlinks, "
    "size, mode, mtime, mtimens, flags, name, symlink, uid, gid, xattr) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
    "?16);";
const char kUpdateSql[] =
    "UPDATE catalog SET parent_1 = ?3, parent_2 = ?4, hash = ?5, hardlinks = "
    "?6, "
    "size = ?7, mode = ?8, mtime = ?9, mtimens = ?10, flags = ?11, name = ?12, "
    "symlink = ?13, uid = ?14, gid = ?15, xattr = ?16 "
    "WHERE md5path_1 = ?1 AND md5path_2 = ?2;";

// One scan over the rows; the rules mirror DeltaCounters::ApplyDelta of CVMFS
// (regular = flag 4 without 8/16, which includes chunked and external files).
const char kCountSql[] =
    "SELECT "
    "COALESCE(SUM(flags & 1 = 0 AND flags & 4 != 0 AND flags & 24 = 0), 0), "
    "COALESCE(SUM(flags & 8 != 0), 0), "
    "COALESCE(SUM(flags & 16 != 0), 0), "
    "COALESCE(SUM(flags & 1 != 0), 0), "
    "COALESCE(SUM(flags & 1 = 0 AND flags & 4 != 0 AND flags & 24 = 0 AND "
    "  flags & 64 != 0), 0), "
    "COALESCE(SUM(CASE WHEN flags & 1 = 0 AND flags & 4 != 0 AND flags & 24 = "
    "0 "
    "  THEN size ELSE 0 END), 0), "
    "COALESCE(SUM(CASE WHEN flags & 1 = 0 AND flags & 4 != 0 AND flags & 24 = "
    "0 AND "
    "  flags & 64 != 0 THEN size ELSE 0 END), 0), "
    "COALESCE(SUM(xattr IS NOT NULL), 0), "
    "COALESCE(SUM(flags & 1 = 0 AND flags & 4 != 0 AND flags & 24 = 0 AND "
    "  flags & 128 != 0), 0), "
    "COALESCE(SUM(CASE WHEN flags & 1 = 0 AND flags & 4 != 0 AND flags & 24 = "
    "0 AND "
    "  flags & 128 != 0 THEN size ELSE 0 END), 0), "
    "(SELECT count(*) FROM chunks), "
    "(SELECT count(*) FROM nested_catalogs) "
    "FROM catalog;";

constexpr double kMaxFreePageRatio = 0.20;
constexpr double kMaxRowIdWasteRatio = 0.25;

void BindKey(SqliteStatement* stmt, int first, const PathHash& key) {
  stmt->BindInt64(first, key.md5_1).BindInt64(first + 1, key.md5_2);
}

std::vector<std::string> StatisticsRowNames() {
  std::vector<std::string> names;
  for (const char* prefix : {"self_", "subtree_"})
    for (const CounterField& f : kCounterFields)
      names.push_back(prefix + std::string(f.name));
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

WritableCatalog::WritableCatalog(std::unique_ptr<SqliteDb> db, std::string file)
    : Catalog(std::move(db), std::move(file)) {}

WritableCatalog::~WritableCatalog() {
  if (in_transaction_) (void)Abort();
}

Status WritableCatalog::Begin() {
  CVMFS_RETURN_IF_ERROR(
      db()->Exec("PRAGMA synchronous = OFF; PRAGMA cache_size = -8192;"));
  CVMFS_RETURN_IF_ERROR(db()->Exec("BEGIN;"));
  in_transaction_ = true;
  return Status::Ok();
}

Result<std::unique_ptr<WritableCatalog>> WritableCatalog::Create(
    const std::string& file, const std::string& root_prefix,
    const DirectoryEntry& root_entry, bool is_nested) {
  if (is_nested == root_prefix.empty()) {
    return Status::InvalidArgument("catalog root_prefix '" + root_prefix +
                                   "' does not fit is_nested (the repository "
                                   "root catalog has prefix \"\")");
  }
  if (!root_prefix.empty() &&
      (root_prefix[0] != '/' || root_prefix.back() == '/'))
    return Status::InvalidArgument("malformed catalog root_prefix '" +
                                   root_prefix + "'");
  if (!root_entry.IsDirectory())
    return Status::InvalidArgument("catalog root entry must be a directory");
  if (PathExists(file))
    return Status::AlreadyExists(file + ": catalog file exists");

  CVMFS_ASSIGN_OR_RETURN(auto db,
                         SqliteDb::Open(file, SqliteDb::OpenMode::kCreate));
  std::unique_ptr<WritableCatalog> catalog(
      new WritableCatalog(std::move(db), file));
  Status s = catalog->InitNew(root_prefix, root_entry, is_nested);
  if (!s.ok()) {
    catalog.reset();  // rolls back and closes
    (void)RemoveTree(file);
    return s;
  }
  return catalog;
}

Status WritableCatalog::InitNew(const std::string& root_prefix,
                                const DirectoryEntry& root_entry,
                                bool is_nested) {
  SqliteDb* sql = db();
  CVMFS_RETURN_IF_ERROR(Begin());
  for (const char* statement : kCatalogSchemaSql)
    CVMFS_RETURN_IF_ERROR(sql->Exec(statement));

  // Property and row order as CVMFS's Database::Create + InsertInitialValues.
  CVMFS_RETURN_IF_ERROR(SetProperty("schema", kCatalogSchema));
  CVMFS_RETURN_IF_ERROR(
      SetProperty("schema_revision", std::to_string(kCatalogSchemaRevision)));
  CVMFS_RETURN_IF_ERROR(SetProperty("revision", "0"));

  DirectoryEntry root = root_entry;
  root.nested_root = is_nested;
  root.nested_mountpoint = false;
  root.name = std::string(BaseName(root_prefix));
  {
    CVMFS_ASSIGN_OR_RETURN(SqliteStatement stmt, sql->Prepare(kInsertSql));
    CVMFS_RETURN_IF_ERROR(BindEntry(&stmt, root_prefix, root));
    if (!is_nested) BindKey(&stmt, 3, PathHash{0, 0});
    CVMFS_RETURN_IF_ERROR(stmt.Run());
  }
  if (is_nested) CVMFS_RETURN_IF_ERROR(SetProperty("root_prefix", root_prefix));
  // A placeholder until Commit; deterministic instead of "now".
  CVMFS_RETURN_IF_ERROR(
      SetProperty("last_modified", std::to_string(root.mtime)));

  CatalogCounters initial;
  initial.self.dir = 1;
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement insert_counter,
      sql->Prepare("INSERT INTO statistics (counter, value) VALUES (?1, ?2);"));
  for (const std::string& name : StatisticsRowNames()) {
    insert_counter.Reset();
    insert_counter.BindText(1, name).BindInt64(2, *initial.Find(name));
    CVMFS_RETURN_IF_ERROR(insert_counter.Run());
  }
  return Init();
}

Result<std::unique_ptr<WritableCatalog>> WritableCatalog::OpenForWriting(
    const std::string& file) {
  CVMFS_ASSIGN_OR_RETURN(auto db,
                         SqliteDb::Open(file, SqliteDb::OpenMode::kReadWrite));
  std::unique_ptr<WritableCatalog> catalog(
      new WritableCatalog(std::move(db), file));
  CVMFS_RETURN_IF_ERROR(catalog->Init());
  if (catalog->Property("schema") != std::string(kCatalogSchema) ||
      catalog->schema_revision() != kCatalogSchemaRevision) {
    return Status::NotSupported(
        file + ": cannot write catalog schema " +
        catalog->Property("schema").value_or("?") + " revision " +
        std::to_string(catalog->schema_revision()) + " (only 2.5 revision 7)");
  }
  CVMFS_ASSIGN_OR_RETURN(CatalogCounters counters, catalog->ReadCounters());
  catalog->subtree_ = counters.subtree;
  CVMFS_RETURN_IF_ERROR(catalog->Begin());
  return catalog;
}

Status WritableCatalog::CheckPath(std::string_view path) const {
  const std::string& prefix = root_prefix();
  bool inside = path.size() > prefix.size() &&
                path.compare(0, prefix.size(), prefix) == 0 &&
                path[prefix.size()] == '/';
  if (!inside || path.back() == '/') {
    return Status::InvalidArgument("path '" + std::string(path) +
                                   "' is not below the catalog root '" +
                                   prefix + "'");
  }
  return Status::Ok();
}

Status WritableCatalog::BindEntry(SqliteStatement* stmt, std::string_view path,
                                  const DirectoryEntry& e) {
  BindKey(stmt, 1, HashPath(path));
  BindKey(stmt, 3, HashPath(ParentPath(path)));
  if (e.content_hash) {
    stmt->BindBlob(5, e.content_hash->Raw());
  } else {
    stmt->BindNull(5);
  }
  stmt->BindInt64(6, EncodeHardlinks(e.hardlink_group, e.linkcount))
      .BindInt64(7, static_cast<int64_t>(e.size))
      .BindInt64(8, e.mode)
      .BindInt64(9, e.mtime);
  if (e.mtime_ns) {
    stmt->BindInt64(10, *e.mtime_ns);
  } else {
    stmt->BindNull(10);
  }
  stmt->BindInt64(11, EncodeFlags(e))
      .BindText(12, BaseName(path))
      .BindText(13, e.symlink)
      .BindInt64(14, e.uid)
      .BindInt64(15, e.gid);
  if (e.xattrs.empty()) {
    stmt->BindNull(16);
  } else {
    CVMFS_ASSIGN_OR_RETURN(std::string blob, SerializeXattrs(e.xattrs));
    stmt->BindBlob(16, blob);
  }
  return Status::Ok();
}

Status WritableCatalog::AddEntry(std::string_view path,
                                 const DirectoryEntry& entry) {
  CVMFS_RETURN_IF_ERROR(CheckPath(path));
  CVMFS_ASSIGN_OR_RETURN(SqliteStatement * stmt,
                         Cached(&insert_stmt_, kInsertSql));
  CVMFS_RETURN_IF_ERROR(BindEntry(stmt, path, entry));
  Status s = stmt->Run();
  stmt->Reset();
  if (s.code() == Status::Code::kAlreadyExists)
    return Status::AlreadyExists(file() + ": entry '" + std::string(path) +
                                 "' exists");
  return s;
}

Status WritableCatalog::UpdateEntry(std::string_view path,
                                    const DirectoryEntry& entry) {
  if (path != root_prefix()) CVMFS_RETURN_IF_ERROR(CheckPath(path));
  CVMFS_ASSIGN_OR_RETURN(SqliteStatement * stmt,
                         Cached(&update_stmt_, kUpdateSql));
  DirectoryEntry e = entry;
  if (path == root_prefix()) {
    // The catalog root keeps its role and, for the repository root, its
    // (0,0) parent key.
    e.nested_root = !is_root();
    e.nested_mountpoint = false;
  }
  CVMFS_RETURN_IF_ERROR(BindEntry(stmt, path, e));
  if (is_root() && path.empty()) BindKey(stmt, 3, PathHash{0, 0});
  Status s = stmt->Run();
  stmt->Reset();
  CVMFS_RETURN_IF_ERROR(s);
  if (db()->Changes() == 0)
    return Status::NotFound(file() + ": no entry '" + std::string(path) + "'");
  return Status::Ok();
}

Status WritableCatalog::RemoveEntry(std::string_view path) {
  CVMFS_RETURN_IF_ERROR(SetChunks(path, {}));
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement * stmt,
      Cached(&delete_stmt_,
             "DELETE FROM catalog WHERE md5path_1 = ?1 AND md5path_2 = ?2;"));
  BindKey(stmt, 1, HashPath(path));
  Status s = stmt->Run();
  stmt->Reset();
  CVMFS_RETURN_IF_ERROR(s);
  if (db()->Changes() == 0)
    return Status::NotFound(file() + ": no entry '" + std::string(path) + "'");
  return Status::Ok();
}

Status WritableCatalog::SetChunks(std::string_view path,
                                  const std::vector<FileChunk>& chunks) {
  PathHash key = HashPath(path);
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement * del,
      Cached(&delete_chunks_stmt_,
             "DELETE FROM chunks WHERE md5path_1 = ?1 AND md5path_2 = ?2;"));
  BindKey(del, 1, key);
  Status s = del->Run();
  del->Reset();
  CVMFS_RETURN_IF_ERROR(s);
  for (const FileChunk& chunk : chunks) {
    CVMFS_ASSIGN_OR_RETURN(
        SqliteStatement * ins,
        Cached(&insert_chunk_stmt_,
               "INSERT INTO chunks (md5path_1, md5path_2, offset, size, hash) "
               "VALUES (?1, ?2, ?3, ?4, ?5);"));
    BindKey(ins, 1, key);
    ins->BindInt64(3, static_cast<int64_t>(chunk.offset))
        .BindInt64(4, static_cast<int64_t>(chunk.size))
        .BindBlob(5, chunk.hash.Raw());
    s = ins->Run();
    ins->Reset();
    CVMFS_RETURN_IF_ERROR(s);
  }
  return Status::Ok();
}

// nested_catalogs and bind_mountpoints share their columns (path, sha1,
// size); `what` names a row in messages.
Status WritableCatalog::InsertReference(std::string_view table,
                                        std::string_view what,
                                        const NestedCatalogRef& ref) {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db()->Prepare("INSERT INTO " + std::string(table) +
                    " (path, sha1, size) VALUES (?1, ?2, ?3);"));
  stmt.BindText(1, ref.path)
      .BindText(2, ref.hash.ToString())
      .BindInt64(3, static_cast<int64_t>(ref.size));
  Status s = stmt.Run();
  if (s.code() == Status::Code::kAlreadyExists)
    return Status::AlreadyExists(file() + ": " + std::string(what) + " '" +
                                 ref.path + "' exists");
  return s;
}

Status WritableCatalog::DeleteReference(std::string_view table,
                                        std::string_view what,
                                        std::string_view path) {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db()->Prepare("DELETE FROM " + std::string(table) + " WHERE path = ?1;"));
  stmt.BindText(1, path);
  CVMFS_RETURN_IF_ERROR(stmt.Run());
  if (db()->Changes() == 0)
    return Status::NotFound(file() + ": no " + std::string(what) + " '" +
                            std::string(path) + "'");
  return Status::Ok();
}

Status WritableCatalog::AddNestedCatalog(const NestedCatalogRef& ref) {
  return InsertReference("nested_catalogs", "nested catalog", ref);
}

Status WritableCatalog::UpdateNestedCatalog(const NestedCatalogRef& ref) {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db()->Prepare(
          "UPDATE nested_catalogs SET sha1 = ?2, size = ?3 WHERE path = ?1;"));
  stmt.BindText(1, ref.path)
      .BindText(2, ref.hash.ToString())
      .BindInt64(3, static_cast<int64_t>(ref.size));
  CVMFS_RETURN_IF_ERROR(stmt.Run());
  if (db()->Changes() == 0)
    return Status::NotFound(file() + ": no nested catalog '" + ref.path + "'");
  return Status::Ok();
}

Status WritableCatalog::AddBindMountpoint(const NestedCatalogRef& ref) {
  return InsertReference("bind_mountpoints", "bind mountpoint", ref);
}

Status WritableCatalog::RemoveBindMountpoint(std::string_view path) {
  return DeleteReference("bind_mountpoints", "bind mountpoint", path);
}

Status WritableCatalog::SetBundles(std::string_view dir_path,
                                   const std::vector<BundleRef>& rows) {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  if (!has_bundles()) {
    if (rows.empty()) return Status::Ok();
    CVMFS_RETURN_IF_ERROR(db()->Exec(std::string(kBundlesTableSql)));
    MarkHasBundles();
  }
  {
    CVMFS_ASSIGN_OR_RETURN(
        SqliteStatement del,
        db()->Prepare("DELETE FROM bundles WHERE path = ?1;"));
    del.BindText(1, dir_path);
    CVMFS_RETURN_IF_ERROR(del.Run());
  }
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement insert,
      db()->Prepare("INSERT INTO bundles (path, first_name, hash, size, "
                    "members) VALUES (?1, ?2, ?3, ?4, ?5);"));
  for (const BundleRef& row : rows) {
    if (row.path != dir_path) {
      return Status::InvalidArgument(file() + ": bundle row of '" + row.path +
                                     "' given for '" + std::string(dir_path) +
                                     "'");
    }
    insert.Reset();
    insert.BindText(1, row.path)
        .BindText(2, row.first_name)
        .BindText(3, row.hash.ToString())
        .BindInt64(4, static_cast<int64_t>(row.size))
        .BindInt64(5, static_cast<int64_t>(row.members));
    Status s = insert.Run();
    if (s.code() == Status::Code::kAlreadyExists) {
      return Status::AlreadyExists(file() + ": two bundles of '" + row.path +
                                   "' start at '" + row.first_name + "'");
    }
    CVMFS_RETURN_IF_ERROR(s);
  }
  return Status::Ok();
}

Status WritableCatalog::RemoveNestedCatalog(std::string_view path) {
  return DeleteReference("nested_catalogs", "nested catalog", path);
}

Status WritableCatalog::SetProperty(std::string_view key,
                                    std::string_view value) {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  CVMFS_RETURN_IF_ERROR(WriteProperty(db(), key, value));
  SetCachedProperty(key, value);
  return Status::Ok();
}

Status WritableCatalog::SetCacheSize(size_t bytes) {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  const size_t kib = std::max<size_t>(bytes >> 10, 64);
  return db()->Exec("PRAGMA cache_size = -" + std::to_string(kib) + ";");
}

Status WritableCatalog::SetSubtreeCounters(const CounterSet& subtree) {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  subtree_ = subtree;
  return Status::Ok();
}

Result<CatalogCounters> WritableCatalog::ComputeCounters() {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  CVMFS_ASSIGN_OR_RETURN(SqliteStatement stmt, db()->Prepare(kCountSql));
  CVMFS_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row)
    return Status::Corruption(file() + ": counting rows returned nothing");
  CatalogCounters c;
  CounterSet& s = c.self;
  int64_t* order[] = {&s.regular,      &s.symlink,
                      &s.special,      &s.dir,
                      &s.chunked,      &s.file_size,
                      &s.chunked_size, &s.xattr,
                      &s.external,     &s.external_file_size,
                      &s.chunks,       &s.nested};
  for (int i = 0; i < 12; ++i) *order[i] = stmt.ColumnInt64(i);
  c.subtree = subtree_;
  return c;
}

Status WritableCatalog::WriteStatistics(const CatalogCounters& counters) {
  CatalogCounters values = counters;
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement update,
      db()->Prepare("UPDATE statistics SET value = ?2 WHERE counter = ?1;"));
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement insert,
      db()->Prepare(
          "INSERT INTO statistics (counter, value) VALUES (?1, ?2);"));
  for (const std::string& name : StatisticsRowNames()) {
    int64_t value = *values.Find(name);
    update.Reset();
    update.BindText(1, name).BindInt64(2, value);
    CVMFS_RETURN_IF_ERROR(update.Run());
    if (db()->Changes() > 0) continue;
    insert.Reset();
    insert.BindText(1, name).BindInt64(2, value);
    CVMFS_RETURN_IF_ERROR(insert.Run());
  }
  return Status::Ok();
}

void WritableCatalog::CloseStatements() {
  insert_stmt_ = SqliteStatement();
  update_stmt_ = SqliteStatement();
  delete_stmt_ = SqliteStatement();
  delete_chunks_stmt_ = SqliteStatement();
  insert_chunk_stmt_ = SqliteStatement();
}

Status WritableCatalog::Commit(uint64_t revision, int64_t last_modified,
                               const std::optional<Digest>& previous_revision,
                               std::optional<uint64_t> ttl) {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  if (!in_transaction_)
    return Status::InvalidArgument(file() + ": not writable");
  CVMFS_ASSIGN_OR_RETURN(CatalogCounters counters, ComputeCounters());
  CVMFS_RETURN_IF_ERROR(WriteStatistics(counters));
  // Order as in CVMFS: TTL, last_modified, revision, previous_revision.
  if (ttl) CVMFS_RETURN_IF_ERROR(SetProperty("TTL", std::to_string(*ttl)));
  CVMFS_RETURN_IF_ERROR(
      SetProperty("last_modified", std::to_string(last_modified)));
  CVMFS_RETURN_IF_ERROR(SetProperty("revision", std::to_string(revision)));
  if (previous_revision) {
    CVMFS_RETURN_IF_ERROR(
        SetProperty("previous_revision", previous_revision->ToString()));
  } else if (revision != 0) {
    CVMFS_RETURN_IF_ERROR(
        SetProperty("previous_revision", std::string(40, '0')));
  }
  CloseStatements();
  FinalizeStatements();
  CVMFS_RETURN_IF_ERROR(db()->Exec("COMMIT;"));
  in_transaction_ = false;
  Status vacuum = VacuumIfWorthwhile();
  CloseDb();
  return vacuum;
}

Status WritableCatalog::Abort() {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  CloseStatements();
  FinalizeStatements();
  Status s;
  if (in_transaction_) s = db()->Exec("ROLLBACK;");
  in_transaction_ = false;
  CloseDb();
  return s;
}

Status WritableCatalog::VacuumIfWorthwhile() {
  CVMFS_ASSIGN_OR_RETURN(int64_t pages, db()->QueryInt64("PRAGMA page_count;"));
  CVMFS_ASSIGN_OR_RETURN(int64_t free_pages,
                         db()->QueryInt64("PRAGMA freelist_count;"));
  CVMFS_ASSIGN_OR_RETURN(int64_t rows,
                         db()->QueryInt64("SELECT count(*) FROM catalog;"));
  CVMFS_ASSIGN_OR_RETURN(int64_t max_rowid, MaxRowId());
  double free_ratio = pages > 0 ? static_cast<double>(free_pages) / pages : 0.0;
  double waste_ratio = max_rowid > 0 ? 1.0 - static_cast<double>(rows) /
                                                 static_cast<double>(max_rowid)
                                     : 0.0;
  if (free_ratio <= kMaxFreePageRatio && waste_ratio <= kMaxRowIdWasteRatio)
    return Status::Ok();
  // Renumber rowids densely (they are inode numbers), then shrink the file;
  // CatalogDatabase::CompactDatabase + VACUUM in CVMFS.
  CVMFS_RETURN_IF_ERROR(
      db()->Exec("BEGIN;"
                 "CREATE TEMPORARY TABLE duplicate AS SELECT * FROM catalog "
                 "ORDER BY rowid ASC;"
                 "DELETE FROM catalog;"
                 "INSERT INTO catalog SELECT * FROM duplicate ORDER BY rowid;"
                 "DROP TABLE duplicate;"
                 "COMMIT;"));
  return db()->Exec("VACUUM;");
}

}  // namespace cvmfs
