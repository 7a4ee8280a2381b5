// MountTable: what is mounted where, from /proc/self/mountinfo
// (proc(5): "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root
// rw,errors=continue"). Octal escapes (\040 for a blank) are decoded.
//
// Thread safety: plain values and free functions.
#ifndef PUBLISHER_MOUNT_TABLE_H_
#define PUBLISHER_MOUNT_TABLE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/status.h"

namespace publisher {

struct MountEntry {
  std::string mountpoint;
  std::string fstype;      // "overlay", "fuse" (FUSE mounts without subtype)...
  std::string source;      // e.g. "overlay_<fqrn>", "cvmfs2"
  bool read_only = false;  // per-mount "ro"
  std::string super_options;  // e.g. "lowerdir=...,upperdir=..."
};

// Lines that do not parse are skipped.
std::vector<MountEntry> ParseMountInfo(std::string_view text);

// The topmost mount at exactly `mountpoint` in `table`, if any.
std::optional<MountEntry> FindMount(const std::vector<MountEntry>& table,
                                    const std::string& mountpoint);

// The mounts of this process's namespace now.
cvmfs::Result<std::vector<MountEntry>> ReadMountTable();

}  // namespace publisher

#endif  // PUBLISHER_MOUNT_TABLE_H_
