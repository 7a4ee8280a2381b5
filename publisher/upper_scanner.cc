#include "publisher/upper_scanner.h"

#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>

#include "cvmfs/file_util.h"

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

namespace {

constexpr char kWhiteoutPrefix[] = ".wh.";
constexpr char kOpaqueMarker[] = ".wh..wh..opq";

// An xattr value, or nullopt when it is not set.
Result<std::optional<std::string>> GetXattr(const std::string& path, const std::string& name) {
  char buf[4096];
  ssize_t n = ::lgetxattr(path.c_str(), name.c_str(), buf, sizeof(buf));
  if (n >= 0) return std::optional<std::string>(std::string(buf, static_cast<size_t>(n)));
  if (errno == ENODATA || errno == ENOTSUP) return std::optional<std::string>();
  return Status::FromErrno(errno, "getxattr " + name + " of " + path);
}

// `names` is a reused buffer of at least 64 KiB (the kernel's limit for a
// list of names).
Result<std::vector<std::pair<std::string, std::string>>> UserXattrs(const std::string& path,
                                                                   std::string* names_buf) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string& names = *names_buf;
  ssize_t n = ::llistxattr(path.c_str(), names.data(), names.size());
  if (n < 0) {
    if (errno == ENOTSUP) return out;
    return Status::FromErrno(errno, "listxattr of " + path);
  }
  for (size_t pos = 0; pos < static_cast<size_t>(n);) {
    std::string name(names.c_str() + pos);
    pos += name.size() + 1;
    if (name.rfind("user.", 0) != 0 || name.rfind("user.overlay.", 0) == 0) continue;
    if (IsClientMagicXattr(name)) continue;
    CVMFS_ASSIGN_OR_RETURN(auto value, GetXattr(path, name));
    if (value) out.emplace_back(name, *value);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool IsWhiteoutDevice(const struct stat& st) {
  return S_ISCHR(st.st_mode) && major(st.st_rdev) == 0 && minor(st.st_rdev) == 0;
}

class Scanner {
 public:
  Scanner(const UpperScanOptions& options, const UpperVisitor& visit)
      : options_(options), visit_(visit) {}

  Status ScanDirectory(const std::string& dir, const std::string& path);

 private:
  Status CheckNotRedirected(const std::string& upper_path, const std::string& path,
                            bool directory);
  Status VisitEntry(const std::string& upper_path, const std::string& path);
  Result<bool> IsOpaque(const std::string& dir, const std::vector<std::string>& names);

  const UpperScanOptions& options_;
  const UpperVisitor& visit_;
  std::string xattr_names_ = std::string(65536, '\0');
};

Result<bool> Scanner::IsOpaque(const std::string& dir, const std::vector<std::string>& names) {
  if (std::binary_search(names.begin(), names.end(), std::string(kOpaqueMarker))) return true;
  CVMFS_ASSIGN_OR_RETURN(auto v, GetXattr(dir, options_.overlay_xattr_prefix + "opaque"));
  return v && *v == "y";
}

// A directory with a redirect xattr was renamed with redirect_dir=on; a
// regular file with a metacopy xattr has its data in the lower layer.
Status Scanner::CheckNotRedirected(const std::string& upper_path, const std::string& path,
                                   bool directory) {
  const std::string xattr = options_.overlay_xattr_prefix + (directory ? "redirect" : "metacopy");
  CVMFS_ASSIGN_OR_RETURN(auto value, GetXattr(upper_path, xattr));
  if (!value) return Status::Ok();
  if (directory)
    return Status::NotSupported("directory " + path + " was renamed by overlayfs with "
                                "redirect_dir=on (" + upper_path + "); the transaction cannot be "
                                "published from its upper layer: abort it and remount with "
                                "cvmfs_server mount (redirect_dir=off)");
  return Status::NotSupported("file " + path + " holds only metadata (overlayfs metacopy=on, " +
                              upper_path + "); abort the transaction and remount with "
                              "cvmfs_server mount (metacopy=off)");
}

Status Scanner::ScanDirectory(const std::string& dir, const std::string& path) {
  CVMFS_ASSIGN_OR_RETURN(std::vector<std::string> names, cvmfs::ListDirectory(dir));
  UpperEntry self;
  self.kind = UpperEntry::Kind::kDirectory;
  self.path = path;
  self.upper_path = dir;
  if (::lstat(dir.c_str(), &self.st) != 0) return Status::FromErrno(errno, "lstat " + dir);
  CVMFS_RETURN_IF_ERROR(CheckNotRedirected(dir, path.empty() ? "/" : path, true));
  if (!path.empty()) {
    CVMFS_ASSIGN_OR_RETURN(self.opaque, IsOpaque(dir, names));
  }
  if (options_.include_xattrs) {
    CVMFS_ASSIGN_OR_RETURN(self.xattrs, UserXattrs(dir, &xattr_names_));
  }
  CVMFS_RETURN_IF_ERROR(visit_(self));

  // Whiteouts first, so that a consumer deletes before it adds.
  std::vector<std::string> others;
  for (const std::string& name : names) {
    const std::string upper_path = dir + "/" + name;
    if (name == kOpaqueMarker) continue;
    UpperEntry wh;
    wh.kind = UpperEntry::Kind::kWhiteout;
    wh.upper_path = upper_path;
    if (name.rfind(kWhiteoutPrefix, 0) == 0) {
      wh.path = path + "/" + name.substr(sizeof(kWhiteoutPrefix) - 1);
      CVMFS_RETURN_IF_ERROR(visit_(wh));
      continue;
    }
    struct stat st;
    if (::lstat(upper_path.c_str(), &st) != 0) return Status::FromErrno(errno, "lstat " + upper_path);
    if (IsWhiteoutDevice(st)) {
      wh.path = path + "/" + name;
      CVMFS_RETURN_IF_ERROR(visit_(wh));
      continue;
    }
    others.push_back(name);
  }
  for (const std::string& name : others)
    CVMFS_RETURN_IF_ERROR(VisitEntry(dir + "/" + name, path + "/" + name));
  return Status::Ok();
}

Status Scanner::VisitEntry(const std::string& upper_path, const std::string& path) {
  UpperEntry e;
  e.path = path;
  e.upper_path = upper_path;
  if (::lstat(upper_path.c_str(), &e.st) != 0) return Status::FromErrno(errno, "lstat " + upper_path);
  if (S_ISDIR(e.st.st_mode)) return ScanDirectory(upper_path, path);
  if (S_ISREG(e.st.st_mode)) {
    e.kind = UpperEntry::Kind::kRegular;
    CVMFS_RETURN_IF_ERROR(CheckNotRedirected(upper_path, path, false));
  } else if (S_ISLNK(e.st.st_mode)) {
    e.kind = UpperEntry::Kind::kSymlink;
    std::string target(4096, '\0');
    ssize_t n = ::readlink(upper_path.c_str(), target.data(), target.size());
    if (n < 0) return Status::FromErrno(errno, "readlink " + upper_path);
    target.resize(static_cast<size_t>(n));
    e.symlink = target;
  } else {
    e.kind = UpperEntry::Kind::kSpecial;
  }
  if (options_.include_xattrs && !S_ISLNK(e.st.st_mode)) {
    CVMFS_ASSIGN_OR_RETURN(e.xattrs, UserXattrs(upper_path, &xattr_names_));
  }
  return visit_(e);
}

}  // namespace

bool IsClientMagicXattr(const std::string& name) {
  // CVMFS 2.12's magic attributes (doc/client.md lists the ones we show).
  static const std::set<std::string> kMagic = {
      "user.authz",          "user.catalog_counters", "user.chunk_list", "user.chunks",
      "user.compression",    "user.direct_io",        "user.expires",    "user.external_file",
      "user.external_host",  "user.external_timeout", "user.fqrn",       "user.hash",
      "user.hitrate",        "user.host",             "user.host_list",  "user.inode_max",
      "user.lhash",          "user.logbuffer",        "user.maxfd",      "user.nclg",
      "user.ncleanup24",     "user.ndiropen",         "user.ndownload",  "user.nioerr",
      "user.nopen",          "user.pid",              "user.proxy",      "user.proxy_list",
      "user.rawlink",        "user.repo_counters",    "user.repo_metainfo", "user.revision",
      "user.root_hash",      "user.rx",               "user.speed",      "user.tag",
      "user.timeout",        "user.timeout_direct",   "user.uptime",     "user.usedfd",
      "user.version"};
  return kMagic.count(name) > 0;
}

Status ScanUpperLayer(const std::string& upper_dir, const UpperScanOptions& options,
                      const UpperVisitor& visit) {
  Scanner scanner(options, visit);
  return scanner.ScanDirectory(upper_dir, "");
}

}  // namespace publisher
