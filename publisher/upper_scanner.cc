#include "publisher/upper_scanner.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <string_view>

#include "cvmfs/file_util.h"

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

namespace {

constexpr char kWhiteoutPrefix[] = ".wh.";
constexpr char kOpaqueMarker[] = ".wh..wh..opq";

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};
using UniqueDir = std::unique_ptr<DIR, DirCloser>;

// An xattr value of `fd` (if >= 0) or else of `path` itself, or nullopt when
// it is not set.
Result<std::optional<std::string>> GetXattr(const std::string& path,
                                            const std::string& name,
                                            int fd = -1) {
  char buf[4096];
  ssize_t n = fd >= 0
                  ? ::fgetxattr(fd, name.c_str(), buf, sizeof(buf))
                  : ::lgetxattr(path.c_str(), name.c_str(), buf, sizeof(buf));
  if (n >= 0)
    return std::optional<std::string>(std::string(buf, static_cast<size_t>(n)));
  if (errno == ENODATA || errno == ENOTSUP) return std::optional<std::string>();
  return Status::FromErrno(errno, "getxattr " + name + " of " + path);
}

bool IsWhiteoutDevice(const struct stat& st) {
  return S_ISCHR(st.st_mode) && major(st.st_rdev) == 0 &&
         minor(st.st_rdev) == 0;
}

// The names of a directory (without "." and ".."), sorted.
std::vector<std::string> ReadNames(DIR* dir) {
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0)
      continue;
    names.emplace_back(e->d_name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// One pass over a directory tree of the upper layer. Each entry costs one
// fstatat() relative to its directory's descriptor and one listxattr (on
// the descriptor a regular file is opened with, relative to its directory:
// no path is walked from the root per file); xattr values are read only for
// the names listed, so that the common entry without attributes needs no
// getxattr at all.
class Scanner {
 public:
  Scanner(const UpperScanOptions& options, const UpperVisitor& visit)
      : options_(options), visit_(visit) {}

  Status ScanRoot(const std::string& dir);

 private:
  // `fd` is the open directory `dir` (repository path `path`), `st` its stat.
  Status ScanDirectory(cvmfs::UniqueFd fd, const std::string& dir,
                       const std::string& path, const struct stat& st);
  Status VisitEntry(int dir_fd, const std::string& name,
                    const std::string& upper_path, const std::string& path,
                    const struct stat& st);
  // Lists the xattr names of `fd` (if >= 0) or else of `upper_path` into
  // names_ (empty if none).
  Status ListXattrs(const std::string& upper_path, int fd = -1);
  bool HasXattr(const std::string& name) const;
  Result<std::vector<std::pair<std::string, std::string>>> UserXattrs(
      const std::string& upper_path, int fd = -1);
  Status CheckNotRedirected(const std::string& upper_path,
                            const std::string& path, bool directory) const;

  const UpperScanOptions& options_;
  const UpperVisitor& visit_;
  std::string names_buf_ =
      std::string(65536, '\0');          // the kernel's limit for a list
  std::vector<std::string_view> names_;  // into names_buf_
};

Status Scanner::ListXattrs(const std::string& upper_path, int fd) {
  names_.clear();
  ssize_t n = fd >= 0 ? ::flistxattr(fd, names_buf_.data(), names_buf_.size())
                      : ::llistxattr(upper_path.c_str(), names_buf_.data(),
                                     names_buf_.size());
  if (n < 0) {
    if (errno == ENOTSUP) return Status::Ok();
    return Status::FromErrno(errno, "listxattr of " + upper_path);
  }
  for (size_t pos = 0; pos < static_cast<size_t>(n);) {
    std::string_view name(names_buf_.data() + pos);
    pos += name.size() + 1;
    names_.push_back(name);
  }
  return Status::Ok();
}

bool Scanner::HasXattr(const std::string& name) const {
  return std::find(names_.begin(), names_.end(), name) != names_.end();
}

// User attributes from names_, without overlayfs's and the client's magic
// ones, sorted by name.
Result<std::vector<std::pair<std::string, std::string>>> Scanner::UserXattrs(
    const std::string& upper_path, int fd) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::string_view n : names_) {
    std::string name(n);
    if (name.rfind("user.", 0) != 0 || name.rfind("user.overlay.", 0) == 0)
      continue;
    if (IsClientMagicXattr(name)) continue;
    CVMFS_ASSIGN_OR_RETURN(auto value, GetXattr(upper_path, name, fd));
    if (value) out.emplace_back(name, *value);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A directory with a redirect xattr was renamed with redirect_dir=on; a
// regular file with a metacopy xattr has its data in the lower layer.
// Checked on names_.
Status Scanner::CheckNotRedirected(const std::string& upper_path,
                                   const std::string& path,
                                   bool directory) const {
  const std::string xattr =
      options_.overlay_xattr_prefix + (directory ? "redirect" : "metacopy");
  if (!HasXattr(xattr)) return Status::Ok();
  if (directory)
    return Status::NotSupported(
        "directory " + path +
        " was renamed by overlayfs with "
        "redirect_dir=on (" +
        upper_path +
        "); the transaction cannot be "
        "published from its upper layer: abort it and remount with "
        "cvmfs_server mount (redirect_dir=off)");
  return Status::NotSupported("file " + path +
                              " holds only metadata (overlayfs metacopy=on, " +
                              upper_path +
                              "); abort the transaction and remount with "
                              "cvmfs_server mount (metacopy=off)");
}

Status Scanner::ScanRoot(const std::string& dir) {
  cvmfs::UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return Status::FromErrno(errno, "open " + dir);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0)
    return Status::FromErrno(errno, "fstat " + dir);
  return ScanDirectory(std::move(fd), dir, "", st);
}

Status Scanner::ScanDirectory(cvmfs::UniqueFd fd, const std::string& dir,
                              const std::string& path, const struct stat& st) {
  UniqueDir listing(::fdopendir(fd.get()));
  if (!listing) return Status::FromErrno(errno, "opendir " + dir);
  const int dir_fd = fd.Release();  // owned by `listing` now
  std::vector<std::string> names = ReadNames(listing.get());

  UpperEntry self;
  self.kind = UpperEntry::Kind::kDirectory;
  self.path = path;
  self.upper_path = dir;
  self.st = st;
  CVMFS_RETURN_IF_ERROR(ListXattrs(dir));
  CVMFS_RETURN_IF_ERROR(
      CheckNotRedirected(dir, path.empty() ? "/" : path, true));
  if (!path.empty()) {
    self.opaque = std::binary_search(names.begin(), names.end(),
                                     std::string(kOpaqueMarker));
    const std::string opaque = options_.overlay_xattr_prefix + "opaque";
    if (!self.opaque && HasXattr(opaque)) {
      CVMFS_ASSIGN_OR_RETURN(auto v, GetXattr(dir, opaque));
      self.opaque = v && *v == "y";
    }
  }
  if (options_.include_xattrs) {
    CVMFS_ASSIGN_OR_RETURN(self.xattrs, UserXattrs(dir));
  }
  CVMFS_RETURN_IF_ERROR(visit_(self));

  // Whiteouts first, so that a consumer deletes before it adds.
  std::vector<std::pair<std::string, struct stat>> others;
  for (const std::string& name : names) {
    if (name == kOpaqueMarker) continue;
    UpperEntry wh;
    wh.kind = UpperEntry::Kind::kWhiteout;
    wh.upper_path = dir + "/" + name;
    if (name.rfind(kWhiteoutPrefix, 0) == 0) {
      wh.path = path + "/" + name.substr(sizeof(kWhiteoutPrefix) - 1);
      CVMFS_RETURN_IF_ERROR(visit_(wh));
      continue;
    }
    struct stat child;
    if (::fstatat(dir_fd, name.c_str(), &child, AT_SYMLINK_NOFOLLOW) != 0)
      return Status::FromErrno(errno, "lstat " + wh.upper_path);
    if (IsWhiteoutDevice(child)) {
      wh.path = path + "/" + name;
      CVMFS_RETURN_IF_ERROR(visit_(wh));
      continue;
    }
    others.emplace_back(name, child);
  }
  for (const auto& [name, child] : others)
    CVMFS_RETURN_IF_ERROR(
        VisitEntry(dir_fd, name, dir + "/" + name, path + "/" + name, child));
  return Status::Ok();
}

Status Scanner::VisitEntry(int dir_fd, const std::string& name,
                           const std::string& upper_path,
                           const std::string& path, const struct stat& st) {
  if (S_ISDIR(st.st_mode)) {
    cvmfs::UniqueFd fd(::openat(
        dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) return Status::FromErrno(errno, "open " + upper_path);
    return ScanDirectory(std::move(fd), upper_path, path, st);
  }
  UpperEntry e;
  e.path = path;
  e.upper_path = upper_path;
  e.st = st;
  if (S_ISLNK(st.st_mode)) {
    e.kind = UpperEntry::Kind::kSymlink;
    std::string target(4096, '\0');
    ssize_t n =
        ::readlinkat(dir_fd, name.c_str(), target.data(), target.size());
    if (n < 0) return Status::FromErrno(errno, "readlink " + upper_path);
    target.resize(static_cast<size_t>(n));
    e.symlink = target;
    return visit_(e);
  }
  cvmfs::UniqueFd file;
  if (S_ISREG(st.st_mode)) {
    e.kind = UpperEntry::Kind::kRegular;
    file.Reset(
        ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!file.valid()) return Status::FromErrno(errno, "open " + upper_path);
    e.fd = file.get();
  } else {
    e.kind = UpperEntry::Kind::kSpecial;  // opening a fifo or a device would
                                          // block or act
  }
  CVMFS_RETURN_IF_ERROR(ListXattrs(upper_path, e.fd));
  if (S_ISREG(st.st_mode))
    CVMFS_RETURN_IF_ERROR(CheckNotRedirected(upper_path, path, false));
  if (options_.include_xattrs) {
    CVMFS_ASSIGN_OR_RETURN(e.xattrs, UserXattrs(upper_path, e.fd));
  }
  return visit_(e);
}

}  // namespace

bool IsClientMagicXattr(const std::string& name) {
  // CVMFS 2.12's magic attributes (doc/client.md lists the ones we show).
  static const std::set<std::string> kMagic = {
      "user.authz",         "user.catalog_counters",
      "user.chunk_list",    "user.chunks",
      "user.compression",   "user.direct_io",
      "user.expires",       "user.external_file",
      "user.external_host", "user.external_timeout",
      "user.fqrn",          "user.hash",
      "user.hitrate",       "user.host",
      "user.host_list",     "user.inode_max",
      "user.lhash",         "user.logbuffer",
      "user.maxfd",         "user.nclg",
      "user.ncleanup24",    "user.ndiropen",
      "user.ndownload",     "user.nioerr",
      "user.nopen",         "user.pid",
      "user.proxy",         "user.proxy_list",
      "user.rawlink",       "user.repo_counters",
      "user.repo_metainfo", "user.revision",
      "user.root_hash",     "user.rx",
      "user.speed",         "user.tag",
      "user.timeout",       "user.timeout_direct",
      "user.uptime",        "user.usedfd",
      "user.version"};
  return kMagic.count(name) > 0;
}

Status ScanUpperLayer(const std::string& upper_dir,
                      const UpperScanOptions& options,
                      const UpperVisitor& visit) {
  Scanner scanner(options, visit);
  return scanner.ScanRoot(upper_dir);
}

}  // namespace publisher
