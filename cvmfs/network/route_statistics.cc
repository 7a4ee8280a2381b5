#include "cvmfs/network/route_statistics.h"

namespace cvmfs {

void RouteStatistics::Record(const std::string& host, const std::string& proxy,
                             std::chrono::nanoseconds elapsed, bool failed,
                             uint64_t bytes) {
  const double seconds = std::chrono::duration<double>(elapsed).count();
  size_t bucket = 0;
  while (bucket < kBucketBounds.size() && seconds > kBucketBounds[bucket])
    ++bucket;
  MutexLock lock(&mu_);
  auto it = routes_.find({host, proxy});
  if (it == routes_.end()) {
    std::pair<std::string, std::string> key{host, proxy};
    if (routes_.size() >= kMaxRoutes) key = {"other", "other"};
    it = routes_.try_emplace(key).first;
    it->second.host = key.first;
    it->second.proxy = key.second;
  }
  Counters& c = it->second;
  c.requests++;
  if (failed) c.errors++;
  c.bytes += bytes;
  c.seconds += seconds;
  if (bucket < kBucketBounds.size()) c.buckets[bucket]++;
}

std::vector<RouteStatistics::Counters> RouteStatistics::Snapshot() const {
  MutexLock lock(&mu_);
  std::vector<Counters> out;
  out.reserve(routes_.size());
  for (const auto& [key, counters] : routes_) out.push_back(counters);
  return out;
}

}  // namespace cvmfs
