// MagicXattrs: CVMFS's "user.*" attributes that describe the mount rather
// than an entry (user.fqrn, user.revision, user.host, ...), and the
// per-file ones (user.hash, user.chunks, user.chunk_list, ...), as listed
// in doc/client.md, with CVMFS's values and formats. Per-file values come
// from the entry; mount-wide ones from a snapshot of the mount's
// statistics (FileSystem::Statistics), taken only when such a value is
// asked for (tar --xattrs and rsync -X ask for every listed name of every
// file).
//
// Pages, as CVMFS: a value is a list of pages of at most kMaxPageChars
// (only user.chunk_list and user.pubkeys ever have more than one). The
// plain name reads page 0; "name~N" reads page N, "name~?" answers
// "num_pages, K"; "name@N" and "name@?" are the same for people, with a
// header line. A page that does not exist is "no such attribute".
//
// A magic name always wins over an attribute of the same name stored in the
// repository (a tar member carrying user.hash=deadbeef): getxattr answers
// the magic value and listxattr names it once (doc/client.md, "Extended
// attributes"). A magic name that does not apply to the entry (user.hash
// of a directory, user.rawlink of a file) shadows nothing, as in CVMFS.
// A protected name (magic_xattrs_protection.h) read by a group that is not
// privileged is "no such attribute".
//
// Thread safety: a short-lived view; create one per request.
#ifndef CLIENT_MAGIC_XATTRS_H_
#define CLIENT_MAGIC_XATTRS_H_

#include <sys/types.h>

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

// What a view reads besides the entry. Unset functions answer as CVMFS
// does when the source is missing.
struct MagicSources {
  // Takes the snapshot (called at most once per Get).
  std::function<MountStatistics()> stats;
  // user.repo_metainfo: the object `digest` (a regular, compressed one)
  // from the cache or the servers.
  std::function<Result<std::string>(const Digest&)> read_object;
  // user.lhash: the hash of the cached copy of `digest`, nullopt if it is
  // not in the cache.
  std::function<Result<std::optional<Digest>>(const Digest&)> cached_hash;
  // user.ncleanup24: the cache's cleanups in the last 24 hours, -1 if it
  // cannot tell.
  std::function<int64_t()> cleanups_24h;
  const FileSystemOptions* options = nullptr;  // keys, log, protection
};

class MagicXattrs {
 public:
  static constexpr size_t kMaxPageChars = 40000;  // CVMFS's page size
  using StatisticsFn = std::function<MountStatistics()>;

  // Both borrowed for the life of the view.
  MagicXattrs(const MagicSources& sources, const InodeInfo& info)
      : sources_(sources), info_(info) {}

  // NotFound for names that are not magic (or do not apply to this entry).
  Result<std::string> Get(const std::string& name) const;
  // getxattr by a process of group `gid` (nullopt: the client itself): the
  // magic value (or page) if `name` is magic for this entry, else the
  // repository's attribute; NotFound if neither has it.
  Result<std::string> Lookup(const std::string& name,
                             std::optional<gid_t> gid = std::nullopt) const;
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
  // "name,value\n" for each of CVMFS's 12 counters (self + subtree), in
  // CVMFS's (alphabetical) order: user.repo_counters.
  static std::string CountersCsv(const CatalogCounters& counters);

 private:
  // All pages of a magic attribute that applies (`name` without "user.").
  Result<std::vector<std::string>> Pages(const std::string& name) const;
  // The value of a per-file attribute (nullopt: `name` is not one).
  std::optional<Result<std::vector<std::string>>> EntryPages(
      const std::string& name) const;
  // Attributes that read more than the entry and the statistics.
  std::optional<Result<std::vector<std::string>>> SourcedPages(
      const std::string& name) const;
  std::vector<std::string> ChunkListPages() const;
  static std::string PrefetchSummary(const PrefetchCounters& c);

  const MagicSources& sources_;
  const InodeInfo& info_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_MAGIC_XATTRS_H_
