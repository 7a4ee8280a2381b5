// Ordering servers by great-circle distance, the arithmetic of the Geo-API
// (doc/serving.md, "The Geo-API"), as CVMFS's cvmfs_geo.py does it.
//
// Thread safety: free functions over plain values.
#ifndef SERVER_GEO_ORDER_H_
#define SERVER_GEO_ORDER_H_

#include <cstddef>
#include <optional>
#include <vector>

namespace server {

// Decimal degrees, north and east positive.
struct GeoPoint {
  double latitude = 0;
  double longitude = 0;
};

// The central angle between two points in radians (0 to pi): the distance
// on a unit sphere.
double ArcBetween(const GeoPoint& a, const GeoPoint& b);

// The 0-based indices of `servers`, closest to `origin` first; ties and
// servers without a location (nullopt, last) keep their given order.
std::vector<size_t> OrderByDistance(
    const GeoPoint& origin,
    const std::vector<std::optional<GeoPoint>>& servers);

}  // namespace server

#endif  // SERVER_GEO_ORDER_H_
