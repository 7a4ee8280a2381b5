// The CernVM-FS mounts of this node, from the kernel's mount table: lines
// whose source is "cvmfs2" (or a path ending in /cvmfs2), as CVMFS's tools
// find them. Each mount's repository name comes from its user.fqrn
// attribute; when that cannot be read (a hung or dead mount), from the last
// component of the mountpoint.
//
// Thread safety: free functions.
#ifndef CLIENT_TOOLS_MOUNT_TABLE_H_
#define CLIENT_TOOLS_MOUNT_TABLE_H_

#include <string>
#include <vector>

#include "cvmfs/status.h"

namespace cvmfs::tools {

struct CvmfsMount {
  std::string mountpoint;
  std::string fqrn;
  bool responsive = false;  // user.fqrn could be read
};

// The mountpoints of cvmfs2 mounts in a mount table text (/proc/mounts
// format; "\040" and the other octal escapes decoded), in table order.
std::vector<std::string> ParseCvmfsMountpoints(const std::string& table);

// The mounts of `table_file` (default /proc/self/mounts), with their
// repository names.
Result<std::vector<CvmfsMount>> ListCvmfsMounts(
    const std::string& table_file = "/proc/self/mounts");

// A magic attribute (user.<name>) of a mounted repository; NotFound if the
// file system does not have it.
Result<std::string> MagicAttribute(const std::string& path,
                                   const std::string& name);

// True if `path` is `dir` or below it.
bool IsBelow(const std::string& path, const std::string& dir);

}  // namespace cvmfs::tools

#endif  // CLIENT_TOOLS_MOUNT_TABLE_H_
