#include "cvmfs/network/http_fetcher.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <random>
#include <string>
#include <utility>

#include "cvmfs/network/http_io_loop.h"
#include "cvmfs/network/url_host.h"

// curl_multi_poll (7.66) and curl_multi_wakeup (7.68) drive the I/O thread.
#if LIBCURL_VERSION_NUM < 0x074400
#error "libcurl >= 7.68.0 is required"
#endif

namespace cvmfs {
namespace {

// curl_global_init is not thread-safe and must run before any other curl
// call; once per process is enough. The result is kept for later callers.
Status InitCurlOnce() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (result != CURLE_OK) {
    return Status::Unavailable(std::string("curl_global_init failed: ") +
                               curl_easy_strerror(result));
  }
  return Status::Ok();
}

Status CheckAtLeast(const char* name, int value, int minimum) {
  if (value >= minimum) return Status::Ok();
  return Status::InvalidArgument(
      std::string(name) + " = " + std::to_string(value) +
      " (must be >= " + std::to_string(minimum) + ")");
}

Status ValidateOptions(const HttpFetcherOptions& o) {
  CVMFS_RETURN_IF_ERROR(FailoverState::Validate(o.hosts, o.proxy_groups));
  CVMFS_RETURN_IF_ERROR(
      FailoverState::Validate(o.hosts, o.fallback_proxy_groups));
  CVMFS_RETURN_IF_ERROR(CheckAtLeast("timeout", o.timeout_s, 1));
  CVMFS_RETURN_IF_ERROR(CheckAtLeast("timeout_direct", o.timeout_direct_s, 1));
  CVMFS_RETURN_IF_ERROR(CheckAtLeast("low_speed_limit", o.low_speed_limit, 0));
  CVMFS_RETURN_IF_ERROR(
      CheckAtLeast("metadata_deadline_ms", o.metadata_deadline_ms, 0));
  CVMFS_RETURN_IF_ERROR(CheckAtLeast("max_retries", o.max_retries, 0));
  CVMFS_RETURN_IF_ERROR(
      CheckAtLeast("proxy_reset_after", o.proxy_reset_after_s, 0));
  CVMFS_RETURN_IF_ERROR(
      CheckAtLeast("host_reset_after", o.host_reset_after_s, 0));
  CVMFS_RETURN_IF_ERROR(CheckAtLeast("backoff_init_ms", o.backoff_init_ms, 1));
  CVMFS_RETURN_IF_ERROR(
      CheckAtLeast("backoff_max_ms", o.backoff_max_ms, o.backoff_init_ms));
  return CheckAtLeast("max_connections", o.max_connections, 1);
}

FailoverResetPolicy ResetPolicy(const HttpFetcherOptions& o) {
  FailoverResetPolicy policy;
  policy.proxy_reset_after = std::chrono::seconds(o.proxy_reset_after_s);
  policy.host_reset_after = std::chrono::seconds(o.host_reset_after_s);
  policy.clock = o.clock;
  return policy;
}

}  // namespace

Result<std::unique_ptr<HttpFetcher>> HttpFetcher::Create(
    HttpFetcherOptions options) {
  CVMFS_RETURN_IF_ERROR(ValidateOptions(options));
  CVMFS_RETURN_IF_ERROR(InitCurlOnce());
  std::unique_ptr<HttpFetcher> fetcher(
      new HttpFetcher(std::move(options), std::random_device{}()));
  CVMFS_RETURN_IF_ERROR(fetcher->Start());
  return Result<std::unique_ptr<HttpFetcher>>(std::move(fetcher));
}

HttpFetcher::HttpFetcher(HttpFetcherOptions options, uint32_t seed)
    : options_(std::move(options)),
      clock_(options_.clock ? options_.clock : SteadyClock()),
      own_resolver_(options_.resolver
                        ? nullptr
                        : NewSystemDnsResolver(options_.system_dns)),
      expander_(options_.resolver ? options_.resolver : own_resolver_.get(),
                options_.proxy_dns, clock_, seed),
      combined_(CombineProxyLists(options_.proxy_groups,
                                  options_.fallback_proxy_groups)),
      proxy_entries_(expander_.Expand(combined_.groups)),
      next_refresh_(ProxyExpander::NextDeadline(proxy_entries_)
                        .time_since_epoch()
                        .count()),
      failover_(options_.hosts, ProxyUrls(proxy_entries_), seed,
                ResetPolicy(options_)),
      timeout_s_(options_.timeout_s),
      timeout_direct_s_(options_.timeout_direct_s) {}

HttpFetcher::~HttpFetcher() {
  // Joins the I/O thread before anything it uses goes away. Stop() rather
  // than destroying io_ here: callers still inside Fetch have read io_.
  if (io_) io_->Stop();
}

Status HttpFetcher::Start() {
  io_ = std::make_unique<IoLoop>(this);
  return io_->Start();
}

void HttpFetcher::RefreshProxyAddresses() {
  if (clock_->Now().time_since_epoch().count() < next_refresh_.load()) return;
  MutexLock lock(&proxy_mu_);
  if (clock_->Now().time_since_epoch().count() < next_refresh_.load()) return;
  if (expander_.Refresh(&proxy_entries_))
    (void)failover_.ReplaceProxyAddresses(ProxyUrls(proxy_entries_));
  next_refresh_ =
      ProxyExpander::NextDeadline(proxy_entries_).time_since_epoch().count();
}

DownloadResult HttpFetcher::Fetch(const DownloadRequest& request,
                                  DownloadSink* sink) {
  n_requests_++;
  RefreshProxyAddresses();
  Transfer transfer(request, sink);
  transfer.bodies = &bodies_;
  if (!io_->Submit(&transfer)) {
    n_errors_++;
    DownloadResult result;
    result.status = Status::Unavailable("download of " + request.url_path +
                                        " refused: HTTP fetcher shut down");
    return result;
  }
  RunSink(&transfer, sink);
  // The I/O thread is done with it; the lock is for the annotations.
  MutexLock lock(&transfer.mu);
  bodies_.Give(std::move(transfer.body));
  return std::move(transfer.result);
}

// The caller's side of a transfer (http_io_loop.h): gives a large body to
// the sink as it arrives, in order with the resets of retries, until the
// I/O thread is done and everything was given.
void HttpFetcher::RunSink(Transfer* t, DownloadSink* sink) {
  std::string chunk;
  MutexLock lock(&t->mu);
  for (;;) {
    while (!t->done && t->resets == 0 && t->body.size() < IoLoop::kWakeBody) {
      lock.Wait(&t->cv);
    }
    if (t->resets == 0 && t->body.empty()) break;
    const int resets = std::exchange(t->resets, 0);
    if (chunk.capacity() < bodies_.capacity()) chunk = bodies_.Take();
    chunk.clear();
    chunk.swap(t->body);
    const bool resume = std::exchange(t->paused, false);
    // After a sink error, or the end of a failed transfer, the rest is
    // dropped. The resets are still owed (unless the sink failed): what it
    // got before a retry is void, however late this thread wakes.
    const bool sink_ok = t->sink_status.ok();
    const bool wanted = sink_ok && (!t->done || t->result.status.ok());
    lock.Unlock();
    if (resume) io_->Resume(t);
    Status st;
    if (sink_ok) {
      for (int i = 0; i < resets; ++i) sink->Reset();
    }
    if (wanted && !chunk.empty()) st = sink->Write(chunk.data(), chunk.size());
    lock.Lock();
    if (!st.ok()) t->sink_status = std::move(st);
  }
  bodies_.Give(std::move(chunk));
  // The sink may have failed on the last bytes, after the I/O thread ended
  // the transfer well.
  if (!t->sink_status.ok() && t->result.status.ok()) {
    n_errors_++;
    t->result.status = t->sink_status;
  }
}

HttpFetcher::Counters HttpFetcher::counters() const {
  return Counters{n_requests_.load(),  n_bytes_.load(),  n_retries_.load(),
                  n_failovers_.load(), n_errors_.load(), n_limit_.load(),
                  n_peak_.load()};
}

std::string HttpFetcher::CurrentHost() const { return failover_.CurrentHost(); }

std::string HttpFetcher::CurrentProxy() const {
  return failover_.CurrentProxy();
}

std::vector<std::string> HttpFetcher::Hosts() const {
  return failover_.Hosts();
}

ProxyGroups HttpFetcher::Proxies() const { return failover_.Proxies(); }

// Explicit switches count as failovers too (CVMFS counts every host
// switch): the client makes them for a rejected manifest or a missing or
// corrupted object, and cvmfs_talk for the operator. Switching among one
// entry changes nothing and is not counted.
void HttpFetcher::SwitchHost() {
  failover_.SwitchHost();
  if (failover_.num_hosts() > 1) n_failovers_++;
}

void HttpFetcher::SwitchProxy() {
  failover_.SwitchProxy();
  if (failover_.num_proxies() > 1) n_failovers_++;
}

Status HttpFetcher::SetHosts(std::vector<std::string> hosts, bool geo_ordered) {
  return failover_.SetHosts(std::move(hosts), geo_ordered);
}

bool HttpFetcher::HostsGeoOrdered() const {
  return failover_.hosts_geo_ordered();
}

Status HttpFetcher::SetProxies(ProxyGroups proxy_groups) {
  CVMFS_RETURN_IF_ERROR(
      FailoverState::Validate({"http://placeholder"}, proxy_groups));
  MutexLock lock(&proxy_mu_);
  combined_ = CombineProxyLists(proxy_groups, options_.fallback_proxy_groups);
  proxy_entries_ = expander_.Expand(combined_.groups);
  next_refresh_ =
      ProxyExpander::NextDeadline(proxy_entries_).time_since_epoch().count();
  return failover_.SetProxies(ProxyUrls(proxy_entries_));
}

HttpFetcher::ProxyChainInfo HttpFetcher::ProxyInfo() const {
  ProxyChainInfo info;
  MutexLock lock(&proxy_mu_);
  info.groups = proxy_entries_;
  info.first_fallback = combined_.first_fallback;
  info.current = failover_.CurrentProxy();
  info.now = clock_->Now();
  return info;
}

std::string HttpFetcher::ProxyNameOf(const std::string& proxy_url) const {
  MutexLock lock(&proxy_mu_);
  for (const auto& group : proxy_entries_)
    for (const ProxyEntry& entry : group)
      if (entry.url == proxy_url) return UrlHostName(entry.configured);
  return UrlHostName(proxy_url);
}

void HttpFetcher::SetTimeouts(int proxy_s, int direct_s) {
  timeout_s_ = std::max(1, proxy_s);
  timeout_direct_s_ = std::max(1, direct_s);
}

}  // namespace cvmfs
