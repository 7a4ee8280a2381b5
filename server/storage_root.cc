#include "server/storage_root.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <memory>

namespace server {
namespace {

using cvmfs::Result;
using cvmfs::Status;

// realpath(3) as a Result.
Result<std::string> RealPath(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> resolved(
      ::realpath(path.c_str(), nullptr), &std::free);
  if (!resolved) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return Status::NotFound(path);
    if (err == ELOOP) return Status::Permission(path + ": symbolic link loop");
    return Status::FromErrno(err, "resolve " + path);
  }
  return std::string(resolved.get());
}

// The components of a request path joined with single slashes, or an error
// for a ".." component.
Result<std::string> CleanRelative(std::string_view relative) {
  std::string out;
  while (!relative.empty()) {
    size_t slash = relative.find('/');
    std::string_view part = relative.substr(0, slash);
    relative = slash == std::string_view::npos ? std::string_view()
                                               : relative.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..")
      return Status::Permission("'..' is not allowed in a request path");
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

}  // namespace

Result<StorageRoot> StorageRoot::Open(const std::string& dir) {
  auto resolved = RealPath(dir);
  if (!resolved.ok())
    return resolved.status().Annotate("storage directory " + dir);
  struct stat st;
  if (::stat(resolved->c_str(), &st) != 0)
    return Status::FromErrno(errno, "stat storage directory " + *resolved);
  if (!S_ISDIR(st.st_mode))
    return Status::InvalidArgument("storage " + dir + " is not a directory");
  return StorageRoot(*resolved);
}

Result<std::string> StorageRoot::Resolve(std::string_view relative) const {
  CVMFS_ASSIGN_OR_RETURN(std::string clean, CleanRelative(relative));
  if (clean.empty()) return path_;
  CVMFS_ASSIGN_OR_RETURN(std::string resolved, RealPath(path_ + "/" + clean));
  if (resolved != path_ &&
      resolved.compare(0, path_.size() + 1, path_ + "/") != 0)
    return Status::Permission(clean + " resolves to " + resolved +
                              ", outside " + path_);
  return resolved;
}

Result<OpenedFile> StorageRoot::OpenFile(std::string_view relative) const {
  CVMFS_ASSIGN_OR_RETURN(std::string resolved, Resolve(relative));
  // O_NONBLOCK: opening a FIFO must not wait for a writer. O_NOFOLLOW:
  // `resolved` has no links left; one appearing now is not followed.
  cvmfs::UniqueFd fd(
      ::open(resolved.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd.valid()) {
    int err = errno;
    if (err == ENOENT) return Status::NotFound(resolved);
    return Status::FromErrno(err, "open " + resolved);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0)
    return Status::FromErrno(errno, "stat " + resolved);
  if (!S_ISREG(st.st_mode))
    return Status::Permission(resolved + " is not a regular file");
  // The response is sent with sendfile()/pread(), which want blocking mode.
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0)
    return Status::FromErrno(errno, "fcntl " + resolved);
  return OpenedFile{std::move(fd), static_cast<uint64_t>(st.st_size)};
}

}  // namespace server
