// GeoApi: the answers of CVMFS's Geo-API (doc/serving.md, "The Geo-API"),
// as CVMFS's cvmfs_geo.py gives them behind Apache:
//
//   GET /cvmfs/<fqrn>/api/v<version>/geo/<proxy>/<server>,<server>,...
//   200 "2,3,1\n"   the servers numbered from 1, closest to the requester
//                   first (max-age 3600)
//   400 "Bad Request: <reason>\n"                          (max-age 300)
//
// The requester is located from the proxy name if it resolves to a known
// place, else from CF-Connecting-IP, else from the last address of
// X-Forwarded-For, else from the connection's address. Places come from the
// location table first, then the GeoLite2 database; names are resolved by
// the injected resolver (the system's: IPv4 addresses first).
//
// Thread safety: immutable after construction; Answer() may run on many
// threads at once if the resolver may.
#ifndef SERVER_GEO_API_H_
#define SERVER_GEO_API_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/geo_database.h"
#include "server/geo_location_table.h"
#include "server/geo_order.h"

namespace server {

// The numeric addresses of a host name, IPv4 ones first; empty if it does
// not resolve.
using NameResolver =
    std::function<std::vector<std::string>(const std::string& name)>;
// getaddrinfo(3).
NameResolver SystemResolver();

struct GeoRequest {
  // The request path after "/cvmfs/": "<fqrn>/api/v1.0/geo/<proxy>/<list>".
  std::string_view path;
  std::string remote_address;  // the connection's peer, numeric
  // Header values; nullopt when the header is absent.
  std::optional<std::string> forwarded_for;     // X-Forwarded-For
  std::optional<std::string> cf_connecting_ip;  // CF-Connecting-IP
};

struct GeoAnswer {
  unsigned status = 400;
  std::string body;
  int max_age_s = 300;
};

class GeoApi {
 public:
  // At least one of `database` and `table` should be given; without both
  // every answer is a 400.
  GeoApi(std::unique_ptr<GeoDatabase> database,
         std::optional<LocationTable> table, NameResolver resolver);

  // Whether a path after "/cvmfs/" is an API request ("<fqrn>/api/...").
  static bool IsApiPath(std::string_view path);

  GeoAnswer Answer(const GeoRequest& request) const;

 private:
  std::optional<GeoPoint> LocateAddress(std::string_view address) const;
  std::optional<GeoPoint> LocateName(std::string_view name) const;
  GeoAnswer Sort(std::string_view path_info, const GeoRequest& request) const;
  std::optional<GeoPoint> LocateRequester(std::string_view proxy,
                                          const GeoRequest& request) const;

  std::unique_ptr<GeoDatabase> database_;
  std::optional<LocationTable> table_;
  NameResolver resolver_;
};

}  // namespace server

#endif  // SERVER_GEO_API_H_
