#include "client/tools/mount_table.h"

#include <sys/xattr.h>

#include <cerrno>

#include "cvmfs/file_util.h"
#include "cvmfs/mountinfo.h"

namespace cvmfs::tools {

namespace {

bool IsCvmfsSource(const std::string& source) {
  const std::string name = "cvmfs2";
  if (source == name) return true;
  return source.size() > name.size() + 1 && source[0] == '/' &&
         source.compare(source.size() - name.size() - 1, std::string::npos,
                        "/" + name) == 0;
}

}  // namespace

std::vector<std::string> ParseCvmfsMountpoints(const std::string& table) {
  std::vector<std::string> out;
  for (const MountEntry& m : ParseProcMounts(table)) {
    if (IsCvmfsSource(m.source) && m.fstype.rfind("fuse", 0) == 0)
      out.push_back(m.mountpoint);
  }
  return out;
}

Result<std::string> MagicAttribute(const std::string& path,
                                   const std::string& name) {
  const std::string attr = "user." + name;
  char buf[4096];
  ssize_t n = ::getxattr(path.c_str(), attr.c_str(), buf, sizeof(buf));
  if (n < 0) {
    if (errno == ENODATA || errno == ENOTSUP)
      return Status::NotFound(attr + " of " + path);
    return Status::FromErrno(errno, "getxattr " + attr + " " + path);
  }
  return std::string(buf, static_cast<size_t>(n));
}

Result<std::vector<CvmfsMount>> ListCvmfsMounts(const std::string& table_file) {
  CVMFS_ASSIGN_OR_RETURN(std::string table, ReadFile(table_file));
  std::vector<CvmfsMount> mounts;
  for (const std::string& mp : ParseCvmfsMountpoints(table)) {
    CvmfsMount m;
    m.mountpoint = mp;
    auto fqrn = MagicAttribute(mp, "fqrn");
    m.responsive = fqrn.ok();
    m.fqrn = fqrn.ok() ? *fqrn : mp.substr(mp.rfind('/') + 1);
    mounts.push_back(std::move(m));
  }
  return mounts;
}

bool IsBelow(const std::string& path, const std::string& dir) {
  if (dir == "/") return !path.empty() && path[0] == '/';
  return path == dir || path.compare(0, dir.size() + 1, dir + "/") == 0;
}

}  // namespace cvmfs::tools
