// The chain of trust of a replication source, checked before anything is
// copied (cvmfs/trust_chain.h; the client checks the same links):
//
// clang-format off
//   source: .cvmfswhitelist, .cvmfspublished, X object (never cached)
//     └─► VerifyTrustChain (master keys from the replica's configuration)
//           └─► replica: the same bytes, stored as they were verified
// clang-format on
//
// The replica stores the whitelist and manifest exactly as they were
// verified, so a snapshot serves what it checked even if the source
// publishes meanwhile.
//
// Thread safety: free functions; the fetcher must be thread-safe.
#ifndef SERVER_REPLICATION_SOURCE_VERIFIER_H_
#define SERVER_REPLICATION_SOURCE_VERIFIER_H_

#include <ctime>
#include <string>
#include <vector>

#include "cvmfs/manifest.h"
#include "cvmfs/network/fetcher.h"
#include "cvmfs/signature.h"
#include "cvmfs/status.h"
#include "cvmfs/trust_chain.h"
#include "cvmfs/whitelist.h"

namespace replication {

struct VerifiedSource {
  cvmfs::Whitelist whitelist;
  cvmfs::Manifest manifest;
  std::string whitelist_file;  // the bytes as served and verified
  std::string manifest_file;
  std::string certificate_object;  // the X object as served (hash verified)
};

// Downloads and checks whitelist, certificate and manifest. `fqrn` empty
// accepts the name the whitelist carries (add-replica learns it this way);
// otherwise whitelist and manifest must name `fqrn`. Corruption names the
// link that failed; NotFound/Unavailable come from the fetcher.
cvmfs::Result<VerifiedSource> FetchVerifiedSource(
    cvmfs::Fetcher* fetcher, const std::vector<cvmfs::PublicKey>& master_keys,
    const std::string& fqrn, time_t now);

// The manifest a notification announced (doc/notifications.md), checked
// against the source's whitelist and certificate (downloaded now).
cvmfs::Result<VerifiedSource> VerifyAnnouncedManifest(
    cvmfs::Fetcher* fetcher, const std::vector<cvmfs::PublicKey>& master_keys,
    const std::string& fqrn, std::string manifest, time_t now);

// NotSupported unless the source has .cvmfs_master_replica, the file a
// Stratum 0 uses to allow replication (CVMFS refuses replicas without it).
cvmfs::Status CheckReplicationAllowed(cvmfs::Fetcher* fetcher,
                                      const std::string& source);

}  // namespace replication

#endif  // SERVER_REPLICATION_SOURCE_VERIFIER_H_
