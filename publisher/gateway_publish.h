// PublishThroughGateway: the publish of a transaction on a publisher
// machine of a repository gateway (doc/gateway.md, "Publisher machines").
//
//   base revision (read from the stratum 0) ─► build the change into a
//   local staging area (objects and catalogs, StagingObjectStore) ─► new
//   root ─► every changed path inside the lease? (else refused: nothing
//   sent) ─► object packs (payloads) ─► commit of the lease (old root, new
//   root): the gateway replays the change onto its current revision and
//   signs it
//
// The new catalogs are the publisher's view (its base plus its change); the
// revision the gateway commits may hold other leases' commits too, so the
// caller learns the new revision number here and the new root from the
// repository's manifest afterwards. Bundles are left to the gateway, which
// computes them for the directories the change touched.
//
// Thread safety: none; one per transaction (under the repository lock).
#ifndef PUBLISHER_GATEWAY_PUBLISH_H_
#define PUBLISHER_GATEWAY_PUBLISH_H_

#include <cstdint>
#include <string>

#include "cvmfs/hash.h"
#include "cvmfs/status.h"
#include "publisher/gateway_session.h"
#include "publisher/repository.h"
#include "publisher/spool_layout.h"

namespace publisher {

struct GatewayPublishRequest {
  cvmfs::Digest base_root;  // the revision the transaction started from
  uint64_t base_revision = 0;
  std::string lease_path;  // "/" or "/a/b"
  std::string token;       // the lease's session token
};

struct GatewayPublishStats {
  uint64_t revision = 0;     // as the gateway committed it
  cvmfs::Digest built_root;  // the publisher's new root catalog
  uint64_t packs = 0, objects_sent = 0, bytes_sent = 0;
  uint64_t files = 0, bytes_in = 0;
};

// Builds the change with `build` on top of request.base_root and has the
// gateway commit it. Permission when a changed path lies outside the lease
// (nothing is sent then); NotFound when the gateway no longer knows the
// lease (expired): the repository is unchanged either way.
cvmfs::Result<GatewayPublishStats> PublishThroughGateway(
    Repository* repo, GatewaySession* session,
    const GatewayPublishRequest& request, const Repository::BuildFn& build,
    const PublishOptions& options);

// What a publish through the gateway did, as a local publish reports it;
// the new root is the gateway's, read from the repository.
cvmfs::Result<PublishStats> ToPublishStats(Repository* repo,
                                           const GatewayPublishStats& sent);

// Ok when the parent of `lease_path` ("/a/b") is a directory of the
// revision `root`: the gateway leases no path whose parent is missing (as
// CVMFS's); NotFound or InvalidArgument otherwise. "/" always has one.
cvmfs::Status CheckLeaseParent(Repository* repo, const cvmfs::Digest& root,
                               const std::string& lease_path);

// A publish that holds its own lease on `lease_path` for its duration
// (`cvmfs_server ingest` on a publisher machine, as CVMFS's: it leases the
// base directory or the deleted path): takes the repository's lock,
// refuses (Busy) while a transaction is open, leases (Busy naming the
// holder when the path overlaps another lease), builds the change on the
// current revision and has the gateway commit it. The lease is dropped if
// anything fails before the commit, which ends it.
cvmfs::Result<PublishStats> PublishUnderLease(Repository* repo,
                                              const SpoolLayout& layout,
                                              const std::string& lease_path,
                                              const Repository::BuildFn& build,
                                              const PublishOptions& options);

}  // namespace publisher

#endif  // PUBLISHER_GATEWAY_PUBLISH_H_
