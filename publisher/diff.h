// Differences between two revisions of a repository (`cvmfs_server diff`,
// doc/publishing.md "Comparing revisions").
//
// Both catalog trees are walked in parallel, directory by directory in name
// order, as CVMFS's diff tool does. A nested catalog whose hash is the same
// in both revisions (and whose mountpoint entry is unchanged) is not loaded:
// nothing below it can differ. Entries with the hidden flag (CVMFS's
// `.cvmfs` snapshot directories) are not compared.
//
// Order of the reported changes: within a directory by name; an added
// directory is reported before its contents, a removed one after its
// contents, a modified one before its contents.
//
// Thread safety: none; one diff at a time per temporary directory.
#ifndef PUBLISHER_DIFF_H_
#define PUBLISHER_DIFF_H_

#include <cstdint>
#include <functional>
#include <string>

#include "cvmfs/catalog/dirent.h"
#include "cvmfs/hash.h"
#include "cvmfs/object_store.h"
#include "cvmfs/status.h"

namespace publisher {

enum class ChangeKind : char { kAdded = 'A', kRemoved = 'R', kModified = 'M' };

enum class EntryType { kFile, kSymlink, kDirectory, kUnknown };
EntryType TypeOf(const cvmfs::DirectoryEntry& entry);

struct PathChange {
  ChangeKind kind = ChangeKind::kModified;
  std::string path;  // absolute in the repository, e.g. "/sw/gcc"
  EntryType from = EntryType::kUnknown;  // removed and modified entries
  EntryType to = EntryType::kUnknown;    // added and modified entries
  // Modified entries: what differs, as CVMFS's machine-readable letters in
  // this order: I link count, S size, M mode, O owner (uid/gid; ours), T
  // timestamp, L symlink target, C content, G hardlink group, N nested
  // catalog (mountpoint appeared or went), P chunked, X xattrs, E external,
  // B bind mountpoint, H hidden.
  std::string differences;
};

struct DiffOptions {
  bool ignore_timestamps = false;  // -i: mtime alone is no modification
};

// Changes of the whole-tree statistics (to minus from), as CVMFS prints
// them: directories do not count nested catalog roots twice.
struct CounterDelta {
  int64_t files = 0;
  int64_t symlinks = 0;
  int64_t directories = 0;
  int64_t catalogs = 0;
};

struct DiffSummary {
  CounterDelta delta;
  uint64_t catalogs_loaded = 0;   // including both root catalogs
  uint64_t catalogs_skipped = 0;  // nested catalogs equal in both revisions
  uint64_t changes = 0;
};

// Compares the revisions whose root catalogs are `from` and `to`, calling
// `emit` for each change in the order described above. Catalogs are
// decompressed into `temp_dir` (which must exist).
cvmfs::Result<DiffSummary> DiffRevisions(
    cvmfs::ObjectStore* store, const cvmfs::Digest& from,
    const cvmfs::Digest& to, const std::string& temp_dir,
    const DiffOptions& options,
    const std::function<void(const PathChange&)>& emit);

// One output line (without newline), as CVMFS prints it:
//   human:    "/path add file", "/path remove directory",
//             "/path modify file [size, content]", "/p modify file->symlink
//             [...]"
//   machine:  tab-separated "A\tF\t/path", "R\tD\t/path", "M[SC]\tF\t/path",
//             "M[MLC]\tFS\t/path"; tabs, newlines and backslashes in paths
//             are escaped as \t, \n and \\.
std::string FormatChange(const PathChange& change, bool machine_readable);
// The four statistics lines, each ending in '\n'.
std::string FormatDelta(const CounterDelta& delta, bool machine_readable);

}  // namespace publisher

#endif  // PUBLISHER_DIFF_H_
