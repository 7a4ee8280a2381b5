// Repairing the reflog (`cvmfs_server check -r`, as CVMFS's): when a
// Stratum 0's .cvmfsreflog is missing or unreadable, it is rebuilt from
// what the repository itself references, as CVMFS's `swissknife
// reconstruct_reflog` does: the root catalogs of the current revision and
// of every revision before it (the previous_revision chain of the root
// catalogs), the roots of every tag, the history objects (the chain of
// their previous_revision), the certificate and the meta information.
// Objects no longer in the storage (collected) are left out. Then the
// manifest is signed again so that its reflog hash names the new reflog;
// a readable reflog whose hash differs from the manifest's is kept and the
// manifest re-signed for it.
//
// Thread safety: takes the repository's lock (Repository::Lock).
#ifndef PUBLISHER_REFLOG_REPAIR_H_
#define PUBLISHER_REFLOG_REPAIR_H_

#include <cstddef>
#include <string>

#include "cvmfs/status.h"
#include "publisher/repository.h"

namespace publisher {

struct ReflogRepair {
  bool rebuilt = false;   // the reflog was reconstructed
  bool resigned = false;  // the manifest was signed again
  size_t entries = 0;     // entries of a rebuilt reflog
  std::string reason;     // what was wrong; empty if nothing
};

cvmfs::Result<ReflogRepair> RepairReflog(Repository* repo);

}  // namespace publisher

#endif  // PUBLISHER_REFLOG_REPAIR_H_
