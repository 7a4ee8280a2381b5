// MagicXattrs: CVMFS's "user.*" attributes that describe the mount rather
// than an entry (user.fqrn, user.revision, user.host, ...), and the
// per-file ones (user.hash, user.chunks, user.rawlink, ...), as listed in
// doc/client.md. Per-file values come from the entry; mount-wide ones from
// a snapshot of the mount's statistics (FileSystem::Statistics), taken only
// when such a value is asked for (tar --xattrs and rsync -X ask for every
// listed name of every file).
//
// A magic name always wins over an attribute of the same name stored in the
// repository (a tar member carrying user.hash=deadbeef): getxattr answers
// the magic value and listxattr names it once (doc/client.md, "Extended
// attributes"). A magic name that does not apply to the entry (user.hash
// of a directory, user.rawlink of a file) shadows nothing, as in CVMFS.
//
// Thread safety: a short-lived view; create one per request.
#ifndef CLIENT_MAGIC_XATTRS_H_
#define CLIENT_MAGIC_XATTRS_H_

#include <functional>
#include <optional>
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
  // `stats` takes the snapshot (called at most once per Get); both are
  // borrowed for the life of the view.
  using StatisticsFn = std::function<MountStatistics()>;
  MagicXattrs(const StatisticsFn& stats, const InodeInfo& info)
      : stats_(stats), info_(info) {}

  // NotFound for names that are not magic (or do not apply to this entry).
  Result<std::string> Get(const std::string& name) const;
  // getxattr: the magic value if `name` is magic for this entry, else the
  // repository's attribute; NotFound if neither has it.
  Result<std::string> Lookup(const std::string& name) const;
  // listxattr, each name once: the repository's attributes that no magic
  // one shadows, then (unless `hide_magic`, CVMFS_HIDE_MAGIC_XATTRS) the
  // magic names of the entry.
  static std::vector<std::string> List(const DirectoryEntry& entry,
                                       bool hide_magic);
  // True if `name` is magic and applies to `entry`: Get answers it and an
  // attribute of that name in the repository is hidden.
  static bool Shadows(const std::string& name, const DirectoryEntry& entry);
  // True for every magic name ("user.fqrn", ...), whatever the entry.
  static bool IsMagic(const std::string& name);
  // The magic names that apply to `entry`, with the "user." prefix.
  static std::vector<std::string> Names(const DirectoryEntry& entry);
  // The value of the mount-wide attribute `name` (without "user.") in a
  // snapshot; NotFound if it is not one.
  static Result<std::string> MountValue(const std::string& name,
                                        const MountStatistics& stats);

 private:
  // The value of a per-file attribute (nullopt: `name` is mount-wide).
  std::optional<Result<std::string>> EntryValue(const std::string& name) const;
  static std::string PrefetchSummary(const PrefetchCounters& c);
  const StatisticsFn& stats_;
  const InodeInfo& info_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_MAGIC_XATTRS_H_
