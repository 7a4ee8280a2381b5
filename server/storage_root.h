// The storage directory of one repository as the HTTP server sees it: opens
// the world-readable regular files below it for reading and refuses
// everything else.
//
// A request path is untrusted input. It is split at slashes; "" and "."
// components are skipped and any ".." component is refused outright (403).
// The rest is walked one component at a time with lstat(2); symbolic links
// are expanded by the walk itself, so links inside the storage directory are
// followed (as Apache's +FollowSymLinks does) but a link whose target leaves
// the directory ends the walk with kNotFound before anything outside is
// looked at: the answer is the same whether or not the target exists (no
// existence oracle). An absolute target is followed only if it names the
// directory's canonical path. The directory itself may be a symbolic link
// (e.g. /srv/cvmfs/FQRN -> /data/FQRN); it is resolved once, when the
// StorageRoot is made.
//
// Never served, answered as missing (kNotFound): temporaries (anything in
// data/txn/ and names starting ".tmp.", cvmfs::TempNameFor's; see
// publisher/stale_temporaries.h) and files that are not world-readable
// (o+r; Apache, running as its own user, could not read them either).
//
// Assumption: whoever can create symbolic links inside the storage directory
// is trusted (the repository owner); the walk and the open are not atomic
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
  // kNotFound: there is nothing at that path, or a link on it leads out of
  // the directory, or it is a temporary or not world-readable.
  // kPermission: the path has a ".." component, is not a regular file
  // (directories are never listed) or has a symbolic link loop.
  cvmfs::Result<OpenedFile> OpenFile(std::string_view relative) const;

 private:
  explicit StorageRoot(std::string path) : path_(std::move(path)) {}
  cvmfs::Result<std::string> Resolve(std::string_view relative) const;

  std::string path_;
};

}  // namespace server

#endif  // SERVER_STORAGE_ROOT_H_
