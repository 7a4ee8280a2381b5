// DirectoryReadahead: how far ahead of a reader the files of a directory
// are prefetched while speculation is off (misses are cheap: a fast link).
// Like the kernel's readahead within a file, across the files of a
// directory in listing order:
//
//   first read of a directory ─► the next kInitialWindow files after it
//                                (with a warm cache, only after an in-order
//                                reader: see below)
//   a read inside the window  ─► the next window, twice as large (up to
//                                kMaxWindow): a reader that goes through
//                                the directory (tar, cp -r) soon has all
//                                of it in flight
//   a read elsewhere          ─► nothing; two in a row (a reader that
//                                starts over from there) restart the window
//
// A program that reads a few files of a large directory (Python importing
// some modules of a package) costs at most one small window per directory,
// not the whole directory. The caller queues every window as next
// work (a cached file in it is read ahead from the disk: queueing the first
// window as speculation made a HOT tar of the Linux tree 20% slower).
//
// With a warm cache (no cache miss since the mount) a window is only disk
// reads, and the first window of every directory a program touches is disk
// reads it may never need (a HOT Python start-up was 6-10% slower with
// it). There the first window depends on how the last reads went: after a
// read in order (the next file in listing order, or one inside a window)
// it is queued as above; after a read out of order, or before any read,
// it is empty, and the window opens at the reader's next file in order.
// A tree reader therefore keeps its readahead from its second file on.
//
// Pure bookkeeping: the caller plans the files and queues what is returned.
// Thread safety: all methods may be called concurrently.
#ifndef CVMFS_CLIENT_DIRECTORY_READAHEAD_H_
#define CVMFS_CLIENT_DIRECTORY_READAHEAD_H_

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cvmfs/client/object_fetcher.h"

namespace cvmfs::client {

class DirectoryReadahead {
 public:
  static constexpr size_t kInitialWindow = 4;
  static constexpr size_t kMaxWindow = 256;
  // Directories followed at once (a bound on memory; beyond it, all are
  // forgotten).
  static constexpr size_t kMaxDirectories = 4096;

  // `files`: the directory's files in listing order (ObjectRequest::
  // description is the path); `opened`: the path whose read started it;
  // `warm_cache`: the files are likely cached (see above). Returns the
  // files to queue now.
  std::vector<ObjectRequest> Start(const std::string& dir,
                                   std::vector<ObjectRequest> files,
                                   const std::string& opened,
                                   bool warm_cache = false);
  // A file of `dir` was opened; returns the files to queue now (none unless
  // the reader reached the window or starts over sequentially).
  std::vector<ObjectRequest> Opened(const std::string& dir,
                                    const std::string& path);
  void Clear();
  size_t directories() const;

 private:
  struct State {
    std::vector<ObjectRequest> files;
    std::unordered_map<std::string, size_t> index;  // path -> position
    size_t queued = 0;  // files before this position were queued
    size_t window = 0;  // size of the last window queued
    size_t last = 0;    // position of the last file opened
  };
  // Queues `window` files from `from`; erases the state when done. With
  // mu_ held.
  std::vector<ObjectRequest> Queue(const std::string& dir, State* s,
                                   size_t from, size_t window);

  mutable std::mutex mu_;
  std::unordered_map<std::string, State> dirs_;
  bool last_in_order_ = false;  // how the last read that moved went
};

}  // namespace cvmfs::client

#endif  // CVMFS_CLIENT_DIRECTORY_READAHEAD_H_
