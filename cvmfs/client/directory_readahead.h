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
// it). There a window waits for a run of kWarmRun reads in order in the
// directory (each the next file in listing order, or one inside a
// window): before that, the first window of a directory is empty, and the
// window opens once the reader's run is long enough. A directory entered
// right after a long enough run elsewhere gets its first window at once:
// a tree reader keeps its readahead, while a compiler, whose includes are
// now and then two neighbours in listing order (bytearrayobject.h,
// bytesobject.h), reads few headers it does not ask for.
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
  // Reads in order a warm cache waits for (see above).
  static constexpr size_t kWarmRun = 2;
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
    bool warm = false;  // Start's warm_cache
    size_t run = 0;     // reads in order in a row (see above)
  };
  // Whether a window waits for a longer run of reads in order.
  static bool WarmWait(bool warm, size_t run);
  // Queues `window` files from `from`; erases the state when done. With
  // mu_ held.
  std::vector<ObjectRequest> Queue(const std::string& dir, State* s,
                                   size_t from, size_t window);

  mutable std::mutex mu_;
  std::unordered_map<std::string, State> dirs_;
  size_t last_run_ = 0;  // the run of the directory read last
};

}  // namespace cvmfs::client

#endif  // CVMFS_CLIENT_DIRECTORY_READAHEAD_H_
