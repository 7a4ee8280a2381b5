// WritableCatalog: builds or changes one catalog file, schema 2.5 revision 7,
// byte-for-byte in the layout CVMFS 2.12 writes (doc/format-catalog.md).
//
// Life cycle: Create (a new file) or OpenForWriting (an existing catalog,
// e.g. the decompressed previous revision) starts one SQLite transaction that
// spans every change; Commit writes statistics and properties, commits,
// VACUUMs when worthwhile and closes the file, which is then ready to be
// compressed and stored. Destroying an uncommitted WritableCatalog rolls all
// changes back. After Commit the object only answers with errors.
//
// The reading API of Catalog (Lookup, List, Chunks, ...) works on the
// uncommitted state, which is what change application needs.
//
// Counters: self_* are recomputed from the rows at Commit (ComputeCounters),
// subtree_* are whatever SetSubtreeCounters last set (initially the values
// in the file, zero for a new catalog); the publisher aggregates them.
//
// Thread safety: none (see Catalog).
#ifndef CVMFS_CATALOG_WRITABLE_CATALOG_H_
#define CVMFS_CATALOG_WRITABLE_CATALOG_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/catalog/catalog.h"

namespace cvmfs {

inline constexpr const char* kCatalogSchema = "2.5";
inline constexpr int kCatalogSchemaRevision = 7;

class WritableCatalog : public Catalog {
 public:
  // Creates `file` (which must not exist) with the schema, the properties
  // schema/schema_revision/revision(0)/root_prefix (nested only)/
  // last_modified, the 24 statistics rows and the root entry at
  // `root_prefix`: parent key (0,0) and flags 1 for the repository root
  // ("" and !is_nested), the key of the parent path and flags 33 (nested
  // root) for a nested catalog. The root entry's name is taken from the path.
  static Result<std::unique_ptr<WritableCatalog>> Create(
      const std::string& file, const std::string& root_prefix,
      const DirectoryEntry& root_entry, bool is_nested);
  // An existing schema 2.5 revision 7 catalog (NotSupported otherwise).
  static Result<std::unique_ptr<WritableCatalog>> OpenForWriting(
      const std::string& file);
  ~WritableCatalog() override;

  // `path` is the full repository path ("/a/b") at or below root_prefix();
  // the row's name is its last component. AlreadyExists for a duplicate.
  Status AddEntry(std::string_view path, const DirectoryEntry& entry);
  // Rewrites all columns but the keys; the rowid (inode) is kept. NotFound if
  // there is no such row.
  Status UpdateEntry(std::string_view path, const DirectoryEntry& entry);
  // Removes the row and its chunks. NotFound if there is no such row.
  Status RemoveEntry(std::string_view path);
  // Replaces the chunk rows of `path` (an empty vector removes them).
  Status SetChunks(std::string_view path, const std::vector<FileChunk>& chunks);

  Status AddNestedCatalog(const NestedCatalogRef& ref);
  Status UpdateNestedCatalog(
      const NestedCatalogRef& ref);                   // NotFound if absent
  Status RemoveNestedCatalog(std::string_view path);  // NotFound if absent
  // Rows of bind_mountpoints (doc/format-catalog.md 1.9): AlreadyExists /
  // NotFound as for nested catalogs.
  Status AddBindMountpoint(const NestedCatalogRef& ref);
  Status RemoveBindMountpoint(std::string_view path);
  // Replaces the `bundles` rows of the directory `dir_path` with `rows`
  // (doc/format-bundles.md; each row's path must be `dir_path`); an empty
  // vector removes them. The table is created on first use.
  Status SetBundles(std::string_view dir_path,
                    const std::vector<BundleRef>& rows);

  // The SQLite page cache of this catalog (8 MiB until set): what a large
  // change keeps of the file in memory; the rest is read back from the
  // kernel's page cache.
  Status SetCacheSize(size_t bytes);

  Status SetProperty(std::string_view key, std::string_view value);
  Status SetSubtreeCounters(const CounterSet& subtree);
  const CounterSet& subtree_counters() const { return subtree_; }

  // self_* from the rows (see CounterSet for the counting rules) and the
  // current subtree counters.
  Result<CatalogCounters> ComputeCounters();

  // Writes the statistics and the properties TTL (when `ttl` is given),
  // last_modified, revision and previous_revision (the hex hash, or 40 zeros
  // when there is none; omitted only for revision 0 without predecessor, as
  // mkfs does), commits, compacts and VACUUMs when more than 20% of the pages
  // are free or more than 25% of the rowids are unused, and closes the file.
  Status Commit(uint64_t revision, int64_t last_modified,
                const std::optional<Digest>& previous_revision,
                std::optional<uint64_t> ttl);
  // Rolls back all changes since Create/OpenForWriting and closes the file.
  Status Abort();

 private:
  Status InsertReference(std::string_view table, std::string_view what,
                         const NestedCatalogRef& ref);
  Status DeleteReference(std::string_view table, std::string_view what,
                         std::string_view path);
  WritableCatalog(std::unique_ptr<SqliteDb> db, std::string file);
  Status Begin();
  // Schema, properties, statistics and root row of a new catalog.
  Status InitNew(const std::string& root_prefix,
                 const DirectoryEntry& root_entry, bool is_nested);
  Status CheckPath(std::string_view path) const;
  Status BindEntry(SqliteStatement* stmt, std::string_view path,
                   const DirectoryEntry& entry);
  Status WriteStatistics(const CatalogCounters& counters);
  Status VacuumIfWorthwhile();
  void CloseStatements();

  CounterSet subtree_;
  bool in_transaction_ = false;
  SqliteStatement insert_stmt_;
  SqliteStatement update_stmt_;
  SqliteStatement delete_stmt_;
  SqliteStatement delete_chunks_stmt_;
  SqliteStatement insert_chunk_stmt_;
};

}  // namespace cvmfs

#endif  // CVMFS_CATALOG_WRITABLE_CATALOG_H_
