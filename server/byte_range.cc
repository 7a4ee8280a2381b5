#include "server/byte_range.h"

#include <optional>

#include "cvmfs/text.h"

namespace server {
namespace {

using cvmfs::kBlanks;
using cvmfs::Trim;

// A non-empty run of decimal digits that fits in 63 bits.
std::optional<uint64_t> ParseNumber(std::string_view s) {
  return cvmfs::ParseUint64(s, 18);
}

RangeDecision Full() { return RangeDecision{}; }
RangeDecision Unsatisfiable() {
  return RangeDecision{RangeDecision::Kind::kUnsatisfiable, 0, 0};
}
RangeDecision Partial(uint64_t first, uint64_t last) {
  return RangeDecision{RangeDecision::Kind::kPartial, first, last};
}

// "-N": the last N bytes.
RangeDecision SuffixRange(std::string_view spec, uint64_t size) {
  auto n = ParseNumber(spec.substr(1));
  if (!n) return Full();
  if (*n == 0 || size == 0) return Unsatisfiable();
  uint64_t len = *n < size ? *n : size;
  return Partial(size - len, size - 1);
}

}  // namespace

RangeDecision DecideRange(std::string_view header, uint64_t size) {
  header = Trim(header, kBlanks);
  constexpr std::string_view kUnit = "bytes=";
  if (header.substr(0, kUnit.size()) != kUnit) return Full();
  std::string_view spec = Trim(header.substr(kUnit.size()), kBlanks);
  // Several ranges would need a multipart/byteranges answer; the whole file
  // is a valid answer too and CVMFS clients never ask for more than one.
  if (spec.find(',') != std::string_view::npos) return Full();
  size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return Full();
  if (dash == 0) return SuffixRange(spec, size);
  auto first = ParseNumber(Trim(spec.substr(0, dash), kBlanks));
  if (!first) return Full();
  std::string_view last_text = Trim(spec.substr(dash + 1), kBlanks);
  uint64_t last = size == 0 ? 0 : size - 1;
  if (!last_text.empty()) {
    auto parsed = ParseNumber(last_text);
    if (!parsed || *parsed < *first) return Full();  // invalid: ignore it
    if (*parsed < last) last = *parsed;
  }
  if (*first >= size) return Unsatisfiable();
  return Partial(*first, last);
}

std::string ContentRangeValue(const RangeDecision& range, uint64_t size) {
  if (range.kind == RangeDecision::Kind::kPartial)
    return "bytes " + std::to_string(range.first) + "-" +
           std::to_string(range.last) + "/" + std::to_string(size);
  return "bytes */" + std::to_string(size);
}

}  // namespace server
