// CatalogReplicator: copies the catalog tree of one revision and every object
// it references into a replica, children before parents:
//
//   Replicate(C):  C in the replica? ─yes─► skip C and its whole subtree
//                   │ no
//                   ▼
//   download C (staged), verify its hash, inflate into temp_dir, open it
//   ─► queue its file and chunk objects (one batch) ─► Replicate(each nested)
//   ─► wait for the batch ─► commit C (link/rename, or upload to S3)
//
// So a catalog exists in the replica only once everything below it does,
// which is why an existing catalog ends the descent, and why a snapshot
// interrupted anywhere can simply be run again. External files (served from
// elsewhere) are not copied.
//
// Catalogs are downloaded by the calling thread (the walk), data objects by
// the ObjectCopier's workers; while the walk descends, the workers copy the
// objects of the catalogs above.
//
// Thread safety: one thread uses a CatalogReplicator.
#ifndef SERVER_REPLICATION_CATALOG_REPLICATOR_H_
#define SERVER_REPLICATION_CATALOG_REPLICATOR_H_

#include <cstdint>
#include <string>

#include "cvmfs/catalog/catalog.h"
#include "cvmfs/hash.h"
#include "cvmfs/network/fetcher.h"
#include "cvmfs/status.h"
#include "server/replication/object_copier.h"
#include "server/replication/snapshot_destination.h"

namespace replication {

struct CatalogCounters {
  uint64_t copied = 0;   // catalogs downloaded and stored
  uint64_t bytes = 0;    // their compressed size
  uint64_t skipped = 0;  // present already: their subtree was skipped
};

class CatalogReplicator {
 public:
  // Borrowed pointers must outlive the replicator; `temp_dir` exists and is
  // private to the caller (inflated catalogs live there briefly).
  CatalogReplicator(cvmfs::Fetcher* fetcher, ObjectCopier* copier,
                    SnapshotDestination* destination, std::string temp_dir);

  // Copies the catalog `root` (mounted at `mountpoint`, "" for a root
  // catalog), its nested catalogs and all their objects.
  cvmfs::Status Replicate(const cvmfs::Digest& root,
                          const std::string& mountpoint = "");

  const CatalogCounters& counters() const { return counters_; }

 private:
  cvmfs::Result<std::unique_ptr<cvmfs::Catalog>> Inflate(
      const std::string& compressed_file, const std::string& what);
  // Copies the catalog's bundles (and so their members) before the walk.
  cvmfs::Status CopyBundles(cvmfs::Catalog* catalog,
                            ObjectCopier::Batch* batch);
  cvmfs::Status QueueObjects(cvmfs::Catalog* catalog,
                             ObjectCopier::Batch* batch);

  cvmfs::Fetcher* const fetcher_;           // not owned
  ObjectCopier* const copier_;              // not owned
  SnapshotDestination* const destination_;  // not owned
  const std::string temp_dir_;
  int inflated_ = 0;  // names the temporary catalog files
  CatalogCounters counters_;
};

}  // namespace replication

#endif  // SERVER_REPLICATION_CATALOG_REPLICATOR_H_
