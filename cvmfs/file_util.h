// Small POSIX file helpers shared by every component: an owning fd, whole-file
// reads, and the write-temporary-then-rename pattern used for every durable
// change (doc/format.md, "Atomic updates").
#ifndef CVMFS_FILE_UTIL_H_
#define CVMFS_FILE_UTIL_H_

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cvmfs/status.h"

namespace cvmfs {

// Owns a file descriptor; closes it on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { Reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.Release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = o.Release();
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int Release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void Reset(int fd = -1);

 private:
  int fd_ = -1;
};

Result<std::string> ReadFile(const std::string& path);
// Reads `fd` from its offset to its end (`what` names it in errors).
Result<std::string> ReadAll(int fd, const std::string& what);
// Writes all of `data` to `fd`, retrying on EINTR and short writes.
Status WriteAll(int fd, const void* data, size_t size, const std::string& what);
// Reads exactly up to `size` bytes (fewer only at EOF); returns bytes read.
Result<size_t> ReadFull(int fd, void* buf, size_t size,
                        const std::string& what);
// Reads `fd` to its end in blocks of at most `block_size` bytes and gives
// each to `fn`; stops at the first error of the read or of `fn`.
Status ForEachBlock(int fd, size_t block_size, const std::string& what,
                    const std::function<Status(const char*, size_t)>& fn);

// Writes `data` to a temporary file beside `path`, fsyncs it (if `sync`),
// sets `mode` and renames it over `path`. Readers see the old or the new
// file, never a partial one.
Status WriteFileAtomic(const std::string& path, std::string_view data,
                       int mode = 0644, bool sync = false);

// mkdir -p with `mode` for created directories.
Status MakeDirs(const std::string& path, int mode = 0755);
bool PathExists(const std::string& path);
bool IsDirectory(const std::string& path);
// Removes a directory tree (or file); a missing path is ok.
Status RemoveTree(const std::string& path);

// Removes the directory tree `dir` (RemoveTree) when it goes out of scope:
// the temporary work directory of one operation, on every return path.
class ScopedRemoveTree {
 public:
  explicit ScopedRemoveTree(std::string dir) : dir_(std::move(dir)) {}
  ~ScopedRemoveTree() { (void)RemoveTree(dir_); }
  ScopedRemoveTree(const ScopedRemoveTree&) = delete;
  ScopedRemoveTree& operator=(const ScopedRemoveTree&) = delete;

 private:
  const std::string dir_;
};
// Names in a directory, without "." and "..", sorted.
Result<std::vector<std::string>> ListDirectory(const std::string& path);
// A unique temporary name in the directory of `path` (".tmp.<pid>.<n>").
std::string TempNameFor(const std::string& path);

// Joins path pieces with single slashes.
std::string JoinPath(std::string_view a, std::string_view b);

}  // namespace cvmfs

#endif  // CVMFS_FILE_UTIL_H_
