// GeoSort: the client side of CVMFS's Geo-API (doc/client.md, "Ordering the
// Stratum 1s: the Geo-API"; the server side: doc/serving.md). As CVMFS's
// DownloadManager::GeoSortServers:
//
//   names    the host names of the servers (UrlHostName), sorted
//            alphabetically (so that every client of a site asks the same
//            URL and the site proxy caches one answer)
//   ask      up to three of the servers, in random order, each for
//            <server>/api/v1.0/geo/<proxy>/<name>,<name>,...
//            through the proxies, <proxy> being the host name of the proxy
//            the attempt uses (or the direct name without one, or
//            CVMFS_PROXY_TEMPLATE when set)
//   answer   "3,1,2\n": the names numbered from 1, closest first; the first
//            valid answer wins
//
// Thread safety: free functions; GeoSortHosts calls the fetcher, which
// must be thread-safe as every Fetcher is.
#ifndef CVMFS_NETWORK_GEO_SORT_H_
#define CVMFS_NETWORK_GEO_SORT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/network/fetcher.h"
#include "cvmfs/status.h"

namespace cvmfs {

// The servers asked at most, as CVMFS.
inline constexpr size_t kGeoMaxAttempts = 3;

// A Geo-API answer for `expected` names: comma-separated numbers 1 to
// `expected`, each once (blanks around them and a final newline are
// allowed). Returns the 0-based indices in answer order; InvalidArgument
// says what is wrong.
Result<std::vector<size_t>> ParseGeoReply(std::string_view reply,
                                          size_t expected);

struct GeoSortOptions {
  // CVMFS_PROXY_TEMPLATE: when set, sent instead of any proxy name.
  std::string proxy_template;
  // Sent instead of a proxy name by an attempt that goes DIRECT (CVMFS sends
  // the cache's UUID). Must not be empty.
  std::string direct_name = "direct";
  uint32_t seed = 0;  // which servers are asked, and in which order
  // Told of each server that failed to answer, or answered nonsense (with
  // the URL and the answer). Unset: nothing is told.
  std::function<void(const std::string&)> on_failure;
};

struct GeoSorted {
  std::vector<std::string> hosts;  // the servers, closest first
  std::string answered_by;         // the host name of the server that told
};

// Orders `hosts` (repository URLs) by the Geo-API. Unavailable when no
// server asked gave a valid answer (each failure went to on_failure).
// With fewer than two hosts, returns them unchanged without asking.
Result<GeoSorted> GeoSortHosts(Fetcher* fetcher,
                               const std::vector<std::string>& hosts,
                               const GeoSortOptions& options);

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_GEO_SORT_H_
