// `cvmfs_server check` (CVMFS 2.12's semantics, doc/publishing.md "Checking
// a repository"):
//
//   VerifyStoredTrustChain  whitelist, certificate and manifest as stored,
//                           with the master public key(s) only (a Stratum 1
//                           has no private key)
//   CheckRevision           walks every catalog of a revision (or of the
//                           subtree below one nested catalog, -s) and
//                           verifies every catalog's statistics (self_*
//                           against its rows, subtree_* against the nested
//                           catalogs' totals) and, unless -c, that each data
//                           object and chunk it references exists and
//                           that each bundle it lists exists, has the row's
//                           size, parses and holds only objects of its
//                           directory's files (doc/format-bundles.md)
//   ScrubStorage            -i: every object under data/ is re-hashed and
//                           compared with its name (CVMFS's `swissknife
//                           scrub`), whatever revision references it
//
// Thread safety: free functions; one caller per store.
#ifndef PUBLISHER_CHECK_H_
#define PUBLISHER_CHECK_H_

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "cvmfs/hash.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_store.h"
#include "cvmfs/progress.h"
#include "cvmfs/status.h"

namespace publisher {

struct CheckReport {
  uint64_t catalogs = 0;
  uint64_t entries = 0;
  uint64_t objects_checked = 0;
  std::vector<std::string> problems;  // one line each
};

struct CheckOptions {
  // Whether referenced data objects and chunks must exist (CVMFS's default;
  // `check -c` turns it off: only catalogs and their statistics).
  bool check_data = true;
  // Whether referenced objects are also re-hashed and inflated (the older,
  // per-revision form of an integrity check; `check -i` scrubs instead);
  // bundles and each of their members are re-hashed too.
  bool verify_content = false;
  // `check -s PATH`: start at the nested catalog mounted at PATH ("/a/b");
  // NotFound when no nested catalog is mounted there. Empty: the root.
  std::string subtree;
  // Counts the entries walked, towards the total the first catalog's
  // statistics give (cvmfs/progress.h); not owned, may be null.
  cvmfs::ProgressCounters* progress = nullptr;
};

cvmfs::Result<CheckReport> CheckRevision(cvmfs::ObjectStore* store,
                                         const cvmfs::Digest& root,
                                         const CheckOptions& options,
                                         const std::string& temp_dir);

// CheckRevision with check_data and the given verify_content.
cvmfs::Result<CheckReport> CheckRevision(cvmfs::ObjectStore* store,
                                         const cvmfs::Digest& root,
                                         bool verify_content,
                                         const std::string& temp_dir);

// Verifies the stored .cvmfswhitelist, certificate (X object) and
// .cvmfspublished of `store` with `master_keys` (cvmfs/trust_chain.h):
// Corruption naming the broken link. `now` decides whether the whitelist
// has expired.
cvmfs::Result<cvmfs::Manifest> VerifyStoredTrustChain(
    cvmfs::ObjectStore* store, const std::vector<std::string>& key_files,
    const std::string& fqrn, time_t now);

// `check -i`: re-hashes every object under data/ of `store` and reports
// those whose bytes do not match their names (and names that are not
// object names). objects_checked counts the objects read.
// `progress` (may be null) counts the objects read and their bytes.
cvmfs::Result<CheckReport> ScrubStorage(
    cvmfs::ObjectStore* store, cvmfs::ProgressCounters* progress = nullptr);

}  // namespace publisher

#endif  // PUBLISHER_CHECK_H_
