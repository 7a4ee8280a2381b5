// The repository manifest `.cvmfspublished` (doc/format-signatures.md,
// "Manifest"): the signed entry point naming the root catalog.
//
//   C<root catalog hash>\n B<size>\n R<md5>\n D<ttl>\n S<revision>\n
//   G<yes|no>\n A<yes|no>\n [L..\n] [N<fqrn>\n] [X..\n] [H..\n] [T<secs>\n]
//   [M..\n] [Y..\n] [Z..\n]*           <- `text`, the signed bytes
//   --\n
//   <hex hash of text, with algorithm id>\n
//   <RSA PKCS#1 v1.5 SHA-1 signature of that hex string, to end of file>
//
// Parsing checks syntax only; what a client must compare (N against the
// mounted name, R against md5(""), T/S against what it has seen) is policy
// left to the caller. All types here are plain values.
#ifndef CVMFS_MANIFEST_H_
#define CVMFS_MANIFEST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/hash.h"
#include "cvmfs/signature.h"
#include "cvmfs/status.h"

namespace cvmfs {

struct SignedManifest;

struct Manifest {
  // md5("") in hex: the only root path CVMFS accepts.
  static constexpr std::string_view kRootPathMd5 =
      "d41d8cd98f00b204e9800998ecf8427e";

  Digest root_catalog;        // C (hash without the 'C' suffix)
  uint64_t catalog_size = 0;  // B, uncompressed bytes
  std::string root_path_md5 = std::string(kRootPathMd5);  // R
  uint64_t ttl = 240;                                     // D, seconds
  uint64_t revision = 0;                                  // S
  bool garbage_collectable = false;                       // G
  bool has_alt_catalog_path = false;                      // A
  std::optional<Digest> micro_catalog;                    // L (reserved)
  std::string fqrn;                           // N, written if not empty
  std::optional<Digest> certificate;          // X
  std::optional<Digest> history;              // H
  std::optional<uint64_t> publish_timestamp;  // T, unix seconds
  std::optional<Digest> metainfo;             // M
  std::optional<Digest> reflog;               // Y
  std::vector<std::string> channel_tips;      // Z (reserved), one line each

  // The text part in CVMFS order: C B R D S G A, then the present optional
  // keys L N X H T M Y, then one Z line per channel tip. Every line ends in
  // '\n'.
  std::string ExportText() const;

  // Parses a whole `.cvmfspublished` file. Key lines end at a line "--";
  // without one the file is taken as an unsigned manifest (empty hash line
  // and signature). Required keys: C R D S. Unknown keys are ignored, known
  // keys must not repeat (except Z) and must have well-formed values.
  // Corruption (naming the problem) otherwise, e.g. for an HTML error page.
  static Result<SignedManifest> Parse(std::string_view file);
};

struct SignedManifest {
  Manifest manifest;
  std::string text;       // the bytes before the "--\n" line (signed part)
  std::string hash_line;  // e.g. "554d...c7" or "7960...0c-shake128"
  std::string signature;  // raw bytes after the hash line's '\n'
};

// The complete `.cvmfspublished`: ExportText() + "--\n" + hash line + "\n" +
// SignSha1(key, hash line). The hash uses the algorithm of root_catalog.
Result<std::string> SignManifest(const Manifest& manifest,
                                 const PrivateKey& key);

// Recomputes the hash of `text` with the algorithm named by the hash line,
// compares it with the hash line and checks the signature of the hash line
// with the certificate's key. Corruption on any mismatch.
Status VerifyManifest(const SignedManifest& manifest,
                      const Certificate& certificate);

}  // namespace cvmfs

#endif  // CVMFS_MANIFEST_H_
