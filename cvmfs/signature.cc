#include "cvmfs/signature.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <cctype>
#include <climits>
#include <cstring>

namespace cvmfs {

namespace internal {
void PkeyFree::operator()(evp_pkey_st* p) const { EVP_PKEY_free(p); }
void X509Free::operator()(x509_st* p) const { X509_free(p); }
}  // namespace internal

namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;

// DER prefix of DigestInfo{sha1, OCTET STRING(20)} (RFC 8017 9.2, note 1);
// the 20 digest bytes follow.
constexpr unsigned char kSha1DigestInfo[] = {0x30, 0x21, 0x30, 0x09, 0x06,
                                             0x05, 0x2b, 0x0e, 0x03, 0x02,
                                             0x1a, 0x05, 0x00, 0x04, 0x14};

// Drains the thread's OpenSSL error queue into one line, so that a failure
// never leaves stale errors behind for unrelated callers.
std::string OpensslError() {
  std::string out;
  unsigned long e;  // NOLINT(runtime/int): OpenSSL's type
  while ((e = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

BioPtr MemBio(std::string_view data) {
  if (data.size() > INT_MAX) return nullptr;
  return BioPtr(BIO_new_mem_buf(data.data(), static_cast<int>(data.size())));
}

std::string BioContents(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);  // NOLINT(runtime/int)
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

// The label of the first PEM block ("PUBLIC KEY" for "-----BEGIN PUBLIC
// KEY-----") and its offset in `pem`; npos if there is none.
size_t FindPemBlock(std::string_view pem, std::string_view* label) {
  constexpr std::string_view kBegin = "-----BEGIN ";
  size_t pos = pem.find(kBegin);
  if (pos == std::string_view::npos) return pos;
  size_t start = pos + kBegin.size();
  size_t end = pem.find("-----", start);
  if (end == std::string_view::npos) return std::string_view::npos;
  *label = pem.substr(start, end - start);
  return pos;
}

int NoPassphrase(char*, int, int, void*) { return -1; }

bool IsRsa(const EVP_PKEY* pkey) { return EVP_PKEY_is_a(pkey, "RSA") == 1; }

// Private-key operation with PKCS#1 type-1 padding over `data` as is.
Result<std::string> RsaPkcs1Sign(EVP_PKEY* pkey, const unsigned char* data,
                                 size_t size) {
  const size_t modulus = static_cast<size_t>(EVP_PKEY_get_size(pkey));
  if (modulus < 11 || size > modulus - 11)
    return Status::InvalidArgument(
        "message of " + std::to_string(size) + " bytes is too long for a " +
        std::to_string(EVP_PKEY_get_bits(pkey)) + "-bit RSA key");
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey, nullptr));
  size_t sig_len = 0;
  if (!ctx || EVP_PKEY_sign_init(ctx.get()) <= 0 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING) <= 0 ||
      EVP_PKEY_sign(ctx.get(), nullptr, &sig_len, data, size) <= 0)
    return Status::InvalidArgument("RSA sign setup failed: " + OpensslError());
  std::string sig(sig_len, '\0');
  if (EVP_PKEY_sign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()),
                    &sig_len, data, size) <= 0)
    return Status::InvalidArgument("RSA sign failed: " + OpensslError());
  sig.resize(sig_len);
  return sig;
}

// Public-key operation on `signature` and PKCS#1 type-1 unpadding; true if
// the recovered bytes equal `expected`.
bool RsaPkcs1Recover(EVP_PKEY* pkey, std::string_view signature,
                     std::string_view expected) {
  const size_t modulus = static_cast<size_t>(EVP_PKEY_get_size(pkey));
  if (signature.size() != modulus) return false;
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey, nullptr));
  std::string out(modulus, '\0');
  size_t out_len = out.size();
  const auto* sig = reinterpret_cast<const unsigned char*>(signature.data());
  if (!ctx || EVP_PKEY_verify_recover_init(ctx.get()) <= 0 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_PADDING) <= 0 ||
      EVP_PKEY_verify_recover(ctx.get(),
                              reinterpret_cast<unsigned char*>(out.data()),
                              &out_len, sig, signature.size()) <= 0) {
    ERR_clear_error();
    return false;
  }
  return out_len == expected.size() &&
         CRYPTO_memcmp(out.data(), expected.data(), expected.size()) == 0;
}

std::string Sha1DigestInfo(std::string_view message) {
  std::string info(reinterpret_cast<const char*>(kSha1DigestInfo),
                   sizeof(kSha1DigestInfo));
  info += HashString(HashAlgorithm::kSha1, message).Raw();
  return info;
}

std::string PubkeyPem(EVP_PKEY* pkey) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PUBKEY(bio.get(), pkey) != 1) {
    ERR_clear_error();
    return "";
  }
  return BioContents(bio.get());
}

}  // namespace

// --- PublicKey ---------------------------------------------------------------

Result<PublicKey> PublicKey::FromPem(std::string_view pem) {
  std::string_view label;
  size_t pos = FindPemBlock(pem, &label);
  if (pos == std::string_view::npos)
    return Status::InvalidArgument("no PEM block in public key text");
  if (label != "PUBLIC KEY" && label != "RSA PUBLIC KEY")
    return Status::InvalidArgument("expected a PUBLIC KEY PEM block, found '" +
                                   std::string(label) + "'");
  std::string_view block = pem.substr(pos);
  EVP_PKEY* raw = nullptr;
  OSSL_DECODER_CTX* dctx = OSSL_DECODER_CTX_new_for_pkey(
      &raw, "PEM", nullptr, "RSA", EVP_PKEY_PUBLIC_KEY, nullptr, nullptr);
  const auto* data = reinterpret_cast<const unsigned char*>(block.data());
  size_t len = block.size();
  bool decoded = dctx != nullptr && OSSL_DECODER_from_data(dctx, &data, &len);
  OSSL_DECODER_CTX_free(dctx);
  internal::PkeyPtr pkey(raw);
  if (!decoded || !pkey) {
    return Status::InvalidArgument("cannot parse RSA public key: " +
                                   OpensslError());
  }
  ERR_clear_error();
  if (!IsRsa(pkey.get()))
    return Status::InvalidArgument("public key is not an RSA key");
  return PublicKey(std::move(pkey));
}

std::string PublicKey::ToPem() const { return PubkeyPem(pkey_.get()); }

int PublicKey::bits() const { return EVP_PKEY_get_bits(pkey_.get()); }

// --- PrivateKey --------------------------------------------------------------

Result<PrivateKey> PrivateKey::Generate(int bits) {
  if (bits < 1024 || bits > 16384)
    return Status::InvalidArgument("RSA key size " + std::to_string(bits) +
                                   " out of range [1024, 16384]");
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) <= 0 ||
      EVP_PKEY_CTX_set_rsa_keygen_bits(ctx.get(), bits) <= 0 ||
      EVP_PKEY_generate(ctx.get(), &raw) <= 0) {
    return Status::IoError("RSA key generation failed: " + OpensslError());
  }
  return PrivateKey(internal::PkeyPtr(raw));
}

Result<PrivateKey> PrivateKey::FromPem(std::string_view pem) {
  std::string_view label;
  if (FindPemBlock(pem, &label) == std::string_view::npos)
    return Status::InvalidArgument("no PEM block in private key text");
  if (label == "ENCRYPTED PRIVATE KEY" ||
      pem.find("Proc-Type: 4,ENCRYPTED") != std::string_view::npos)
    return Status::InvalidArgument(
        "encrypted private keys are not supported; decrypt with "
        "`openssl pkey` first");
  BioPtr bio = MemBio(pem);
  if (!bio) return Status::InvalidArgument("private key text too large");
  internal::PkeyPtr pkey(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr));
  if (!pkey)
    return Status::InvalidArgument("cannot parse private key: " +
                                   OpensslError());
  ERR_clear_error();
  if (!IsRsa(pkey.get()))
    return Status::InvalidArgument("private key is not an RSA key");
  return PrivateKey(std::move(pkey));
}

std::string PrivateKey::ToPem() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey_traditional(bio.get(), pkey_.get(), nullptr,
                                           nullptr, 0, nullptr, nullptr) != 1) {
    ERR_clear_error();
    return "";
  }
  return BioContents(bio.get());
}

std::string PrivateKey::PublicPem() const { return PubkeyPem(pkey_.get()); }

Result<PublicKey> PrivateKey::Public() const {
  // Through DER, so that the PublicKey holds no private material.
  unsigned char* der = nullptr;
  int len = i2d_PUBKEY(pkey_.get(), &der);
  if (len <= 0) return Status::IoError("i2d_PUBKEY: " + OpensslError());
  const unsigned char* p = der;
  internal::PkeyPtr pub(d2i_PUBKEY(nullptr, &p, len));
  OPENSSL_free(der);
  if (!pub) return Status::IoError("d2i_PUBKEY: " + OpensslError());
  return PublicKey(std::move(pub));
}

int PrivateKey::bits() const { return EVP_PKEY_get_bits(pkey_.get()); }

// --- Certificate -------------------------------------------------------------

Result<Certificate> Certificate::CreateSelfSigned(
    const PrivateKey& key, const std::string& common_name, int days) {
  if (days <= 0)
    return Status::InvalidArgument("certificate validity must be > 0 days");
  if (common_name.empty())
    return Status::InvalidArgument("certificate common name is empty");
  internal::X509Ptr x509(X509_new());
  if (!x509) return Status::IoError("X509_new: " + OpensslError());

  // Serial: 20 random bytes, top bit cleared (positive, RFC 5280 4.1.2.2).
  unsigned char serial_bytes[20];
  if (RAND_bytes(serial_bytes, sizeof(serial_bytes)) != 1)
    return Status::IoError("RAND_bytes: " + OpensslError());
  serial_bytes[0] = (serial_bytes[0] & 0x7f) | 0x40;
  BIGNUM* bn = BN_bin2bn(serial_bytes, sizeof(serial_bytes), nullptr);
  ASN1_INTEGER* serial = bn ? BN_to_ASN1_INTEGER(bn, nullptr) : nullptr;
  BN_free(bn);
  bool ok = serial != nullptr && X509_set_serialNumber(x509.get(), serial) == 1;
  ASN1_INTEGER_free(serial);

  // The CN is set as a UTF8String directly: with MBSTRING_* OpenSSL would
  // enforce the X.520 upper bound of 64 characters, which
  // "<60-character fqrn> CernVM-FS Release Managers" exceeds.
  X509_NAME* name = X509_get_subject_name(x509.get());
  ok = ok && X509_set_version(x509.get(), 2) == 1 &&  // v3
       X509_gmtime_adj(X509_getm_notBefore(x509.get()), 0) != nullptr &&
       X509_time_adj_ex(X509_getm_notAfter(x509.get()), days, 0, nullptr) !=
           nullptr &&
       X509_NAME_add_entry_by_NID(
           name, NID_commonName, V_ASN1_UTF8STRING,
           reinterpret_cast<const unsigned char*>(common_name.data()),
           static_cast<int>(common_name.size()), -1, 0) == 1 &&
       X509_set_issuer_name(x509.get(), name) == 1 &&
       X509_set_pubkey(x509.get(), key.get()) == 1 &&
       X509_sign(x509.get(), key.get(), EVP_sha256()) > 0;
  if (!ok)
    return Status::InvalidArgument("cannot create certificate: " +
                                   OpensslError());
  return Certificate(std::move(x509));
}

Result<Certificate> Certificate::FromPem(std::string_view pem) {
  BioPtr bio = MemBio(pem);
  if (!bio) return Status::Corruption("certificate text too large");
  internal::X509Ptr x509(
      PEM_read_bio_X509(bio.get(), nullptr, NoPassphrase, nullptr));
  if (!x509)
    return Status::Corruption("cannot parse X.509 certificate: " +
                              OpensslError());
  ERR_clear_error();
  return Certificate(std::move(x509));
}

std::string Certificate::ToPem() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), x509_.get()) != 1) {
    ERR_clear_error();
    return "";
  }
  return BioContents(bio.get());
}

std::string Certificate::Der() const {
  unsigned char* der = nullptr;
  int len = i2d_X509(x509_.get(), &der);
  if (len <= 0) {
    ERR_clear_error();
    return "";
  }
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  return out;
}

std::string Certificate::CommonName() const {
  X509_NAME* name = X509_get_subject_name(x509_.get());
  int idx = X509_NAME_get_index_by_NID(name, NID_commonName, -1);
  if (idx < 0) return "";
  ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, idx));
  if (data == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                     static_cast<size_t>(ASN1_STRING_length(data)));
}

Result<PublicKey> Certificate::GetPublicKey() const {
  internal::PkeyPtr pkey(X509_get_pubkey(x509_.get()));
  if (!pkey)
    return Status::Corruption("certificate public key unreadable: " +
                              OpensslError());
  if (!IsRsa(pkey.get()))
    return Status::Corruption("certificate key is not an RSA key");
  return PublicKey(std::move(pkey));
}

std::string Certificate::Fingerprint(HashAlgorithm algo) const {
  return FormatFingerprint(HashString(algo, Der()));
}

// --- Fingerprints ------------------------------------------------------------

std::string FormatFingerprint(const Digest& digest) {
  auto upper = [](char c) {
    return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  };
  std::string hex = digest.Hex();
  std::string out;
  out.reserve(hex.size() * 3 / 2 + 10);
  for (size_t i = 0; i < hex.size(); ++i) {
    if (i > 0 && i % 2 == 0) out.push_back(':');
    out.push_back(upper(hex[i]));
  }
  for (char c : AlgorithmId(digest.algorithm)) out.push_back(upper(c));
  return out;
}

Result<Digest> ParseFingerprint(std::string_view text) {
  std::string compact;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '#') break;
    if (c != ':')
      compact.push_back(
          static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  auto digest = Digest::Parse(compact);
  if (!digest.ok() || digest->algorithm == HashAlgorithm::kMd5)
    return Status::Corruption("not a certificate fingerprint: '" +
                              std::string(text) + "'");
  return digest;
}

// --- Letters -----------------------------------------------------------------

Result<Letter> SplitLetter(std::string_view file) {
  Letter letter;
  size_t rest;
  if (file.substr(0, 3) == "--\n") {
    letter.text = file.substr(0, 0);
    rest = 3;
  } else {
    size_t mark = file.find("\n--\n");
    if (mark == std::string_view::npos) {
      if (file == "--" ||
          (file.size() >= 3 && file.substr(file.size() - 3) == "\n--"))
        return Status::Corruption("truncated after the '--' line");
      letter.text = file;
      return letter;
    }
    letter.text = file.substr(0, mark + 1);
    rest = mark + 4;
  }
  size_t eol = file.find('\n', rest);
  if (eol == std::string_view::npos)
    return Status::Corruption("truncated: no newline after the hash line");
  letter.hash_line = file.substr(rest, eol - rest);
  letter.signature = file.substr(eol + 1);
  letter.is_signed = true;
  return letter;
}

Result<Digest> CheckLetterHash(std::string_view text,
                               std::string_view hash_line,
                               std::string_view what) {
  auto printed = Digest::Parse(hash_line);
  if (!printed.ok() || printed->algorithm == HashAlgorithm::kMd5)
    return Status::Corruption(std::string(what) + ": malformed hash line '" +
                              std::string(hash_line.substr(0, 80)) + "'");
  Digest computed = HashString(printed->algorithm, text);
  if (computed != *printed)
    return Status::Corruption(
        std::string(what) + ": hash line " + printed->ToString() +
        " does not match the content (" + computed.ToString() + ")");
  return computed;
}

// --- Signatures --------------------------------------------------------------

Result<std::string> SignSha1(const PrivateKey& key, std::string_view message) {
  std::string info = Sha1DigestInfo(message);
  return RsaPkcs1Sign(key.get(),
                      reinterpret_cast<const unsigned char*>(info.data()),
                      info.size());
}

bool VerifySha1(const PublicKey& key, std::string_view message,
                std::string_view signature) {
  std::string info = Sha1DigestInfo(message);
  return RsaPkcs1Recover(key.get(), signature, info);
}

Result<std::string> SignRaw(const PrivateKey& key, std::string_view message) {
  return RsaPkcs1Sign(key.get(),
                      reinterpret_cast<const unsigned char*>(message.data()),
                      message.size());
}

bool VerifyRaw(const PublicKey& key, std::string_view message,
               std::string_view signature) {
  return RsaPkcs1Recover(key.get(), signature, message);
}

}  // namespace cvmfs
