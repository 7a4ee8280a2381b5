// The Range request header of a GET for a static file, as RFC 9110 section
// 14 defines it for the "bytes" unit, reduced to what a file server for
// CVMFS clients and proxies needs: one satisfiable range is answered with
// 206, a range that starts at or beyond the end with 416, anything else (no
// header, another unit, a syntax error, several ranges) with the whole file
// (200), which the RFC allows a server to do for any Range request it does
// not want to honour. Positions are digit strings of any length: an end past
// the file (even past 2^64) is clamped to its last byte, a start past it is
// unsatisfiable, a suffix longer than the file means the whole file.
//
// Thread safety: pure functions.
#ifndef SERVER_BYTE_RANGE_H_
#define SERVER_BYTE_RANGE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace server {

struct RangeDecision {
  enum class Kind {
    kFull,           // 200 with the whole file
    kPartial,        // 206 with bytes [first, last] and a Content-Range
    kUnsatisfiable,  // 416 with "Content-Range: bytes */size"
  };
  Kind kind = Kind::kFull;
  uint64_t first = 0;  // inclusive, kPartial only
  uint64_t last = 0;   // inclusive, kPartial only

  uint64_t length() const { return last - first + 1; }
};

// `header` is the Range header's value (empty if absent); `size` the file's.
RangeDecision DecideRange(std::string_view header, uint64_t size);

// The Content-Range value of a 206 ("bytes 0-99/1234") or of a 416
// ("bytes */1234").
std::string ContentRangeValue(const RangeDecision& range, uint64_t size);

}  // namespace server

#endif  // SERVER_BYTE_RANGE_H_
