#include "cvmfs/hash.h"

#include <openssl/evp.h>

#include <cstring>

namespace cvmfs {

size_t DigestSize(HashAlgorithm algo) {
  return algo == HashAlgorithm::kMd5 ? 16 : 20;
}

std::string_view AlgorithmId(HashAlgorithm algo) {
  switch (algo) {
    case HashAlgorithm::kRmd160:
      return "-rmd160";
    case HashAlgorithm::kShake128:
      return "-shake128";
    default:
      return "";
  }
}

std::string_view AlgorithmName(HashAlgorithm algo) {
  switch (algo) {
    case HashAlgorithm::kMd5:
      return "md5";
    case HashAlgorithm::kSha1:
      return "sha1";
    case HashAlgorithm::kRmd160:
      return "rmd160";
    case HashAlgorithm::kShake128:
      return "shake128";
  }
  return "?";
}

Result<HashAlgorithm> ParseAlgorithmName(std::string_view name) {
  if (name == "sha1" || name == "SHA1" || name == "sha-1")
    return HashAlgorithm::kSha1;
  if (name == "rmd160" || name == "RMD160") return HashAlgorithm::kRmd160;
  if (name == "shake128" || name == "SHAKE128") return HashAlgorithm::kShake128;
  return Status::InvalidArgument("unknown hash algorithm '" +
                                 std::string(name) +
                                 "' (expected sha1, rmd160 or shake128)");
}

std::string ToHex(const void* data, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  const auto* p = static_cast<const uint8_t*>(data);
  std::string out(size * 2, '0');
  for (size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[p[i] >> 4];
    out[2 * i + 1] = kDigits[p[i] & 0xf];
  }
  return out;
}

static int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> FromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return Status::Corruption("odd-length hex string");
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = HexValue(hex[2 * i]), lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return Status::Corruption("invalid hex digit");
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

std::string Digest::Hex() const { return ToHex(bytes.data(), size()); }

std::string Digest::ToString() const {
  return Hex() + std::string(AlgorithmId(algorithm));
}

std::string Digest::Raw() const {
  return std::string(reinterpret_cast<const char*>(bytes.data()), size());
}

bool Digest::IsNull() const {
  for (size_t i = 0; i < size(); ++i)
    if (bytes[i]) return false;
  return true;
}

Result<Digest> Digest::FromRaw(HashAlgorithm algo, std::string_view raw) {
  if (raw.size() != DigestSize(algo))
    return Status::Corruption("hash of " + std::to_string(raw.size()) +
                              " bytes, expected " +
                              std::to_string(DigestSize(algo)));
  Digest d;
  d.algorithm = algo;
  std::memcpy(d.bytes.data(), raw.data(), raw.size());
  return d;
}

Result<Digest> Digest::Parse(std::string_view text) {
  HashAlgorithm algo = HashAlgorithm::kSha1;
  std::string_view hex = text;
  size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    std::string_view id = text.substr(dash);
    if (id == "-rmd160")
      algo = HashAlgorithm::kRmd160;
    else if (id == "-shake128")
      algo = HashAlgorithm::kShake128;
    else
      return Status::Corruption("unknown hash algorithm id in '" +
                                std::string(text) + "'");
    hex = text.substr(0, dash);
  } else if (text.size() == 32) {
    algo = HashAlgorithm::kMd5;
  }
  if (hex.size() != 2 * DigestSize(algo))
    return Status::Corruption("malformed hash '" + std::string(text) + "'");
  auto raw = FromHex(hex);
  if (!raw.ok())
    return raw.status().Annotate("hash '" + std::string(text) + "'");
  return FromRaw(algo, *raw);
}

struct Hasher::Impl {
  EVP_MD_CTX* ctx = nullptr;
  ~Impl() { EVP_MD_CTX_free(ctx); }
};

static const EVP_MD* EvpFor(HashAlgorithm algo) {
  switch (algo) {
    case HashAlgorithm::kMd5:
      return EVP_md5();
    case HashAlgorithm::kSha1:
      return EVP_sha1();
    case HashAlgorithm::kRmd160:
      return EVP_ripemd160();
    case HashAlgorithm::kShake128:
      return EVP_shake128();
  }
  return EVP_sha1();
}

Hasher::Hasher(HashAlgorithm algo) : impl_(new Impl), algo_(algo) {
  impl_->ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(impl_->ctx, EvpFor(algo), nullptr);
}
Hasher::~Hasher() = default;
Hasher::Hasher(Hasher&&) noexcept = default;
Hasher& Hasher::operator=(Hasher&&) noexcept = default;

void Hasher::Update(const void* data, size_t size) {
  EVP_DigestUpdate(impl_->ctx, data, size);
}

Digest Hasher::Finish() {
  Digest d;
  d.algorithm = algo_;
  if (algo_ == HashAlgorithm::kShake128) {
    EVP_DigestFinalXOF(impl_->ctx, d.bytes.data(), 20);
  } else {
    unsigned int len = 0;
    unsigned char buf[EVP_MAX_MD_SIZE];
    EVP_DigestFinal_ex(impl_->ctx, buf, &len);
    std::memcpy(d.bytes.data(), buf, len);
  }
  return d;
}

Digest HashBuffer(HashAlgorithm algo, const void* data, size_t size) {
  Hasher h(algo);
  h.Update(data, size);
  return h.Finish();
}

}  // namespace cvmfs
