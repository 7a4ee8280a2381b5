// MountTable: what is mounted where in this process's namespace, from
// /proc/self/mountinfo as cvmfs/mountinfo.h parses it.
//
// Thread safety: plain values and free functions.
#ifndef PUBLISHER_MOUNT_TABLE_H_
#define PUBLISHER_MOUNT_TABLE_H_

#include <optional>
#include <string>
#include <vector>

#include "cvmfs/mountinfo.h"
#include "cvmfs/status.h"

namespace publisher {

using cvmfs::MountEntry;
using cvmfs::ParseMountInfo;

// The topmost mount at exactly `mountpoint` in `table`, if any.
std::optional<MountEntry> FindMount(const std::vector<MountEntry>& table,
                                    const std::string& mountpoint);

// The mounts of this process's namespace now.
cvmfs::Result<std::vector<MountEntry>> ReadMountTable();

}  // namespace publisher

#endif  // PUBLISHER_MOUNT_TABLE_H_
