// The kernel's mount tables as data: /proc/self/mountinfo (proc(5):
// "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root
// rw,errors=continue") and the older /proc/mounts (fstab(5) layout:
// "cvmfs2 /cvmfs/x.org fuse ro,nosuid 0 0"). Mountpoints, sources and
// options have the kernel's octal escapes decoded ("\040" is a blank);
// the file system type is kept as written.
//
// Thread safety: plain values and free functions.
#ifndef CVMFS_MOUNTINFO_H_
#define CVMFS_MOUNTINFO_H_

#include <string>
#include <string_view>
#include <vector>

namespace cvmfs {

struct MountEntry {
  std::string mountpoint;
  std::string fstype;      // "overlay", "fuse" (FUSE mounts without subtype)...
  std::string source;      // e.g. "overlay_<fqrn>", "cvmfs2"
  bool read_only = false;  // "ro" among the per-mount options
  std::string options;     // per-mount options, e.g. "ro,nodev"
  std::string super_options;  // e.g. "lowerdir=...,upperdir=..." (mountinfo
                              // only; /proc/mounts merges them into options)
};

// Undoes the kernel's escapes in a mount table field: a backslash followed
// by three octal digits, the first 0-3, is that byte. Anything else stays.
std::string UnescapeMountField(std::string_view field);

// The entries of a /proc/self/mountinfo text, in table order (later entries
// are mounted on top of earlier ones). Lines that do not parse are skipped.
std::vector<MountEntry> ParseMountInfo(std::string_view text);

// The entries of a /proc/mounts text, in table order. Lines with fewer than
// three fields (source, mountpoint, type) are skipped.
std::vector<MountEntry> ParseProcMounts(std::string_view text);

}  // namespace cvmfs

#endif  // CVMFS_MOUNTINFO_H_
