// Recorded prefetch lists (doc/format-prefetch-list.md): the two text
// formats both sides agree on byte for byte, and where a root catalog
// references the list set.
//
//   recorded path list   cvmfs_talk prefetch record stop  ─► cvmfs_server
//                        (one escaped repository path per line)
//   list set object      cvmfs_server ─► data object referenced by the root
//                        catalog property `prefetch_lists` ─► client
//
// Parsers reject anything malformed with the line number in the message
// ("prefetch list line 7: ..."); Serialize(Parse(x)) == x for every valid x.
//
// Thread safety: free functions over values; no shared state.
#ifndef CVMFS_PREFETCH_LIST_H_
#define CVMFS_PREFETCH_LIST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/catalog/catalog.h"
#include "cvmfs/compression.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace cvmfs {

// The root catalog property naming the list set object.
inline constexpr std::string_view kPrefetchListsProperty = "prefetch_lists";
// First line of a list set object, followed by " <version>".
inline constexpr std::string_view kPrefetchListsMagic = "cvmfs-prefetch-lists";
inline constexpr int kPrefetchListsVersion = 1;
// A recording keeps at most this many paths (bounds the mount's memory).
inline constexpr size_t kMaxRecordedPaths = 100000;

struct PrefetchChunk {
  Digest hash;        // a `P` object
  uint64_t size = 0;  // uncompressed bytes
};

// One file of a list: a whole-file object (`hash`) or its chunks.
struct PrefetchFile {
  std::string path;  // absolute repository path ("/a/b")
  Compression compression = Compression::kZlib;
  uint64_t size = 0;                  // uncompressed bytes of the whole file
  std::optional<Digest> hash;         // set iff the file is not chunked
  std::vector<PrefetchChunk> chunks;  // offset order; empty iff hash is set

  bool operator==(const PrefetchFile& o) const;
};

struct PrefetchList {
  std::string name;
  std::vector<PrefetchFile> files;  // first-open order; files[0] triggers

  const std::string& trigger() const { return files.front().path; }
  uint64_t bytes() const;  // uncompressed bytes of all files
  size_t objects() const;  // whole-file objects plus chunks
};

// Names: 1-64 characters of A-Z a-z 0-9 . _ -
Status ValidatePrefetchListName(std::string_view name);

// Paths on one line: bytes < 0x20, 0x7f and '%' become %XX.
std::string EscapeListPath(std::string_view path);
Result<std::string> UnescapeListPath(std::string_view text);

// The recorded path list: `header` (without '#', may be empty) as a comment
// line, then one escaped path per line.
std::string FormatRecordedPaths(const std::vector<std::string>& paths,
                                const std::string& header);
// Paths in file order, duplicates dropped (first kept); comments and blank
// lines skipped. InvalidArgument names the line of a path that does not
// start with '/' or has a bad escape.
Result<std::vector<std::string>> ParseRecordedPaths(std::string_view text);

// The list set object's text. Lists must be valid (non-empty, unique names
// and paths); the serializer does not check.
std::string SerializePrefetchLists(const std::vector<PrefetchList>& lists);
// Corruption (with the line number) for anything that is not a valid list
// set of version 1; NotSupported for another version.
Result<std::vector<PrefetchList>> ParsePrefetchLists(std::string_view text);

// The list set object a root catalog references: nullopt when the catalog
// has no `prefetch_lists` property; Corruption when its value is not a hash.
// For garbage collection, check and replication, which must keep and copy
// it (a data object without suffix, zlib-compressed).
Result<std::optional<Digest>> PrefetchListsObjectOf(const Catalog& root);

}  // namespace cvmfs

#endif  // CVMFS_PREFETCH_LIST_H_
