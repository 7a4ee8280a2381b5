// ContentIndex: which stored object already holds a piece of content, so that
// publishing the same bytes again (a tree copied in anew, a file touched or
// chmod-ed in a transaction) needs no compression.
//
//   key:   SHA-256 of the uncompressed bytes, their size, the compression
//          and the repository's hash algorithm
//   value: the digest of the stored object (hash of the compressed bytes)
//
// SHA-256 runs at ~2 GB/s with the SHA extensions (OpenSSL picks them), an
// order of magnitude faster than zlib compression, so a hit saves most of
// the work. The index is only an accelerator: the pipeline uses a hit only
// when the object still exists in the store, any index error counts as a miss,
// and a deleted or damaged index file is simply rebuilt by later publishes.
// Entries are added only after their object was stored, so a killed publish
// leaves no entry pointing at an object that was never written.
//
// Storage: SQLite (WAL, synchronous=NORMAL: consistent after a crash) at
// spool/content_index.db; new entries are buffered in memory and written in
// one transaction by Flush() (and every kFlushEvery entries). A republished
// tree looks up every file once, in no particular key order; a 16 MiB page
// cache keeps the inner pages, and a leaf is one pread() from the kernel's
// page cache (no memory map: mapped pages would count in the publisher's
// memory and grow with the index).
//
// Thread safety: Lookup, Add and Flush may be called from any thread (one
// mutex guards the database and the buffer).
#ifndef PUBLISHER_CONTENT_INDEX_H_
#define PUBLISHER_CONTENT_INDEX_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "cvmfs/compression.h"
#include "cvmfs/hash.h"
#include "cvmfs/mutex.h"
#include "cvmfs/sqlite_db.h"
#include "cvmfs/status.h"

namespace publisher {

class ContentIndex {
 public:
  struct Key {
    std::string sha256;  // 32 raw bytes
    uint64_t size = 0;
    cvmfs::Compression compression = cvmfs::Compression::kZlib;
    cvmfs::HashAlgorithm algorithm = cvmfs::HashAlgorithm::kSha1;
    bool operator<(const Key& o) const {
      return std::tie(sha256, size, compression, algorithm) <
             std::tie(o.sha256, o.size, o.compression, o.algorithm);
    }
  };
  static constexpr size_t kFlushEvery = 20000;
  // Pieces smaller than this are not indexed: compressing them again costs
  // about what a lookup does (a few microseconds), and a repository of
  // millions of tiny files would otherwise fill the index with them.
  static constexpr size_t kMinIndexedSize = 1024;

  static Key KeyOf(std::string_view data, cvmfs::Compression compression,
                   cvmfs::HashAlgorithm algorithm);

  // Opens or creates the index at `path`; a file that is not a valid index
  // is replaced by an empty one.
  static cvmfs::Result<std::unique_ptr<ContentIndex>> Open(
      const std::string& path);
  ~ContentIndex();  // flushes; errors are dropped (the index is a cache)

  // The object digest recorded for `key`, if any.
  std::optional<cvmfs::Digest> Lookup(const Key& key);
  // Records that the object `digest` holds the content of `key`.
  void Add(const Key& key, const cvmfs::Digest& digest);
  cvmfs::Status Flush();

  uint64_t lookup_errors() const;  // database errors treated as misses

 private:
  ContentIndex(std::unique_ptr<cvmfs::SqliteDb> db,
               cvmfs::SqliteStatement lookup)
      : db_(std::move(db)), lookup_(std::move(lookup)) {}
  static cvmfs::Result<std::unique_ptr<ContentIndex>> OpenOnce(
      const std::string& path);
  cvmfs::Status FlushLocked() REQUIRES(mu_);

  mutable cvmfs::Mutex mu_;  // guards everything below; a leaf lock
  const std::unique_ptr<cvmfs::SqliteDb> db_ PT_GUARDED_BY(mu_);
  cvmfs::SqliteStatement lookup_ GUARDED_BY(mu_);
  // Added, not yet in the database.
  std::map<Key, cvmfs::Digest> pending_ GUARDED_BY(mu_);
  uint64_t lookup_errors_ GUARDED_BY(mu_) = 0;
};

}  // namespace publisher

#endif  // PUBLISHER_CONTENT_INDEX_H_
