#include "cvmfs/config/option_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace cvmfs {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string TrimBlanks(const std::string& s) {
  size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

// A whole decimal integer with optional sign; nullopt on junk or overflow.
std::optional<int64_t> ParseInt64(const std::string& text) {
  std::string s = TrimBlanks(text);
  size_t digits = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (s.size() == digits ||
      !std::all_of(s.begin() + digits, s.end(),
                   [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  errno = 0;
  long long v = std::strtoll(s.c_str(), nullptr, 10);
  if (errno == ERANGE) return std::nullopt;
  return static_cast<int64_t>(v);
}

}  // namespace

std::optional<bool> ParseBoolean(const std::string& text) {
  const std::string s = Lower(TrimBlanks(text));
  if (s == "yes" || s == "on" || s == "true" || s == "1") return true;
  if (s == "no" || s == "off" || s == "false" || s == "0") return false;
  return std::nullopt;
}

std::optional<std::string> OptionReader::Optional(
    const std::string& name) const {
  std::optional<std::string> value = options_.Get(name);
  if (!value || value->empty()) return std::nullopt;
  return value;
}

std::string OptionReader::String(const std::string& name,
                                 const std::string& def) const {
  return Optional(name).value_or(def);
}

Result<bool> OptionReader::Bool(const std::string& name, bool def) const {
  std::optional<std::string> value = Optional(name);
  if (!value) return def;
  std::optional<bool> parsed = ParseBoolean(*value);
  if (!parsed) return Invalid(name, "yes or no (also on/off, true/false, 1/0)");
  return *parsed;
}

Result<int64_t> OptionReader::Integer(const std::string& name, int64_t def,
                                      int64_t min, int64_t max,
                                      const std::string& expected) const {
  std::optional<std::string> value = Optional(name);
  if (!value) return def;
  std::optional<int64_t> parsed = ParseInt64(*value);
  if (!parsed || *parsed < min || *parsed > max) return Invalid(name, expected);
  return *parsed;
}

Status OptionReader::Invalid(const std::string& name,
                             const std::string& expected) const {
  return Status::InvalidArgument(
      name + "='" + options_.Get(name).value_or("") + "' (from " +
      options_.GetSource(name).value_or("nowhere") + "): expected " + expected);
}

}  // namespace cvmfs
