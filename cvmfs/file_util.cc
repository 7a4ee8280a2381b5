#include "cvmfs/file_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace cvmfs {

void UniqueFd::Reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

Result<std::string> ReadFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Status::FromErrno(errno, "open " + path);
  return ReadAll(fd.get(), path);
}

Result<std::string> ReadAll(int fd, const std::string& what) {
  std::string out;
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, "read " + what);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

Status WriteAll(int fd, const void* data, size_t size,
                const std::string& what) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, "write " + what);
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

Result<size_t> ReadFull(int fd, void* buf, size_t size,
                        const std::string& what) {
  size_t done = 0;
  char* p = static_cast<char*>(buf);
  while (done < size) {
    ssize_t n = ::read(fd, p + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, "read " + what);
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

Status ForEachBlock(int fd, size_t block_size, const std::string& what,
                    const std::function<Status(const char*, size_t)>& fn) {
  std::vector<char> block(block_size);
  for (;;) {
    CVMFS_ASSIGN_OR_RETURN(size_t n,
                           ReadFull(fd, block.data(), block.size(), what));
    if (n > 0) CVMFS_RETURN_IF_ERROR(fn(block.data(), n));
    if (n < block.size()) return Status::Ok();
  }
}

std::string TempNameFor(const std::string& path) {
  static std::atomic<unsigned> counter{0};  // uniqueness only, no shared state
  // A short name in the same directory (same file system, so rename is
  // atomic), whatever the length of the final name.
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  return dir + "/.tmp." + std::to_string(::getpid()) + "." +
         std::to_string(counter.fetch_add(1));
}

Status WriteFileAtomic(const std::string& path, std::string_view data, int mode,
                       bool sync) {
  std::string tmp = TempNameFor(path);
  UniqueFd fd(
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (!fd.valid()) return Status::FromErrno(errno, "create " + tmp);
  Status st = WriteAll(fd.get(), data.data(), data.size(), tmp);
  if (st.ok() && ::fchmod(fd.get(), mode) != 0)
    st = Status::FromErrno(errno, "chmod " + tmp);
  if (st.ok() && sync && ::fsync(fd.get()) != 0)
    st = Status::FromErrno(errno, "fsync " + tmp);
  fd.Reset();
  if (st.ok() && ::rename(tmp.c_str(), path.c_str()) != 0)
    st = Status::FromErrno(errno, "rename " + tmp + " to " + path);
  if (!st.ok()) ::unlink(tmp.c_str());
  return st;
}

Status MakeDirs(const std::string& path, int mode) {
  if (path.empty()) return Status::Ok();
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), mode) != 0 && errno != EEXIST)
      return Status::FromErrno(errno, "mkdir " + cur);
  }
  if (!IsDirectory(path))
    return Status::IoError(path + " exists and is not a directory");
  return Status::Ok();
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Status RemoveTree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) return Status::FromErrno(ec.value(), "remove " + path);
  return Status::Ok();
}

Result<std::vector<std::string>> ListDirectory(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (!dir) return Status::FromErrno(errno, "opendir " + path);
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0)
      continue;
    names.emplace_back(e->d_name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out(a);
  while (!out.empty() && out.back() == '/' && out.size() > 1) out.pop_back();
  size_t start = 0;
  while (start < b.size() && b[start] == '/') ++start;
  if (out != "/") out.push_back('/');
  out.append(b.substr(start));
  return out;
}

}  // namespace cvmfs
