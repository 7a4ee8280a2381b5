// RouteStatistics: what each route (host, proxy) of an HttpFetcher did, for
// the metrics (`cvmfs_talk metrics prometheus`, doc/metrics.md): attempts,
// failed attempts, bytes received and a histogram of attempt durations.
//
// An attempt is one HTTP request on one route; a retry or a failover is
// another attempt. It failed if it ended in anything but success or 404
// (a 404 is an answer, not a fault of the route).
//
// The I/O thread records once per finished attempt: one uncontended lock
// beside a network round trip (readers are scrapes, once a minute). The
// number of routes is bounded by kMaxRoutes; beyond it (many `host set` /
// `proxy set`) attempts are counted under host and proxy "other".
//
// Thread safety: every method is thread-safe.
#ifndef CVMFS_NETWORK_ROUTE_STATISTICS_H_
#define CVMFS_NETWORK_ROUTE_STATISTICS_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cvmfs/mutex.h"

namespace cvmfs {

class RouteStatistics {
 public:
  // Upper bounds of the duration buckets, in seconds: from a LAN round trip
  // to a transfer at the edge of the default timeouts.
  static constexpr std::array<double, 12> kBucketBounds = {
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
  static constexpr size_t kMaxRoutes = 256;

  struct Counters {
    std::string host;   // repository base URL
    std::string proxy;  // proxy URL or "DIRECT"
    uint64_t requests = 0;
    uint64_t errors = 0;
    uint64_t bytes = 0;
    double seconds = 0;  // summed over all attempts
    // Attempts per bucket (not cumulative); slower than the last bound
    // only count in `requests`.
    std::array<uint64_t, kBucketBounds.size()> buckets{};
  };

  void Record(const std::string& host, const std::string& proxy,
              std::chrono::nanoseconds elapsed, bool failed, uint64_t bytes)
      EXCLUDES(mu_);
  // Sorted by host, then proxy.
  std::vector<Counters> Snapshot() const EXCLUDES(mu_);

 private:
  mutable Mutex mu_;  // guards routes_; a leaf lock
  std::map<std::pair<std::string, std::string>, Counters> routes_
      GUARDED_BY(mu_);
};

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_ROUTE_STATISTICS_H_
