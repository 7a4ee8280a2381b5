// The texts of cvmfs_talk replies that are more than one line, in CVMFS's
// layout, and the parsing of the lists `host set` and `proxy set` take.
// Pure functions over plain values, so each layout is tested on its own.
#ifndef CLIENT_TALK_TALK_REPORTS_H_
#define CLIENT_TALK_TALK_REPORTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cache/posix_cache.h"
#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

class MountedCatalog;

// "Current cache size is 12MB (12582912 Bytes), pinned: 1MB (...)"
std::string FormatCacheSize(const cache::PosixCache::Usage& usage);

//   [0] http://s1/cvmfs/repo (unprobed)
//   [1] http://s2/cvmfs/repo (unprobed)
// Active host 0: http://s1/cvmfs/repo
// With `geo_ordered` (the order came from the Geo-API) each host says
// "(geographically ordered)", as CVMFS's.
std::string FormatHostInfo(const std::vector<std::string>& hosts,
                           const std::string& current,
                           bool geo_ordered = false);

// CVMFS's words: each proxy with the name it was resolved from and the
// time until it is resolved again; the last line only with fallback proxies.
// Load-balance groups:
// [0] http://10.0.0.1:3128 (p1.site, +59s), http://10.0.0.2:3128 (p1.site,
// +59s) [1] http://10.0.1.1:3128 (fallback.site, +59s) Active proxy: [0]
// http://10.0.0.2:3128 First fallback group: [1]
std::string FormatProxyInfo(const HttpFetcher::ProxyChainInfo& info);

// One line per attached catalog, indented by nesting depth:
// -> / (revision 12, hash 3f2a...C)
// --> /sw (revision 12, hash 9bc1...C)
std::string FormatCatalogHierarchy(
    const std::vector<const MountedCatalog*>& catalogs);

struct Counter {
  std::string name;
  uint64_t value;
  std::string description;
};
// "Name|Value|Description" and one such line per counter (CVMFS's
// statistics listing).
std::string FormatCounters(const std::vector<Counter>& counters);

// `host set`: ';'- or ','-separated URLs, @fqrn@/@org@ replaced.
Result<std::vector<std::string>> ParseHostList(const std::string& text,
                                               const std::string& fqrn);
// `proxy set`: CVMFS_HTTP_PROXY syntax ("p1|p2;p3;DIRECT").
Result<std::vector<std::vector<std::string>>> ParseProxyList(
    const std::string& text);

}  // namespace cvmfs::client

#endif  // CLIENT_TALK_TALK_REPORTS_H_
