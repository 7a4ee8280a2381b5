// The values a catalog row, chunk row, nested catalog row and the statistics
// table hold, as plain structs (doc/format-catalog.md).
//
// A DirectoryEntry is a catalog row without its keys: the row's path hash and
// parent hash come from the full path the caller passes to the catalog. The
// row's `flags` are derived from the entry (EncodeFlags) and decoded back into
// it (DecodeFlags); the file type itself always comes from `mode`.
//
// Thread safety: plain values.
#ifndef CVMFS_CATALOG_DIRENT_H_
#define CVMFS_CATALOG_DIRENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cvmfs/catalog/xattr_blob.h"
#include "cvmfs/compression.h"
#include "cvmfs/hash.h"

namespace cvmfs {

struct DirectoryEntry {
  std::string name;   // last path component; "" for the repository root
  uint32_t mode = 0;  // full st_mode: type and permission bits
  // Regular files: uncompressed size. Symlinks: length of the raw target.
  // Directories: 4096 as CVMFS publishes them. Devices: rdev.
  uint64_t size = 0;
  int64_t mtime = 0;
  std::optional<int32_t> mtime_ns;  // NULL in catalogs unless published so
  uint32_t uid = 0;
  uint32_t gid = 0;
  // Directories: 2 + number of subdirectories. Files: 1 (CVMFS does not
  // publish real hard links through its overlay).
  uint32_t linkcount = 1;
  uint32_t hardlink_group = 0;  // 0 = none
  // Regular files that are not chunked (and the legacy bulk hash of chunked
  // files, when present). Its algorithm is kept equal to hash_algorithm.
  std::optional<Digest> content_hash;
  HashAlgorithm hash_algorithm = HashAlgorithm::kSha1;
  Compression compression = Compression::kZlib;
  std::string symlink;  // raw target, may contain $(VAR); "" unless a symlink
  bool nested_mountpoint = false;  // directory where a nested catalog attaches
  bool nested_root = false;        // root entry of a nested catalog
  bool chunked = false;
  bool external = false;
  bool hidden = false;
  bool direct_io = false;
  bool bind_mountpoint = false;
  XattrList xattrs;
  int64_t rowid = 0;  // filled by readers; the basis of inode numbers

  bool IsDirectory() const;
  bool IsRegular() const;
  bool IsSymlink() const;
  // fifo, socket, character or block device
  bool IsSpecial() const;

  // Compares everything except rowid.
  bool operator==(const DirectoryEntry& o) const;
  bool operator!=(const DirectoryEntry& o) const { return !(*this == o); }
};

// The `flags` column value for `entry` (exactly as CVMFS 2.12 computes it).
uint32_t EncodeFlags(const DirectoryEntry& entry);
// Sets the flag-derived fields of *entry (nested/bind/hidden/direct-I/O/
// chunked/external markers, hash algorithm, compression). Leaves mode alone.
void DecodeFlags(uint32_t flags, DirectoryEntry* entry);

// The `hardlinks` column: (hardlink_group << 32) | linkcount.
inline int64_t EncodeHardlinks(uint32_t group, uint32_t linkcount) {
  return static_cast<int64_t>((static_cast<uint64_t>(group) << 32) | linkcount);
}

struct FileChunk {
  uint64_t offset = 0;
  uint64_t size = 0;  // uncompressed
  Digest hash;        // of the stored (compressed) chunk object, suffix 'P'
  bool operator==(const FileChunk& o) const {
    return offset == o.offset && size == o.size && hash == o.hash;
  }
};

// A row of `nested_catalogs` (or `bind_mountpoints`).
struct NestedCatalogRef {
  std::string path;   // absolute mount path, e.g. "/software/1.0"
  Digest hash;        // of the compressed catalog object, suffix 'C'
  uint64_t size = 0;  // uncompressed catalog bytes
  bool operator==(const NestedCatalogRef& o) const {
    return path == o.path && hash == o.hash && size == o.size;
  }
};

// One half of the statistics table (the self_* or the subtree_* rows).
struct CounterSet {
  int64_t regular = 0;  // regular files, chunked and external ones included
  int64_t symlink = 0;
  int64_t special = 0;
  int64_t dir = 0;     // directories, incl. catalog root and nested mountpoints
  int64_t nested = 0;  // rows of nested_catalogs
  int64_t chunked = 0;
  int64_t chunks = 0;     // rows of chunks
  int64_t file_size = 0;  // sum of sizes of regular files
  int64_t chunked_size = 0;
  int64_t xattr = 0;  // entries with a non-NULL xattr blob
  int64_t external = 0;
  int64_t external_file_size = 0;

  // The part of the counters one entry contributes (delta = +1 or -1);
  // `chunks` and `nested` are counted by whoever adds chunk/nested rows.
  void Count(const DirectoryEntry& entry, int delta);
  CounterSet& operator+=(const CounterSet& o);
  CounterSet& operator-=(const CounterSet& o);
  bool operator==(const CounterSet& o) const;
  bool operator!=(const CounterSet& o) const { return !(*this == o); }
};

// Names of the counters without prefix, and their members, in the
// alphabetical order in which CVMFS inserts the statistics rows:
// chunked, chunked_size, chunks, dir, external, external_file_size,
// file_size, nested, regular, special, symlink, xattr.
struct CounterField {
  const char* name;
  int64_t CounterSet::*member;
};
inline constexpr int kNumCounterFields = 12;
extern const CounterField kCounterFields[kNumCounterFields];

struct CatalogCounters {
  CounterSet self;     // "self_<name>": rows of this catalog
  CounterSet subtree;  // "subtree_<name>": all catalogs below this one

  CounterSet Total() const {
    CounterSet t = self;
    t += subtree;
    return t;
  }
  // The value of a statistics row name ("self_regular", ...), or nullptr.
  int64_t* Find(std::string_view row_name);
  bool operator==(const CatalogCounters& o) const {
    return self == o.self && subtree == o.subtree;
  }
  bool operator!=(const CatalogCounters& o) const { return !(*this == o); }
};

}  // namespace cvmfs

#endif  // CVMFS_CATALOG_DIRENT_H_
