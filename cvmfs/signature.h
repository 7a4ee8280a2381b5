// RSA keys, X.509 certificates and the two signature schemes of the
// repository format (doc/format-signatures.md).
//
//   SignSha1/VerifySha1  RSASSA-PKCS1-v1_5 with SHA-1: signs the manifest
//                        hash line with the repository key (.key/.crt).
//   SignRaw/VerifyRaw    PKCS#1 type-1 padding over the message itself, no
//                        digest and no DigestInfo (`openssl pkeyutl -sign`):
//                        signs the whitelist hash line with the master key.
//
// Both schemes are computed with the raw PKCS#1 primitive; SHA-1 signatures
// build the DigestInfo explicitly, so that crypto policies which forbid SHA-1
// in EVP_DigestSign (RHEL 9 DEFAULT) do not break repositories signed that way.
//
// Keys and certificates own their OpenSSL object, are move-only and immutable:
// const methods may be called from several threads at once.
#ifndef CVMFS_SIGNATURE_H_
#define CVMFS_SIGNATURE_H_

#include <memory>
#include <string>
#include <string_view>

#include "cvmfs/hash.h"
#include "cvmfs/status.h"

struct evp_pkey_st;
struct x509_st;

namespace cvmfs {

namespace internal {
struct PkeyFree {
  void operator()(evp_pkey_st* p) const;
};
struct X509Free {
  void operator()(x509_st* p) const;
};
using PkeyPtr = std::unique_ptr<evp_pkey_st, PkeyFree>;
using X509Ptr = std::unique_ptr<x509_st, X509Free>;
}  // namespace internal

// The public half of an RSA key (a .pub file or a certificate's key).
class PublicKey {
 public:
  // Accepts "-----BEGIN PUBLIC KEY-----" (SubjectPublicKeyInfo, as in CVMFS
  // .pub files) and "-----BEGIN RSA PUBLIC KEY-----" (PKCS#1). Text before the
  // first PEM block is skipped. InvalidArgument if it is not an RSA public key.
  static Result<PublicKey> FromPem(std::string_view pem);

  // "-----BEGIN PUBLIC KEY-----" PEM.
  std::string ToPem() const;
  // Modulus size in bits.
  int bits() const;
  // Borrowed; lives as long as this object.
  evp_pkey_st* get() const { return pkey_.get(); }

  PublicKey(PublicKey&&) noexcept = default;
  PublicKey& operator=(PublicKey&&) noexcept = default;
  PublicKey(const PublicKey&) = delete;
  PublicKey& operator=(const PublicKey&) = delete;

 private:
  friend class PrivateKey;
  friend class Certificate;
  explicit PublicKey(internal::PkeyPtr pkey) : pkey_(std::move(pkey)) {}
  internal::PkeyPtr pkey_;
};

// An RSA private key (a repository .key or a .masterkey).
class PrivateKey {
 public:
  // A fresh RSA key with public exponent 65537; bits in [1024, 16384].
  static Result<PrivateKey> Generate(int bits = 2048);
  // Unencrypted PEM, traditional ("BEGIN RSA PRIVATE KEY") or PKCS#8
  // ("BEGIN PRIVATE KEY"). Never prompts for a passphrase: encrypted keys are
  // refused with InvalidArgument.
  static Result<PrivateKey> FromPem(std::string_view pem);

  // Traditional "-----BEGIN RSA PRIVATE KEY-----" PEM, as CVMFS writes it.
  std::string ToPem() const;
  // "-----BEGIN PUBLIC KEY-----" PEM of the public half (a CVMFS .pub file).
  std::string PublicPem() const;
  // The public half as a separate key object (no private material).
  Result<PublicKey> Public() const;
  int bits() const;
  evp_pkey_st* get() const { return pkey_.get(); }

  PrivateKey(PrivateKey&&) noexcept = default;
  PrivateKey& operator=(PrivateKey&&) noexcept = default;
  PrivateKey(const PrivateKey&) = delete;
  PrivateKey& operator=(const PrivateKey&) = delete;

 private:
  explicit PrivateKey(internal::PkeyPtr pkey) : pkey_(std::move(pkey)) {}
  internal::PkeyPtr pkey_;
};

// An X.509 certificate. CVMFS uses it only as an envelope for the repository
// public key: validity dates and issuer are not checked by the format.
class Certificate {
 public:
  // Self-signed X.509 v3 certificate for `key`: SHA-256 with RSA, random
  // positive 159-bit serial, subject = issuer = CN=`common_name`, valid from
  // now for `days` days. CVMFS uses "<fqrn> CernVM-FS Release Managers".
  static Result<Certificate> CreateSelfSigned(const PrivateKey& key,
                                              const std::string& common_name,
                                              int days);
  // "-----BEGIN CERTIFICATE-----" PEM (the content of a CVMFS X object after
  // decompression). Corruption if it does not parse.
  static Result<Certificate> FromPem(std::string_view pem);

  std::string ToPem() const;
  // DER encoding: the input of fingerprints.
  std::string Der() const;
  // The subject's common name ("" if there is none).
  std::string CommonName() const;
  Result<PublicKey> GetPublicKey() const;
  // Hash of the DER encoding, as whitelists list it: uppercase hex bytes
  // joined by ':' plus the uppercase algorithm id for non-SHA-1 algorithms,
  // e.g. "72:0C:...:9C" or "97:0F:...:65-SHAKE128".
  std::string Fingerprint(HashAlgorithm algo = HashAlgorithm::kSha1) const;

  Certificate(Certificate&&) noexcept = default;
  Certificate& operator=(Certificate&&) noexcept = default;
  Certificate(const Certificate&) = delete;
  Certificate& operator=(const Certificate&) = delete;

 private:
  explicit Certificate(internal::X509Ptr x509) : x509_(std::move(x509)) {}
  internal::X509Ptr x509_;
};

// Fingerprint text form of a digest ("AB:CD:...:EF[-SHAKE128]").
std::string FormatFingerprint(const Digest& digest);
// Parses a fingerprint as CVMFS does: text from the first space, tab or '#'
// on is ignored, ':' are dropped, case is ignored. Corruption if the rest is
// not a content hash (MD5 is refused).
Result<Digest> ParseFingerprint(std::string_view text);

// A "letter", the signed-text layout shared by manifest and whitelist:
//
//   <text: lines, each ending in '\n'>--\n<hash line>\n<signature bytes>
//
// The hash line is the hex hash of `text` plus its algorithm id.
struct Letter {
  std::string_view text;       // up to and including the '\n' before "--"
  std::string_view hash_line;  // without its '\n'
  std::string_view signature;  // to the end of the file
  bool is_signed = false;      // false: no "--" line; `text` is everything
};
// Splits at the first line "--". Corruption if a "--" line is not followed
// by a '\n'-terminated hash line. The views point into `file`.
Result<Letter> SplitLetter(std::string_view file);
// Parses `hash_line` (a content hash; MD5 refused) and checks that it is the
// hash of `text`. Corruption naming `what` on mismatch.
Result<Digest> CheckLetterHash(std::string_view text,
                               std::string_view hash_line,
                               std::string_view what);

// RSASSA-PKCS1-v1_5 signature with SHA-1 over `message` (RFC 8017 8.2).
// Byte-identical to EVP_DigestSign with EVP_sha1().
Result<std::string> SignSha1(const PrivateKey& key, std::string_view message);
bool VerifySha1(const PublicKey& key, std::string_view message,
                std::string_view signature);

// PKCS#1 v1.5 type-1 padding over `message` itself (at most modulus - 11
// bytes), private-key operation; no digest, no DigestInfo.
Result<std::string> SignRaw(const PrivateKey& key, std::string_view message);
// Public-key operation on `signature` (must be exactly the modulus size),
// unpadding, and exact comparison of the recovered bytes with `message`.
bool VerifyRaw(const PublicKey& key, std::string_view message,
               std::string_view signature);

}  // namespace cvmfs

#endif  // CVMFS_SIGNATURE_H_
