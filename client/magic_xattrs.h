// MagicXattrs: CVMFS's "user.*" attributes that describe the mount rather
// than an entry (user.fqrn, user.revision, user.host, ...), and the
// per-file ones (user.hash, user.chunks, user.rawlink, ...), as listed in
// doc/client.md. Values come from a snapshot of the mount's statistics
// (FileSystem::Statistics), taken for the request.
//
// Thread safety: a short-lived view; create one per request.
#ifndef CLIENT_MAGIC_XATTRS_H_
#define CLIENT_MAGIC_XATTRS_H_

#include <string>
#include <vector>

#include "client/file_system.h"
#include "client/inode_table.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

// The version the client reports (user.version, cvmfs_talk version).
inline constexpr const char* kClientVersion = "2.12.0";

class MagicXattrs {
 public:
  // Both are borrowed for the life of the view.
  MagicXattrs(const MountStatistics& stats, const InodeInfo& info)
      : stats_(stats), info_(info) {}

  // NotFound for names that are not magic (or do not apply to this entry).
  Result<std::string> Get(const std::string& name) const;
  // True for every magic name ("user.fqrn", ...), whatever the entry.
  static bool IsMagic(const std::string& name);
  // The magic names that apply to `entry`, with the "user." prefix.
  static std::vector<std::string> Names(const DirectoryEntry& entry);

 private:
  std::string PrefetchSummary() const;
  const MountStatistics& stats_;
  const InodeInfo& info_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_MAGIC_XATTRS_H_
