// Fuzz target: the signature primitives over untrusted bytes (signature.h):
// PEM certificates and keys, fingerprints, the letter layout of signed
// files, and signature checks with a fixed key over fuzzed messages and
// signatures. A signature made with the fixed key must verify.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cvmfs/hash.h"
#include "cvmfs/signature.h"

namespace {

const cvmfs::PrivateKey& FixedKey() {
  static const cvmfs::PrivateKey* key = [] {
    auto k = cvmfs::PrivateKey::Generate(1024);
    if (!k.ok()) abort();
    return new cvmfs::PrivateKey(std::move(k).value());
  }();
  return *key;
}

const cvmfs::PublicKey& FixedPublic() {
  static const cvmfs::PublicKey* pub = [] {
    auto p = FixedKey().Public();
    if (!p.ok()) abort();
    return new cvmfs::PublicKey(std::move(p).value());
  }();
  return *pub;
}

void Check(bool ok, const char* what) {
  if (ok) return;
  fprintf(stderr, "property violated: %s\n", what);
  abort();
}

void FuzzCertificate(std::string_view input) {
  auto cert = cvmfs::Certificate::FromPem(input);
  if (!cert.ok()) return;
  (void)cert->CommonName();
  (void)cert->Fingerprint(cvmfs::HashAlgorithm::kSha1);
  (void)cert->Fingerprint(cvmfs::HashAlgorithm::kShake128);
  auto again = cvmfs::Certificate::FromPem(cert->ToPem());
  Check(again.ok() && again->Der() == cert->Der(),
        "certificate PEM round trip");
  auto key = cert->GetPublicKey();
  if (key.ok()) (void)cvmfs::VerifySha1(*key, input, input);
}

void FuzzKeys(std::string_view input) {
  auto pub = cvmfs::PublicKey::FromPem(input);
  if (pub.ok()) {
    (void)pub->bits();
    (void)pub->ToPem();
  }
  auto priv = cvmfs::PrivateKey::FromPem(input);
  if (priv.ok()) (void)priv->PublicPem();
}

void FuzzSignatures(std::string_view input) {
  // The input as a signature of itself, and a signature split off its end.
  (void)cvmfs::VerifySha1(FixedPublic(), input, input);
  (void)cvmfs::VerifyRaw(FixedPublic(), input, input);
  size_t half = input.size() / 2;
  (void)cvmfs::VerifyRaw(FixedPublic(), input.substr(0, half),
                         input.substr(half));
  auto sig = cvmfs::SignSha1(FixedKey(), input);
  Check(sig.ok() && cvmfs::VerifySha1(FixedPublic(), input, *sig),
        "SignSha1 then VerifySha1");
  if (input.size() <= 64) {  // at most modulus - 11 bytes for 1024 bits
    auto raw = cvmfs::SignRaw(FixedKey(), input);
    Check(raw.ok() && cvmfs::VerifyRaw(FixedPublic(), input, *raw),
          "SignRaw then VerifyRaw");
  }
}

void FuzzText(std::string_view input) {
  auto fp = cvmfs::ParseFingerprint(input);
  if (fp.ok()) {
    auto again = cvmfs::ParseFingerprint(cvmfs::FormatFingerprint(*fp));
    Check(again.ok() && *again == *fp, "fingerprint round trip");
  }
  auto letter = cvmfs::SplitLetter(input);
  if (letter.ok() && letter->is_signed)
    (void)cvmfs::CheckLetterHash(letter->text, letter->hash_line, "fuzz");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  FuzzCertificate(input);
  FuzzKeys(input);
  FuzzSignatures(input);
  FuzzText(input);
  return 0;
}
