// MD5 path keys of catalog rows (doc/format.md, "Catalog keys").
//
// A path inside the repository ("" for the root, otherwise "/a/b", no
// trailing slash) is hashed with MD5; the 16 digest bytes are read as two
// little-endian signed 64-bit integers (bytes 0-7, bytes 8-15). The root's
// parent key is (0, 0).
#ifndef CVMFS_PATH_HASH_H_
#define CVMFS_PATH_HASH_H_

#include <cstdint>
#include <string_view>

namespace cvmfs {

struct PathHash {
  int64_t md5_1 = 0;
  int64_t md5_2 = 0;
  bool operator==(const PathHash& o) const {
    return md5_1 == o.md5_1 && md5_2 == o.md5_2;
  }
  bool operator!=(const PathHash& o) const { return !(*this == o); }
};

PathHash HashPath(std::string_view path);

// Parent of "/a/b" is "/a"; parent of "/a" is "" (the root).
std::string_view ParentPath(std::string_view path);
// Last component of "/a/b" is "b"; of "" is "".
std::string_view BaseName(std::string_view path);

}  // namespace cvmfs

#endif  // CVMFS_PATH_HASH_H_
