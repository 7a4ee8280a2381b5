#include "server/geo_order.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace server {

double ArcBetween(const GeoPoint& a, const GeoPoint& b) {
  if (a.latitude == b.latitude && a.longitude == b.longitude) return 0.0;
  constexpr double kRadians = M_PI / 180.0;
  const double phi1 = (90.0 - a.latitude) * kRadians;
  const double phi2 = (90.0 - b.latitude) * kRadians;
  const double theta1 = a.longitude * kRadians;
  const double theta2 = b.longitude * kRadians;
  const double cosine =
      std::sin(phi1) * std::sin(phi2) * std::cos(theta1 - theta2) +
      std::cos(phi1) * std::cos(phi2);
  // Rounding may step just outside [-1, 1].
  return std::acos(std::clamp(cosine, -1.0, 1.0));
}

std::vector<size_t> OrderByDistance(
    const GeoPoint& origin,
    const std::vector<std::optional<GeoPoint>>& servers) {
  std::vector<double> arcs(servers.size());
  std::vector<size_t> order(servers.size());
  for (size_t i = 0; i < servers.size(); ++i) {
    order[i] = i;
    arcs[i] = servers[i] ? ArcBetween(origin, *servers[i])
                         : std::numeric_limits<double>::infinity();
  }
  std::stable_sort(order.begin(), order.end(),
                   [&arcs](size_t a, size_t b) { return arcs[a] < arcs[b]; });
  return order;
}

}  // namespace server
