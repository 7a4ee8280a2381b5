// CommitLease: publishes the change a lease holder built (doc/gateway.md,
// "Commit") as the repository's next revision, through the publisher
// library (publisher/repository.h), so the revision is signed, tagged and
// committed (manifest last) exactly as `cvmfs_server publish` does.
//
// The publisher built `new_root` on top of `old_root`; every object the new
// catalogs reference was uploaded before (payloads). The difference between
// the two, restricted to the lease's path, is replayed onto the repository's
// current revision, which may have moved on since `old_root` through other
// leases' commits (of other subtrees).
//
// Chunked files keep their chunk lists, and directories that became (or
// stopped being) nested catalog roots become (stop being) ones in the
// commit. Not handled (refused with NotSupported): bind mountpoints inside
// the change.
//
// Thread safety: one commit per repository at a time (the caller holds the
// repository's commit mutex; Repository::Lock also excludes other
// publishers on this machine).
#ifndef SERVER_GATEWAY_LEASE_COMMIT_H_
#define SERVER_GATEWAY_LEASE_COMMIT_H_

#include <cstdint>
#include <string>

#include "cvmfs/hash.h"
#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"
#include "publisher/lease_path.h"

namespace gateway {

struct LeaseCommitRequest {
  publisher::LeasePath lease;
  cvmfs::Digest old_root;
  cvmfs::Digest new_root;
  std::string tag_name;  // empty: an automatic tag, if the repository has them
  std::string tag_description;
};

// Returns the new revision number.
cvmfs::Result<uint64_t> CommitLease(const cvmfs::SystemPaths& paths,
                                    const LeaseCommitRequest& request);

}  // namespace gateway

#endif  // SERVER_GATEWAY_LEASE_COMMIT_H_
