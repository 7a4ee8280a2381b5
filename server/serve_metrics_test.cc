#include "server/serve_metrics.h"

#include <gtest/gtest.h>

namespace server {
namespace {

using std::chrono::milliseconds;

bool Has(const std::string& page, const std::string& line) {
  return page.find("\n" + line + "\n") != std::string::npos;
}

TEST(ServeMetricsTest, CountsRequestsByClassBytesAndDurations) {
  cvmfs::ManualClock clock;
  ServeMetrics m(&clock);
  m.RequestDone(200, 100, milliseconds(3));
  m.RequestDone(206, 10, milliseconds(700));
  m.RequestDone(404, 14, milliseconds(60000));
  clock.Advance(std::chrono::seconds(5));
  const std::string page = m.Render();
  EXPECT_TRUE(Has(page, "cvmfs_serve_requests_total{code=\"2xx\"} 2")) << page;
  EXPECT_TRUE(Has(page, "cvmfs_serve_requests_total{code=\"4xx\"} 1"));
  EXPECT_TRUE(Has(page, "cvmfs_serve_requests_total{code=\"5xx\"} 0"));
  EXPECT_TRUE(Has(page, "cvmfs_serve_sent_bytes_total 124"));
  EXPECT_TRUE(
      Has(page, "cvmfs_serve_request_duration_seconds_bucket{le=\"0.005\"} 1"));
  EXPECT_TRUE(
      Has(page, "cvmfs_serve_request_duration_seconds_bucket{le=\"1\"} 2"));
  EXPECT_TRUE(
      Has(page, "cvmfs_serve_request_duration_seconds_bucket{le=\"+Inf\"} 3"));
  EXPECT_TRUE(Has(page, "cvmfs_serve_request_duration_seconds_count 3"));
  EXPECT_TRUE(Has(page, "cvmfs_serve_request_duration_seconds_sum 60.703"));
  EXPECT_TRUE(Has(page, "cvmfs_serve_uptime_seconds 5"));
}

TEST(ServeMetricsTest, Connections) {
  cvmfs::ManualClock clock;
  ServeMetrics m(&clock);
  m.ConnectionOpened();
  m.ConnectionOpened();
  m.ConnectionClosed();
  m.ConnectionRefused();
  m.HeadersTimedOut(2);
  const std::string page = m.Render();
  EXPECT_TRUE(Has(page, "cvmfs_serve_connections_open 1")) << page;
  EXPECT_TRUE(Has(page, "cvmfs_serve_connections_total 2"));
  EXPECT_TRUE(Has(page, "cvmfs_serve_connections_refused_total 1"));
  EXPECT_TRUE(Has(page, "cvmfs_serve_header_timeouts_total 2"));
}

}  // namespace
}  // namespace server
