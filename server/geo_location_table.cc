#include "server/geo_location_table.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "cvmfs/file_util.h"
#include "cvmfs/text.h"

namespace server {
namespace {

using cvmfs::Result;
using cvmfs::Status;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// [+-]digits[.digits], within [-limit, limit].
std::optional<double> ParseDegrees(std::string_view s, double limit) {
  std::string_view body = s;
  if (!body.empty() && (body[0] == '+' || body[0] == '-'))
    body.remove_prefix(1);
  const size_t dot = body.find('.');
  const std::string_view whole = body.substr(0, dot);
  if (!cvmfs::IsDecimal(whole)) return std::nullopt;
  if (dot != std::string_view::npos && !cvmfs::IsDecimal(body.substr(dot + 1)))
    return std::nullopt;
  if (s[0] == '+') s.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  if (value < -limit || value > limit) return std::nullopt;
  return value;
}

bool IsHostName(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
  });
}

// Zeroes the bits after `length`.
IpAddress Masked(IpAddress a, int length) {
  for (int i = 0; i < 16; ++i) {
    const int keep = std::clamp(length - 8 * i, 0, 8);
    a.bytes[i] &= static_cast<uint8_t>(0xff00 >> keep);
  }
  return a;
}

}  // namespace

std::optional<IpAddress> IpAddress::Parse(std::string_view text) {
  const std::string s(text);
  IpAddress a;
  if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) == 1) return a;
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) == 1) {
    a.ipv6 = true;
    return a;
  }
  return std::nullopt;
}

Result<LocationTable> LocationTable::Parse(std::string_view text,
                                           const std::string& source) {
  LocationTable table;
  size_t number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    line = line.substr(0, line.find('#'));
    const std::vector<std::string> fields = cvmfs::SplitNonEmpty(line, " \t\r");
    if (fields.empty()) continue;
    auto bad = [&](const std::string& why) {
      return Status::InvalidArgument(source + " line " +
                                     std::to_string(number) + ": " + why);
    };
    if (fields.size() != 3)
      return bad("expected 'name-or-CIDR latitude longitude', got " +
                 std::to_string(fields.size()) + " field(s)");
    std::optional<double> lat = ParseDegrees(fields[1], 90);
    if (!lat)
      return bad("latitude '" + fields[1] +
                 "' is not a decimal number from -90 to 90");
    std::optional<double> lon = ParseDegrees(fields[2], 180);
    if (!lon)
      return bad("longitude '" + fields[2] +
                 "' is not a decimal number from -180 to 180");
    const GeoPoint point{*lat, *lon};
    const std::string& key = fields[0];
    const size_t slash = key.find('/');
    std::optional<IpAddress> address = IpAddress::Parse(key.substr(0, slash));
    if (!address) {
      if (slash != std::string::npos || !IsHostName(key))
        return bad("'" + key +
                   "' is neither a host name nor an address or CIDR prefix");
      if (!table.names_.emplace(Lower(key), point).second)
        return bad("'" + key + "' is listed twice");
      continue;
    }
    int length = address->bits();
    if (slash != std::string::npos) {
      std::optional<uint64_t> n = cvmfs::ParseUint64(key.substr(slash + 1), 3);
      if (!n || *n > static_cast<uint64_t>(address->bits()))
        return bad("prefix length of '" + key + "' is not 0 to " +
                   std::to_string(address->bits()));
      length = static_cast<int>(*n);
    }
    Prefix prefix{Masked(*address, length), length, point};
    for (const Prefix& p : table.prefixes_) {
      if (p.length == length && p.address.ipv6 == prefix.address.ipv6 &&
          p.address.bytes == prefix.address.bytes)
        return bad("'" + key + "' is listed twice");
    }
    table.prefixes_.push_back(prefix);
  }
  std::stable_sort(
      table.prefixes_.begin(), table.prefixes_.end(),
      [](const Prefix& a, const Prefix& b) { return a.length > b.length; });
  return table;
}

Result<LocationTable> LocationTable::Load(const std::string& path) {
  auto text = cvmfs::ReadFile(path);
  if (!text.ok()) return text.status().Annotate("location table " + path);
  return Parse(*text, path);
}

std::optional<GeoPoint> LocationTable::ByName(std::string_view name) const {
  auto it = names_.find(Lower(name));
  if (it == names_.end()) return std::nullopt;
  return it->second;
}

std::optional<GeoPoint> LocationTable::ByAddress(
    const IpAddress& address) const {
  for (const Prefix& p : prefixes_) {
    if (p.address.ipv6 != address.ipv6) continue;
    if (Masked(address, p.length).bytes == p.address.bytes) return p.point;
  }
  return std::nullopt;
}

}  // namespace server
