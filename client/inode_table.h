// InodeTable: what the file system remembers about the inodes the kernel
// knows, with their lookup counts, in bounded memory.
//
// The model (doc/client.md, "Inodes"):
//   - inode 1 is the repository root, always known;
//   - any other entry's inode is inode_base(C) + rowid, where C is the
//     catalog holding the entry's row in its parent directory's listing (for
//     a nested mountpoint: the parent catalog's mountpoint row), so the same
//     path gets the same inode whether it is reached by lookup or readdir;
//   - hardlink group members share the inode of the group's lowest rowid
//     (CVMFS groups live in one directory, hence one catalog).
// The kernel's lookup count is kept as FUSE defines it: +1 for every
// successful lookup reply and every readdirplus entry, -n for forget(n). An
// inode is dropped when its count reaches 0; the root is never dropped.
//
// The table is a cache, not the kernel's mirror: it holds at most
// `max_bytes` of entries (estimated: the InodeInfo, its strings and the
// table's own nodes), and beyond that drops the least recently used ones
// even while the kernel still holds them (with their lookup counts: a
// later forget of such an inode is ignored). The kernel may hold millions
// of inodes after a walk of a large tree (each readdirplus entry is one);
// whoever needs a dropped inode rebuilds its InodeInfo from the inode
// number (FileSystem: the catalog that owns the number, the row by rowid,
// its path from the parents' rows) and remembers it again with count 0.
// 0 = unbounded (the unit tests of the lookup counts).
//
// Thread safety: thread-safe; the table is sharded, each shard under its own
// mutex (leaf locks: nothing else is locked while one is held; dropped
// entries are released after the lock).
#ifndef CLIENT_INODE_TABLE_H_
#define CLIENT_INODE_TABLE_H_

#include <array>
#include <cstdint>
#include <list>
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
  // The revision's catalogs, kept alive while this is remembered (an inode
  // of an older revision keeps reading that revision).
  std::shared_ptr<CatalogSet> set;
  MountedCatalog* catalog = nullptr;  // holds the entry's row; owned by `set`
};

// The memory an entry of `info` takes in the table (estimated).
size_t InodeCharge(const InodeInfo& info);

class InodeTable {
 public:
  explicit InodeTable(size_t max_bytes = 0) : max_bytes_(max_bytes) {}

  // Adds `n` lookups of `inode`, remembering `info` if it is new (n = 0:
  // remembered only, for an inode rebuilt after it was dropped).
  void Remember(uint64_t inode, std::shared_ptr<const InodeInfo> info,
                uint64_t n = 1);
  // Drops `n` lookups; forgets the inode at zero (never the root).
  void Forget(uint64_t inode, uint64_t n);
  // nullptr if `inode` is not remembered (the kernel forgot it, or it was
  // dropped for room); a hit makes it the most recently used.
  std::shared_ptr<const InodeInfo> Get(uint64_t inode);
  // Replaces what is remembered about `inode`, keeping its lookup count
  // (the root after a revision switch).
  void Replace(uint64_t inode, std::shared_ptr<const InodeInfo> info);
  // Every remembered inode with where it was found: (inode, parent, name).
  struct Known {
    uint64_t inode, parent;
    std::string name;
    bool is_dir;
  };
  std::vector<Known> Snapshot() const;
  size_t size() const;
  // The estimated memory of the remembered entries, and how many entries
  // were dropped for room since the start.
  size_t bytes() const;
  uint64_t evictions() const;
  size_t max_bytes() const { return max_bytes_; }

 private:
  struct Node {
    std::shared_ptr<const InodeInfo> info;
    uint64_t nlookup = 0;
    size_t charge = 0;
    std::list<uint64_t>::iterator lru;  // position in Shard::lru
  };
  struct Shard {
    mutable cvmfs::Mutex mu;  // guards the members below; leaf lock
    std::unordered_map<uint64_t, Node> nodes GUARDED_BY(mu);
    std::list<uint64_t> lru GUARDED_BY(mu);  // most recently used first
    size_t bytes GUARDED_BY(mu) = 0;
    uint64_t evictions GUARDED_BY(mu) = 0;
  };
  static constexpr size_t kShards = 32;
  Shard& ShardOf(uint64_t inode) const { return shards_[inode % kShards]; }
  // Drops least recently used entries of `shard` (never the root) until it
  // fits its part of max_bytes_; they are moved into *dropped.
  void Trim(Shard* shard,
            std::vector<std::shared_ptr<const InodeInfo>>* dropped)
      REQUIRES(shard->mu);

  const size_t max_bytes_;
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_INODE_TABLE_H_
