// How the client obtains a trusted manifest: the links of the chain of trust
// (cvmfs/trust_chain.h) fetched from the servers, then the client's own
// refusals (the blacklist) and failover.
//
// clang-format off
//   .cvmfswhitelist  ─ Fetcher, a server ─┐
//   .cvmfspublished  ─ Fetcher, a server ─┼─► VerifyTrustChain ─► Blacklist
//   certificate (X)  ─ ObjectFetcher ─────┘
//                      (cached)
// clang-format on
//
// The master keys come from CVMFS_PUBLIC_KEY or CVMFS_KEYS_DIR.
//
// FetchTrustedManifest downloads the whitelist and the manifest (never from
// the cache: they are the mutable entry points) and checks every link. Any
// failure is an error naming the link that broke; the caller decides whether
// it may fall back to what the cache remembers.
//
// Thread safety: a free function; safe to call concurrently.
#ifndef CLIENT_TRUST_CHAIN_H_
#define CLIENT_TRUST_CHAIN_H_

#include <ctime>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/object_fetcher.h"
#include "cvmfs/clock.h"
#include "cvmfs/manifest.h"
#include "cvmfs/network/fetcher.h"
#include "cvmfs/signature.h"
#include "cvmfs/status.h"
#include "cvmfs/trust_chain.h"
#include "cvmfs/whitelist.h"

namespace cvmfs::client {

struct TrustedManifest {
  Manifest manifest;
  Whitelist whitelist;
  std::string host;  // the server it came from
  // How long the manifest's download took: one round trip on the
  // connection the whitelist opened (ObjectFetcher's clock).
  Clock::Duration manifest_fetch{};
};

// /etc/cvmfs/blacklist: certificate fingerprints that are never trusted,
// and "<FQRN N" lines: revisions of FQRN below N are refused (a repository
// owner's way to stop clients from going back to a broken revision).
struct Blacklist {
  std::vector<std::string> fingerprints;
  std::vector<std::pair<std::string, uint64_t>> min_revisions;
  std::string source;  // the file it was read from, named in refusals

  // A missing file is an empty blacklist; a malformed line is an error.
  static Result<Blacklist> Load(const std::string& file);
  // The entries of every file ("" skipped), as CVMFS adds the
  // configuration repository's blacklist to /etc/cvmfs/blacklist; `source`
  // names the files that contributed entries.
  static Result<Blacklist> LoadAll(const std::vector<std::string>& files);
  static Result<Blacklist> Parse(std::string_view text);
  // Permission naming the fingerprint or the revision and the file.
  Status Check(const std::string& fqrn, const Certificate& cert,
               uint64_t revision) const;
  // Only the "<FQRN N" lines: CVMFS checks the mounted revision at mount
  // (also one started offline or pinned by tag) and at every TTL check.
  Status CheckRevision(const std::string& fqrn, uint64_t revision) const;
};

Result<TrustedManifest> FetchTrustedManifest(
    Fetcher* fetcher, ObjectFetcher* objects, const std::string& fqrn,
    const std::vector<PublicKey>& master_keys, time_t now,
    const Blacklist* blacklist = nullptr);

// FetchTrustedManifest from the first server that gives a verifiable one:
// a manifest or whitelist that is missing or fails verification (a captive
// portal's HTML page, a stale or broken mirror) makes it call `next_host`
// and try again, until that returns false. Network errors are the
// fetcher's to fail over (it already tried every proxy and host).
Result<TrustedManifest> FetchTrustedManifestFailover(
    Fetcher* fetcher, ObjectFetcher* objects, const std::string& fqrn,
    const std::vector<PublicKey>& master_keys, time_t now,
    const Blacklist* blacklist,
    const std::function<bool(const Status&)>& next_host);

// The manifest a notification announced (doc/notifications.md), checked
// as one from a server is: `manifest` must be signed by a certificate the
// whitelist (downloaded now) lists, and pass the blacklist. Only the
// whitelist and the certificate are fetched.
Result<TrustedManifest> VerifyAnnouncedManifest(
    std::string manifest, Fetcher* fetcher, ObjectFetcher* objects,
    const std::string& fqrn, const std::vector<PublicKey>& master_keys,
    time_t now, const Blacklist* blacklist);

// LoadMasterKeys (cvmfs/trust_chain.h); without files, an error naming the
// settings that give them.
Result<std::vector<PublicKey>> LoadPublicKeys(
    const std::vector<std::string>& files);

}  // namespace cvmfs::client

#endif  // CLIENT_TRUST_CHAIN_H_
