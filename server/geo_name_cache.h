// CachingResolver: the Geo-API's name lookups, remembered for a while, as
// CVMFS's cvmfs_geo.py keeps them (5 minutes, at most 100,000 names): a
// Stratum 1 sees the same few server and proxy names in every request, and
// a lookup blocks the thread that serves the request.
//
// A name whose lookup fails is remembered as failed for the same time; when
// a remembered answer expires and the new lookup fails, the old addresses
// are kept (a DNS outage does not unlocate the servers), as CVMFS does. When
// full, the oldest entry makes room.
//
// Thread safety: the returned resolver may be called from many threads; one
// leaf mutex guards the table (not held during a lookup).
#ifndef SERVER_GEO_NAME_CACHE_H_
#define SERVER_GEO_NAME_CACHE_H_

#include <chrono>
#include <cstddef>

#include "cvmfs/clock.h"
#include "server/geo_api.h"

namespace server {

struct NameCacheOptions {
  std::chrono::seconds ttl{300};
  size_t max_entries = 100000;
  // Borrowed, must outlive the resolver; null means SteadyClock().
  const cvmfs::Clock* clock = nullptr;
};

// `inner` does the lookups the cache cannot answer.
NameResolver CachingResolver(NameResolver inner, NameCacheOptions options = {});

}  // namespace server

#endif  // SERVER_GEO_NAME_CACHE_H_
