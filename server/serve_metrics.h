// ServeMetrics: what `cvmfs_server serve` counts, and its /metrics page in
// Prometheus's text format (doc/metrics.md, "cvmfs_server serve"):
//
//   cvmfs_serve_requests_total{code="2xx"}    answered requests by status class
//   cvmfs_serve_sent_bytes_total              response body bytes
//   cvmfs_serve_request_duration_seconds      request line to response sent
//   cvmfs_serve_connections_open              open connections now
//   cvmfs_serve_connections_total             connections accepted
//   cvmfs_serve_connections_refused_total     closed at once: over the
//                                             connection or per-address limit
//   cvmfs_serve_header_timeouts_total         cut for slow headers
//   cvmfs_serve_uptime_seconds                since the server started
//
// Counting is lock-free (relaxed atomics; a page is a snapshot that may be
// a request apart between two counters).
//
// Thread safety: every method may be called from any thread.
#ifndef SERVER_SERVE_METRICS_H_
#define SERVER_SERVE_METRICS_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "cvmfs/clock.h"

namespace server {

class ServeMetrics {
 public:
  // Upper bounds of the duration buckets, in seconds: a file from the page
  // cache on a LAN up to a large object to a slow client.
  static constexpr std::array<double, 12> kBucketBounds = {
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30};

  // `clock` must outlive this object; uptime counts from construction.
  explicit ServeMetrics(const cvmfs::Clock* clock);
  ServeMetrics(const ServeMetrics&) = delete;
  ServeMetrics& operator=(const ServeMetrics&) = delete;

  void RequestDone(unsigned status, uint64_t body_bytes,
                   cvmfs::Clock::Duration elapsed);
  void ConnectionOpened();
  void ConnectionClosed();
  void ConnectionRefused();
  void HeadersTimedOut(size_t connections);

  // The /metrics page.
  std::string Render() const;

 private:
  using Counter = std::atomic<uint64_t>;
  const cvmfs::Clock* const clock_;
  const cvmfs::Clock::TimePoint started_;
  std::array<Counter, 5> requests_by_class_{};  // 1xx .. 5xx
  Counter sent_bytes_{0};
  std::array<Counter, kBucketBounds.size()> duration_buckets_{};
  Counter duration_ns_{0};
  Counter connections_open_{0};
  Counter connections_{0};
  Counter refused_{0};
  Counter header_timeouts_{0};
};

}  // namespace server

#endif  // SERVER_SERVE_METRICS_H_
