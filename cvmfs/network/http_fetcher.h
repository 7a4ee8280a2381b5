// HttpFetcher: the Fetcher over libcurl, with CVMFS's hosts/proxies failover.
//
// One I/O thread drives a curl multi handle. Fetch() enqueues the request,
// wakes the thread (curl_multi_wakeup) and blocks on a condition variable
// until the transfer is finished. Transfers run in parallel up to an
// adaptive limit (connection_limit.h) of at most max_connections; the
// others wait on the I/O thread, demand requests before background ones
// (DownloadRequest::background), which take at most half of the limit.
// curl never opens more than max_connections connections (in total, per
// host or proxy, kept idle); easy handles are pooled and connections kept
// alive in the multi handle's connection cache, so sequential requests
// reuse one TCP connection.
//
// Request headers as CVMFS sends them: "Connection: Keep-Alive", an empty
// "Pragma:" (stops curl from adding "Pragma: no-cache" for proxies), the
// User-Agent; with no_cache "Pragma: no-cache" and "Cache-Control: no-cache".
//
// Failover (transfer_fault.h says which fault is which; failover_state.h
// keeps the current host and proxy):
//   1. connect/timeout/short transfer: retry on the same route, up to
//      max_retries per request, after a randomized exponential backoff
//      (random in [1, backoff_init_ms], then doubled, at most
//      backoff_max_ms). The backoff is a timer on the I/O thread, which
//      goes on serving other transfers meanwhile.
//   2. a proxy fault: next proxy (in the group, then the next group), until
//      the request has tried as many proxies as are configured;
//   3. then, or on a host fault: proxies back to the first group, next host,
//      until the request has tried every host; then Unavailable.
//   An attempt of a metadata request that exceeds metadata_deadline_ms
//   goes to step 2 (via a proxy) or 3 (DIRECT) without a retry.
//   HTTP 404 is final (NotFound). A sink error is final and only ends its
//   own transfer. Before any retry the sink is Reset().
//   With proxy_reset_after_s / host_reset_after_s, every attempt that starts
//   after the interval (counted from leaving the first proxy group / host)
//   goes back to the first one (failover_state.h); not counted as failover.
//
// The header parsing runs on the I/O thread. A large body (over 64 KiB by
// its Content-Length, not from a file:// URL) is written to the sink on
// the thread that called Fetch: the I/O thread hands it over through a
// buffer of at most IoLoop::kMaxQueuedBody bytes per transfer (then it
// pauses that transfer until the caller caught up). Inflating and hashing large
// objects (the client's sinks) thus run in parallel, one thread per waiting
// caller, and a slow sink slows down only its own transfer. A small body is
// written to the sink on the I/O thread as it arrives: a sink must not block
// for long on one, and must never call Fetch on the same fetcher.
//
// curl_global_init runs once per process, from the first Create() (guarded
// by std::call_once); curl_global_cleanup is never called, because other
// libraries in the process may still use curl (and it is not thread-safe).
//
// Thread safety: every public method is thread-safe. The destructor stops
// the I/O thread and fails the requests still pending with Unavailable; no
// Fetch may start after the destructor began.
#ifndef CVMFS_NETWORK_HTTP_FETCHER_H_
#define CVMFS_NETWORK_HTTP_FETCHER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/clock.h"
#include "cvmfs/mutex.h"
#include "cvmfs/network/buffer_pool.h"
#include "cvmfs/network/dns_resolver.h"
#include "cvmfs/network/failover_state.h"
#include "cvmfs/network/fetcher.h"
#include "cvmfs/network/proxy_chain.h"
#include "cvmfs/network/route_statistics.h"
#include "cvmfs/status.h"

namespace cvmfs {

struct HttpFetcherOptions {
  // Repository base URLs in order,
  // e.g. "http://127.0.0.1:8080/cvmfs/repo.example.org".
  std::vector<std::string> hosts;
  // ';' groups of '|' members; "DIRECT" = no proxy; empty = DIRECT.
  std::vector<std::vector<std::string>> proxy_groups;
  // CVMFS_FALLBACK_PROXY: groups after proxy_groups, with DIRECT removed
  // from both when any is left (CombineProxyLists, proxy_chain.h).
  std::vector<std::vector<std::string>> fallback_proxy_groups;
  // Proxy names become one proxy per address (proxy_chain.h), resolved at
  // Create/SetProxies and again when their TTL ran out.
  ProxyDnsOptions proxy_dns;
  SystemDnsOptions system_dns;  // for the system resolver
  // Borrowed, must outlive the fetcher; null: the system resolver.
  DnsResolver* resolver = nullptr;
  int timeout_s = 5, timeout_direct_s = 10;  // connect + low-speed window
  int low_speed_limit = 1024;                // bytes/s
  // The longest one attempt of a metadata request (DownloadRequest::metadata)
  // may take, in milliseconds (CURLOPT_TIMEOUT_MS); 0 = no limit. An attempt
  // that runs out of it fails its route at once, without a retry on that
  // route: the next proxy, then the next host (a host fault when DIRECT).
  int metadata_deadline_ms = 0;
  int max_retries = 1;
  int backoff_init_ms = 2000, backoff_max_ms = 10000;
  // Back to the first proxy group / host this long after leaving it
  // (CVMFS_PROXY_RESET_AFTER, CVMFS_HOST_RESET_AFTER); 0 = never.
  int proxy_reset_after_s = 0, host_reset_after_s = 0;
  // Time source of the reset timers; borrowed, must outlive the fetcher.
  // Null means SteadyClock(). Tests pass a ManualClock.
  const Clock* clock = nullptr;
  // Connections and parallel transfers at most (CVMFS_MAX_CONNECTIONS; as
  // CVMFS, 16). The adaptive limit stays below it; transfers beyond the
  // limit wait on the I/O thread, demand requests first.
  int max_connections = 16;
  std::string user_agent = "cvmfs Fuse 2.12.0";  // CVMFS clients send this
  // Told of every switch of the global proxy or host after a failed
  // attempt (not of the administrative switches), in CVMFS's words:
  // "switching proxy from <old> to <new> (<what failed>)", "switching host
  // from ...". Called on the I/O thread: must be quick and must not call
  // the fetcher. Unset: nothing is told.
  std::function<void(const std::string&)> on_failover;
};

class HttpFetcher : public Fetcher {
 public:
  struct Counters {
    uint64_t requests;   // Fetch calls
    uint64_t bytes;      // body bytes received, over all attempts
    uint64_t retries;    // attempts repeated on the same route
    uint64_t failovers;  // switches of the global host or proxy, also
                         // those made through SwitchHost/SwitchProxy
    uint64_t errors;     // Fetch calls that ended neither ok nor NotFound
    uint64_t connection_limit;  // transfers allowed in flight now (gauge)
    uint64_t connections_peak;  // most transfers in flight at once
  };

  // Checks the options (InvalidArgument names the bad value), initializes
  // curl and starts the I/O thread.
  static Result<std::unique_ptr<HttpFetcher>> Create(
      HttpFetcherOptions options);
  ~HttpFetcher() override;
  HttpFetcher(const HttpFetcher&) = delete;
  HttpFetcher& operator=(const HttpFetcher&) = delete;

  DownloadResult Fetch(const DownloadRequest& request,
                       DownloadSink* sink) override;

  Counters counters() const;
  // Attempts, failures, bytes and durations per (host, proxy).
  std::vector<RouteStatistics::Counters> RouteCounters() const {
    return routes_.Snapshot();
  }
  std::string CurrentHost() const;
  std::string CurrentProxy() const;  // "DIRECT" for none
  std::vector<std::string> Hosts() const;
  ProxyGroups Proxies() const;  // the addresses in use, in order
  // The proxy chain as `cvmfs_talk proxy info` shows it.
  struct ProxyChainInfo {
    ProxyEntryGroups groups;
    size_t first_fallback = 0;  // == groups.size() without fallback proxies
    std::string current;
    Clock::TimePoint now;
  };
  ProxyChainInfo ProxyInfo() const;
  void SwitchHost();
  void SwitchProxy();
  // Takes effect for attempts that start afterwards. Values < 1 become 1.
  void SetTimeouts(int proxy_s, int direct_s);
  int timeout_s() const { return timeout_s_.load(); }
  int timeout_direct_s() const { return timeout_direct_s_.load(); }
  // Replace the host chain / the regular proxy groups (cvmfs_talk host set,
  // proxy set; the fallback groups stay); InvalidArgument names a bad entry
  // and nothing changes. Transfers that start afterwards use the new list
  // from its first entry. `geo_ordered`: the order comes from the Geo-API
  // (geo_sort.h).
  Status SetHosts(std::vector<std::string> hosts, bool geo_ordered = false);
  bool HostsGeoOrdered() const;
  Status SetProxies(ProxyGroups proxy_groups);

 private:
  class IoLoop;  // the I/O thread and everything only it touches
  struct Transfer;

  explicit HttpFetcher(HttpFetcherOptions options, uint32_t seed);
  Status Start();
  void RunSink(Transfer* t, DownloadSink* sink);
  // Resolves the proxy names whose TTL ran out (on the caller's thread).
  void RefreshProxyAddresses();
  // The configured host name of the proxy now used at `proxy_url` (its
  // address): what the Geo-API URL names, as CVMFS's host.name().
  std::string ProxyNameOf(const std::string& proxy_url) const
      EXCLUDES(proxy_mu_);

  const HttpFetcherOptions options_;
  const Clock* const clock_;
  const std::unique_ptr<DnsResolver> own_resolver_;  // null if borrowed
  // Guards the proxy chain below. Taken before FailoverState's mutex.
  mutable Mutex proxy_mu_;
  ProxyExpander expander_ GUARDED_BY(proxy_mu_);
  CombinedProxies combined_ GUARDED_BY(proxy_mu_);
  ProxyEntryGroups proxy_entries_ GUARDED_BY(proxy_mu_);
  // Earliest deadline of proxy_entries_, steady clock ticks.
  std::atomic<Clock::Duration::rep> next_refresh_;
  FailoverState failover_;
  std::atomic<int> timeout_s_;
  std::atomic<int> timeout_direct_s_;
  std::atomic<uint64_t> n_requests_{0}, n_bytes_{0}, n_retries_{0},
      n_failovers_{0}, n_errors_{0}, n_limit_{0}, n_peak_{0};
  RouteStatistics routes_;  // written by the I/O thread
  // Buffers of large bodies on their way to the callers (buffer_pool.h):
  // two per transfer in flight, those of four transfers kept.
  static constexpr size_t kBodyBuffer = (512 + 64) * 1024;
  BufferPool bodies_{kBodyBuffer, 8};
  std::unique_ptr<IoLoop> io_;
};

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_HTTP_FETCHER_H_
