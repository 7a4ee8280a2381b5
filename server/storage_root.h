// The storage directory of one repository as the HTTP server sees it: opens
// the regular files below it for reading and refuses everything else.
//
// A request path is untrusted input. It is split at slashes; "" and "."
// components are skipped and any ".." component is refused outright. The
// remaining path is resolved with realpath(3), so symbolic links inside the
// storage directory are followed (as Apache's +FollowSymLinks does) but a
// link whose target lies outside the directory is refused. The directory
// itself may be a symbolic link (e.g. /srv/cvmfs/FQRN -> /data/FQRN); it is
// resolved once, when the StorageRoot is made.
//
// Assumption: whoever can create symbolic links inside the storage directory
// is trusted (the repository owner); the check and the open are not atomic
// against someone swapping a directory for a link in between.
//
// Thread safety: immutable after Open(); OpenFile() may be called from any
// number of threads.
#ifndef SERVER_STORAGE_ROOT_H_
#define SERVER_STORAGE_ROOT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "cvmfs/file_util.h"
#include "cvmfs/status.h"

namespace server {

// An open regular file; the caller owns the descriptor.
struct OpenedFile {
  cvmfs::UniqueFd fd;
  uint64_t size = 0;
};

class StorageRoot {
 public:
  // `dir` must be an existing directory.
  static cvmfs::Result<StorageRoot> Open(const std::string& dir);

  // The canonical (symlink-free, absolute) path of the directory.
  const std::string& path() const { return path_; }

  // Opens `relative` (slash-separated, below the directory) read-only.
  // kNotFound: there is nothing at that path. kPermission: the path has a
  // ".." component, resolves outside the directory, is not a regular file
  // (directories are never listed), or may not be read.
  cvmfs::Result<OpenedFile> OpenFile(std::string_view relative) const;

 private:
  explicit StorageRoot(std::string path) : path_(std::move(path)) {}
  cvmfs::Result<std::string> Resolve(std::string_view relative) const;

  std::string path_;
};

}  // namespace server

#endif  // SERVER_STORAGE_ROOT_H_
