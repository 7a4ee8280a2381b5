// VirtualDir: CVMFS's `/.cvmfs/snapshots` directory (server.conf
// CVMFS_VIRTUAL_DIR=true), written as CVMFS 2.12 writes it
// (doc/format-catalog.md 1.9):
//
//   /.cvmfs                  hidden, its own nested catalog
//   /.cvmfs/.cvmfscatalog    empty file
//   /.cvmfs/snapshots        directory
//   /.cvmfs/snapshots/<tag>  bind mountpoint: the tag's root catalog
//
// Update() brings the directory in line with the tags of the history
// (every tag but trunk and trunk-previous): missing tags are added,
// removed ones deleted, moved ones re-pointed. Remove() deletes it (a
// repository whose CVMFS_VIRTUAL_DIR was turned off). Both change only
// /.cvmfs; the caller commits the tree.
//
// Thread safety: none (one publisher thread owns the tree).
#ifndef PUBLISHER_VIRTUAL_DIR_H_
#define PUBLISHER_VIRTUAL_DIR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/compression.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"
#include "publisher/catalog_tree.h"

namespace publisher {

inline constexpr const char* kVirtualDirPath = "/.cvmfs";
inline constexpr const char* kSnapshotsPath = "/.cvmfs/snapshots";

// Whether `path` is /.cvmfs or below it: the publisher's own, which a
// transaction may not create or change (CVMFS refuses those publishes).
bool IsVirtualDirPath(const std::string& path);

struct VirtualDirOptions {
  cvmfs::HashAlgorithm hash_algorithm = cvmfs::HashAlgorithm::kSha1;
  int64_t now = 0;  // mtime of the directories created
};

cvmfs::Status UpdateVirtualDir(CatalogTree* tree,
                               const std::vector<cvmfs::Tag>& tags,
                               const VirtualDirOptions& options);
// No-op when there is no /.cvmfs, or one that is not the virtual directory
// (not hidden, not a nested catalog).
cvmfs::Status RemoveVirtualDir(CatalogTree* tree);
// Whether the tree has a /.cvmfs directory.
cvmfs::Result<bool> HasVirtualDir(CatalogTree* tree);

}  // namespace publisher

#endif  // PUBLISHER_VIRTUAL_DIR_H_
