// CatalogTree: the writable set of catalogs of the revision being built.
//
// It starts from a published root catalog and loads nested catalogs only when
// a change reaches below their mountpoint, so a small change to a large
// repository touches only the catalogs on its path. Paths are absolute inside
// the repository ("" is the root, "/a/b" otherwise).
//
// Commit() writes the dirty catalogs (always the root, which carries the
// revision; a Put equal to the row already there dirties nothing) leaves
// first: each gets its counters
// (self_* recomputed from its rows, subtree_* updated by the change in its
// children's totals), revision, last_modified and previous_revision, is
// compressed and stored as a `C` object, and its hash goes into the parent's
// nested_catalogs row. The root catalog's hash and size are returned for the
// manifest. Nothing is visible to clients until the manifest is written.
//
// Layout of the nodes:
//
//   Node(root, "")  ── children by mountpoint ──►  Node("/a", loaded lazily)
//       db: WritableCatalog on a decompressed copy in the temp directory
//
// Thread safety: none; one publisher thread owns the tree.
#ifndef PUBLISHER_CATALOG_TREE_H_
#define PUBLISHER_CATALOG_TREE_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cvmfs/bundle.h"
#include "cvmfs/catalog/catalog.h"
#include "cvmfs/catalog/dirent.h"
#include "cvmfs/catalog/writable_catalog.h"
#include "cvmfs/hash.h"
#include "cvmfs/object_store.h"
#include "cvmfs/status.h"

namespace publisher {

struct CatalogTreeOptions {
  cvmfs::HashAlgorithm hash_algorithm = cvmfs::HashAlgorithm::kSha1;
  uint64_t ttl = 240;
  std::string temp_dir;  // where catalogs are decompressed and built
};

struct CommitResult {
  cvmfs::Digest root_hash;
  uint64_t root_size = 0;                       // uncompressed bytes
  std::vector<std::string> committed_catalogs;  // mountpoints, leaves first
};

class CatalogTree {
 public:
  // The tree of the published revision whose root catalog is `root_hash`.
  static cvmfs::Result<std::unique_ptr<CatalogTree>> Open(
      cvmfs::ObjectStore* store, const cvmfs::Digest& root_hash,
      CatalogTreeOptions options);
  // A tree holding only an empty root directory (for mkfs).
  static cvmfs::Result<std::unique_ptr<CatalogTree>> CreateEmpty(
      cvmfs::ObjectStore* store, const cvmfs::DirectoryEntry& root,
      CatalogTreeOptions options);
  ~CatalogTree();

  cvmfs::Result<std::optional<cvmfs::DirectoryEntry>> Lookup(
      const std::string& path);
  cvmfs::Result<std::vector<cvmfs::DirectoryEntry>> List(
      const std::string& dir);
  // The chunk rows of the chunked file at `path`.
  cvmfs::Result<std::vector<cvmfs::FileChunk>> Chunks(const std::string& path);

  // Adds or replaces the entry at `path`; its parent must be a directory.
  // A replaced directory keeps its contents; replacing a directory with a
  // non-directory removes the directory's subtree first. An entry equal to
  // its row (and chunks) changes nothing.
  cvmfs::Status Put(const std::string& path, const cvmfs::DirectoryEntry& entry,
                    const std::vector<cvmfs::FileChunk>& chunks = {});
  // Removes `path` and, for a directory, everything below it (including the
  // nested catalogs there). A missing path is ok.
  cvmfs::Status Remove(const std::string& path);
  // Makes directory `dir` the root of a new nested catalog, moving its
  // subtree out of the catalog that holds it now. No-op if it already is.
  cvmfs::Status CreateNestedCatalog(const std::string& dir);
  // Merges the nested catalog at `dir` back into its parent catalog.
  cvmfs::Status RemoveNestedCatalog(const std::string& dir);
  bool IsNestedCatalogRoot(const std::string& dir);

  // Bind mountpoints (doc/format-catalog.md 1.9): grafts the root catalog
  // `ref.hash` at `ref.path` as the directory row `entry` (given the bind
  // flag here), replacing whatever is there, in the catalog holding the
  // path. Remove() of the row (or of a directory above it) drops its
  // bind_mountpoints row too.
  cvmfs::Status PutBindMountpoint(const cvmfs::NestedCatalogRef& ref,
                                  cvmfs::DirectoryEntry entry);
  // The bind_mountpoints rows of the catalog holding `dir`.
  cvmfs::Result<std::vector<cvmfs::NestedCatalogRef>> BindMountpoints(
      const std::string& dir);
  // The root entry and uncompressed size of the (published) root catalog
  // `root_hash`, e.g. a tag's.
  cvmfs::Result<std::pair<cvmfs::DirectoryEntry, uint64_t>> RootOf(
      const cvmfs::Digest& root_hash);

  // Bundles (doc/format-bundles.md): the rows of directory `dir`, kept in
  // the catalog holding its entries (for a nested catalog's root, the
  // nested catalog). SetBundles replaces them; rows equal to the stored
  // ones change nothing. Removing a directory removes its rows; moving it
  // into or out of a nested catalog moves them.
  cvmfs::Result<std::vector<cvmfs::BundleRef>> Bundles(const std::string& dir);
  cvmfs::Status SetBundles(const std::string& dir,
                           const std::vector<cvmfs::BundleRef>& rows);
  // Directories whose direct non-directory children were added, removed or
  // changed since the tree was opened (those whose bundles may change).
  const std::set<std::string>& changed_file_dirs() const {
    return changed_file_dirs_;
  }

  // The store catalogs and objects are read from and written to.
  cvmfs::ObjectStore* store() const { return store_; }

  cvmfs::Result<CommitResult> Commit(uint64_t revision, int64_t timestamp);

 private:
  struct Node;
  CatalogTree(cvmfs::ObjectStore* store, CatalogTreeOptions options);
  cvmfs::Result<std::unique_ptr<Node>> LoadNode(const std::string& mountpoint,
                                                const cvmfs::Digest& hash,
                                                Node* parent);
  // The catalog responsible for `path` (the deepest whose mountpoint
  // prefixes it), loading nested catalogs on the way.
  cvmfs::Result<Node*> NodeFor(const std::string& path);
  cvmfs::Status RemoveSubtree(Node* node, const std::string& path);
  cvmfs::Status DropNode(Node* parent, const std::string& mountpoint);
  cvmfs::Status DropBindMountpoint(Node* node, const std::string& path);
  cvmfs::Status MoveSubtree(Node* from, Node* to, const std::string& dir);
  cvmfs::Status FixDirectoryLinkcounts();
  cvmfs::Status CommitNode(Node* node, uint64_t revision, int64_t timestamp,
                           CommitResult* result);
  // Counters, properties, compression and storing of one dirty catalog.
  cvmfs::Status WriteNode(Node* node, uint64_t revision, int64_t timestamp,
                          const cvmfs::CounterSet& children_change,
                          CommitResult* result);
  std::string NewTempFile();
  // Gives the newly opened catalog `added` its share of the page cache
  // budget, shrinking the others' when it gets smaller.
  cvmfs::Status ShareCacheBudget(Node* added);
  void MarkDirty(Node* node);
  void ForgetKnownDir() { known_dir_node_ = nullptr; }
  cvmfs::Status CheckParentDirectory(Node* node, const std::string& path,
                                     const std::string& parent_path);
  // Put for a path without a row yet.
  cvmfs::Status AddNew(Node* node, const std::string& path,
                       cvmfs::DirectoryEntry entry,
                       const std::vector<cvmfs::FileChunk>& chunks);
  // Whether Put of `entry` would leave the row `existing` (and its chunks)
  // as it is.
  cvmfs::Result<bool> Unchanged(
      Node* node, const std::string& path, cvmfs::DirectoryEntry entry,
      const std::vector<cvmfs::FileChunk>& chunks,
      const std::optional<cvmfs::DirectoryEntry>& existing);

  cvmfs::ObjectStore* store_;  // not owned
  CatalogTreeOptions options_;
  std::unique_ptr<Node> root_;
  std::set<std::string>
      touched_dirs_;  // directories whose link count may change
  std::set<std::string> changed_file_dirs_;
  // The parent directory of the last Put, known to exist in that catalog:
  // files arrive directory by directory, so most Puts skip looking up their
  // parent. Cleared by every change that may remove or move a directory.
  std::string known_dir_;
  Node* known_dir_node_ = nullptr;
  int temp_counter_ = 0;
  // SQLite page cache of the catalogs being written: up to 64 MiB for one
  // (the primary key index of a 1,000,000-entry catalog, about 50 MB, stays
  // in memory while entries arrive in random key order), 96 MiB for all,
  // at least 2 MiB each.
  static constexpr size_t kCatalogCacheBudget = 96u << 20;
  static constexpr size_t kMaxCatalogCache = 64u << 20;
  static constexpr size_t kMinCatalogCache = 2u << 20;
  size_t catalogs_opened_ = 0;
  size_t cache_share_ = 0;
};

}  // namespace publisher

#endif  // PUBLISHER_CATALOG_TREE_H_
