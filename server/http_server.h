// An embedded static HTTP server for repository storage directories: what
// Apache does for a Stratum 0 or 1, for development and for machines without
// Apache (`cvmfs_server serve`, doc/serving.md).
//
// URL layout as with CVMFS's Apache snippet (apache_config.h):
//   /cvmfs/FQRN/<path>  ->  <storage_dir of FQRN>/<path>
// Responses carry the headers of that setup: Cache-Control max-age and
// Expires per file class (cache_policy.h), Accept-Ranges, no ETag and no
// Last-Modified (proxies must not revalidate a stale manifest). GET and HEAD
// only; one byte range is answered with 206 (byte_range.h); directories are
// never listed (403); ".." is refused (403); what lies outside a served
// storage directory, temporaries and files that are not world-readable are
// answered like missing files, 404 (storage_root.h). File bodies go from the
// descriptor to the socket (sendfile) without being copied through memory.
//
// Requests in absolute-form (`GET http://host/cvmfs/...`, as sent to a
// proxy) are answered by their path (request_target.h). A method other than
// GET and HEAD is answered 405 as soon as its headers are in, as is a request
// that announces a body: the body is never read and the connection is closed
// after the answer.
//
// The HTTP protocol itself (parsing, keep-alive, HEAD, chunk pacing) is
// libmicrohttpd's: a pool of `threads` polling threads (epoll), each
// handling many connections, up to `max_connections` at once and up to
// `max_connections_per_address` from one client address (more are closed
// as soon as they are accepted), so that one client cannot take every slot.
// A connection must deliver each request's headers within
// `header_timeout_seconds` (header_deadlines.h: a thread of ours cuts
// slow-loris connections, whose trickle would keep resetting the library's
// idle timeout).
//
// With a GeoApi, GET /cvmfs/<fqrn>/api/... is answered by it (the client
// address, X-Forwarded-For and CF-Connecting-IP passed on).
//
// GET `metrics_path` (default /metrics, beside /cvmfs/, so never a
// repository path) answers the server's counters in Prometheus's text format
// (serve_metrics.h, doc/metrics.md).
//
// Thread safety: the object is used by one thread (start, query, destroy);
// requests are served on the library's threads. The destructor stops the
// server: it closes the listening socket, ends the connections and returns
// once no request is being served any more.
#ifndef SERVER_HTTP_SERVER_H_
#define SERVER_HTTP_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/status.h"
#include "server/geo_api.h"

namespace server {

struct ServedRepository {
  std::string fqrn;
  std::string storage_dir;  // e.g. SystemPaths::Storage(fqrn)
};

struct HttpServerOptions {
  std::string address = "127.0.0.1";  // numeric IPv4 or IPv6 address
  uint16_t port = 8000;               // 0: a free port, see HttpServer::port()
  std::vector<ServedRepository> repositories;
  std::string access_log;  // Common Log Format file; "" for none
  unsigned threads = 4;
  unsigned max_connections = 1024;
  // From one client address (IPv4 address or whole IPv6 address); 0: no
  // limit. A site proxy in front of many clients counts as one address.
  unsigned max_connections_per_address = 64;
  // The request line and headers of a request must be complete this long
  // after the connection opened or the request line arrived (idle keep-alive
  // connections get idle_timeout_seconds more). At least 1.
  unsigned header_timeout_seconds = 10;
  // A keep-alive connection idle for this long is closed. CVMFS clients
  // reuse connections between catalog and object requests.
  unsigned idle_timeout_seconds = 60;
  // Where the Prometheus metrics page (serve_metrics.h) is served: an
  // absolute path outside /cvmfs/; "" for none.
  std::string metrics_path = "/metrics";
  // Answers /cvmfs/<fqrn>/api/... (CVMFS's Geo-API, geo_api.h); null: those
  // paths are files like any other.
  std::shared_ptr<const GeoApi> geo_api;
};

class HttpServer {
 public:
  // Opens every storage directory and the access log, binds and starts
  // serving. Errors name the offending repository, file or address.
  static cvmfs::Result<std::unique_ptr<HttpServer>> Start(
      const HttpServerOptions& options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port it listens on (the chosen one if options.port was 0).
  uint16_t port() const;
  // "http://127.0.0.1:8000", "http://[::1]:8000".
  std::string BaseUrl() const;
  // BaseUrl() + "/cvmfs/" + fqrn: the client's CVMFS_SERVER_URL.
  std::string RepositoryUrl(const std::string& fqrn) const;

  class Impl;  // the request handling, in http_server.cc

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace server

#endif  // SERVER_HTTP_SERVER_H_
