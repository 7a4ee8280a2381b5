// LocationTable: a site's own table of locations for the Geo-API, for
// machines without a GeoLite2 database (format: doc/serving.md, "The
// location table"). One entry a line: a host name, an address or a CIDR
// prefix, then latitude and longitude in decimal degrees.
//
// Names match exactly, ignoring ASCII case; an address matches the longest
// prefix containing it (IPv4 and IPv6 apart; a lone address is /32 or /128).
//
// Thread safety: immutable once parsed; lookups may run concurrently.
#ifndef SERVER_GEO_LOCATION_TABLE_H_
#define SERVER_GEO_LOCATION_TABLE_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/status.h"
#include "server/geo_order.h"

namespace server {

// A numeric IPv4 or IPv6 address in network byte order (IPv4 in the first
// 4 bytes).
struct IpAddress {
  bool ipv6 = false;
  std::array<uint8_t, 16> bytes{};
  int bits() const { return ipv6 ? 128 : 32; }
  // inet_pton's syntax; nullopt for anything else.
  static std::optional<IpAddress> Parse(std::string_view text);
};

class LocationTable {
 public:
  // `source` names the table in error messages (a file path). Errors give
  // the line number and what is wrong.
  static cvmfs::Result<LocationTable> Parse(std::string_view text,
                                            const std::string& source);
  static cvmfs::Result<LocationTable> Load(const std::string& path);

  std::optional<GeoPoint> ByName(std::string_view name) const;
  std::optional<GeoPoint> ByAddress(const IpAddress& address) const;
  size_t size() const { return names_.size() + prefixes_.size(); }

 private:
  struct Prefix {
    IpAddress address;
    int length = 0;
    GeoPoint point;
  };
  std::map<std::string, GeoPoint> names_;  // lower case
  std::vector<Prefix> prefixes_;           // longest first
};

}  // namespace server

#endif  // SERVER_GEO_LOCATION_TABLE_H_
