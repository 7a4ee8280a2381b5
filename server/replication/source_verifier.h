// The chain of trust of a replication source, checked before anything is
// copied (the client's client/trust_chain.h checks the same links):
//
//   master public key(s) ─ sign ─► .cvmfswhitelist: fqrn, expiry, fingerprints
//                                    └ lists the certificate (X object, by
//                                    hash)
//                                         └ signs .cvmfspublished (root
//                                         catalog, ...)
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
#include "cvmfs/whitelist.h"

namespace replication {

// A manifest or whitelist is never larger than this; a bigger answer is an
// error page or a directory listing, not a CVMFS file.
inline constexpr size_t kMaxSignedFileSize = 4 << 20;

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

// NotSupported unless the source has .cvmfs_master_replica, the file a
// Stratum 0 uses to allow replication (CVMFS refuses replicas without it).
cvmfs::Status CheckReplicationAllowed(cvmfs::Fetcher* fetcher,
                                      const std::string& source);

// Reads master public keys (PEM) from files; the error names the file.
cvmfs::Result<std::vector<cvmfs::PublicKey>> LoadMasterKeys(
    const std::vector<std::string>& files);

}  // namespace replication

#endif  // SERVER_REPLICATION_SOURCE_VERIFIER_H_
