#include "server/storage_root.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <deque>
#include <memory>
#include <vector>

#include "cvmfs/object_name.h"

namespace server {
namespace {

using cvmfs::Result;
using cvmfs::Status;

// As the kernel's MAXSYMLINKS: more links in one path is a loop.
constexpr int kMaxLinks = 40;
// cvmfs::TempNameFor names every temporary ".tmp.<pid>.<n>"
// (publisher/stale_temporaries.h lists them).
constexpr std::string_view kTempPrefix = ".tmp.";

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

Result<std::string> ReadLink(const std::string& path) {
  std::string target(PATH_MAX, '\0');
  ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
  if (n < 0) return Status::FromErrno(errno, "readlink " + path);
  if (static_cast<size_t>(n) >= target.size())
    return Status::Permission(path + ": link target too long");
  target.resize(static_cast<size_t>(n));
  return target;
}

// Appends the slash-separated components of `path` to the front of `queue`,
// in order.
void PushFrontComponents(std::string_view path,
                         std::deque<std::string>* queue) {
  std::vector<std::string> parts;
  while (!path.empty()) {
    size_t slash = path.find('/');
    parts.emplace_back(path.substr(0, slash));
    path = slash == std::string_view::npos ? std::string_view()
                                           : path.substr(slash + 1);
  }
  queue->insert(queue->begin(), parts.begin(), parts.end());
}

// A request path's components, or an error for a ".." component.
Result<std::deque<std::string>> RequestComponents(std::string_view relative) {
  std::deque<std::string> parts;
  PushFrontComponents(relative, &parts);
  for (const std::string& part : parts)
    if (part == "..")
      return Status::Permission("'..' is not allowed in a request path");
  return parts;
}

// A temporary of the publisher or of replication: data/txn/ and ".tmp.*".
bool IsTemporary(const std::vector<std::string>& resolved) {
  if (resolved.back().compare(0, kTempPrefix.size(), kTempPrefix) == 0)
    return true;
  return resolved.size() >= 2 &&
         resolved[0] + "/" + resolved[1] == cvmfs::kTxnDir;
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

// Walks the components one lstat(2) at a time below path_ and expands
// symbolic links itself: a target that leaves the directory ends the walk
// before anything outside is looked at, so the answer (kNotFound) does not
// depend on what exists there.
Result<std::string> StorageRoot::Resolve(std::string_view relative) const {
  CVMFS_ASSIGN_OR_RETURN(std::deque<std::string> pending,
                         RequestComponents(relative));
  std::vector<std::string> resolved;  // below path_, each a non-link
  std::string path = path_;           // path_ + "/" + resolved
  bool at_non_directory = false;
  int links = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part.empty() || part == ".") continue;
    if (at_non_directory) return Status::NotFound(path + " is not a directory");
    if (part == "..") {  // from a link's target only
      if (resolved.empty())
        return Status::NotFound("a symbolic link leads out of " + path_);
      resolved.pop_back();
      path.resize(path.rfind('/'));
      continue;
    }
    resolved.push_back(part);
    path += "/" + part;
    if (IsTemporary(resolved))
      return Status::NotFound(path + " is a temporary file");
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      int err = errno;
      if (err == ENOENT || err == ENOTDIR) return Status::NotFound(path);
      return Status::FromErrno(err, "lstat " + path);
    }
    if (!S_ISLNK(st.st_mode)) {
      at_non_directory = !S_ISDIR(st.st_mode);
      continue;
    }
    if (++links > kMaxLinks)
      return Status::Permission(path + ": symbolic link loop");
    CVMFS_ASSIGN_OR_RETURN(std::string target, ReadLink(path));
    resolved.pop_back();
    path.resize(path.rfind('/'));
    if (!target.empty() && target[0] == '/') {
      // Absolute: followed only if it names the canonical directory.
      if (target.compare(0, path_.size(), path_) != 0 ||
          (target.size() > path_.size() && target[path_.size()] != '/'))
        return Status::NotFound("a symbolic link leads out of " + path_);
      target.erase(0, path_.size());
      resolved.clear();
      path = path_;
    }
    PushFrontComponents(target, &pending);
  }
  return path;
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
    if (err == ELOOP) return Status::Permission(resolved + " became a link");
    return Status::FromErrno(err, "open " + resolved);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0)
    return Status::FromErrno(errno, "stat " + resolved);
  if (!S_ISREG(st.st_mode))
    return Status::Permission(resolved + " is not a regular file");
  // What Apache (running as its own user) could not read is not served
  // either, and answers as if it did not exist.
  if ((st.st_mode & S_IROTH) == 0)
    return Status::NotFound(resolved + " is not world-readable");
  // The response is sent with sendfile()/pread(), which want blocking mode.
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0)
    return Status::FromErrno(errno, "fcntl " + resolved);
  return OpenedFile{std::move(fd), static_cast<uint64_t>(st.st_size)};
}

}  // namespace server
