// Fuzz target: the object pack reader (object_pack.h), which parses what a
// publisher POSTs to the gateway. Whatever the bytes, an accepted pack's
// entries cover its payload exactly, in order, and a builder given the same
// entries writes the same bytes back (names aside: two base64 alphabets).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cvmfs/object_pack.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  fprintf(stderr, "property violated: %s\n", what);
  abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Input: the header's length (two bytes, little endian: what the request
  // carries as header_size) followed by the pack.
  if (size < 2) return 0;
  size_t header_size = data[0] | (size_t{data[1]} << 8);
  std::string_view pack(reinterpret_cast<const char*>(data) + 2, size - 2);
  size = pack.size();
  if (header_size > size) header_size = size;
  std::string_view header = pack.substr(0, header_size);
  auto digest = cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, header);
  auto entries = cvmfs::ParseObjectPack(pack, header_size, digest);
  if (!entries.ok()) return 0;
  cvmfs::ObjectPackBuilder builder(UINT64_MAX);
  const char* expected = pack.data() + header_size;
  bool named = false;
  for (const cvmfs::ObjectPackEntry& e : *entries) {
    Check(e.bytes.size() == e.size, "bytes as announced");
    Check(e.bytes.data() == expected, "entries follow each other");
    expected += e.size;
    named = named || e.kind == cvmfs::ObjectPackEntry::Kind::kNamed;
    bool added = e.kind == cvmfs::ObjectPackEntry::Kind::kCas
                     ? builder.AddCas(e.id, e.bytes)
                     : builder.AddNamed(e.id, e.name, e.bytes);
    Check(added, "builder takes what the reader accepted");
  }
  Check(expected == pack.data() + size, "entries cover the payload");
  // Names may come in either base64 alphabet; the builder writes the URL one.
  if (!named)
    Check(builder.Serialize() == pack, "builder writes the same bytes");
  return 0;
}
