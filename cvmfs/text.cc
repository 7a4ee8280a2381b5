#include "cvmfs/text.h"

#include <charconv>
#include <string>

namespace cvmfs {

std::string_view Trim(std::string_view s, std::string_view chars) {
  size_t begin = s.find_first_not_of(chars);
  if (begin == std::string_view::npos) return std::string_view();
  return s.substr(begin, s.find_last_not_of(chars) - begin + 1);
}

std::vector<std::string> SplitNonEmpty(std::string_view text,
                                       std::string_view separators) {
  std::vector<std::string> pieces;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find_first_of(separators, pos);
    if (end == std::string_view::npos) end = text.size();
    if (end > pos) pieces.emplace_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return pieces;
}

bool IsDecimal(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::optional<uint64_t> ParseUint64(std::string_view s, size_t max_digits) {
  if (!IsDecimal(s) || s.size() > max_digits) return std::nullopt;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> ParseInt64(std::string_view s) {
  const bool sign = !s.empty() && (s[0] == '-' || s[0] == '+');
  std::string_view digits = s.substr(sign ? 1 : 0);
  if (!IsDecimal(digits)) return std::nullopt;
  // from_chars takes '-' but not '+'.
  std::string_view number = s[0] == '-' ? s : digits;
  int64_t v = 0;
  auto [end, ec] =
      std::from_chars(number.data(), number.data() + number.size(), v);
  if (ec != std::errc() || end != number.data() + number.size())
    return std::nullopt;
  return v;
}

std::optional<bool> ParseBoolean(std::string_view text) {
  std::string s(Trim(text, kBlanks));
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  if (s == "yes" || s == "on" || s == "true" || s == "1") return true;
  if (s == "no" || s == "off" || s == "false" || s == "0") return false;
  return std::nullopt;
}

}  // namespace cvmfs
