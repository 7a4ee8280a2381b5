// Bundles of small files, publisher side (doc/format-bundles.md): after a
// publish has changed the tree, each directory whose direct files changed
// gets its bundles recomputed from its listing and written as objects
// data/XX/<digest>B; its rows in the catalog holding its entries follow.
//
//   CatalogTree::changed_file_dirs() ─► UpdateBundles ─► for each directory:
//     List ─► candidates (regular, unchunked, not external; their stored
//     objects read from the store, up to kBundleHeldBytes of them kept, the
//     others' sizes taken) ─► PlanBundles ─► BundleWriter::Write each plan
//     (header + members, those not kept read again, <= ~1 MiB in memory)
//     ─► CatalogTree::SetBundles (unchanged rows write nothing)
//
// An unchanged directory is not looked at; a changed one whose plans stay
// the same finds its bundle objects already stored (same plan, same bytes,
// same name) and leaves its rows as they are.
//
// Thread safety: BundleWriter is thread-safe (UpdateBundles builds several
// directories at once); the tree is the calling thread's.
#ifndef PUBLISHER_BUNDLE_WRITER_H_
#define PUBLISHER_BUNDLE_WRITER_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cvmfs/bundle.h"
#include "cvmfs/catalog/dirent.h"
#include "cvmfs/hash.h"
#include "cvmfs/mutex.h"
#include "cvmfs/object_store.h"
#include "cvmfs/status.h"
#include "publisher/catalog_tree.h"

namespace publisher {

struct BundleStats {
  uint64_t directories = 0;       // directories whose bundles were computed
  uint64_t bundles_written = 0;   // new bundle objects stored
  uint64_t bundles_existing = 0;  // planned bundles already in the store
  uint64_t bytes_written = 0;     // bytes of the new bundle objects
};

// Bytes of members a directory keeps from listing to writing (a bundle
// takes about 1 MiB; most directories of small files fit).
inline constexpr uint64_t kBundleHeldBytes = 8 << 20;

class BundleWriter {
 public:
  BundleWriter(cvmfs::ObjectStore* store, cvmfs::HashAlgorithm algorithm,
               uint64_t held_budget = kBundleHeldBytes)
      : store_(store), algorithm_(algorithm), held_budget_(held_budget) {}

  // The bundle rows of directory `dir` ("" or "/a/b") whose entries are
  // `listing`; the bundle objects are stored. No rows: no bundle.
  cvmfs::Result<std::vector<cvmfs::BundleRef>> BuildDirectory(
      const std::string& dir,
      const std::vector<cvmfs::DirectoryEntry>& listing);

  BundleStats stats() const;

 private:
  // Stores the bundle of `plan` (if not stored yet) and returns its row;
  // members found in `held` (by object name) are not read again.
  cvmfs::Result<cvmfs::BundleRef> Write(
      const std::string& dir, const cvmfs::BundlePlan& plan,
      const std::map<std::string, std::string>& held);

  cvmfs::ObjectStore* store_;  // not owned, thread-safe
  const cvmfs::HashAlgorithm algorithm_;
  const uint64_t held_budget_;
  mutable cvmfs::Mutex mu_;  // guards stats_; leaf lock
  BundleStats stats_ GUARDED_BY(mu_);
};

// The files of `listing` that may be bundle members, with their stored
// sizes read from `store` (a file whose object is missing is left out).
// Each candidate's object is read whole (one open per member where the
// store can) and kept in `held` by its object name while they add up to at
// most `held_budget` bytes; past that only sizes are taken.
cvmfs::Result<std::vector<cvmfs::BundleCandidate>> BundleCandidates(
    cvmfs::ObjectStore* store,
    const std::vector<cvmfs::DirectoryEntry>& listing,
    std::map<std::string, std::string>* held, uint64_t held_budget);

// For each directory of `dirs` that still exists in `tree`: its bundles
// recomputed (`enabled`) or removed (CVMFS_BUNDLES=false). The tree is
// listed and its rows set on the calling thread; the members are read and
// the bundles stored by one thread per core, a batch of directories at a
// time (at most 256 directories or 65,536 listed entries in memory).
cvmfs::Status UpdateBundles(CatalogTree* tree,
                            const std::set<std::string>& dirs, bool enabled,
                            BundleWriter* writer);

// Every directory of `tree` (all its catalogs), for a publish that gives
// every directory its bundles (`cvmfs_server bundle`).
cvmfs::Result<std::set<std::string>> AllDirectories(CatalogTree* tree);

}  // namespace publisher

#endif  // PUBLISHER_BUNDLE_WRITER_H_
