#include "server/byte_range.h"

#include <cctype>
#include <limits>

#include "cvmfs/text.h"

namespace server {
namespace {

using cvmfs::kBlanks;
using cvmfs::Trim;

// A position of a range-spec: 1*DIGIT, of any length (RFC 9110 14.1.1).
// A number beyond 64 bits is still valid syntax; its value saturates at
// UINT64_MAX, which is past the end of every file, and the digits are kept
// for comparing two such numbers exactly.
struct Position {
  std::string_view digits;  // without leading zeros; "" for 0
  uint64_t value = 0;       // saturated

  bool operator<(const Position& other) const {
    if (digits.size() != other.digits.size())
      return digits.size() < other.digits.size();
    return digits < other.digits;
  }
};

bool ParsePosition(std::string_view s, Position* out) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  size_t zeros = s.find_first_not_of('0');
  out->digits =
      zeros == std::string_view::npos ? std::string_view() : s.substr(zeros);
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  out->value = 0;
  for (char c : out->digits) {
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (out->value > (kMax - d) / 10) {
      out->value = kMax;
      break;
    }
    out->value = out->value * 10 + d;
  }
  return true;
}

RangeDecision Full() { return RangeDecision{}; }
RangeDecision Unsatisfiable() {
  return RangeDecision{RangeDecision::Kind::kUnsatisfiable, 0, 0};
}
RangeDecision Partial(uint64_t first, uint64_t last) {
  return RangeDecision{RangeDecision::Kind::kPartial, first, last};
}

// "-N": the last N bytes (all of them if N is larger than the file).
RangeDecision SuffixRange(std::string_view spec, uint64_t size) {
  Position n;
  if (!ParsePosition(Trim(spec.substr(1), kBlanks), &n)) return Full();
  if (n.value == 0 || size == 0) return Unsatisfiable();
  uint64_t len = n.value < size ? n.value : size;
  return Partial(size - len, size - 1);
}

bool IsBytesUnit(std::string_view unit) {
  constexpr std::string_view kBytes = "bytes";
  if (unit.size() != kBytes.size()) return false;
  for (size_t i = 0; i < unit.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(unit[i])) != kBytes[i])
      return false;
  return true;
}

}  // namespace

RangeDecision DecideRange(std::string_view header, uint64_t size) {
  header = Trim(header, kBlanks);
  size_t equals = header.find('=');
  if (equals == std::string_view::npos ||
      !IsBytesUnit(Trim(header.substr(0, equals), kBlanks)))
    return Full();
  std::string_view spec = Trim(header.substr(equals + 1), kBlanks);
  // Several ranges would need a multipart/byteranges answer; the whole file
  // is a valid answer too and CVMFS clients never ask for more than one.
  if (spec.find(',') != std::string_view::npos) return Full();
  size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return Full();
  if (dash == 0) return SuffixRange(spec, size);
  Position first;
  if (!ParsePosition(Trim(spec.substr(0, dash), kBlanks), &first))
    return Full();
  std::string_view last_text = Trim(spec.substr(dash + 1), kBlanks);
  uint64_t last = size == 0 ? 0 : size - 1;
  if (!last_text.empty()) {
    Position parsed;
    // Syntactically invalid (RFC 9110 14.1.1: last < first): ignored.
    if (!ParsePosition(last_text, &parsed) || parsed < first) return Full();
    if (parsed.value < last) last = parsed.value;  // else clamped to the end
  }
  if (first.value >= size) return Unsatisfiable();
  return Partial(first.value, last);
}

std::string ContentRangeValue(const RangeDecision& range, uint64_t size) {
  if (range.kind == RangeDecision::Kind::kPartial)
    return "bytes " + std::to_string(range.first) + "-" +
           std::to_string(range.last) + "/" + std::to_string(size);
  return "bytes */" + std::to_string(size);
}

}  // namespace server
