#include "client/inode_locator.h"

#include <string>
#include <utility>

namespace cvmfs::client {

Result<std::shared_ptr<InodeInfo>> LocateInode(
    const std::shared_ptr<CatalogSet>& set, uint64_t inode) {
  MountedCatalog* c = set->CatalogForInode(inode);
  if (c == nullptr) return std::shared_ptr<InodeInfo>();
  const int64_t rowid = static_cast<int64_t>(inode - c->inode_base());
  CVMFS_ASSIGN_OR_RETURN(auto located, c->Locate(rowid));
  // A catalog's own root row is numbered by its parent (or is inode 1).
  if (!located || located->path == c->mountpoint())
    return Status::NotFound("inode " + std::to_string(inode) +
                            " is not known (stale)");
  auto info = std::make_shared<InodeInfo>();
  if (located->parent_rowid != 0) {
    info->parent =
        c->inode_base() + static_cast<uint64_t>(located->parent_rowid);
  } else if (c->parent() == nullptr) {
    info->parent = kRootInode;
  } else {
    // Directly below a nested catalog's root: the parent is the mountpoint,
    // numbered by its row in the parent catalog.
    MountedCatalog* up = c->parent();
    CVMFS_ASSIGN_OR_RETURN(auto mountpoint, up->Lookup(c->mountpoint()));
    if (!mountpoint)
      return Status::Corruption("catalog " + up->hash().ToString() +
                                " has no row for its mountpoint " +
                                c->mountpoint());
    info->parent = up->inode_base() + static_cast<uint64_t>(mountpoint->rowid);
  }
  info->path = std::move(located->path);
  info->entry = std::move(located->entry);
  info->set = set;
  info->catalog = c;
  return info;
}

}  // namespace cvmfs::client
