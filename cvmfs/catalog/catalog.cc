#include "cvmfs/catalog/catalog.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "cvmfs/catalog/flags.h"

namespace cvmfs {

namespace {

// Column order of entry_columns_ (see Init).
enum EntryColumn {
  kColHash = 0,
  kColSize,
  kColMode,
  kColMtime,
  kColMtimeNs,
  kColFlags,
  kColName,
  kColSymlink,
  kColUid,
  kColGid,
  kColHardlinks,
  kColXattr,
  kColRowid,
};

uint64_t ParseU64(const std::optional<std::string>& text, uint64_t fallback) {
  if (!text || text->empty()) return fallback;
  return std::strtoull(text->c_str(), nullptr, 10);
}

}  // namespace

Catalog::Catalog(std::unique_ptr<SqliteDb> db, std::string file)
    : db_(std::move(db)), file_(std::move(file)) {}

Catalog::~Catalog() = default;

Result<std::unique_ptr<Catalog>> Catalog::Open(const std::string& sqlite_file) {
  CVMFS_ASSIGN_OR_RETURN(
      auto db, SqliteDb::Open(sqlite_file, SqliteDb::OpenMode::kReadOnly));
  std::unique_ptr<Catalog> catalog(new Catalog(std::move(db), sqlite_file));
  CVMFS_RETURN_IF_ERROR(catalog->Init());
  return catalog;
}

Status Catalog::Init() {
  {
    auto stmt = db_->Prepare("SELECT key, value FROM properties;");
    if (!stmt.ok()) {
      return Status::Corruption(file_ + ": not a catalog (" +
                                stmt.status().message() + ")");
    }
    while (true) {
      CVMFS_ASSIGN_OR_RETURN(bool row, stmt->Step());
      if (!row) break;
      properties_[stmt->ColumnText(0)] = stmt->ColumnText(1);
    }
  }
  if (properties_.count("schema") == 0)
    return Status::Corruption(file_ + ": catalog without schema property");
  root_prefix_ = Property("root_prefix").value_or("");

  bool has_mtimens = false, has_xattr = false;
  {
    CVMFS_ASSIGN_OR_RETURN(SqliteStatement stmt,
                           db_->Prepare("PRAGMA table_info(catalog);"));
    bool any = false;
    while (true) {
      CVMFS_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      any = true;
      std::string column = stmt.ColumnText(1);
      if (column == "mtimens") has_mtimens = true;
      if (column == "xattr") has_xattr = true;
    }
    if (!any)
      return Status::Corruption(file_ + ": catalog without catalog table");
  }
  CVMFS_ASSIGN_OR_RETURN(
      int64_t bind_tables,
      db_->QueryInt64(
          "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
          "name = 'bind_mountpoints';"));
  has_bind_mountpoints_ = bind_tables > 0;
  CVMFS_ASSIGN_OR_RETURN(
      int64_t bundle_tables,
      db_->QueryInt64("SELECT count(*) FROM sqlite_master WHERE type = "
                      "'table' AND name = 'bundles';"));
  has_bundles_ = bundle_tables > 0;
  entry_columns_ = std::string("hash, size, mode, mtime, ") +
                   (has_mtimens ? "mtimens" : "NULL") +
                   ", flags, name, symlink, uid, gid, hardlinks, " +
                   (has_xattr ? "xattr" : "NULL") + ", rowid";
  return Status::Ok();
}

void Catalog::FinalizeStatements() {
  lookup_stmt_ = SqliteStatement();
  list_stmt_ = SqliteStatement();
  chunks_stmt_ = SqliteStatement();
  find_nested_stmt_ = SqliteStatement();
  bundles_stmt_ = SqliteStatement();
  row_by_id_stmt_ = SqliteStatement();
  row_by_key_stmt_ = SqliteStatement();
}

void Catalog::CloseDb() {
  FinalizeStatements();
  db_.reset();
}

Status Catalog::LimitPageCache(int kib) {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  return db_->Exec("PRAGMA cache_size = -" + std::to_string(kib) + ";");
}

Status Catalog::CheckOpen() const {
  if (!db_) return Status::InvalidArgument(file_ + ": catalog is closed");
  return Status::Ok();
}

void Catalog::SetCachedProperty(std::string_view key, std::string_view value) {
  properties_[std::string(key)] = std::string(value);
  if (key == "root_prefix") root_prefix_ = std::string(value);
}

Result<SqliteStatement*> Catalog::Cached(SqliteStatement* slot,
                                         const std::string& sql) {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  if (!slot->valid()) {
    CVMFS_ASSIGN_OR_RETURN(*slot, db_->Prepare(sql));
  }
  slot->Reset();
  return slot;
}

// ---------------------------------------------------------------------------
// Properties

std::optional<std::string> Catalog::Property(std::string_view key) const {
  auto it = properties_.find(key);
  if (it == properties_.end()) return std::nullopt;
  return it->second;
}

uint64_t Catalog::revision() const { return ParseU64(Property("revision"), 0); }

uint64_t Catalog::ttl() const {
  return ParseU64(Property("TTL"), kDefaultCatalogTtl);
}

int64_t Catalog::last_modified() const {
  return static_cast<int64_t>(ParseU64(Property("last_modified"), 0));
}

double Catalog::schema() const {
  auto text = Property("schema");
  return text ? std::strtod(text->c_str(), nullptr) : 0.0;
}

int Catalog::schema_revision() const {
  return static_cast<int>(ParseU64(Property("schema_revision"), 0));
}

std::optional<Digest> Catalog::previous_revision() const {
  auto text = Property("previous_revision");
  if (!text) return std::nullopt;
  auto digest = Digest::Parse(*text);
  if (!digest.ok() || digest->IsNull()) return std::nullopt;
  return *digest;
}

// ---------------------------------------------------------------------------
// Rows

Result<DirectoryEntry> Catalog::ReadEntry(const SqliteStatement& stmt,
                                          int first_col) const {
  auto col = [first_col](int c) { return first_col + c; };
  DirectoryEntry e;
  uint32_t flags = static_cast<uint32_t>(stmt.ColumnInt64(col(kColFlags)));
  DecodeFlags(flags, &e);
  if (e.hash_algorithm > HashAlgorithm::kShake128)
    return Status::Corruption(file_ + ": unknown hash algorithm in flags " +
                              std::to_string(flags));
  if (e.compression != Compression::kZlib &&
      e.compression != Compression::kNone)
    return Status::Corruption(file_ + ": unknown compression in flags " +
                              std::to_string(flags));
  e.name = stmt.ColumnText(col(kColName));
  e.mode = static_cast<uint32_t>(stmt.ColumnInt64(col(kColMode)));
  e.size = static_cast<uint64_t>(stmt.ColumnInt64(col(kColSize)));
  e.mtime = stmt.ColumnInt64(col(kColMtime));
  if (!stmt.ColumnIsNull(col(kColMtimeNs)))
    e.mtime_ns = static_cast<int32_t>(stmt.ColumnInt64(col(kColMtimeNs)));
  e.uid = static_cast<uint32_t>(stmt.ColumnInt64(col(kColUid)));
  e.gid = static_cast<uint32_t>(stmt.ColumnInt64(col(kColGid)));
  uint64_t hardlinks =
      static_cast<uint64_t>(stmt.ColumnInt64(col(kColHardlinks)));
  e.linkcount = static_cast<uint32_t>(hardlinks & 0xffffffffu);
  e.hardlink_group = static_cast<uint32_t>(hardlinks >> 32);
  std::string_view hash = stmt.ColumnBlob(col(kColHash));
  if (!hash.empty()) {
    auto digest = Digest::FromRaw(e.hash_algorithm, hash);
    if (!digest.ok())
      return digest.status().Annotate(file_ + ": entry '" + e.name + "'");
    e.content_hash = *digest;
  }
  e.symlink = stmt.ColumnText(col(kColSymlink));
  std::string_view xattr = stmt.ColumnBlob(col(kColXattr));
  if (!xattr.empty()) {
    auto list = ParseXattrs(xattr);
    if (!list.ok())
      return list.status().Annotate(file_ + ": entry '" + e.name + "'");
    e.xattrs = std::move(*list);
  }
  e.rowid = stmt.ColumnInt64(col(kColRowid));
  return e;
}

Result<std::vector<DirectoryEntry>> Catalog::ReadEntries(
    SqliteStatement* stmt) {
  std::vector<DirectoryEntry> entries;
  while (true) {
    CVMFS_ASSIGN_OR_RETURN(bool row, stmt->Step());
    if (!row) break;
    CVMFS_ASSIGN_OR_RETURN(DirectoryEntry e, ReadEntry(*stmt, 0));
    entries.push_back(std::move(e));
  }
  stmt->Reset();
  return entries;
}

Result<std::optional<DirectoryEntry>> Catalog::Lookup(std::string_view path) {
  return LookupByKey(HashPath(path));
}

Result<std::optional<DirectoryEntry>> Catalog::LookupByKey(
    const PathHash& key) {
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement * stmt,
      Cached(&lookup_stmt_,
             "SELECT " + entry_columns_ +
                 " FROM catalog WHERE md5path_1 = ?1 AND md5path_2 = ?2;"));
  stmt->BindInt64(1, key.md5_1).BindInt64(2, key.md5_2);
  CVMFS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  if (!row) {
    stmt->Reset();
    return std::optional<DirectoryEntry>();
  }
  auto entry = ReadEntry(*stmt, 0);
  stmt->Reset();
  if (!entry.ok()) return entry.status();
  return std::optional<DirectoryEntry>(std::move(entry).value());
}

Result<std::optional<CatalogRow>> Catalog::ReadRow(SqliteStatement* stmt) {
  CVMFS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  if (!row) {
    stmt->Reset();
    return std::optional<CatalogRow>();
  }
  CatalogRow out;
  out.key = PathHash{stmt->ColumnInt64(0), stmt->ColumnInt64(1)};
  out.parent = PathHash{stmt->ColumnInt64(2), stmt->ColumnInt64(3)};
  auto entry = ReadEntry(*stmt, 4);
  stmt->Reset();
  if (!entry.ok()) return entry.status();
  out.entry = std::move(entry).value();
  return std::optional<CatalogRow>(std::move(out));
}

Result<std::optional<CatalogRow>> Catalog::RowById(int64_t rowid) {
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement * stmt,
      Cached(&row_by_id_stmt_,
             "SELECT md5path_1, md5path_2, parent_1, "
             "parent_2, " +
                 entry_columns_ + " FROM catalog WHERE rowid = ?1;"));
  stmt->BindInt64(1, rowid);
  return ReadRow(stmt);
}

Result<std::optional<CatalogRow>> Catalog::RowByKey(const PathHash& key) {
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement * stmt,
      Cached(&row_by_key_stmt_,
             "SELECT md5path_1, md5path_2, parent_1, parent_2, " +
                 entry_columns_ +
                 " FROM catalog WHERE md5path_1 = ?1 AND md5path_2 = ?2;"));
  stmt->BindInt64(1, key.md5_1).BindInt64(2, key.md5_2);
  return ReadRow(stmt);
}

Result<std::vector<DirectoryEntry>> Catalog::List(std::string_view dir_path) {
  return ListByKey(HashPath(dir_path));
}

Result<std::vector<DirectoryEntry>> Catalog::ListByKey(const PathHash& parent) {
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement * stmt,
      Cached(&list_stmt_,
             "SELECT " + entry_columns_ +
                 " FROM catalog WHERE parent_1 = ?1 AND parent_2 = ?2"
                 " ORDER BY name;"));
  stmt->BindInt64(1, parent.md5_1).BindInt64(2, parent.md5_2);
  return ReadEntries(stmt);
}

Result<std::vector<FileChunk>> Catalog::Chunks(std::string_view path) {
  // The chunk hashes use the algorithm of the file's flags.
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement * stmt,
      Cached(&chunks_stmt_,
             "SELECT chunks.offset, chunks.size, chunks.hash, catalog.flags "
             "FROM chunks "
             "LEFT JOIN catalog ON catalog.md5path_1 = chunks.md5path_1 AND "
             "catalog.md5path_2 = chunks.md5path_2 "
             "WHERE chunks.md5path_1 = ?1 AND chunks.md5path_2 = ?2 "
             "ORDER BY chunks.offset ASC;"));
  PathHash key = HashPath(path);
  stmt->BindInt64(1, key.md5_1).BindInt64(2, key.md5_2);
  std::vector<FileChunk> chunks;
  while (true) {
    CVMFS_ASSIGN_OR_RETURN(bool row, stmt->Step());
    if (!row) break;
    DirectoryEntry flags_only;
    DecodeFlags(static_cast<uint32_t>(stmt->ColumnInt64(3)), &flags_only);
    if (flags_only.hash_algorithm > HashAlgorithm::kShake128) {
      stmt->Reset();
      return Status::Corruption(file_ + ": bad hash algorithm of chunked file");
    }
    FileChunk chunk;
    chunk.offset = static_cast<uint64_t>(stmt->ColumnInt64(0));
    chunk.size = static_cast<uint64_t>(stmt->ColumnInt64(1));
    auto digest =
        Digest::FromRaw(flags_only.hash_algorithm, stmt->ColumnBlob(2));
    if (!digest.ok()) {
      stmt->Reset();
      return digest.status().Annotate(file_ + ": chunk of '" +
                                      std::string(path) + "'");
    }
    chunk.hash = *digest;
    chunks.push_back(chunk);
  }
  stmt->Reset();
  return chunks;
}

Result<std::vector<NestedCatalogRef>> Catalog::ReadRefs(
    const std::string& sql) {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  CVMFS_ASSIGN_OR_RETURN(SqliteStatement stmt, db_->Prepare(sql));
  std::vector<NestedCatalogRef> refs;
  while (true) {
    CVMFS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    NestedCatalogRef ref;
    ref.path = stmt.ColumnText(0);
    auto digest = Digest::Parse(stmt.ColumnText(1));
    if (!digest.ok())
      return digest.status().Annotate(file_ + ": '" + ref.path + "'");
    ref.hash = *digest;
    ref.size = static_cast<uint64_t>(stmt.ColumnInt64(2));
    refs.push_back(std::move(ref));
  }
  return refs;
}

Result<std::vector<NestedCatalogRef>> Catalog::NestedCatalogs() {
  return ReadRefs(
      "SELECT path, sha1, size FROM nested_catalogs ORDER BY path;");
}

Result<std::vector<NestedCatalogRef>> Catalog::BindMountpoints() {
  if (!has_bind_mountpoints_) return std::vector<NestedCatalogRef>();
  return ReadRefs(
      "SELECT path, sha1, size FROM bind_mountpoints ORDER BY path;");
}

Result<std::vector<BundleRef>> Catalog::ReadBundles(SqliteStatement* stmt) {
  std::vector<BundleRef> rows;
  while (true) {
    Result<bool> row = stmt->Step();
    if (!row.ok() || !*row) {
      stmt->Reset();
      if (!row.ok()) return row.status();
      break;
    }
    BundleRef ref;
    ref.path = stmt->ColumnText(0);
    ref.first_name = stmt->ColumnText(1);
    auto digest = Digest::Parse(stmt->ColumnText(2));
    if (!digest.ok()) {
      stmt->Reset();
      return digest.status().Annotate(file_ + ": bundle of '" + ref.path + "'");
    }
    ref.hash = *digest;
    ref.size = static_cast<uint64_t>(stmt->ColumnInt64(3));
    ref.members = static_cast<uint32_t>(stmt->ColumnInt64(4));
    rows.push_back(std::move(ref));
  }
  return rows;
}

Result<std::vector<BundleRef>> Catalog::Bundles(std::string_view dir_path) {
  if (!has_bundles_) return std::vector<BundleRef>();
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement * stmt,
      Cached(&bundles_stmt_,
             "SELECT path, first_name, hash, size, members FROM bundles "
             "WHERE path = ?1 ORDER BY first_name;"));
  stmt->BindText(1, dir_path);
  return ReadBundles(stmt);
}

Result<std::vector<BundleRef>> Catalog::AllBundles() {
  if (!has_bundles_) return std::vector<BundleRef>();
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db_->Prepare("SELECT path, first_name, hash, size, members FROM bundles "
                   "ORDER BY path, first_name;"));
  return ReadBundles(&stmt);
}

Result<std::optional<NestedCatalogRef>> Catalog::FindNested(
    std::string_view path) {
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement * stmt,
      Cached(&find_nested_stmt_,
             "SELECT sha1, size FROM nested_catalogs WHERE path = ?1;"));
  stmt->BindText(1, path);
  CVMFS_ASSIGN_OR_RETURN(bool row, stmt->Step());
  std::optional<NestedCatalogRef> result;
  if (row) {
    auto digest = Digest::Parse(stmt->ColumnText(0));
    if (!digest.ok()) {
      stmt->Reset();
      return digest.status().Annotate(file_ + ": '" + std::string(path) + "'");
    }
    result = NestedCatalogRef{std::string(path), *digest,
                              static_cast<uint64_t>(stmt->ColumnInt64(1))};
  }
  stmt->Reset();
  return result;
}

Result<CatalogCounters> Catalog::ReadCounters() {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db_->Prepare("SELECT counter, value FROM statistics;"));
  CatalogCounters counters;
  while (true) {
    CVMFS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    int64_t* value = counters.Find(stmt.ColumnText(0));
    if (value != nullptr) *value = stmt.ColumnInt64(1);
  }
  return counters;
}

Result<int64_t> Catalog::MaxRowId() {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  return db_->QueryInt64("SELECT COALESCE(MAX(rowid), 0) FROM catalog;");
}

Status Catalog::ForEachEntry(const RowVisitor& visit) {
  CVMFS_RETURN_IF_ERROR(CheckOpen());
  CVMFS_ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db_->Prepare("SELECT md5path_1, md5path_2, parent_1, parent_2, " +
                   entry_columns_ + " FROM catalog ORDER BY rowid;"));
  while (true) {
    CVMFS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return Status::Ok();
    PathHash key{stmt.ColumnInt64(0), stmt.ColumnInt64(1)};
    PathHash parent{stmt.ColumnInt64(2), stmt.ColumnInt64(3)};
    CVMFS_ASSIGN_OR_RETURN(DirectoryEntry entry, ReadEntry(stmt, 4));
    CVMFS_RETURN_IF_ERROR(visit(key, parent, entry));
  }
}

Status Catalog::Walk(const PathVisitor& visit) {
  CVMFS_ASSIGN_OR_RETURN(std::optional<DirectoryEntry> root,
                         Lookup(root_prefix_));
  if (!root) {
    return Status::Corruption(file_ + ": no root entry for '" + root_prefix_ +
                              "'");
  }
  // Explicit stack: paths can be deep.
  std::vector<std::pair<std::string, DirectoryEntry>> stack;
  stack.emplace_back(root_prefix_, std::move(*root));
  while (!stack.empty()) {
    std::pair<std::string, DirectoryEntry> item = std::move(stack.back());
    stack.pop_back();
    CVMFS_RETURN_IF_ERROR(visit(item.first, item.second));
    const DirectoryEntry& e = item.second;
    if (!e.IsDirectory() || e.nested_mountpoint) continue;
    CVMFS_ASSIGN_OR_RETURN(std::vector<DirectoryEntry> children,
                           List(item.first));
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      std::string child_path = item.first + "/" + it->name;
      stack.emplace_back(std::move(child_path), std::move(*it));
    }
  }
  return Status::Ok();
}

}  // namespace cvmfs
