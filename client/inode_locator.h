// LocateInode: an inode's InodeInfo rebuilt from its number alone, for the
// inodes the kernel still holds after InodeTable dropped them for room.
//
// An inode is inode_base(C) + rowid in the catalog C that numbers it
// (inode_table.h): the set finds C by its range, C gives the row, and the
// row's parents give its path (one catalog query per directory level). A
// hardlink group's inode is its leader's row: the same content.
//
// Thread safety: as CatalogSet (any thread).
#ifndef CLIENT_INODE_LOCATOR_H_
#define CLIENT_INODE_LOCATOR_H_

#include <cstdint>
#include <memory>

#include "client/catalog_set.h"
#include "client/inode_table.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

// nullptr if no catalog of `set` numbers `inode`; NotFound if its catalog
// has no such row (a number never handed out); a catalog error otherwise.
// Not for the root inode.
Result<std::shared_ptr<InodeInfo>> LocateInode(
    const std::shared_ptr<CatalogSet>& set, uint64_t inode);

}  // namespace cvmfs::client

#endif  // CLIENT_INODE_LOCATOR_H_
