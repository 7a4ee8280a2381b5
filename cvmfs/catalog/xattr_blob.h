// Extended attributes as stored in the `xattr` BLOB column of catalog rows
// (doc/format-catalog.md, "Extended attributes").
//
//   +---------+-------+------------------------------------------------+
//   | version | count | count x [ key_len | value_len | key | value ]  |
//   |  u8 =1  |  u8   |            u8        u8       bytes  bytes      |
//   +---------+-------+------------------------------------------------+
//
// Entries are written sorted by key (CVMFS keeps them in a std::map), keys are
// unique and non-empty, keys and values are at most 255 bytes and a list has
// at most 255 entries (the count is one byte). An empty list is stored as
// NULL in the catalog, never as a blob.
//
// Thread safety: free functions on values.
#ifndef CVMFS_CATALOG_XATTR_BLOB_H_
#define CVMFS_CATALOG_XATTR_BLOB_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cvmfs/status.h"

namespace cvmfs {

struct XattrList {
  std::vector<std::pair<std::string, std::string>> entries;

  bool empty() const { return entries.empty(); }
  bool operator==(const XattrList& o) const { return entries == o.entries; }
  bool operator!=(const XattrList& o) const { return !(*this == o); }
};

inline constexpr size_t kMaxXattrKeySize = 255;
inline constexpr size_t kMaxXattrValueSize = 255;
inline constexpr size_t kMaxXattrCount = 255;
inline constexpr uint8_t kXattrBlobVersion = 1;

// InvalidArgument for empty, duplicate, over-long or NUL-containing keys,
// over-long values and too many entries.
Result<std::string> SerializeXattrs(const XattrList& list);
// Corruption on a bad version, truncation or trailing bytes. Entries come
// back in blob order.
Result<XattrList> ParseXattrs(std::string_view blob);

}  // namespace cvmfs

#endif  // CVMFS_CATALOG_XATTR_BLOB_H_
