// ProbeGeo: orders a mount's Stratum 1s by the Geo-API (doc/client.md,
// "Ordering the Stratum 1s: the Geo-API"), as CVMFS's
// DownloadManager::ProbeGeo: the host list is asked of the servers
// (cvmfs/network/geo_sort.h) and, on a valid answer, replaced by the
// answer's order, starting at its first host and marked "geographically
// ordered" for `cvmfs_talk host info`. On failure the order stays as it was;
// every failed server and the overall failure are logged as warnings.
//
// A request without a proxy names the client by the UUID of its cache
// directory (the file "uuid" there, created on first use, as CVMFS's), so
// that a server-side cache keeps one answer per client.
//
// Thread safety: may run while the mount serves requests (the fetcher is
// thread-safe; requests in flight finish on the route they hold).
#ifndef CLIENT_GEO_PROBE_H_
#define CLIENT_GEO_PROBE_H_

#include <string>

#include "client/event_log.h"
#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

struct GeoProbeOptions {
  std::string proxy_template;  // CVMFS_PROXY_TEMPLATE, "" = none
  std::string cache_dir;       // where the "uuid" file lives
};

// Ok when the hosts were ordered, or when there are fewer than two.
Status ProbeGeo(HttpFetcher* http, const GeoProbeOptions& options,
                const EventLog& log);

// The UUID in `<cache_dir>/uuid`, created (from the kernel's random UUID)
// if missing; a fresh, unsaved one if the file cannot be written.
std::string CacheUuid(const std::string& cache_dir);

}  // namespace cvmfs::client

#endif  // CLIENT_GEO_PROBE_H_
