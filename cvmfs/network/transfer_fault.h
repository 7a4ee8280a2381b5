// TransferFault: what a failed HTTP attempt says about where the fault lies,
// which decides between a retry on the same route, a proxy failover, a host
// failover or giving up (CVMFS semantics; doc/operations.md, "Which failure
// is whose").
//
//   fault            example                           next step
//   kHostTransfer    connect/timeout/short, DIRECT;    retry same route,
//                    HTTP 429                          then next host
//   kHostHttp        host DNS; HTTP 5xx, 400, 3xx;     next host
//                    any other HTTP error on DIRECT
//   kProxyTransfer   connect/timeout/short via proxy   retry same route,
//                                                      then next proxy
//   kProxyHttp       proxy DNS; HTTP error the proxy   next proxy
//                    marked as its own (X-Squid-Error,
//                    Proxy-Status: ...error=); other
//                    HTTP errors via a proxy
//   kNotFound        HTTP 404; a missing file://       final: NotFound
//                    object
//   kOther           bad URL, out of memory, ...       final: Unavailable
//
// Deviation from CVMFS: a 404 is final (the caller decides what a missing
// object means) instead of a host failover. Redirects are not followed and
// count as host HTTP errors (CVMFS: a host connection error).
//
// Thread safety: pure functions.
#ifndef CVMFS_NETWORK_TRANSFER_FAULT_H_
#define CVMFS_NETWORK_TRANSFER_FAULT_H_

#include <curl/curl.h>

#include <string>

namespace cvmfs {

enum class TransferFault {
  kNone,
  kNotFound,
  kHostTransfer,
  kHostHttp,
  kProxyTransfer,
  kProxyHttp,
  kOther,
};

// A "file://" URL: a repository on the local file system (a Stratum 0's
// own storage). Proxies do not apply to it.
inline bool IsFileUrl(const std::string& url) {
  return url.rfind("file://", 0) == 0;
}

// Faults that may be retried on the same route (after a backoff).
inline bool IsRetryable(TransferFault f) {
  return f == TransferFault::kHostTransfer ||
         f == TransferFault::kProxyTransfer;
}
inline bool IsProxyFault(TransferFault f) {
  return f == TransferFault::kProxyTransfer || f == TransferFault::kProxyHttp;
}
inline bool IsHostFault(TransferFault f) {
  return f == TransferFault::kHostTransfer || f == TransferFault::kHostHttp;
}

// `direct`: the attempt used no proxy; then every fault is the host's.
TransferFault ClassifyCurlCode(CURLcode code, bool direct);
// For a response status other than 2xx. `proxy_error`: the response carried
// X-Squid-Error or a Proxy-Status with an error.
TransferFault ClassifyHttpStatus(int http_code, bool proxy_error, bool direct);

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_TRANSFER_FAULT_H_
