#include "cvmfs/catalog_walker.h"

#include <unistd.h>

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"

namespace cvmfs {

CatalogWalker::CatalogWalker(ObjectStore* store, std::string temp_dir)
    : store_(store), temp_dir_(std::move(temp_dir)) {}

Result<std::unique_ptr<Catalog>> CatalogWalker::Load(const Digest& hash) {
  std::string name = ObjectPath(hash, ObjectSuffix::kCatalog);
  CVMFS_ASSIGN_OR_RETURN(
      std::string raw,
      ReadVerifiedObject(store_, hash, ObjectSuffix::kCatalog));
  std::string file = temp_dir_ + "/walk." + std::to_string(++counter_) + ".db";
  CVMFS_RETURN_IF_ERROR(WriteFileAtomic(file, raw, 0600));
  auto catalog = Catalog::Open(file);
  // The open database keeps the inode alive; the name can go now.
  ::unlink(file.c_str());
  if (!catalog.ok()) return catalog.status().Annotate(name);
  return catalog;
}

Status CatalogWalker::Walk(
    const Digest& root,
    const std::function<Status(const CatalogVisit&)>& visit) {
  return WalkOne("", root, 0, 0, visit);
}

Status CatalogWalker::WalkOne(
    const std::string& mountpoint, const Digest& hash, uint64_t size, int depth,
    const std::function<Status(const CatalogVisit&)>& visit) {
  CVMFS_ASSIGN_OR_RETURN(auto catalog, Load(hash));
  CatalogVisit v{mountpoint, hash, size, depth, catalog.get()};
  CVMFS_RETURN_IF_ERROR(visit(v));
  CVMFS_ASSIGN_OR_RETURN(auto nested, catalog->NestedCatalogs());
  catalog.reset();
  for (auto& ref : nested) {
    CVMFS_RETURN_IF_ERROR(
        WalkOne(ref.path, ref.hash, ref.size, depth + 1, visit));
  }
  return Status::Ok();
}

static Status ForEachBelow(
    Catalog* catalog, const std::string& dir,
    const std::function<Status(const std::string&, const DirectoryEntry&)>&
        visit) {
  CVMFS_ASSIGN_OR_RETURN(auto entries, catalog->List(dir));
  for (auto& e : entries) {
    std::string path = dir + "/" + e.name;
    CVMFS_RETURN_IF_ERROR(visit(path, e));
    if (e.IsDirectory() && !e.nested_mountpoint)
      CVMFS_RETURN_IF_ERROR(ForEachBelow(catalog, path, visit));
  }
  return Status::Ok();
}

Status CatalogWalker::ForEachPath(
    Catalog* catalog,
    const std::function<Status(const std::string&, const DirectoryEntry&)>&
        visit) {
  std::string root = catalog->root_prefix();
  CVMFS_ASSIGN_OR_RETURN(auto entry, catalog->Lookup(root));
  if (!entry)
    return Status::Corruption("catalog without its root entry " + root);
  CVMFS_RETURN_IF_ERROR(visit(root, *entry));
  return ForEachBelow(catalog, root, visit);
}

}  // namespace cvmfs
