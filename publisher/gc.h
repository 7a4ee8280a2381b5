// Garbage collection of a Stratum 0 repository (`cvmfs_server gc`,
// doc/publishing.md "Garbage collection").
//
// Mark and sweep at revision granularity, as CVMFS does: a revision is kept
// or dropped as a whole, so every kept revision stays completely mountable.
//
//   mark:  the current revision, the revisions before it that the policy
//          keeps (walking the root catalogs' previous_revision chain), and
//          every tag of the history database; for each, every catalog of its
//          tree and every object those catalogs name (their bundles too,
//          doc/format-bundles.md); plus the certificate,
//          history and metainfo the current manifest names
//   sweep: every object under data/ that is not marked; reflog entries of
//          objects that are not marked are removed from .cvmfsreflog
//
// The reflog is rewritten before any object is deleted, so a collection that
// is killed half way leaves only unreferenced objects behind, which the next
// one removes (they are found by listing data/, not through the reflog). The
// manifest is not touched: its Y line keeps naming the reflog of the last
// publish until the next publish (as with CVMFS).
//
// A collection holds the repository's lock (Repository::Lock) from the
// first read to the last deletion, so no publish or tag change runs
// meanwhile; it refuses to run while a transaction is open. Publishes that
// reuse content through the content index check that the object still
// exists (content_index.h), so deleted objects are stored again when needed.
//
// Thread safety: none; one collection per repository at a time (the lock).
#ifndef PUBLISHER_GC_H_
#define PUBLISHER_GC_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/catalog_walker.h"
#include "cvmfs/hash.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_name.h"
#include "cvmfs/object_store.h"
#include "cvmfs/progress.h"
#include "cvmfs/status.h"
#include "publisher/repository.h"

namespace publisher {

// What `cvmfs_server gc` keeps without -r or -t: revisions that were current
// at some time during the last three days (CVMFS's default, "3 days ago").
inline constexpr int64_t kDefaultGcTimespan = 3 * 24 * 3600;

// Which earlier revisions a collection keeps besides the current one and
// the tagged ones. At most one of the two may be set.
struct GcPolicy {
  // -r N: the current revision and the N before it (-r 0: only the current).
  std::optional<uint64_t> keep_revisions;
  // -t T: every revision that was still current at or after T (Unix
  // seconds), i.e. those published since T and the one published last
  // before T.
  std::optional<int64_t> keep_since;
};

struct GcOptions {
  GcPolicy policy;
  bool dry_run = false;  // mark and report, delete nothing
  // Called once per object that is deleted (or, in a dry run, would be),
  // with its name ("data/ab/cd...C") and size in bytes.
  std::function<void(const std::string& name, uint64_t bytes)> on_sweep;
  // Counts the work in three phases: catalogs marked, objects scanned (of
  // those under data/), objects deleted (of the garbage found) with their
  // bytes (cvmfs/progress.h); not owned, may be null.
  cvmfs::ProgressCounters* progress = nullptr;
};

// A revision the collection keeps, and why.
struct KeptRevision {
  cvmfs::Digest root;
  uint64_t revision = 0;
  int64_t published = 0;  // the root catalog's last_modified
  std::string reason;     // "current", "history" or "tag <name>"
};

struct GcReport {
  std::vector<KeptRevision> kept;
  uint64_t catalogs_marked = 0;  // distinct catalogs of the kept revisions
  uint64_t objects_marked = 0;   // distinct objects they reference
  uint64_t objects_scanned = 0;  // objects found under data/
  uint64_t objects_deleted = 0;  // or that would be, in a dry run
  uint64_t bytes_deleted = 0;
  uint64_t reflog_entries_removed = 0;
  std::vector<std::string> warnings;  // e.g. a tag whose revision is gone
};

// The set of objects a group of revisions references. Keyed by digest and
// object type: the same digest names different files with different
// suffixes. A catalog is walked only the first time it is marked: its hash
// fixes its whole subtree, so revisions that share a nested catalog share
// the walk.
class ReachableObjects {
 public:
  // Catalogs are read from `store` and decompressed into `temp_dir` (which
  // must exist); both outlive this object.
  // `progress` (not owned, may be null) counts the catalogs walked.
  ReachableObjects(cvmfs::ObjectStore* store, const std::string& temp_dir,
                   cvmfs::ProgressCounters* progress = nullptr);

  // What the root catalog of a marked revision says about its history.
  struct RootInfo {
    uint64_t revision = 0;
    int64_t last_modified = 0;
    std::optional<cvmfs::Digest> previous_revision;
  };
  // Marks the revision whose root catalog is `root`: the catalog, all nested
  // catalogs and every data object and chunk they name. NotFound if the root
  // catalog is not in the store; any other failure (a missing nested catalog,
  // a corrupt object) is returned too, since the mark would be incomplete.
  cvmfs::Result<RootInfo> MarkRevision(const cvmfs::Digest& root);

  void Mark(const cvmfs::Digest& digest, cvmfs::ObjectSuffix suffix);
  bool Contains(const cvmfs::Digest& digest, cvmfs::ObjectSuffix suffix) const;
  size_t size() const { return marked_.size(); }
  uint64_t catalogs_walked() const { return catalogs_walked_; }

 private:
  struct Key {
    cvmfs::Digest digest;
    cvmfs::ObjectSuffix suffix;
    bool operator==(const Key& o) const {
      return suffix == o.suffix && digest == o.digest;
    }
  };
  struct KeyHasher {
    size_t operator()(const Key& k) const {
      return cvmfs::DigestHasher()(k.digest) * 31 +
             static_cast<size_t>(k.suffix);
    }
  };
  // Marks the entries of one loaded catalog and recurses into its nested
  // catalogs that are not marked yet.
  cvmfs::Status MarkCatalogContents(cvmfs::Catalog* catalog);
  cvmfs::Status MarkPrefetchLists(const cvmfs::Catalog& root);
  cvmfs::Status MarkCatalog(const cvmfs::Digest& hash);

  cvmfs::CatalogWalker loader_;
  std::unordered_set<Key, KeyHasher> marked_;
  uint64_t catalogs_walked_ = 0;
  cvmfs::ProgressCounters* const progress_;
};

// Runs a collection on `repo`. Without a policy it keeps what was current
// during the last kDefaultGcTimespan seconds. Refusals: InvalidArgument
// (repository not garbage-collectable, both -r and -t given) and Busy (a
// publish holds the lock, a transaction is open); nothing is deleted then.
cvmfs::Result<GcReport> CollectGarbage(Repository* repo,
                                       const GcOptions& options);

// What a collection works on: a storage (a Stratum 0's or a Stratum 1
// replica's), the manifest it serves and a private scratch directory. The
// caller holds whatever lock keeps writers out and has checked that the
// storage may be collected.
struct GcStorage {
  cvmfs::ObjectStore* store = nullptr;
  cvmfs::Manifest manifest;
  std::string temp_dir;
};

// The mark and sweep of CollectGarbage on `storage`: the current revision,
// the earlier ones the policy keeps (as far as they are stored: a replica
// holds only the revisions it replicated), every tag of the manifest's
// history database, certificate, history and metainfo; everything else
// under data/ is deleted and the reflog pruned. Used for a replica by
// `cvmfs_server gc` on a Stratum 1.
cvmfs::Result<GcReport> CollectStorageGarbage(const GcStorage& storage,
                                              const GcOptions& options);

// The history database `history` of `store`, verified, inflated into
// `temp_dir` and opened read-only.
cvmfs::Result<std::unique_ptr<cvmfs::HistoryDb>> OpenStoredHistory(
    cvmfs::ObjectStore* store, const cvmfs::Digest& history,
    const std::string& temp_dir);

// What a collection kept and deleted, as `cvmfs_server gc` prints it: the
// kept revisions (in local time) and the counts; not the warnings. The
// gateway's admin gc answers with it.
std::string GcReportText(const GcReport& report, bool dry_run);

// Parses a -t argument: Unix seconds ("1700000000" or "@1700000000"),
// "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS]" (also with 'T'; local time), or
// "N <unit>s ago" with unit second, minute, hour, day or week (relative to
// `now`), as `date --date` reads the values CVMFS administrators use.
cvmfs::Result<int64_t> ParseGcTime(std::string_view text, int64_t now);

}  // namespace publisher

#endif  // PUBLISHER_GC_H_
