// Content hashes as the repository format names them (doc/format.md, "Hashes").
//
// A Digest is an algorithm plus its raw bytes. Its text form is the lowercase
// hex digest followed by the algorithm id ("", "-rmd160", "-shake128"), the
// form used in manifests, nested catalog rows and object names. The enum order
// is part of the format (catalog flags store algorithm - 1).
//
// Thread safety: Digest is a value. A Hasher is used by one thread at a time.
#ifndef CVMFS_HASH_H_
#define CVMFS_HASH_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "cvmfs/status.h"

namespace cvmfs {

enum class HashAlgorithm : uint8_t {
  kMd5 = 0,  // path hashes only
  kSha1 = 1,
  kRmd160 = 2,
  kShake128 = 3,  // 160 output bits
};

// Digest length in bytes (16 for MD5, 20 otherwise).
size_t DigestSize(HashAlgorithm algo);
// "", "-rmd160", "-shake128" (and "" for MD5).
std::string_view AlgorithmId(HashAlgorithm algo);
// Parses "sha1", "rmd160", "shake128" (the mkfs -a names).
Result<HashAlgorithm> ParseAlgorithmName(std::string_view name);
std::string_view AlgorithmName(HashAlgorithm algo);

struct Digest {
  HashAlgorithm algorithm = HashAlgorithm::kSha1;
  std::array<uint8_t, 20> bytes{};

  size_t size() const { return DigestSize(algorithm); }
  // Lowercase hex plus the algorithm id, e.g. "0a1b...-shake128".
  std::string ToString() const;
  // Lowercase hex only, without the algorithm id.
  std::string Hex() const;
  // Raw digest bytes (what catalogs store in their `hash` BLOB columns).
  std::string Raw() const;
  bool IsNull() const;

  // Parses the text form (hex + optional algorithm id). Expects a content
  // algorithm (not MD5) unless `md5` is true.
  static Result<Digest> Parse(std::string_view text);
  static Result<Digest> FromRaw(HashAlgorithm algo, std::string_view raw);

  bool operator==(const Digest& o) const {
    return algorithm == o.algorithm && bytes == o.bytes;
  }
  bool operator!=(const Digest& o) const { return !(*this == o); }
  bool operator<(const Digest& o) const {
    return algorithm != o.algorithm ? algorithm < o.algorithm : bytes < o.bytes;
  }
};

struct DigestHasher {
  size_t operator()(const Digest& d) const {
    size_t h;
    static_assert(sizeof(h) <= 20);
    __builtin_memcpy(&h, d.bytes.data(), sizeof(h));
    return h ^ static_cast<size_t>(d.algorithm);
  }
};

// Streaming hash computation.
class Hasher {
 public:
  explicit Hasher(HashAlgorithm algo);
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;
  Hasher(Hasher&&) noexcept;
  Hasher& operator=(Hasher&&) noexcept;

  void Update(const void* data, size_t size);
  void Update(std::string_view data) { Update(data.data(), data.size()); }
  // Finishes the computation; the Hasher must not be updated afterwards.
  Digest Finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  HashAlgorithm algo_;
};

Digest HashBuffer(HashAlgorithm algo, const void* data, size_t size);
inline Digest HashString(HashAlgorithm algo, std::string_view data) {
  return HashBuffer(algo, data.data(), data.size());
}

// Hex helpers.
std::string ToHex(const void* data, size_t size);
Result<std::string> FromHex(std::string_view hex);

}  // namespace cvmfs

#endif  // CVMFS_HASH_H_
