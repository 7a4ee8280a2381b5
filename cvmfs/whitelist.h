// The repository whitelist `.cvmfswhitelist` (doc/format-signatures.md,
// "Whitelist"): the master key's list of certificates allowed to sign
// manifests, with an expiry date.
//
//   YYYYMMDDhhmmss\n          created, UTC
//   EYYYYMMDDhhmmss\n         expires, UTC (checked at hour granularity)
//   N<fqrn>\n
//   [Vpkcs7\n] [Wcachain\n]   legacy flags, parsed and reproduced only
//   AB:CD:...:EF[-SHAKE128]\n one or more certificate fingerprints
//   --\n
//   <hex hash of the text above, with algorithm id>\n
//   <raw PKCS#1 type-1 RSA signature of that hex string, to end of file>
//
// Parse checks syntax only. A client must additionally check VerifyWhitelist,
// `fqrn`, IsExpired and ListsCertificate. All types here are plain values.
#ifndef CVMFS_WHITELIST_H_
#define CVMFS_WHITELIST_H_

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/hash.h"
#include "cvmfs/signature.h"
#include "cvmfs/status.h"

namespace cvmfs {

static_assert(sizeof(time_t) >= 8, "whitelist expiry needs 64-bit time_t");

struct SignedWhitelist;

struct Whitelist {
  time_t created = 0;  // informational; clients ignore it
  time_t expires = 0;  // to the second as written; compared by the hour
  std::string fqrn;
  // Canonical form (Certificate::Fingerprint), comments stripped.
  std::vector<std::string> fingerprints;
  bool requires_pkcs7 = false;     // "Vpkcs7" line (legacy, not enforced)
  bool requires_ca_chain = false;  // "Wcachain" line (legacy, not enforced)

  // A whitelist for one certificate, valid `days` days from `now`.
  static Whitelist Create(const std::string& fqrn,
                          const std::string& fingerprint, time_t now, int days);

  // Parses a whole `.cvmfswhitelist`. Fingerprint lines end at the "--" line;
  // text after a space, tab or '#' is ignored, and lines that are not a
  // fingerprint (blank, comment) are skipped, as CVMFS does. Without a "--"
  // line the result is unsigned (empty hash line and signature).
  // Corruption naming the problem otherwise.
  static Result<SignedWhitelist> Parse(std::string_view file);

  // The text part; every line ends in '\n'.
  std::string ExportText() const;

  // True if `now` lies in or after the hour of `expires` (UTC), i.e. the
  // whitelist is valid while hour(now) < hour(expires), as CVMFS checks it.
  bool IsExpired(time_t now) const;
  // True if `fp` (any case, with or without ':' and trailing comment) names
  // the same digest as one of `fingerprints`.
  bool ListsFingerprint(std::string_view fp) const;
  // True if one of `fingerprints` is `cert`'s fingerprint in that entry's
  // own algorithm: what a CVMFS client checks. Prefer this to
  // ListsFingerprint(cert.Fingerprint()), which only matches SHA-1 entries,
  // while SHAKE-128 repositories list "...-SHAKE128" fingerprints.
  bool ListsCertificate(const Certificate& cert) const;
};

struct SignedWhitelist {
  Whitelist whitelist;
  std::string text;       // the bytes before the "--\n" line (signed part)
  std::string hash_line;  // e.g. "ff01...5d" or "a11b...2c-shake128"
  std::string signature;  // raw bytes after the hash line's '\n'
};

// The complete `.cvmfswhitelist`: ExportText() + "--\n" + hash line + "\n" +
// SignRaw(master, hash line). CVMFS hashes with the repository's content
// hash algorithm (SHAKE-128 repositories write "...-shake128").
Result<std::string> SignWhitelist(const Whitelist& whitelist,
                                  const PrivateKey& master,
                                  HashAlgorithm algo = HashAlgorithm::kSha1);

// Checks the hash line against `text` (algorithm as named by the hash line)
// and the raw signature of the hash line against each key in turn; ok if any
// key verifies. Corruption on mismatch, InvalidArgument without keys.
Status VerifyWhitelist(const SignedWhitelist& whitelist,
                       const std::vector<PublicKey>& master_keys);

// "YYYYMMDDhhmmss" in UTC, and back (Corruption if malformed).
std::string FormatWhitelistTime(time_t t);
Result<time_t> ParseWhitelistTime(std::string_view text);

}  // namespace cvmfs

#endif  // CVMFS_WHITELIST_H_
