// Text helpers shared by every parser of configuration files, command
// arguments and on-disk formats: trimming, splitting lists, whole-string
// decimal numbers and CVMFS booleans. Each function takes the whole string and
// accepts it or not; none skips blanks, signs or trailing junk unless it says
// so (unlike strtoull, atoi and std::stoull). ASCII only, independent of the
// locale.
//
// Thread safety: free functions without state.
#ifndef CVMFS_TEXT_H_
#define CVMFS_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cvmfs {

// Blank characters for Trim.
inline constexpr std::string_view kBlanks = " \t";
// What std::isspace means in the "C" locale.
inline constexpr std::string_view kWhitespace = " \t\n\v\f\r";

// `s` without leading and trailing characters from `chars`.
std::string_view Trim(std::string_view s, std::string_view chars = kWhitespace);

// The pieces of `text` between any of the characters `separators`, in
// order, without the empty ones ("a::b:" with ":" gives "a", "b").
std::vector<std::string> SplitNonEmpty(std::string_view text,
                                       std::string_view separators);

// True if `s` is a non-empty run of the digits 0-9 (no sign, no blanks).
bool IsDecimal(std::string_view s);

// A non-negative decimal number: IsDecimal(s), at most `max_digits`
// characters long (leading zeros count), and within 64 bits; nullopt
// otherwise. A format that caps the length (e.g. 18 digits, to stay below
// 2^63) passes its cap.
std::optional<uint64_t> ParseUint64(
    std::string_view s, size_t max_digits = std::numeric_limits<size_t>::max());

// An optional '+' or '-' followed by IsDecimal digits, within the range of
// int64_t (as strtoll without its leniency); nullopt otherwise.
std::optional<int64_t> ParseInt64(std::string_view s);

// A CVMFS configuration boolean: yes/no, on/off, true/false, 1/0,
// case-insensitive, surrounding blanks (space, tab) ignored; nullopt
// otherwise.
std::optional<bool> ParseBoolean(std::string_view text);

}  // namespace cvmfs

#endif  // CVMFS_TEXT_H_
