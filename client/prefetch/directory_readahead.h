// DirectoryReadahead: how far ahead of a reader the files of a directory
// are prefetched while speculation is off (misses are cheap: a fast link,
// or a warm cache). Like the kernel's readahead within a file, across the
// files of a directory in listing order, once the reader shows that it
// reads in that order:
//
//   a run of kMinRun reads  ─► the next kInitialWindow files (a read in
//   in order                   order is of the next file in listing order,
//                              or of one inside the last window)
//   a read inside the window ─► the next window, twice as large (up to
//                              kMaxWindow): a reader that goes through
//                              the directory (tar, cp -r) soon has all
//                              of it in flight
//   a read elsewhere         ─► nothing, and the run starts again
//
// Runs count per directory. A directory entered right after a long enough
// run elsewhere gets its first window with its first read: a tree reader
// keeps its readahead across the tree. A program that picks files (Python
// importing some modules of a package, a compiler whose includes are now
// and then two neighbours in listing order: bytearrayobject.h,
// bytesobject.h) fetches or reads from the disk little more than it asks
// for: each file it does not read costs a download, or with a warm cache
// a disk read, and on a fast link either costs more than the reader
// saves (a window at every first read of a directory made Python
// start-ups 6-13% slower, warm or cold). The caller queues every window
// as next work (a cached file in it is read ahead from the disk: queueing
// the first window as speculation made a HOT tar of the Linux tree 20%
// slower).
//
// Pure bookkeeping: the caller plans the files and queues what is returned.
// Thread safety: all methods may be called concurrently.
#ifndef CLIENT_PREFETCH_DIRECTORY_READAHEAD_H_
#define CLIENT_PREFETCH_DIRECTORY_READAHEAD_H_

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "client/object_fetcher.h"
#include "cvmfs/mutex.h"

namespace cvmfs::client {

class DirectoryReadahead {
 public:
  static constexpr size_t kInitialWindow = 4;
  static constexpr size_t kMinRun = 2;
  static constexpr size_t kMaxWindow = 256;
  // Directories followed at once, and files of theirs not queued yet (a
  // bound on memory, about 300 bytes a file; beyond either, all are
  // forgotten). A program that reads a file here and there in many
  // directories would otherwise keep every listing it touched: 10,000
  // random reads over 2,000 directories of 100 files held 80 MB.
  static constexpr size_t kMaxDirectories = 4096;
  static constexpr size_t kMaxFiles = 16384;

  // `files`: the directory's files in listing order (ObjectRequest::
  // description is the path); `opened`: the path whose read started it.
  // Returns the files to queue now (none unless the reader's last run was
  // long enough).
  std::vector<ObjectRequest> Start(const std::string& dir,
                                   std::vector<ObjectRequest> files,
                                   const std::string& opened) EXCLUDES(mu_);
  // A file of `dir` was opened; returns the files to queue now (none unless
  // the reader reached the window or its run became long enough).
  std::vector<ObjectRequest> Opened(const std::string& dir,
                                    const std::string& path) EXCLUDES(mu_);
  void Clear() EXCLUDES(mu_);
  // Directories with files not queued yet.
  size_t directories() const EXCLUDES(mu_);
  // Files of those directories held (not queued yet).
  size_t files() const EXCLUDES(mu_);
  // Whether the reader goes through the tree (tar, cp -r): its last run of
  // reads in listing order, carried from directory to directory, is at
  // least kTreeRun long. A program that picks files (imports, includes)
  // seldom reads more than a few neighbours in a row.
  bool TreeReader() const EXCLUDES(mu_);
  static constexpr size_t kTreeRun = 8;

 private:
  struct State {
    std::vector<ObjectRequest> files;
    std::unordered_map<std::string, size_t> index;  // path -> position
    size_t queued = 0;  // files before this position were queued
    size_t window = 0;  // size of the last window queued
    size_t last = 0;    // position of the last file opened
    size_t run = 0;     // reads in order in a row (see above)
    // Everything is queued: `files` is freed, the reads are still
    // followed (the run, for TreeReader).
    bool done = false;
  };
  // Queues `window` files from `from`; marks the state done when nothing
  // is left.
  std::vector<ObjectRequest> Queue(State* s, size_t from, size_t window)
      REQUIRES(mu_);

  mutable cvmfs::Mutex mu_;  // guards dirs_ and last_run_; leaf lock
  std::unordered_map<std::string, State> dirs_ GUARDED_BY(mu_);
  size_t files_ GUARDED_BY(mu_) = 0;     // sum of the states' files.size()
  size_t last_run_ GUARDED_BY(mu_) = 0;  // the run of the directory read last
};

}  // namespace cvmfs::client

#endif  // CLIENT_PREFETCH_DIRECTORY_READAHEAD_H_
