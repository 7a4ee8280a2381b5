// The mounts that the tools of one CVMFS_ROOTDIR reach: `cvmfs_talk` and
// `cvmfs_config stat` without a repository name address these only, not
// the mounts of other roots on the same node (doc/client.md,
// "Relocating the client").
//
// A mount belongs to this root if its mountpoint is below this root's
// CVMFS_MOUNT_DIR, or if this root's configuration of its repository names
// a control socket that exists and that answers with this mountpoint or
// not at all (a hung client of this root). A socket that answers with
// another mountpoint, or none at all, is another root's mount.
//
// Thread safety: free functions.
#ifndef CLIENT_TOOLS_ROOT_MOUNTS_H_
#define CLIENT_TOOLS_ROOT_MOUNTS_H_

#include <string>
#include <vector>

#include "client/tools/mount_table.h"
#include "cvmfs/system_paths.h"

namespace cvmfs::tools {

struct RootMount {
  CvmfsMount mount;
  std::string socket;  // cvmfs_io.<fqrn> as this root's configuration says
};

// Those of `mounts` that belong to the root of `paths`, in order.
std::vector<RootMount> MountsOfRoot(const std::vector<CvmfsMount>& mounts,
                                    const SystemPaths& paths);

}  // namespace cvmfs::tools

#endif  // CLIENT_TOOLS_ROOT_MOUNTS_H_
