// Object packs (doc/format-object-packs.md): the bytes a publisher in
// gateway mode sends to the repository gateway, a text header listing the
// objects followed by their bytes.
//
//   publisher: ObjectPackBuilder::Add... ─► Serialize() ─► header + payload,
//              HeaderDigest() and header size go into the request
//   gateway:   ParseObjectPack(bytes, header_size, digest) ─► entries whose
//              bytes are views into the pack
//
// Thread safety: free functions over values; a builder belongs to one thread.
#ifndef CVMFS_OBJECT_PACK_H_
#define CVMFS_OBJECT_PACK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/hash.h"
#include "cvmfs/object_name.h"
#include "cvmfs/status.h"

namespace cvmfs {

inline constexpr int kObjectPackVersion = 2;
inline constexpr size_t kObjectPackMaxObjects = 100000;
// Header bytes a reader accepts per object (CVMFS's bound).
inline constexpr size_t kObjectPackHeaderBytesPerObject = 100;
// What the publisher puts in one pack before starting the next.
inline constexpr uint64_t kObjectPackDefaultLimit = 200ull * 1024 * 1024;

struct ObjectPackEntry {
  enum class Kind { kCas, kNamed };
  Kind kind = Kind::kCas;
  ObjectName id;  // digest and suffix
  uint64_t size = 0;
  std::string name;  // kNamed only: relative path in the repository
  // ParseObjectPack: a view into the pack's bytes, valid while they are.
  std::string_view bytes;
};

// "<hex><algo id><suffix>", the id as an object pack (and CVMFS's
// shash::Any::ToString(true)) writes it.
std::string ObjectPackId(const ObjectName& id);
Result<ObjectName> ParseObjectPackId(std::string_view text);

// Builds one pack in memory. The entries' bytes are copied.
class ObjectPackBuilder {
 public:
  explicit ObjectPackBuilder(uint64_t limit = kObjectPackDefaultLimit)
      : limit_(limit) {}
  // False (nothing added) if the object would pass the limit or the object
  // count; an empty pack takes any one object.
  bool AddCas(const ObjectName& id, std::string_view bytes);
  bool AddNamed(const ObjectName& id, const std::string& name,
                std::string_view bytes);
  size_t objects() const { return entries_.size(); }
  uint64_t payload_size() const { return payload_.size(); }
  std::string Header() const;
  // Header() followed by the payload.
  std::string Serialize() const;

 private:
  bool Fits(size_t bytes) const;
  uint64_t limit_;
  std::vector<ObjectPackEntry> entries_;  // bytes unset
  std::string payload_;
};

// Parses a whole pack: checks the header's digest (Corruption if it differs,
// `header_digest`'s algorithm), its syntax and the payload's length
// (InvalidArgument), and returns the entries, bytes pointing into `pack`.
// The objects' bytes are not hashed here (the gateway does it as it stores).
Result<std::vector<ObjectPackEntry>> ParseObjectPack(
    std::string_view pack, size_t header_size, const Digest& header_digest);

// The header alone (no digest check): its entries, bytes unset.
Result<std::vector<ObjectPackEntry>> ParseObjectPackHeader(
    std::string_view header, uint64_t* payload_size);

// A relative path without "", "." or ".." components nor a leading '/'.
bool IsSafeRelativePath(std::string_view path);

}  // namespace cvmfs

#endif  // CVMFS_OBJECT_PACK_H_
