// InodeTable: the inodes the kernel knows, with their lookup counts.
//
// The model (doc/client.md, "Inodes"):
//   - inode 1 is the repository root, always known;
//   - any other entry's inode is inode_base(C) + rowid, where C is the
//     catalog holding the entry's row in its parent directory's listing (for
//     a nested mountpoint: the parent catalog's mountpoint row), so the same
//     path gets the same inode whether it is reached by lookup or readdir;
//   - hardlink group members share the inode of the group's lowest rowid
//     (CVMFS groups live in one directory, hence one catalog).
// The kernel's lookup count is kept exactly as FUSE defines it: +1 for every
// successful lookup reply and every readdirplus entry, -n for forget(n). An
// inode is dropped when its count reaches 0; the root is never dropped.
//
// Thread safety: thread-safe; the table is sharded, each shard under its own
// mutex (leaf locks: nothing else is locked while one is held).
#ifndef CLIENT_INODE_TABLE_H_
#define CLIENT_INODE_TABLE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cvmfs/catalog/dirent.h"
#include "cvmfs/mutex.h"

namespace cvmfs::client {

class CatalogSet;
class MountedCatalog;

inline constexpr uint64_t kRootInode = 1;

struct InodeInfo {
  std::string path;  // repository path ("" = root)
  DirectoryEntry entry;
  uint64_t parent =
      0;  // inode of the directory it was found in (0 for the root)
  // The revision's catalogs, kept alive while the kernel knows this inode
  // (an inode of an older revision keeps reading that revision).
  std::shared_ptr<CatalogSet> set;
  MountedCatalog* catalog = nullptr;  // holds the entry's row; owned by `set`
};

class InodeTable {
 public:
  // Adds `n` lookups of `inode`, remembering `info` if it is new.
  void Remember(uint64_t inode, std::shared_ptr<const InodeInfo> info,
                uint64_t n = 1);
  // Drops `n` lookups; forgets the inode at zero (never the root).
  void Forget(uint64_t inode, uint64_t n);
  // nullptr if the kernel does not know `inode` (any more).
  std::shared_ptr<const InodeInfo> Get(uint64_t inode) const;
  // Replaces what is remembered about `inode`, keeping its lookup count
  // (the root after a revision switch).
  void Replace(uint64_t inode, std::shared_ptr<const InodeInfo> info);
  // Every known inode with where it was found: (inode, parent, name).
  struct Known {
    uint64_t inode, parent;
    std::string name;
    bool is_dir;
  };
  std::vector<Known> Snapshot() const;
  size_t size() const;

 private:
  struct Node {
    std::shared_ptr<const InodeInfo> info;
    uint64_t nlookup = 0;
  };
  struct Shard {
    mutable cvmfs::Mutex mu;  // guards nodes; leaf lock
    std::unordered_map<uint64_t, Node> nodes GUARDED_BY(mu);
  };
  static constexpr size_t kShards = 32;
  Shard& ShardOf(uint64_t inode) const { return shards_[inode % kShards]; }

  mutable std::array<Shard, kShards> shards_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_INODE_TABLE_H_
