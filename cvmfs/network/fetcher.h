// Fetcher: the seam between the client and the network.
//
// A Fetcher downloads one file of a repository (".cvmfspublished",
// "data/ab/cdef...C") and streams its body into a DownloadSink. Failover over
// hosts and proxies, retries and connection reuse are the Fetcher's business;
// the caller sees one final DownloadResult. The bytes are NOT verified here:
// the caller hashes them and, on a mismatch, asks again with `no_cache`.
//
// Status of a result:
//   ok            the whole body went into the sink
//   NotFound      the server answered HTTP 404
//   Unavailable   everything else that failed on the way (connect, timeout,
//                 5xx, short transfer), after retries and failover; the
//                 message names the URL, the proxy and the curl error or
//                 HTTP code
//   (sink's)      a non-ok Status returned by DownloadSink::Write, unchanged
//
// Implementations: HttpFetcher (libcurl), MemoryFetcher (tests).
//
// Thread safety: Fetch may be called from many threads at once. A sink is
// used by one Fetch call only and may be called from another thread than the
// caller's (HttpFetcher calls it on its I/O thread), never concurrently.
#ifndef CVMFS_NETWORK_FETCHER_H_
#define CVMFS_NETWORK_FETCHER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "cvmfs/status.h"

namespace cvmfs {

// Receives a response body as it streams in. Reset() is called before a retry
// starts the body over.
class DownloadSink {
 public:
  virtual ~DownloadSink() = default;
  // A non-ok status aborts this transfer (no retry) and becomes its result.
  virtual Status Write(const void* data, size_t size) = 0;
  // Forget everything written so far: the body starts over.
  virtual void Reset() = 0;
};

struct DownloadRequest {
  // Relative to the repository URL: ".cvmfspublished", "data/ab/cdef...C"
  // (or to an external data URL: a file's path in the repository).
  std::string url_path;
  // Sends "Pragma: no-cache" and "Cache-Control: no-cache" so that proxies
  // refetch (used for the retry after a hash mismatch).
  bool no_cache = false;
  // A signed file (.cvmfspublished, .cvmfswhitelist, the certificate) or a
  // catalog: small, and needed before anything else works. Each attempt is
  // bounded by the fetcher's overall deadline for metadata, on top of the
  // connect and low-speed timeouts (a server trickling just above the
  // low-speed limit would otherwise hold the mount for as long as it
  // likes); file content is not bounded so.
  bool metadata = false;
  // A request to one given server rather than to the repository (the
  // Geo-API, geo_sort.h): `url_path` is fetched from this repository URL,
  // without host failover (proxies still fail over). Empty: the current
  // host, with failover.
  std::string host = {};
  // Non-empty: each "@proxy@" in `url_path` is replaced, per attempt, by
  // the host name of the attempt's proxy, or by this text when it goes
  // DIRECT (CVMFS's Geo-API URL, so that a proxy caches one answer for all
  // its clients).
  std::string direct_proxy_name = {};
  // Only the bytes [range_offset, range_offset + range_size) of the file,
  // through an HTTP Range request (a chunk of an external file, which the
  // external server stores whole); range_size 0 asks for the whole file.
  uint64_t range_offset = 0;
  uint64_t range_size = 0;
  // A background transfer (prefetch): it waits for a free connection behind
  // every demand request, and takes at most half of the connections.
  bool background = false;
};

struct DownloadResult {
  Status status;
  std::string host;    // repository URL of the last attempt
  std::string proxy;   // proxy of the last attempt, "DIRECT" for none
  uint64_t bytes = 0;  // body bytes given to the sink by the last attempt
  int http_code = 0;   // HTTP status of the last attempt, 0 if none
};

class Fetcher {
 public:
  virtual ~Fetcher() = default;
  // Blocks until the transfer (with its retries and failover) is done;
  // thread-safe, many callers at once. `sink` is borrowed for the call.
  virtual DownloadResult Fetch(const DownloadRequest& request,
                               DownloadSink* sink) = 0;
};

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_FETCHER_H_
