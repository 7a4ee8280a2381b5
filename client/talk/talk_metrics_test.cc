// FormatPrometheusMetrics over hand-made snapshots: CVMFS's names, labels,
// escaping, one HELP/TYPE per family. (talk_commands_test.cc checks that
// the values of a real mount move.)
#include "client/talk/talk_metrics.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

namespace cvmfs::client {
namespace {

MountMetrics Sample() {
  MountMetrics m;
  m.fqrn = "atlas.cern.ch";
  m.mountpoint = "/cvmfs/atlas.cern.ch";
  m.version = "2.12.0";
  m.stats.revision.revision = 42;
  m.stats.fetch.hits = 3;
  m.stats.fetch.downloads = 1;
  m.stats.fetch.bytes_downloaded = 2048;
  m.stats.fetch.download_ns = 1'000'000'000;
  m.stats.uptime = std::chrono::seconds(120);
  m.stats.io_errors = 2;
  m.stats.last_io_error = std::chrono::seconds(100);
  m.cache_managed = true;
  m.usage = {1000, 100, 4096, 7, 8, 9};
  m.now_epoch_s = 1'000'000;
  m.pid = 4711;
  MountMetrics::Network n;
  n.counters = {5, 4096, 1, 1, 0, 12, 16};
  n.proxy_groups = {{"http://p1:3128", "http://p2:3128"}, {"DIRECT"}};
  n.active_proxy = "http://p1:3128";
  n.timeout_s = 5;
  n.timeout_direct_s = 10;
  RouteStatistics::Counters r;
  r.host = "http://s1/cvmfs/atlas.cern.ch";
  r.proxy = "http://p1:3128";
  r.requests = 5;
  r.errors = 1;
  r.bytes = 4096;
  r.seconds = 0.5;
  r.buckets[3] = 5;
  n.routes = {r};
  m.network = n;
  m.sqlite = SqliteMemoryStatus{};
  m.sqlite->memory_used = 12345;
  return m;
}

// name{labels} -> value of every sample line.
std::map<std::string, std::string> Samples(const std::string& page) {
  std::map<std::string, std::string> out;
  std::istringstream in(page);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

TEST(TalkMetricsTest, CvmfsNamesAndValues) {
  const auto s = Samples(FormatPrometheusMetrics(Sample()));
  const std::string repo = "{repo=\"atlas.cern.ch\"}";
  EXPECT_EQ(s.at("cvmfs_cached_bytes" + repo), "1000");
  EXPECT_EQ(s.at("cvmfs_pinned_bytes" + repo), "100");
  EXPECT_EQ(s.at("cvmfs_total_cache_size_bytes" + repo), "4096");
  EXPECT_EQ(s.at("cvmfs_rx_total" + repo), "4096");  // on the wire
  EXPECT_EQ(s.at("cvmfs_ndownload_total" + repo), "1");
  EXPECT_EQ(s.at("cvmfs_hitrate" + repo), "75");
  EXPECT_EQ(s.at("cvmfs_speed" + repo), "2");  // KiB/s
  EXPECT_EQ(s.at("cvmfs_uptime_seconds" + repo), "120");
  EXPECT_EQ(s.at("cvmfs_mount_epoch_timestamp" + repo), "999880");
  EXPECT_EQ(s.at("cvmfs_nioerr_total" + repo), "2");
  EXPECT_EQ(s.at("cvmfs_timestamp_last_ioerr" + repo), "999980");
  EXPECT_EQ(s.at("cvmfs_timeout" + repo), "5");
  EXPECT_EQ(s.at("cvmfs_timeout_direct" + repo), "10");
  EXPECT_EQ(s.at("cvmfs_pid" + repo), "4711");
  EXPECT_EQ(s.at("cvmfs_repo{repo=\"atlas.cern.ch\",mountpoint=\"/cvmfs/"
                 "atlas.cern.ch\",version=\"2.12.0\",revision=\"42\"}"),
            "1");
  EXPECT_EQ(s.at("cvmfs_active_proxy{repo=\"atlas.cern.ch\",proxy=\"http://"
                 "p1:3128\"}"),
            "1");
  EXPECT_EQ(s.at("cvmfs_proxy{repo=\"atlas.cern.ch\",group=\"1\",url="
                 "\"DIRECT\"}"),
            "1");
  EXPECT_EQ(s.at("cvmfs_cache_hits_total" + repo), "7");
  EXPECT_EQ(s.at("cvmfs_cache_misses_total" + repo), "8");
  EXPECT_EQ(s.at("cvmfs_repo_revision" + repo), "42");
  EXPECT_EQ(s.at("cvmfs_sqlite_memory_used_bytes" + repo), "12345");
}

TEST(TalkMetricsTest, PerHostCountersAndHistogram) {
  const auto s = Samples(FormatPrometheusMetrics(Sample()));
  const std::string route =
      "repo=\"atlas.cern.ch\",host=\"http://s1/cvmfs/atlas.cern.ch\","
      "proxy=\"http://p1:3128\"";
  EXPECT_EQ(s.at("cvmfs_host_requests_total{" + route + "}"), "5");
  const std::string repo = "{repo=\"atlas.cern.ch\"}";
  EXPECT_EQ(s.at("cvmfs_download_connection_limit" + repo), "12");
  EXPECT_EQ(s.at("cvmfs_download_connections_peak" + repo), "16");
  EXPECT_EQ(s.at("cvmfs_host_errors_total{" + route + "}"), "1");
  EXPECT_EQ(s.at("cvmfs_host_received_bytes_total{" + route + "}"), "4096");
  EXPECT_EQ(s.at("cvmfs_host_request_duration_seconds_bucket{" + route +
                 ",le=\"0.025\"}"),
            "0");
  EXPECT_EQ(s.at("cvmfs_host_request_duration_seconds_bucket{" + route +
                 ",le=\"0.05\"}"),
            "5");
  EXPECT_EQ(s.at("cvmfs_host_request_duration_seconds_count{" + route + "}"),
            "5");
}

TEST(TalkMetricsTest, OneHelpAndTypePerFamily) {
  const std::string page = FormatPrometheusMetrics(Sample());
  std::map<std::string, int> help, type;
  std::istringstream in(page);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, std::regex("# HELP (\\S+) .*"))) ++help[m[1]];
    if (std::regex_match(line, m, std::regex("# TYPE (\\S+) \\S+")))
      ++type[m[1]];
  }
  EXPECT_GT(help.size(), 40u);
  for (const auto& [name, n] : help) EXPECT_EQ(n, 1) << name;
  EXPECT_EQ(help.size(), type.size());
  EXPECT_EQ(help["cvmfs_proxy"], 1);  // three samples, one HELP
}

// Prometheus's naming conventions, as `promtool check metrics` lints them:
// counters end in _total, nothing else does, and only histograms end in
// _count, _sum or _bucket.
TEST(TalkMetricsTest, NamesFollowPrometheusConventions) {
  std::istringstream in(FormatPrometheusMetrics(Sample()));
  std::string line;
  auto ends = [](const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, std::regex("# TYPE (\\S+) (\\S+)")))
      continue;
    const std::string name = m[1], type = m[2];
    EXPECT_EQ(type == "counter", ends(name, "_total")) << name;
    if (type != "histogram") {
      for (const char* s : {"_count", "_sum", "_bucket"})
        EXPECT_FALSE(ends(name, s)) << name;
    }
  }
}

TEST(TalkMetricsTest, EscapesLabelValues) {
  MountMetrics m = Sample();
  m.mountpoint = "/mnt/a \"quoted\" \\ dir\nx";
  const std::string page = FormatPrometheusMetrics(m);
  EXPECT_NE(page.find("mountpoint=\"/mnt/a \\\"quoted\\\" \\\\ dir\\nx\""),
            std::string::npos)
      << page;
}

TEST(TalkMetricsTest, WithoutNetworkOrManagedCache) {
  MountMetrics m = Sample();
  m.network.reset();
  m.cache_managed = false;
  const std::string page = FormatPrometheusMetrics(m);
  EXPECT_EQ(page.find("cvmfs_cached_bytes"), std::string::npos);
  EXPECT_EQ(page.find("cvmfs_host_requests_total"), std::string::npos);
  EXPECT_EQ(page.find("cvmfs_timeout"), std::string::npos);
  // Without HTTP, bytes of the verified downloads.
  EXPECT_NE(page.find("cvmfs_rx_total{repo=\"atlas.cern.ch\"} 2048\n"),
            std::string::npos);
}

TEST(TalkMetricsTest, ReadsOwnCpuTime) {
  auto cpu = ReadProcessCpuSeconds();
  ASSERT_TRUE(cpu.has_value());
  EXPECT_GE(cpu->first, 0);
  EXPECT_GE(cpu->second, 0);
}

}  // namespace
}  // namespace cvmfs::client
