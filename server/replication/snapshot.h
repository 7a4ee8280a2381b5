// Snapshot: brings a replica's storage up to the source's current revision.
//
// Order, chosen so that the replica serves a complete revision at every
// moment (the manifest is the commit point, as in a publish):
//
//   1. the source must allow replication (.cvmfs_master_replica)
//   2. whitelist, certificate and manifest verified (source_verifier.h)
//   3. the catalog tree of the new root and all its objects
//      (catalog_replicator.h; subtrees the replica holds are skipped)
//   4. the history database (H) after the catalog trees of all its tags
//   5. certificate (X) and metainfo (M)
//   6. .cvmfsreflog, checked against the manifest's Y hash
//   7. .cvmfswhitelist, then .cvmfspublished (each replaced atomically)
//   8. .cvmfs_last_snapshot: the time of this snapshot, like `date --utc`
//
// A failure at any step leaves the previous manifest in place and only
// complete, verified objects behind; running the snapshot again resumes.
// The caller holds the replica's lock (replica.h) and has removed stale
// temporaries from data/txn. The replica's storage is a local directory or
// an object store (S3): snapshot_destination.h.
//
// Thread safety: one snapshot per storage at a time (the lock's job).
#ifndef SERVER_REPLICATION_SNAPSHOT_H_
#define SERVER_REPLICATION_SNAPSHOT_H_

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "cvmfs/hash.h"
#include "cvmfs/network/fetcher.h"
#include "cvmfs/progress.h"
#include "cvmfs/signature.h"
#include "cvmfs/status.h"
#include "server/replication/snapshot_destination.h"

namespace replication {

struct SnapshotOptions {
  std::string fqrn;  // must match the source's whitelist and manifest
  // Where the replica is written (not owned); null: a LocalDestination of
  // `storage_root`, which has data/00..ff and data/txn.
  SnapshotDestination* destination = nullptr;
  std::string storage_root;
  std::string temp_dir;  // existing private scratch directory
  int workers = 16;      // parallel object downloads
  time_t now = 0;        // 0: the current time (whitelist expiry check)
  // Counts the objects copied or found present (and the bytes copied)
  // towards the objects found so far; not owned, may be null.
  cvmfs::ProgressCounters* progress = nullptr;
};

struct SnapshotStats {
  uint64_t revision = 0;
  cvmfs::Digest root_catalog;
  uint64_t previous_revision = 0;  // 0 if the replica had none
  size_t tagged_roots =
      0;  // distinct root catalogs of tags, besides the current
  uint64_t catalogs_copied = 0, catalogs_skipped = 0;
  uint64_t objects_copied =
      0;  // every object and file stored, catalogs included
  uint64_t bytes_copied = 0;
  uint64_t objects_present = 0;  // data objects found in the replica already
  double seconds = 0;
};

cvmfs::Result<SnapshotStats> RunSnapshot(
    cvmfs::Fetcher* fetcher, const std::vector<cvmfs::PublicKey>& master_keys,
    const SnapshotOptions& options);

// "Thu Nov 20 15:36:01 UTC 2025\n", what CVMFS writes to .cvmfs_last_snapshot.
std::string LastSnapshotText(time_t t);
inline constexpr char kLastSnapshotName[] = ".cvmfs_last_snapshot";

}  // namespace replication

#endif  // SERVER_REPLICATION_SNAPSHOT_H_
