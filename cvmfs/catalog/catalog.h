// Catalog: read access to one SQLite file catalog, schema 2.5 (revisions 0-7)
// as CVMFS 2.12 writes it (doc/format-catalog.md).
//
// A catalog covers the subtree below its root_prefix ("" for the repository
// root catalog, "/a/b" for a nested one). Rows are keyed by the MD5 of the
// full path inside the repository, so all paths taken and returned here are
// absolute repository paths ("" = repository root, otherwise "/a/b").
// Whether a path belongs to this catalog or to a nested one is the caller's
// business (see FindNested and DirectoryEntry::nested_mountpoint).
//
// The catalog file is opened read-only and treated as immutable (it is a
// content-addressed object): no locks, no journal. Properties are read once
// at Open; prepared statements are cached in the object.
//
// Thread safety: none. A Catalog (and any WritableCatalog) is used by one
// thread at a time; concurrent readers open their own Catalog objects.
#ifndef CVMFS_CATALOG_CATALOG_H_
#define CVMFS_CATALOG_CATALOG_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/bundle.h"
#include "cvmfs/catalog/dirent.h"
#include "cvmfs/hash.h"
#include "cvmfs/path_hash.h"
#include "cvmfs/sqlite_db.h"
#include "cvmfs/status.h"

namespace cvmfs {

inline constexpr uint64_t kDefaultCatalogTtl = 240;  // seconds

// A row with its keys: the MD5 of its path and of its parent's path.
struct CatalogRow {
  PathHash key, parent;
  DirectoryEntry entry;
};

class Catalog {
 public:
  // Called for every row: the row's own key, its parent's key and the entry.
  using RowVisitor =
      std::function<Status(const PathHash& key, const PathHash& parent,
                           const DirectoryEntry& entry)>;
  // Called with the full repository path of an entry.
  using PathVisitor = std::function<Status(const std::string& path,
                                           const DirectoryEntry& entry)>;

  // Corruption if the file is not an SQLite catalog.
  static Result<std::unique_ptr<Catalog>> Open(const std::string& sqlite_file);
  virtual ~Catalog();
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  // nullopt if the catalog has no row for `path`.
  Result<std::optional<DirectoryEntry>> Lookup(std::string_view path);
  Result<std::optional<DirectoryEntry>> LookupByKey(const PathHash& key);
  // The row with this rowid, or the row keyed `key`, with its keys (the
  // client rebuilds an entry's path from its inode: rowid, then parents).
  Result<std::optional<CatalogRow>> RowById(int64_t rowid);
  Result<std::optional<CatalogRow>> RowByKey(const PathHash& key);
  // Rows whose parent is `dir_path`, sorted by name (bytewise). Hidden
  // entries are included; nested catalog contents are not (they live in the
  // nested catalog).
  Result<std::vector<DirectoryEntry>> List(std::string_view dir_path);
  Result<std::vector<DirectoryEntry>> ListByKey(const PathHash& parent);
  // The chunks of `path`, ordered by offset (empty for unchunked files).
  Result<std::vector<FileChunk>> Chunks(std::string_view path);
  // Rows of nested_catalogs, sorted by path.
  Result<std::vector<NestedCatalogRef>> NestedCatalogs();
  Result<std::optional<NestedCatalogRef>> FindNested(std::string_view path);
  // Rows of bind_mountpoints (empty for catalogs older than revision 4).
  Result<std::vector<NestedCatalogRef>> BindMountpoints();
  // Rows of the `bundles` table (doc/format-bundles.md) for the directory
  // `dir_path`, sorted by first_name; all rows (sorted by path, first_name)
  // with AllBundles. Empty when the catalog has no such table.
  Result<std::vector<BundleRef>> Bundles(std::string_view dir_path);
  Result<std::vector<BundleRef>> AllBundles();
  bool has_bundles() const { return has_bundles_; }

  // Properties, as read at Open (or set since, for a WritableCatalog).
  uint64_t revision() const;
  const std::string& root_prefix() const { return root_prefix_; }
  bool is_root() const { return root_prefix_.empty(); }
  // Property TTL; kDefaultCatalogTtl when absent (nested catalogs).
  uint64_t ttl() const;
  // nullopt when absent or all zeros (a catalog without predecessor).
  std::optional<Digest> previous_revision() const;
  int64_t last_modified() const;
  double schema() const;
  int schema_revision() const;
  std::optional<std::string> Property(std::string_view key) const;
  const std::string& file() const { return file_; }
  // Caps SQLite's page cache of this connection at `kib` KiB (SQLite's
  // default is 2 MiB per connection).
  Status LimitPageCache(int kib);

  // The statistics table; missing rows read as 0.
  Result<CatalogCounters> ReadCounters();
  // Largest rowid of the catalog table (0 when empty).
  Result<int64_t> MaxRowId();

  // Visits all rows in rowid order. The visitor may call other methods.
  Status ForEachEntry(const RowVisitor& visit);
  // Visits the catalog's root entry (path root_prefix()) and then, depth
  // first in name order, everything below it that this catalog holds. Does
  // not descend below nested mountpoints (their rows are visited).
  Status Walk(const PathVisitor& visit);

 protected:
  Catalog(std::unique_ptr<SqliteDb> db, std::string file);
  // Reads properties and the column layout.
  Status Init();
  // Finalizes the cached statements (they are re-prepared on demand).
  void FinalizeStatements();
  // Finalizes cached statements and closes the database.
  void CloseDb();
  Status CheckOpen() const;
  SqliteDb* db() { return db_.get(); }
  void SetCachedProperty(std::string_view key, std::string_view value);
  void MarkHasBundles() { has_bundles_ = true; }
  // Prepares `sql` into *slot on first use and resets it for reuse.
  Result<SqliteStatement*> Cached(SqliteStatement* slot,
                                  const std::string& sql);

 private:
  Result<DirectoryEntry> ReadEntry(const SqliteStatement& stmt,
                                   int first_col) const;
  Result<std::vector<DirectoryEntry>> ReadEntries(SqliteStatement* stmt);
  Result<std::optional<CatalogRow>> ReadRow(SqliteStatement* stmt);
  Result<std::vector<NestedCatalogRef>> ReadRefs(const std::string& sql);
  Result<std::vector<BundleRef>> ReadBundles(SqliteStatement* stmt);

  std::unique_ptr<SqliteDb> db_;
  std::string file_;
  std::map<std::string, std::string, std::less<>> properties_;
  std::string root_prefix_;
  // The dirent columns to select; "NULL" stands in for columns that older
  // schema revisions lack (mtimens < 7, xattr < 2).
  std::string entry_columns_;
  bool has_bind_mountpoints_ = true;
  bool has_bundles_ = false;
  // Cached statements; destroyed (finalized) before db_.
  SqliteStatement lookup_stmt_;
  SqliteStatement list_stmt_;
  SqliteStatement chunks_stmt_;
  SqliteStatement find_nested_stmt_;
  SqliteStatement bundles_stmt_;
  SqliteStatement row_by_id_stmt_;
  SqliteStatement row_by_key_stmt_;
};

}  // namespace cvmfs

#endif  // CVMFS_CATALOG_CATALOG_H_
