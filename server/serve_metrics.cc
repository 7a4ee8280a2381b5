#include "server/serve_metrics.h"

#include <vector>

#include "cvmfs/prometheus_text.h"

namespace server {

namespace {
constexpr auto kRelaxed = std::memory_order_relaxed;
}  // namespace

ServeMetrics::ServeMetrics(const cvmfs::Clock* clock)
    : clock_(clock), started_(clock->Now()) {}

void ServeMetrics::RequestDone(unsigned status, uint64_t body_bytes,
                               cvmfs::Clock::Duration elapsed) {
  const unsigned cls = status / 100;
  if (cls >= 1 && cls <= 5) requests_by_class_[cls - 1].fetch_add(1, kRelaxed);
  sent_bytes_.fetch_add(body_bytes, kRelaxed);
  const double seconds = std::chrono::duration<double>(elapsed).count();
  size_t bucket = 0;
  while (bucket < kBucketBounds.size() && seconds > kBucketBounds[bucket])
    ++bucket;
  if (bucket < kBucketBounds.size())
    duration_buckets_[bucket].fetch_add(1, kRelaxed);
  duration_ns_.fetch_add(
      static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed)
              .count()),
      kRelaxed);
}

void ServeMetrics::ConnectionOpened() {
  connections_.fetch_add(1, kRelaxed);
  connections_open_.fetch_add(1, kRelaxed);
}

void ServeMetrics::ConnectionClosed() {
  connections_open_.fetch_sub(1, kRelaxed);
}

void ServeMetrics::ConnectionRefused() { refused_.fetch_add(1, kRelaxed); }

void ServeMetrics::HeadersTimedOut(size_t connections) {
  header_timeouts_.fetch_add(connections, kRelaxed);
}

std::string ServeMetrics::Render() const {
  using cvmfs::MetricType;
  cvmfs::PrometheusText page;
  uint64_t requests = 0;
  for (size_t i = 0; i < requests_by_class_.size(); ++i) {
    const uint64_t n = requests_by_class_[i].load(kRelaxed);
    requests += n;
    page.Add("cvmfs_serve_requests_total", MetricType::kCounter,
             "Requests answered, by status class.",
             {{"code", std::to_string(i + 1) + "xx"}}, n);
  }
  page.Add("cvmfs_serve_sent_bytes_total", MetricType::kCounter,
           "Response body bytes sent (HEAD: none).", {},
           sent_bytes_.load(kRelaxed));
  std::vector<double> bounds(kBucketBounds.begin(), kBucketBounds.end());
  std::vector<uint64_t> counts;
  for (const Counter& c : duration_buckets_) counts.push_back(c.load(kRelaxed));
  page.AddHistogram(
      "cvmfs_serve_request_duration_seconds",
      "Time from a request line to its response sent.", {}, bounds, counts,
      static_cast<double>(duration_ns_.load(kRelaxed)) / 1e9, requests);
  page.Add("cvmfs_serve_connections_open", MetricType::kGauge,
           "Connections open now.", {}, connections_open_.load(kRelaxed));
  page.Add("cvmfs_serve_connections_total", MetricType::kCounter,
           "Connections accepted.", {}, connections_.load(kRelaxed));
  page.Add("cvmfs_serve_connections_refused_total", MetricType::kCounter,
           "Connections closed as soon as accepted: over the connection "
           "limit or the per-address limit.",
           {}, refused_.load(kRelaxed));
  page.Add("cvmfs_serve_header_timeouts_total", MetricType::kCounter,
           "Connections cut for not sending a request's headers in time.", {},
           header_timeouts_.load(kRelaxed));
  page.Add("cvmfs_serve_uptime_seconds", MetricType::kGauge,
           "Seconds since the server started.", {},
           std::chrono::duration<double>(clock_->Now() - started_).count());
  return page.Render();
}

}  // namespace server
