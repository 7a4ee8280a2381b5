// The answers of the embedded HTTP server (http_server.h), built on
// libmicrohttpd responses: a file, whole or one range, sent from its
// descriptor with the cache headers of its class (cache_policy.h), or a
// short plain-text error.
//
// Thread safety: free functions; a Reply belongs to the request that made it.
#ifndef SERVER_REPLY_H_
#define SERVER_REPLY_H_

#include <microhttpd.h>

#include <cstdint>
#include <ctime>
#include <memory>
#include <string>
#include <string_view>

#include "cvmfs/status.h"
#include "server/storage_root.h"

namespace server {

struct ResponseDeleter {
  void operator()(MHD_Response* r) const { MHD_destroy_response(r); }
};
using ResponsePtr = std::unique_ptr<MHD_Response, ResponseDeleter>;

// What one request gets: a status, a prepared response, the body length.
struct Reply {
  unsigned status = MHD_HTTP_INTERNAL_SERVER_ERROR;
  ResponsePtr response;
  uint64_t body_bytes = 0;
};

// A file below a storage directory (`path` relative to it): 200, or 206 /
// 416 for the Range header of the request on `c`. Takes the descriptor.
Reply FileReply(MHD_Connection* c, std::string_view path, OpenedFile file);

// The status for a failed lookup: kNotFound 404, kPermission 403,
// kInvalidArgument 400, anything else 500 (also printed to stderr). The
// body names only the status: the message may contain server-side paths.
Reply ErrorReply(const cvmfs::Status& st);

// 200 with a Prometheus text page ("text/plain; version=0.0.4"), never
// cached.
Reply MetricsReply(const std::string& page);

// A Geo-API answer (geo_api.h): `status` with a text/plain body and
// "Cache-Control: max-age=<max_age_s>", so that proxies share it.
Reply GeoReply(unsigned status, const std::string& body, int max_age_s);

// 405 with "Allow: GET, HEAD".
Reply MethodNotAllowed();

// An HTTP date (RFC 9110 IMF-fixdate), independent of the locale.
std::string HttpDate(time_t t);

}  // namespace server

#endif  // SERVER_REPLY_H_
