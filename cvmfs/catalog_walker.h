// CatalogWalker: visits every catalog of a revision, parents before children.
//
// Each catalog object is fetched from the store, checked against its hash,
// decompressed into a temporary file and opened read-only; the visitor sees
// it while it is open. Used by `cvmfs_server check` and `list-catalogs`, by
// replication, and by tests that compare a published tree with its source.
#ifndef CVMFS_CATALOG_WALKER_H_
#define CVMFS_CATALOG_WALKER_H_

#include <functional>
#include <memory>
#include <string>

#include "cvmfs/catalog/catalog.h"
#include "cvmfs/hash.h"
#include "cvmfs/object_store.h"
#include "cvmfs/status.h"

namespace cvmfs {

struct CatalogVisit {
  std::string mountpoint;  // "" for the root catalog
  Digest hash;
  uint64_t size = 0;  // uncompressed bytes
  int depth = 0;
  Catalog* catalog = nullptr;  // valid during the visit only
};

class CatalogWalker {
 public:
  // `temp_dir` must exist and be private to the caller.
  CatalogWalker(ObjectStore* store, std::string temp_dir);

  // Returning a non-ok status from `visit` stops the walk with that status.
  Status Walk(const Digest& root,
              const std::function<Status(const CatalogVisit&)>& visit);

  // Fetches, verifies and opens one catalog object. The file is removed
  // when the returned handle is destroyed.
  Result<std::unique_ptr<Catalog>> Load(const Digest& hash);

  // Visits every entry below `catalog`'s root with its full path, in
  // directory order; does not descend into nested catalogs.
  static Status ForEachPath(
      Catalog* catalog,
      const std::function<Status(const std::string& path,
                                 const DirectoryEntry& entry)>& visit);

 private:
  Status WalkOne(const std::string& mountpoint, const Digest& hash,
                 uint64_t size, int depth,
                 const std::function<Status(const CatalogVisit&)>& visit);
  ObjectStore* store_;  // not owned
  std::string temp_dir_;
  int counter_ = 0;
};

}  // namespace cvmfs

#endif  // CVMFS_CATALOG_WALKER_H_
