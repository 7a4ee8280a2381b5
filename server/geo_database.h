// GeoDatabase: locations of addresses from a MaxMind GeoLite2 / GeoIP2 City
// database (an .mmdb file, as CVMFS's Geo-API reads it), through
// libmaxminddb. A location is the record's location.latitude and
// location.longitude; a record without them counts as not found.
//
// Thread safety: lookups may run concurrently (libmaxminddb's lookups only
// read the memory-mapped file). The database is opened once and not
// reloaded; the owner closes it by destroying the object.
#ifndef SERVER_GEO_DATABASE_H_
#define SERVER_GEO_DATABASE_H_

#include <memory>
#include <optional>
#include <string>

#include "cvmfs/status.h"
#include "server/geo_location_table.h"
#include "server/geo_order.h"

namespace server {

class GeoDatabase {
 public:
  // The error names the file and libmaxminddb's reason.
  static cvmfs::Result<std::unique_ptr<GeoDatabase>> Open(
      const std::string& path);
  ~GeoDatabase();
  GeoDatabase(const GeoDatabase&) = delete;
  GeoDatabase& operator=(const GeoDatabase&) = delete;

  std::optional<GeoPoint> ByAddress(const IpAddress& address) const;

 private:
  struct Handle;  // MMDB_s, kept out of this header
  explicit GeoDatabase(std::unique_ptr<Handle> handle);
  std::unique_ptr<Handle> handle_;
};

}  // namespace server

#endif  // SERVER_GEO_DATABASE_H_
