// CatalogSet: the file catalogs of one mounted revision.
//
// The root catalog is attached at mount; a nested catalog is attached the
// first time a path below its mountpoint is needed. Attached catalogs stay
// open, pinned in the cache (never evicted), until the set is destroyed.
//
// Each attached catalog owns a range of inode numbers, [inode_base,
// inode_base + max_rowid]; an entry's inode is inode_base + its rowid (see
// doc/client.md, "Inodes"). Ranges are handed out from a counter that only
// grows, so catalogs attached later, or by a later revision's set, never
// reuse a number.
//
// Bind mountpoints (doc/format-catalog.md 1.9, CVMFS's /.cvmfs/snapshots)
// are transition points like nested catalogs, but the catalog attached there
// is another revision's root: its rows are keyed by paths without the
// mountpoint. A MountedCatalog therefore answers in *mount paths* (the paths
// the file system sees) and maps them into its own keys (CatalogPath); its
// nested catalogs and bind mountpoints are listed by mount path too.
//
// Concurrency: a Catalog (one SQLite connection) serves one thread at a
// time, so each attached catalog keeps a small pool of connections to the
// same immutable file; readers borrow one for the duration of a query and
// never wait for each other. `mu_` guards the tree of attached catalogs; it
// is held for map operations only, never during a download.
#ifndef CLIENT_CATALOG_SET_H_
#define CLIENT_CATALOG_SET_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cache/posix_cache.h"
#include "client/object_fetcher.h"
#include "cvmfs/catalog/catalog.h"
#include "cvmfs/mutex.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

class MountedCatalog {
 public:
  // Where the catalog is attached (mount path), and the path its rows are
  // keyed under (its root_prefix): equal except below a bind mountpoint.
  const std::string& mountpoint() const { return mountpoint_; }
  const std::string& root_prefix() const { return root_prefix_; }
  const Digest& hash() const { return hash_; }
  uint64_t inode_base() const { return inode_base_; }
  uint64_t max_rowid() const { return max_rowid_; }
  uint64_t ttl() const { return ttl_; }
  uint64_t revision() const { return revision_; }
  const CatalogCounters& counters() const { return counters_; }
  MountedCatalog* parent() const { return parent_; }

  // A catalog attached below this one: at `ref.path` (a mount path), keyed
  // under `root_prefix` (the nested catalog's own path, or "" for the
  // revision a bind mountpoint grafts in).
  struct Transition {
    NestedCatalogRef ref;
    std::string root_prefix;
  };
  // The nested catalog or bind mountpoint exactly at mount path `path`, if
  // this catalog lists one.
  const Transition* NestedAt(const std::string& path) const;

  // `path` (a mount path at or below mountpoint()) as this catalog keys it.
  std::string CatalogPath(const std::string& path) const;
  // Catalog queries by mount path (see Catalog for their contracts).
  Result<std::optional<DirectoryEntry>> Lookup(const std::string& path);
  Result<std::vector<DirectoryEntry>> List(const std::string& dir);
  Result<std::vector<FileChunk>> Chunks(const std::string& path);

  // The row numbered `rowid` with its mount path, and the rowid of its
  // parent directory's row when this catalog holds that row (0 when the
  // parent is this catalog's own root, whose inode the parent catalog's
  // mountpoint row gives). nullopt if there is no such row. The path is
  // rebuilt from the parents' rows (one query per level below the
  // catalog's root).
  struct Located {
    std::string path;
    DirectoryEntry entry;
    int64_t parent_rowid = 0;
  };
  Result<std::optional<Located>> Locate(int64_t rowid);

  // Runs `fn` with a connection to this catalog for itself; `fn` returns a
  // Status or Result (an IoError is returned if no connection can be made).
  template <typename Fn>
  auto With(Fn&& fn) -> decltype(fn(std::declval<Catalog&>())) {
    Lease lease(this);
    if (!lease.catalog)
      return Status::IoError("cannot open catalog " + hash_.ToString() + " (" +
                             file_ + ")");
    return fn(*lease.catalog);
  }

 private:
  friend class CatalogSet;
  struct Lease {
    explicit Lease(MountedCatalog* c);
    ~Lease();
    MountedCatalog* owner;
    std::unique_ptr<Catalog> catalog;
  };

  std::string mountpoint_, root_prefix_;
  Digest hash_;
  uint64_t inode_base_ = 0, max_rowid_ = 0, ttl_ = 0, revision_ = 0;
  CatalogCounters counters_;
  MountedCatalog* parent_ = nullptr;
  std::map<std::string, Transition> nested_;  // by mount path
  cache::CacheHandle handle_;                 // keeps the file open
  std::string file_;                          // /proc/self/fd/N of handle_

  // Guards pool_ (held for a vector push or pop only); leaf lock, taken
  // after CatalogSet::mu_ if both are ever held.
  cvmfs::Mutex pool_mu_;
  std::vector<std::unique_ptr<Catalog>> pool_ GUARDED_BY(pool_mu_);
};

class CatalogSet {
 public:
  // Attaches (downloading if needed) and pins root catalog `root_hash`.
  // Inode ranges start at `*next_inode`, which is advanced (shared between
  // successive sets of one mount).
  static Result<std::unique_ptr<CatalogSet>> Mount(
      ObjectFetcher* objects, cache::PosixCache* cache, const Digest& root_hash,
      std::atomic<uint64_t>* next_inode);
  ~CatalogSet();

  MountedCatalog* root() const { return root_.get(); }

  // The catalog holding the entry at `path`: the deepest catalog whose
  // mountpoint is `path` or a prefix of it. Attaches nested catalogs on the
  // way. (A nested mountpoint's own entry is answered by the nested catalog.)
  Result<MountedCatalog*> CatalogFor(const std::string& path);

  // The attached catalog whose inode range holds `inode`, or nullptr.
  MountedCatalog* CatalogForInode(uint64_t inode) const EXCLUDES(mu_);

  // Number of attached catalogs, and a snapshot of them (for statistics).
  size_t size() const EXCLUDES(mu_);
  std::vector<const MountedCatalog*> Attached() const EXCLUDES(mu_);

 private:
  CatalogSet(ObjectFetcher* objects, cache::PosixCache* cache,
             std::atomic<uint64_t>* next_inode)
      : objects_(objects), cache_(cache), next_inode_(next_inode) {}
  Result<std::unique_ptr<MountedCatalog>> Attach(const std::string& mountpoint,
                                                 const std::string& root_prefix,
                                                 const Digest& hash,
                                                 MountedCatalog* parent);
  Result<MountedCatalog*> Child(MountedCatalog* parent,
                                const MountedCatalog::Transition& at)
      EXCLUDES(mu_);

  ObjectFetcher* objects_;             // borrowed
  cache::PosixCache* cache_;           // borrowed
  std::atomic<uint64_t>* next_inode_;  // borrowed
  std::unique_ptr<MountedCatalog> root_;

  // Guards children_; held for map operations only (downloads and SQLite
  // opens happen outside it). Lock order: mu_ before any pool_mu_.
  mutable cvmfs::Mutex mu_;
  std::map<std::string, std::unique_ptr<MountedCatalog>> children_
      GUARDED_BY(mu_);  // nested, by mountpoint
  // Every attached catalog (the root too) by inode_base.
  std::map<uint64_t, MountedCatalog*> by_base_ GUARDED_BY(mu_);
};

}  // namespace cvmfs::client

#endif  // CLIENT_CATALOG_SET_H_
