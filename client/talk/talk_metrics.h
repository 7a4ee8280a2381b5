// The reply of `cvmfs_talk metrics prometheus`: one mount's metrics in
// Prometheus's text format (doc/metrics.md lists them). The metrics CVMFS
// 2.13 exports under this command keep its names and meanings (cvmfs_rx_total,
// cvmfs_hitrate, cvmfs_nioerr_total, ...), where we have the value; ours
// follow (cvmfs_cache_*, cvmfs_fetch_*, cvmfs_download_*, cvmfs_host_*,
// cvmfs_prefetch_*). Every sample carries repo="<fqrn>".
//
// MountMetrics is a plain snapshot, gathered by TalkCommands (talk_commands.cc)
// and by tests; FormatPrometheusMetrics is a pure function of it.
#ifndef CLIENT_TALK_TALK_METRICS_H_
#define CLIENT_TALK_TALK_METRICS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cache/posix_cache.h"
#include "client/file_system.h"
#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/network/route_statistics.h"
#include "cvmfs/sqlite_db.h"

namespace cvmfs::client {

struct MountMetrics {
  std::string fqrn;
  std::string mountpoint;
  std::string version;  // the client's version
  MountStatistics stats;
  bool cache_managed = false;
  cache::PosixCache::Usage usage{};
  // The file system of the cache directory (statvfs), if it could be read.
  std::optional<uint64_t> volume_bytes, volume_avail_bytes;
  struct Network {
    HttpFetcher::Counters counters{};
    std::vector<RouteStatistics::Counters> routes;
    std::vector<std::vector<std::string>> proxy_groups;
    std::string active_proxy;  // "DIRECT" for none
    int timeout_s = 0, timeout_direct_s = 0;
  };
  std::optional<Network> network;  // none: a mount without HTTP (tests)
  int64_t pid = 0;
  // CPU time of the process (/proc/self/stat), if it could be read.
  std::optional<double> cpu_user_s, cpu_system_s;
  int64_t now_epoch_s = 0;  // wall-clock time of the snapshot
  std::optional<SqliteMemoryStatus> sqlite;
  // Notifications (doc/notifications.md): announcements received, ignored
  // (unverifiable, not newer, pinned), and those that woke the updater.
  struct Notifications {
    uint64_t received = 0, ignored = 0, triggered = 0;
  };
  Notifications notifications;
};

std::string FormatPrometheusMetrics(const MountMetrics& m);

// CPU seconds (user, system) of this process from /proc/self/stat; nullopt
// if it cannot be read.
std::optional<std::pair<double, double>> ReadProcessCpuSeconds();

}  // namespace cvmfs::client

#endif  // CLIENT_TALK_TALK_METRICS_H_
