// The chain of trust from the master public keys to a repository's manifest
// (doc/format-signatures.md), checked link by link over the bytes of the
// signed files:
//
// clang-format off
//   master public key(s)
//     └─ signs .cvmfswhitelist      repository name, expiry, fingerprints
//          └─ lists the certificate    the X object, verified by its hash
//               └─ signs .cvmfspublished    root catalog, revision, TTL, ...
// clang-format on
//
// VerifyTrustChain asks a TrustChainSource for each file only once the link
// before it holds: the whitelist first (signature, name, expiry), then the
// manifest (name, certificate named), then the certificate the manifest
// names (listed in the whitelist, signs the manifest). Where the bytes come
// from (network, cache) and what else a caller refuses (the client's
// blacklist) are the caller's. A broken link is Corruption naming it; the
// source's errors are returned as they are.
//
// Thread safety: free functions over values; a source is used by one call.
#ifndef CVMFS_TRUST_CHAIN_H_
#define CVMFS_TRUST_CHAIN_H_

#include <cstddef>
#include <ctime>
#include <string>
#include <vector>

#include "cvmfs/hash.h"
#include "cvmfs/manifest.h"
#include "cvmfs/signature.h"
#include "cvmfs/status.h"
#include "cvmfs/whitelist.h"

namespace cvmfs {

// A manifest or whitelist is never larger than this; a bigger answer is an
// error page or a directory listing, not a CVMFS signed file.
inline constexpr size_t kMaxSignedFileSize = 4 << 20;

// The bytes of the links, fetched on demand.
class TrustChainSource {
 public:
  virtual ~TrustChainSource() = default;
  virtual Result<std::string> FetchWhitelist() = 0;
  virtual Result<std::string> FetchManifest() = 0;
  // The PEM text of the certificate object `digest` (its hash checked and
  // decompressed by the source); `fqrn` names the repository in messages.
  virtual Result<std::string> FetchCertificate(const Digest& digest,
                                               const std::string& fqrn) = 0;
};

struct VerifiedChain {
  Whitelist whitelist;
  Manifest manifest;
  Certificate certificate;  // listed in the whitelist, signs the manifest
};

// Checks every link. `fqrn` empty accepts the name the whitelist carries
// (a replica learns it this way); otherwise whitelist and manifest must name
// `fqrn`. `now` decides whether the whitelist has expired.
Result<VerifiedChain> VerifyTrustChain(
    TrustChainSource* source, const std::vector<PublicKey>& master_keys,
    const std::string& fqrn, time_t now);

// Reads the master public keys (PEM) from files; an error names the file.
// InvalidArgument without any file.
Result<std::vector<PublicKey>> LoadMasterKeys(
    const std::vector<std::string>& files);

}  // namespace cvmfs

#endif  // CVMFS_TRUST_CHAIN_H_
