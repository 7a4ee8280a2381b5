// OpenFile: one open() of a regular file, until release().
//
// A whole file is one cache object, opened at open(). A chunked file keeps
// its chunk list and opens chunks as reads reach them; the most recently
// used few stay open. When the reads are a stream (read_stream.h: not
// random records smaller than 2 MiB) the next chunks are fetched ahead
// (through the prefetch engine, or the read-ahead queue when prefetch is
// off), so a streaming reader rarely waits for the network between
// chunks. How far ahead grows with how far the reader has read in order
// (like the kernel's readahead window): a program that reads the start of
// a large file costs at most as much again, one that streams through it
// keeps up to kMaxChunksAhead chunks in flight, enough to hide a 100 ms
// round trip. Only on a slow link (while the prefetch engine speculates)
// and once a reader of the file has found a chunk missing from the cache.
// Otherwise a stream whose chunks are cached keeps two ahead (the disk is
// busy with them; more only compete with the reader's own reads: a
// sequential read of a cached 256 MiB file was 8-15% slower with a deeper
// window), and one that missed the cache on a fast link grows its window
// to four: the server reads them from its disk meanwhile. With two, a cold read
// of a 256 MiB file from a server whose page cache was dropped spent a third of
// its time with the CPUs idle, waiting for the server's disk (0.49-0.67 s
// against 0.41-0.50 s with four; six and eight were no faster).
//
// Thread safety: Read() may be called concurrently (the kernel issues
// parallel reads of one file); `mu_` guards the open chunk handles.
#ifndef CLIENT_OPEN_FILE_H_
#define CLIENT_OPEN_FILE_H_

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "cache/posix_cache.h"
#include "client/inode_table.h"
#include "client/object_fetcher.h"
#include "client/prefetch/prefetcher.h"
#include "client/read_stream.h"
#include "cvmfs/catalog/dirent.h"
#include "cvmfs/mutex.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

// What open files read through: one per file system, which owns it and
// outlives every OpenFile. Everything is borrowed and thread-safe.
struct OpenFileServices {
  ObjectFetcher* objects = nullptr;
  cache::PosixCache* cache = nullptr;
  // Told of every demand open of a chunk; whether it speculates (a slow
  // link) decides how deep a stream reads ahead.
  Prefetcher* prefetcher = nullptr;
  // Fetches the given chunks in the background: the read-ahead of a
  // stream (the prefetch triggers' ChunksAhead).
  std::function<void(std::vector<ObjectRequest>)> read_ahead;
};

class OpenFile {
 public:
  // A file stored whole.
  OpenFile(const OpenFileServices* services,
           std::shared_ptr<const InodeInfo> info, cache::CacheHandle whole);
  // A chunked file (chunks ordered by offset, covering the file).
  OpenFile(const OpenFileServices* services,
           std::shared_ptr<const InodeInfo> info,
           std::vector<FileChunk> chunks);

  Result<size_t> Read(char* buf, size_t size, off_t offset);
  const InodeInfo& info() const { return *info_; }
  // How many chunks to have fetched ahead of a sequential reader that
  // reached chunk `next` - 1, `missed`: it found a chunk missing from the
  // cache, `slow_link`: the prefetch engine speculates. See above.
  static size_t ChunksAhead(size_t next, bool missed, bool slow_link);
  size_t num_chunks() const { return chunks_.size(); }

 private:
  // Slots for open chunks: enough for a reader spanning a chunk boundary
  // plus the one fetched ahead.
  static constexpr size_t kOpenChunks = 4;
  // Chunks fetched ahead of a sequential reader at chunk i: i, at least
  // kMinChunksAhead (two keep the disk busy while the reader consumes one),
  // at most kMissChunksAhead on a fast link and kMaxChunksAhead on a slow
  // one (chunks are 4-16 MiB).
  static constexpr size_t kMinChunksAhead = 2;
  static constexpr size_t kMissChunksAhead = 4;
  static constexpr size_t kMaxChunksAhead = 16;
  struct Slot {
    size_t index = 0;
    std::shared_ptr<cache::CacheHandle> handle;
    uint64_t last_use = 0;
  };

  Result<size_t> ReadChunked(char* buf, size_t size, uint64_t offset);
  Result<std::shared_ptr<cache::CacheHandle>> Chunk(size_t index) EXCLUDES(mu_);
  size_t ChunkAt(uint64_t offset) const;
  void ReadAhead(size_t index);

  const OpenFileServices* services_;  // borrowed; outlives every OpenFile
  std::shared_ptr<const InodeInfo> info_;
  std::optional<cache::CacheHandle> whole_;
  std::vector<FileChunk> chunks_;

  cvmfs::Mutex mu_;  // guards slots_, use_clock_; leaf lock
  std::vector<Slot> slots_ GUARDED_BY(mu_);
  uint64_t use_clock_ GUARDED_BY(mu_) = 0;
  // Whether the reads are a stream (read_stream.h).
  ReadStream stream_;
  // A chunk this file's readers reached was not in the cache.
  std::atomic<bool> missed_{false};
  // The highest chunk index fetched ahead, plus one.
  std::atomic<size_t> ahead_requested_{0};
};

}  // namespace cvmfs::client

#endif  // CLIENT_OPEN_FILE_H_
