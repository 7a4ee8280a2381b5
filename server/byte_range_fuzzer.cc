// Fuzz target: the Range header of a GET (byte_range.h), as any HTTP client
// sends it. The input's first 8 bytes are the file size, the rest the
// header. A decision must be what RFC 9110 allows: a partial range lies
// inside the file, and the Content-Range value names it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "server/byte_range.h"

namespace {

void Check(bool ok, const char* what, std::string_view header, uint64_t size) {
  if (ok) return;
  fprintf(stderr, "property violated: %s (header '%.*s', size %llu)\n", what,
          static_cast<int>(header.size()), header.data(),
          static_cast<unsigned long long>(size));
  abort();
}

void Decide(std::string_view header, uint64_t size) {
  server::RangeDecision d = server::DecideRange(header, size);
  std::string value = server::ContentRangeValue(d, size);
  switch (d.kind) {
    case server::RangeDecision::Kind::kPartial:
      Check(d.first <= d.last && d.last < size, "partial range inside file",
            header, size);
      Check(d.length() >= 1 && d.length() <= size, "partial length", header,
            size);
      Check(value == "bytes " + std::to_string(d.first) + "-" +
                         std::to_string(d.last) + "/" + std::to_string(size),
            "Content-Range of a 206", header, size);
      break;
    case server::RangeDecision::Kind::kUnsatisfiable:
      Check(value == "bytes */" + std::to_string(size),
            "Content-Range of a 416", header, size);
      break;
    case server::RangeDecision::Kind::kFull:
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint64_t file_size = 0;
  if (size >= sizeof(file_size)) {
    memcpy(&file_size, data, sizeof(file_size));
    data += sizeof(file_size);
    size -= sizeof(file_size);
  }
  std::string_view header(reinterpret_cast<const char*>(data), size);
  Decide(header, file_size);
  // Also the sizes where off-by-one and overflow errors live.
  for (uint64_t s : {uint64_t{0}, uint64_t{1}, uint64_t{1000}, UINT64_MAX})
    Decide(header, s);
  return 0;
}
