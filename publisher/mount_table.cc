#include "publisher/mount_table.h"

#include "cvmfs/file_util.h"

namespace publisher {

std::optional<MountEntry> FindMount(const std::vector<MountEntry>& table,
                                    const std::string& mountpoint) {
  std::optional<MountEntry> found;
  for (const MountEntry& e : table)
    if (e.mountpoint == mountpoint)
      found = e;  // later lines are mounted on top
  return found;
}

cvmfs::Result<std::vector<MountEntry>> ReadMountTable() {
  CVMFS_ASSIGN_OR_RETURN(std::string text,
                         cvmfs::ReadFile("/proc/self/mountinfo"));
  return ParseMountInfo(text);
}

}  // namespace publisher
