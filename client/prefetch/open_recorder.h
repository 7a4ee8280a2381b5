// OpenRecorder: which files a workload opens, for recorded prefetch lists
// (doc/format-prefetch-list.md, "Recording").
//
// `cvmfs_talk prefetch record start` calls Start(); from then on every
// regular file the mount opens is reported to OnOpen() (FileSystem's open
// observer) and noted once, in first-open order, up to kMaxRecordedPaths
// paths (later new paths are only counted). Stop() ends the recording and
// hands the paths over. Nothing is kept when no recording runs.
//
// Thread safety: all methods are thread-safe. OnOpen() runs on FUSE
// threads for every open: when not recording it reads one atomic flag;
// when recording it takes a leaf mutex for a hash-set insert.
#ifndef CLIENT_PREFETCH_OPEN_RECORDER_H_
#define CLIENT_PREFETCH_OPEN_RECORDER_H_

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "cvmfs/mutex.h"

namespace cvmfs::client {

class OpenRecorder {
 public:
  struct Recording {
    std::vector<std::string> paths;  // first-open order
    size_t dropped = 0;              // new paths beyond the limit
  };

  explicit OpenRecorder(size_t max_paths);

  // Starts a recording; one that is running is discarded.
  void Start() EXCLUDES(mu_);
  // Ends the recording; nullopt when none was running.
  std::optional<Recording> Stop() EXCLUDES(mu_);
  bool recording() const { return recording_.load(std::memory_order_acquire); }
  // Paths recorded so far (0 when not recording).
  size_t size() const EXCLUDES(mu_);

  // `path` (a repository path, "/a/b") was opened.
  void OnOpen(const std::string& path) EXCLUDES(mu_);

 private:
  const size_t max_paths_;
  std::atomic<bool> recording_{false};  // fast path for OnOpen
  mutable cvmfs::Mutex mu_;             // guards what follows; leaf lock
  Recording current_ GUARDED_BY(mu_);
  std::unordered_set<std::string> seen_ GUARDED_BY(mu_);
};

}  // namespace cvmfs::client

#endif  // CLIENT_PREFETCH_OPEN_RECORDER_H_
