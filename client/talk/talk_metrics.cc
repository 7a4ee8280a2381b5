#include "client/talk/talk_metrics.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "cvmfs/prometheus_text.h"
#include "cvmfs/text.h"

namespace cvmfs::client {

namespace {

constexpr MetricType kCounter = MetricType::kCounter;
constexpr MetricType kGauge = MetricType::kGauge;

// Adds samples of one mount: every one labelled repo="<fqrn>" first.
class MountPage {
 public:
  explicit MountPage(std::string fqrn) : fqrn_(std::move(fqrn)) {}

  template <typename T>
  void Add(const char* name, MetricType type, const char* help, T value,
           MetricLabels extra = {}) {
    page_.Add(name, type, help, Labels(std::move(extra)), value);
  }
  void Histogram(const char* name, const char* help, MetricLabels extra,
                 const std::vector<double>& bounds,
                 const std::vector<uint64_t>& counts, double sum,
                 uint64_t count) {
    page_.AddHistogram(name, help, Labels(std::move(extra)), bounds, counts,
                       sum, count);
  }
  std::string Render() const { return page_.Render(); }

 private:
  MetricLabels Labels(MetricLabels extra) const {
    MetricLabels labels = {{"repo", fqrn_}};
    for (auto& l : extra) labels.push_back(std::move(l));
    return labels;
  }
  std::string fqrn_;
  PrometheusText page_;
};

int64_t Seconds(Clock::Duration d) {
  return std::chrono::duration_cast<std::chrono::seconds>(d).count();
}

// The names and meanings of CVMFS 2.13's `metrics prometheus`.
void AddCvmfsCache(const MountMetrics& m, MountPage* p) {
  if (m.cache_managed) {
    p->Add("cvmfs_cached_bytes", kGauge, "CVMFS currently cached bytes.",
           m.usage.size);
    p->Add("cvmfs_pinned_bytes", kGauge, "CVMFS currently pinned bytes.",
           m.usage.pinned);
    p->Add("cvmfs_total_cache_size_bytes", kGauge,
           "CVMFS configured cache size via CVMFS_QUOTA_LIMIT.", m.usage.limit);
  }
  if (m.volume_bytes)
    p->Add("cvmfs_physical_cache_size_bytes", kGauge,
           "CVMFS cache volume physical size.", *m.volume_bytes);
  if (m.volume_avail_bytes)
    p->Add("cvmfs_physical_cache_avail_bytes", kGauge,
           "CVMFS cache volume physical free space available.",
           *m.volume_avail_bytes);
  p->Add("cvmfs_cache_mode", kGauge,
         "Cache mode (0=unknown, 1=read-write, 2=read-only).", int64_t{1});
}

void AddCvmfsTransfers(const MountMetrics& m, MountPage* p) {
  const FetchCounters& f = m.stats.fetch;
  // CVMFS counts download.sz_transferred_bytes: bytes on the wire.
  const uint64_t rx =
      m.network ? m.network->counters.bytes : f.bytes_downloaded;
  p->Add("cvmfs_rx_total", kCounter,
         "Shows the overall amount of downloaded bytes since mounting.", rx);
  p->Add("cvmfs_ndownload_total", kCounter,
         "Shows the overall number of downloaded files since mounting.",
         f.downloads);
  const uint64_t asked = f.hits + f.downloads;
  p->Add("cvmfs_hitrate", kGauge, "CVMFS cache hit rate (%)",
         asked == 0 ? 0.0
                    : 100.0 * static_cast<double>(f.hits) /
                          static_cast<double>(asked));
  const double seconds = static_cast<double>(f.download_ns) / 1e9;
  p->Add("cvmfs_speed", kGauge, "Shows the average download speed (KiB/s).",
         seconds <= 0
             ? uint64_t{0}
             : static_cast<uint64_t>(static_cast<double>(f.bytes_downloaded) /
                                     1024 / seconds));
}

void AddCvmfsMount(const MountMetrics& m, MountPage* p) {
  const MountStatistics& s = m.stats;
  p->Add("cvmfs_repo", kGauge,
         "Shows the version of CVMFS used by this repository.", int64_t{1},
         {{"mountpoint", m.mountpoint},
          {"version", m.version},
          {"revision", std::to_string(s.revision.revision)}});
  const int64_t uptime_s = Seconds(s.uptime);
  p->Add("cvmfs_uptime_seconds", kGauge,
         "Shows the time since the repo was mounted.", uptime_s);
  p->Add("cvmfs_mount_epoch_timestamp", kGauge,
         "Shows the epoch time the repo was mounted.",
         m.now_epoch_s - uptime_s);
  if (s.seconds_until_check)
    p->Add("cvmfs_repo_expires_seconds", kGauge,
           "Shows the remaining life time of the mounted root file catalog "
           "in seconds.",
           *s.seconds_until_check);
  p->Add("cvmfs_nioerr_total", kCounter,
         "Shows the total number of I/O errors encountered since mounting.",
         s.io_errors);
  p->Add("cvmfs_timestamp_last_ioerr", kGauge,
         "Shows the timestamp of the last ioerror (0: none).",
         s.last_io_error ? m.now_epoch_s - uptime_s + Seconds(*s.last_io_error)
                         : int64_t{0});
  if (m.cpu_user_s)
    p->Add("cvmfs_cpu_user_total", kCounter,
           "CPU time used in userspace by CVMFS mount in seconds.",
           *m.cpu_user_s);
  if (m.cpu_system_s)
    p->Add("cvmfs_cpu_system_total", kCounter,
           "CPU time used in the kernel system calls by CVMFS mount in "
           "seconds.",
           *m.cpu_system_s);
  p->Add("cvmfs_usedfd", kGauge,
         "Shows the number of file descriptors currently issued to file "
         "system clients.",
         s.open_files);
  p->Add("cvmfs_useddirp", kGauge,
         "Shows the number of open directories currently used by file system "
         "clients.",
         s.open_dirs);
  p->Add("cvmfs_ndiropen", kGauge,
         "Shows the overall number of opened directories.", s.total_dir_opens);
  p->Add("cvmfs_inode_max", kGauge,
         "Shows the highest possible inode with the current set of loaded "
         "catalogs.",
         s.inode_max);
  p->Add("cvmfs_inode_tracker_references", kGauge,
         "Number of inodes the kernel holds a reference to.",
         static_cast<uint64_t>(s.known_inodes));
  p->Add("cvmfs_pid", kGauge,
         "Shows the process id of the CernVM-FS Fuse process.", m.pid);
  p->Add("cvmfs_nclg", kGauge,
         "Shows the number of currently loaded nested catalogs.",
         static_cast<uint64_t>(s.catalogs));
  p->Add("cvmfs_drainout_mode", kGauge,
         "Drainout mode status (0=false, 1=true).", int64_t{0});
  p->Add("cvmfs_maintenance_mode", kGauge,
         "Maintenance mode status (0=false, 1=true).", int64_t{0});
  p->Add("cvmfs_nfs_mode", kGauge, "NFS mode enabled (1=true, 0=false).",
         int64_t{0});
}

void AddCvmfsNetwork(const MountMetrics::Network& n, MountPage* p) {
  p->Add("cvmfs_timeout", kGauge,
         "Shows the timeout for proxied connections in seconds.",
         int64_t{n.timeout_s});
  p->Add("cvmfs_timeout_direct", kGauge,
         "Shows the timeout for direct connections in seconds.",
         int64_t{n.timeout_direct_s});
  p->Add("cvmfs_active_proxy", kGauge,
         "Shows the active proxy in use for this mount.", int64_t{1},
         {{"proxy", n.active_proxy}});
  for (size_t g = 0; g < n.proxy_groups.size(); ++g)
    for (const std::string& url : n.proxy_groups[g])
      p->Add("cvmfs_proxy", kGauge,
             "Shows all registered proxies for this repository.", int64_t{1},
             {{"group", std::to_string(g)}, {"url", url}});
}

void AddCvmfsSqlite(const SqliteMemoryStatus& s, MountPage* p) {
  // CVMFS calls it cvmfs_sqlite_malloc_count, a name Prometheus reserves
  // for histograms and summaries (promtool rejects it).
  p->Add("cvmfs_sqlite_allocations", kGauge,
         "Number of SQLite allocations now.", s.malloc_count);
  p->Add("cvmfs_sqlite_memory_used_bytes", kGauge,
         "SQLite general purpose allocator memory used.", s.memory_used);
  p->Add("cvmfs_sqlite_memory_used_highwater_bytes", kGauge,
         "SQLite general purpose allocator memory used high water mark.",
         s.memory_used_highwater);
  p->Add("cvmfs_sqlite_largest_malloc_bytes", kGauge,
         "SQLite largest malloc size.", s.largest_malloc);
  p->Add("cvmfs_sqlite_pagecache_used", kGauge,
         "SQLite page cache allocations used.", s.pagecache_used);
  p->Add("cvmfs_sqlite_pagecache_used_highwater", kGauge,
         "SQLite page cache allocations used high water mark.",
         s.pagecache_used_highwater);
  p->Add("cvmfs_sqlite_pagecache_overflow_bytes", kGauge,
         "SQLite page cache overflow bytes.", s.pagecache_overflow);
  p->Add("cvmfs_sqlite_pagecache_overflow_highwater_bytes", kGauge,
         "SQLite page cache overflow bytes high water mark.",
         s.pagecache_overflow_highwater);
  p->Add("cvmfs_sqlite_largest_pagecache_bytes", kGauge,
         "SQLite largest page cache allocation size.", s.largest_pagecache);
}

// Ours.
void AddMount(const MountMetrics& m, MountPage* p) {
  p->Add("cvmfs_up", kGauge,
         "1: the mount answered on its control socket (the textfile "
         "collector writes 0 for one that did not).",
         int64_t{1});
  p->Add("cvmfs_repo_revision", kGauge, "Revision of the mounted catalogs.",
         m.stats.revision.revision);
  p->Add("cvmfs_fs_opens_total", kCounter, "open() calls on the mount.",
         m.stats.total_opens);
}

void AddCacheAndFetch(const MountMetrics& m, MountPage* p) {
  p->Add("cvmfs_cache_hits_total", kCounter,
         "Cache lookups that found the object.", m.usage.hits);
  p->Add("cvmfs_cache_misses_total", kCounter,
         "Cache lookups that did not find the object.", m.usage.misses);
  p->Add("cvmfs_cache_evictions_total", kCounter,
         "Objects evicted from the cache by cleanups.", m.usage.evictions);
  const FetchCounters& f = m.stats.fetch;
  p->Add("cvmfs_fetch_hits_total", kCounter,
         "Object requests served from the cache.", f.hits);
  p->Add("cvmfs_fetch_collapsed_total", kCounter,
         "Object requests that waited for the same object's download.",
         f.collapsed);
  p->Add("cvmfs_fetch_errors_total", kCounter,
         "Object requests that failed (network, corruption, no space).",
         f.io_errors);
  p->Add("cvmfs_fetch_downloaded_bytes_total", kCounter,
         "Bytes of verified downloaded objects, as transferred (compressed).",
         f.bytes_downloaded);
  p->Add("cvmfs_fetch_download_seconds_total", kCounter,
         "Time the object downloads took, summed over all of them.",
         static_cast<double>(f.download_ns) / 1e9);
  const BundleCounters& b = f.bundles;
  p->Add("cvmfs_fetch_bundles_total", kCounter,
         "Bundles of small objects downloaded.", b.fetched);
  p->Add("cvmfs_fetch_bundle_bytes_total", kCounter,
         "Bytes of bundles received.", b.bytes);
  p->Add("cvmfs_fetch_bundle_members_stored_total", kCounter,
         "Objects taken from bundles into the cache.", b.members_stored);
  p->Add("cvmfs_fetch_bundle_members_skipped_total", kCounter,
         "Bundle members found in the cache already.", b.members_skipped);
  p->Add("cvmfs_fetch_bundle_members_failed_total", kCounter,
         "Bundle members that did not verify (dropped, never cached).",
         b.members_failed);
  p->Add("cvmfs_fetch_bundle_errors_total", kCounter,
         "Bundles that failed (missing, corrupted, unreachable).", b.errors);
  p->Add("cvmfs_fetch_bundle_fallbacks_total", kCounter,
         "Objects fetched on their own after their bundle did not bring "
         "them.",
         b.fallbacks);
}

void AddDownloads(const MountMetrics::Network& n, MountPage* p) {
  const HttpFetcher::Counters& c = n.counters;
  p->Add("cvmfs_download_requests_total", kCounter,
         "HTTP downloads asked for (each over one or more attempts).",
         c.requests);
  p->Add("cvmfs_download_retries_total", kCounter,
         "Attempts repeated on the same host and proxy.", c.retries);
  p->Add("cvmfs_download_failovers_total", kCounter,
         "Switches of the host or proxy.", c.failovers);
  p->Add("cvmfs_download_errors_total", kCounter,
         "Downloads that failed after every host and proxy was tried.",
         c.errors);
  p->Add("cvmfs_download_connection_limit", kGauge,
         "Transfers (connections) the adaptive limit allows in flight now.",
         c.connection_limit);
  p->Add("cvmfs_download_connections_peak", kGauge,
         "Most transfers in flight at once since the mount.",
         c.connections_peak);
  const std::vector<double> bounds(RouteStatistics::kBucketBounds.begin(),
                                   RouteStatistics::kBucketBounds.end());
  for (const RouteStatistics::Counters& r : n.routes) {
    MetricLabels route = {{"host", r.host}, {"proxy", r.proxy}};
    p->Add("cvmfs_host_requests_total", kCounter,
           "HTTP attempts per host and proxy (retries and failovers count).",
           r.requests, route);
    p->Add("cvmfs_host_errors_total", kCounter,
           "HTTP attempts per host and proxy that failed (404 does not "
           "count).",
           r.errors, route);
    p->Add("cvmfs_host_received_bytes_total", kCounter,
           "Body bytes received per host and proxy.", r.bytes, route);
    p->Histogram("cvmfs_host_request_duration_seconds",
                 "Duration of HTTP attempts per host and proxy.", route, bounds,
                 std::vector<uint64_t>(r.buckets.begin(), r.buckets.end()),
                 r.seconds, r.requests);
  }
}

void AddPrefetch(const PrefetchCounters& c, MountPage* p) {
  p->Add("cvmfs_prefetch_enabled", kGauge, "1: prefetch is on.",
         int64_t{c.enabled ? 1 : 0});
  p->Add("cvmfs_prefetch_queued_total", kCounter,
         "Objects accepted into the prefetch queue.", c.queued);
  p->Add("cvmfs_prefetch_fetched_total", kCounter,
         "Objects downloaded by prefetch.", c.fetched);
  p->Add("cvmfs_prefetch_fetched_bytes_total", kCounter,
         "Bytes of the objects downloaded by prefetch.", c.fetched_bytes);
  p->Add("cvmfs_prefetch_used_total", kCounter,
         "Prefetched objects later opened by a read.", c.used);
  p->Add("cvmfs_prefetch_used_bytes_total", kCounter,
         "Bytes of the prefetched objects later opened by a read.",
         c.used_bytes);
  p->Add("cvmfs_prefetch_unused_bytes", kGauge,
         "Bytes prefetched and not (yet) read.", c.wasted_bytes);
  p->Add("cvmfs_prefetch_cached_total", kCounter,
         "Objects to prefetch that were in the cache already.", c.cached);
  p->Add("cvmfs_prefetch_overtaken_total", kCounter,
         "Queued objects a read asked for first.", c.overtaken);
  p->Add("cvmfs_prefetch_skipped_total", kCounter,
         "Objects not prefetched, by reason.", c.skipped_budget,
         {{"reason", "budget"}});
  p->Add("cvmfs_prefetch_skipped_total", kCounter,
         "Objects not prefetched, by reason.", c.skipped_throttled,
         {{"reason", "throttled"}});
  p->Add("cvmfs_prefetch_errors_total", kCounter,
         "Prefetch downloads that failed.", c.errors);
  p->Add("cvmfs_prefetch_pending", kGauge, "Objects in the prefetch queue.",
         c.pending);
  p->Add("cvmfs_prefetch_in_flight", kGauge, "Prefetch downloads running.",
         c.in_flight);
  p->Add("cvmfs_prefetch_budget_bytes", kGauge,
         "Byte budget of prefetch (after slow-link throttling).",
         c.budget_bytes);
}

}  // namespace

std::string FormatPrometheusMetrics(const MountMetrics& m) {
  MountPage page(m.fqrn);
  AddCvmfsCache(m, &page);
  AddCvmfsMount(m, &page);
  AddCvmfsTransfers(m, &page);
  if (m.network) AddCvmfsNetwork(*m.network, &page);
  if (m.sqlite) AddCvmfsSqlite(*m.sqlite, &page);
  AddMount(m, &page);
  AddCacheAndFetch(m, &page);
  if (m.network) AddDownloads(*m.network, &page);
  AddPrefetch(m.stats.prefetch, &page);
  page.Add("cvmfs_notifications_received_total", kCounter,
           "Notifications of a new revision received.",
           m.notifications.received);
  page.Add("cvmfs_notifications_ignored_total", kCounter,
           "Notifications ignored (manifest not verified, not newer, pinned).",
           m.notifications.ignored);
  page.Add("cvmfs_notifications_switches_total", kCounter,
           "Notifications that started a switch to a newer revision.",
           m.notifications.triggered);
  return page.Render();
}

std::optional<std::pair<double, double>> ReadProcessCpuSeconds() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  // The command name (field 2) may hold spaces: count from its ')'.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  uint64_t utime = 0, stime = 0;
  // Fields 3.. follow; utime and stime are fields 14 and 15.
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    const std::optional<uint64_t> value = ParseUint64(field);
    if (i == 14 && value) utime = *value;
    if (i == 15 && value) stime = *value;
    if ((i == 14 || i == 15) && !value) return std::nullopt;
  }
  const long ticks = ::sysconf(_SC_CLK_TCK);
  if (!fields || ticks <= 0) return std::nullopt;
  return std::make_pair(static_cast<double>(utime) / ticks,
                        static_cast<double>(stime) / ticks);
}

}  // namespace cvmfs::client
