#include "cvmfs/network/http_io_loop.h"

#include <strings.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cvmfs {
namespace {

// Upper bound of one curl_multi_poll, so that timers are never missed by
// more than this even if curl reports no timeout of its own.
constexpr int kMaxPollMs = 1000;

// Error pages up to this size are read and dropped, so that the connection
// stays open for the next request; larger ones abort the transfer.
constexpr uint64_t kMaxErrorBodyBytes = 64 * 1024;

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() &&
         ::strncasecmp(s.data(), prefix.data(), prefix.size()) == 0;
}

// "HTTP/1.1 404 Not Found\r\n" -> 404; 0 if there is no number.
int ParseStatusLine(std::string_view line) {
  size_t space = line.find(' ');
  if (space == std::string_view::npos) return 0;
  std::string code(line.substr(space + 1, 3));
  return std::atoi(code.c_str());
}

std::string JoinUrl(const std::string& host, const std::string& path) {
  size_t skip = 0;
  while (skip < path.size() && path[skip] == '/') ++skip;
  return host + "/" + path.substr(skip);
}

// The request's path with "@proxy@" replaced by `proxy_name` (the host
// name of the attempt's proxy as configured, not its address), or by
// DownloadRequest's direct_proxy_name without one; unchanged without a
// direct_proxy_name.
std::string ExpandProxyName(const DownloadRequest& request, std::string name) {
  static constexpr std::string_view kPlaceholder = "@proxy@";
  std::string path = request.url_path;
  if (request.direct_proxy_name.empty()) return path;
  if (name.empty()) name = request.direct_proxy_name;
  for (size_t pos = path.find(kPlaceholder); pos != std::string::npos;
       pos = path.find(kPlaceholder, pos + name.size()))
    path.replace(pos, kPlaceholder.size(), name);
  return path;
}

// The request headers CVMFS sends; an empty "Pragma:" removes the
// "Pragma: no-cache" curl would otherwise add when a proxy is used.
CurlSlistPtr MakeHeaders(bool no_cache) {
  std::vector<const char*> lines = {"Connection: Keep-Alive"};
  if (no_cache) {
    lines.insert(lines.end(), {"Pragma: no-cache", "Cache-Control: no-cache"});
  } else {
    lines.push_back("Pragma:");
  }
  CurlSlistPtr list;
  for (const char* line : lines) {
    curl_slist* grown = curl_slist_append(list.get(), line);
    if (grown == nullptr) return nullptr;  // `list` is still intact, freed
    list.release();
    list.reset(grown);
  }
  return list;
}

}  // namespace

HttpFetcher::IoLoop::IoLoop(HttpFetcher* owner)
    : owner_(owner),
      limit_(owner->options_.max_connections, owner->clock_),
      prng_(std::random_device{}()) {}

HttpFetcher::IoLoop::~IoLoop() { Stop(); }

void HttpFetcher::IoLoop::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) {
    curl_multi_wakeup(multi_.get());
    thread_.join();
  }
}

Status HttpFetcher::IoLoop::Start() {
  multi_.reset(curl_multi_init());
  headers_ = MakeHeaders(false);
  headers_no_cache_ = MakeHeaders(true);
  if (!multi_ || !headers_ || !headers_no_cache_) {
    return Status::Unavailable("cannot initialize libcurl (out of memory)");
  }
  // Admission keeps the transfers below the adaptive limit; these bound
  // what curl itself may open, also to one proxy or host, and keep as many
  // idle connections as may be busy, for keep-alive.
  const long max_connections = owner_->options_.max_connections;
  curl_multi_setopt(multi_.get(), CURLMOPT_MAX_TOTAL_CONNECTIONS,
                    max_connections);
  curl_multi_setopt(multi_.get(), CURLMOPT_MAX_HOST_CONNECTIONS,
                    max_connections);
  curl_multi_setopt(multi_.get(), CURLMOPT_MAXCONNECTS, max_connections);
  owner_->n_limit_ = static_cast<uint64_t>(limit_.limit());
  thread_ = std::thread(&IoLoop::Run, this);
  return Status::Ok();
}

bool HttpFetcher::IoLoop::Submit(Transfer* t) {
  {
    MutexLock lock(&mu_);
    if (stopping_) return false;
    incoming_.push_back(t);
  }
  curl_multi_wakeup(multi_.get());
  return true;
}

void HttpFetcher::IoLoop::Resume(Transfer* t) {
  {
    MutexLock lock(&mu_);
    if (stopping_) return;
    resumed_.push_back(t);
  }
  curl_multi_wakeup(multi_.get());
}

void HttpFetcher::IoLoop::Run() {
  std::vector<Transfer*> fresh, resumed;
  while (!TakeIncoming(&fresh, &resumed)) {
    for (Transfer* t : resumed) Unpause(t);
    resumed.clear();
    for (Transfer* t : fresh) Admit(t, /*front=*/false);
    fresh.clear();
    StartDueRetries();
    int running = 0;
    curl_multi_perform(multi_.get(), &running);
    ReapFinished();
    curl_multi_poll(multi_.get(), nullptr, 0, PollTimeoutMs(), nullptr);
  }
  FailAll();
}

// Returns true once the loop must stop (then both stay empty).
bool HttpFetcher::IoLoop::TakeIncoming(std::vector<Transfer*>* fresh,
                                       std::vector<Transfer*>* resumed) {
  MutexLock lock(&mu_);
  if (stopping_) return true;
  fresh->swap(incoming_);
  resumed->swap(resumed_);
  return false;
}

// A transfer no longer in flight was finished (and `t` may be gone) or is
// waiting for a retry (a new attempt is not paused): nothing to do.
void HttpFetcher::IoLoop::Unpause(Transfer* t) {
  if (in_flight_.count(t) == 0) return;
  // May deliver the held data to OnBody right here.
  curl_easy_pause(t->curl, CURLPAUSE_CONT);
}

void HttpFetcher::IoLoop::Admit(Transfer* t, bool front) {
  std::deque<Transfer*>& queue =
      t->request.background ? waiting_background_ : waiting_demand_;
  if (front) {
    queue.push_front(t);
  } else {
    queue.push_back(t);
  }
  StartWaiting();
}

void HttpFetcher::IoLoop::StartWaiting() {
  for (;;) {
    const int limit = limit_.limit();
    if (in_flight_.size() >= static_cast<size_t>(limit)) break;
    std::deque<Transfer*>* queue = nullptr;
    if (!waiting_demand_.empty()) {
      queue = &waiting_demand_;
    } else if (!waiting_background_.empty() &&
               background_in_flight_ < std::max(1, limit / 2)) {
      queue = &waiting_background_;
    } else {
      break;
    }
    Transfer* t = queue->front();
    queue->pop_front();
    StartAttempt(t);
  }
  owner_->n_limit_ = static_cast<uint64_t>(limit_.limit());
  if (in_flight_.size() > owner_->n_peak_.load())
    owner_->n_peak_ = in_flight_.size();
}

void HttpFetcher::IoLoop::RecordConnection(const Transfer& t, CURL* curl,
                                           CURLcode code, bool in_use) {
  ConnectionLimit::Sample s;
  s.started = t.admitted;
  s.in_use = in_use;
  s.in_flight = t.admitted_in_flight;
  if (IsFileUrl(t.url)) {  // no connection: always healthy
    limit_.Record(s);
    owner_->n_limit_ = static_cast<uint64_t>(limit_.limit());
    return;
  }
  long connects = 0;
  curl_off_t lookup_us = 0, connect_us = 0, pre_us = 0, start_us = 0;
  curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
  curl_easy_getinfo(curl, CURLINFO_NAMELOOKUP_TIME_T, &lookup_us);
  curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_us);
  curl_easy_getinfo(curl, CURLINFO_PRETRANSFER_TIME_T, &pre_us);
  curl_easy_getinfo(curl, CURLINFO_STARTTRANSFER_TIME_T, &start_us);
  s.new_connection = connects > 0;
  if (s.new_connection && connect_us > lookup_us)
    s.connect = std::chrono::microseconds(connect_us - lookup_us);
  if (start_us > pre_us)
    s.first_byte = std::chrono::microseconds(start_us - pre_us);
  switch (code) {
    case CURLE_COULDNT_CONNECT:     // refused
    case CURLE_OPERATION_TIMEDOUT:  // connect or low-speed timeout
    case CURLE_SEND_ERROR:          // reset
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:   // closed without a response
    case CURLE_PARTIAL_FILE:  // closed in the middle of the body
      s.failed = true;
      break;
    default:
      break;
  }
  // An overloaded server or proxy says so.
  if (t.http_code == 429 || t.http_code == 503) s.failed = true;
  limit_.Record(s);
  owner_->n_limit_ = static_cast<uint64_t>(limit_.limit());
}

void HttpFetcher::IoLoop::StartAttempt(Transfer* t) {
  t->route = owner_->failover_.ForNextAttempt();
  if (!t->request.host.empty()) t->route.host = t->request.host;
  const bool named_proxy =
      !t->request.direct_proxy_name.empty() && !t->route.direct();
  t->url =
      JoinUrl(t->route.host,
              ExpandProxyName(t->request,
                              named_proxy ? owner_->ProxyNameOf(t->route.proxy)
                                          : std::string()));
  // A file:// URL (a Stratum 0's own storage) has no status line: curl
  // either delivers the file or fails, so the attempt starts as a success.
  t->http_code = IsFileUrl(t->url) ? 200 : 0;
  t->proxy_error = false;
  t->response_refused = false;
  t->error_body_bytes = 0;
  t->bytes = 0;
  t->error_buffer[0] = '\0';
  t->started = Clock::now();
  CURL* curl = AcquireHandle();
  if (curl == nullptr) {
    Finish(t, Status::Unavailable("cannot create a curl handle for " + t->url));
    return;
  }
  CURLcode rc = Configure(t, curl);
  CURLMcode mrc =
      rc == CURLE_OK ? curl_multi_add_handle(multi_.get(), curl) : CURLM_OK;
  if (rc != CURLE_OK || mrc != CURLM_OK) {
    ReleaseHandle(curl);
    std::string why =
        rc != CURLE_OK ? curl_easy_strerror(rc) : curl_multi_strerror(mrc);
    Finish(t, Status::Unavailable("cannot set up the download of " + t->url +
                                  ": " + why));
    return;
  }
  t->curl = curl;
  t->admitted = owner_->clock_->Now();
  in_flight_.insert(t);
  t->admitted_in_flight = static_cast<int>(in_flight_.size());
  if (t->request.background) ++background_in_flight_;
}

CURLcode HttpFetcher::IoLoop::Configure(Transfer* t, CURL* curl) {
  const HttpFetcherOptions& opt = owner_->options_;
  const long timeout = t->route.direct() ? owner_->timeout_direct_s_.load()
                                         : owner_->timeout_s_.load();
  curl_slist* headers =
      t->request.no_cache ? headers_no_cache_.get() : headers_.get();
  CURLcode rc = CURLE_OK;
  auto set = [&rc, curl](CURLoption option, auto value) {
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, option, value);
  };
  // Only the scheme the URL names is allowed, so a crafted path can never
  // reach another protocol; proxies do not apply to local files.
  const bool file = IsFileUrl(t->url);
  curl_easy_reset(curl);  // keeps live connections, DNS and TLS caches
  set(CURLOPT_PRIVATE, static_cast<void*>(t));
  set(CURLOPT_URL, t->url.c_str());
  // "" disables proxies, including those from http_proxy in the environment.
  set(CURLOPT_PROXY, t->route.direct() || file ? "" : t->route.proxy.c_str());
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_USERAGENT, opt.user_agent.c_str());
  set(CURLOPT_HTTPHEADER, headers);
  set(CURLOPT_FOLLOWLOCATION, 0L);
  set(CURLOPT_CONNECTTIMEOUT, timeout);
  set(CURLOPT_LOW_SPEED_LIMIT, static_cast<long>(opt.low_speed_limit));
  set(CURLOPT_LOW_SPEED_TIME, timeout);
  if (t->request.range_size > 0) {
    const uint64_t last = t->request.range_offset + t->request.range_size - 1;
    set(CURLOPT_RANGE,
        (std::to_string(t->request.range_offset) + "-" + std::to_string(last))
            .c_str());  // curl copies the string
  }
  if (t->request.metadata && opt.metadata_deadline_ms > 0)
    set(CURLOPT_TIMEOUT_MS, static_cast<long>(opt.metadata_deadline_ms));
  set(CURLOPT_ERRORBUFFER, t->error_buffer);
  set(CURLOPT_HEADERFUNCTION, &IoLoop::OnHeader);
  set(CURLOPT_HEADERDATA, static_cast<void*>(t));
  set(CURLOPT_WRITEFUNCTION, &IoLoop::OnBody);
  set(CURLOPT_WRITEDATA, static_cast<void*>(t));
#if LIBCURL_VERSION_NUM >= 0x075500  // 7.85.0
  set(CURLOPT_PROTOCOLS_STR, file ? "file" : "http,https");
#else
  set(CURLOPT_PROTOCOLS,
      file ? static_cast<long>(CURLPROTO_FILE)
           : static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  return rc;
}

// Response headers. A non-2xx response is refused at the end of its headers
// (after X-Squid-Error / Proxy-Status were seen): its body never reaches the
// sink (OnBody drops it).
size_t HttpFetcher::IoLoop::OnHeader(char* data, size_t size, size_t n,
                                     void* arg) {
  auto* t = static_cast<Transfer*>(arg);
  const size_t len = size * n;
  std::string_view line(data, len);
  if (StartsWithNoCase(line, "HTTP/")) {
    t->http_code = ParseStatusLine(line);
    t->proxy_error = false;
  } else if (StartsWithNoCase(line, "X-Squid-Error:")) {
    t->proxy_error = true;
  } else if (StartsWithNoCase(line, "Proxy-Status:")) {
    if (line.find("error=") != std::string_view::npos) t->proxy_error = true;
  } else if (line == "\r\n" || line == "\n") {
    const int cls = t->http_code / 100;
    if (cls != 1 && cls != 2) t->response_refused = true;
    // A large body goes to the caller (http_io_loop.h). curl cannot pause
    // a file:// transfer ("Write callback asked for PAUSE when not
    // supported"): local files stay on this thread.
    curl_off_t length = -1;
    curl_easy_getinfo(t->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    if (cls == 2 && length > static_cast<curl_off_t>(kWakeBody) &&
        !IsFileUrl(t->url))
      t->handed_off = true;
  }
  return len;
}

size_t HttpFetcher::IoLoop::OnBody(char* data, size_t size, size_t n,
                                   void* arg) {
  auto* t = static_cast<Transfer*>(arg);
  const size_t len = size * n;
  if (len == 0) return 0;
  if (t->response_refused || t->http_code / 100 != 2) {
    t->response_refused = true;  // also without any status line
    t->error_body_bytes += len;
    return t->error_body_bytes <= kMaxErrorBodyBytes ? len : 0;
  }
  if (!t->handed_off) {
    Status st = t->sink->Write(data, len);
    if (!st.ok()) {
      MutexLock lock(&t->mu);
      t->sink_status = std::move(st);
      return 0;  // aborts only this transfer
    }
    t->bytes += len;
    return len;
  }
  MutexLock lock(&t->mu);
  if (!t->sink_status.ok()) return 0;  // aborts only this transfer
  // (A retry on a file:// host of a handed-off transfer cannot pause; its
  // body is a local file's.)
  if (t->body.size() >= kMaxQueuedBody && !IsFileUrl(t->url)) {
    t->paused = true;
    return CURL_WRITEFUNC_PAUSE;  // curl delivers `data` again on Resume
  }
  if (t->bodies != nullptr && t->body.capacity() < t->bodies->capacity())
    t->body = t->bodies->Take();
  const size_t before = t->body.size();
  t->body.append(data, len);
  if (before < kWakeBody && t->body.size() >= kWakeBody) t->cv.notify_one();
  t->bytes += len;
  return len;
}

void HttpFetcher::IoLoop::ReapFinished() {
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_.get(), &left)) {
    if (msg->msg == CURLMSG_DONE) OnDone(msg->easy_handle, msg->data.result);
  }
  StartWaiting();  // the slots freed, or a changed limit
}

void HttpFetcher::IoLoop::OnDone(CURL* curl, CURLcode code) {
  void* priv = nullptr;
  curl_easy_getinfo(curl, CURLINFO_PRIVATE, &priv);
  auto* t = static_cast<Transfer*>(priv);
  Status sink_status;
  {
    MutexLock lock(&t->mu);
    sink_status = t->sink_status;
  }
  // A sink error says nothing about the connection.
  if (sink_status.ok()) {
    const bool in_use =
        in_flight_.size() >= static_cast<size_t>(limit_.limit()) ||
        !waiting_demand_.empty() || !waiting_background_.empty();
    RecordConnection(*t, curl, code, in_use);
  }
  curl_multi_remove_handle(multi_.get(), curl);
  ReleaseHandle(curl);
  t->curl = nullptr;
  in_flight_.erase(t);
  if (t->request.background) --background_in_flight_;
  owner_->n_bytes_ += t->bytes;
  const auto elapsed = Clock::now() - t->started;
  if (!sink_status.ok()) {
    owner_->routes_.Record(t->route.host, t->route.proxy, elapsed, true,
                           t->bytes);
    Finish(t, std::move(sink_status));
    return;
  }
  const bool direct = t->route.direct();
  TransferFault fault = ClassifyCurlCode(code, direct);
  if (t->response_refused || (code == CURLE_OK && t->http_code / 100 != 2)) {
    fault = ClassifyHttpStatus(t->http_code, t->proxy_error, direct);
  }
  owner_->routes_.Record(
      t->route.host, t->route.proxy, elapsed,
      fault != TransferFault::kNone && fault != TransferFault::kNotFound,
      t->bytes);
  std::string what = Describe(*t, code);
  if (PastDeadline(*t, code)) {
    // Not retried on the same route: it had its whole allowance.
    fault = direct ? TransferFault::kHostHttp : TransferFault::kProxyHttp;
    what += "; exceeded the deadline of " +
            std::to_string(owner_->options_.metadata_deadline_ms) +
            " ms for signed files and catalogs";
  }
  Decide(t, fault, what);
}

bool HttpFetcher::IoLoop::PastDeadline(const Transfer& t, CURLcode code) const {
  const int deadline_ms = owner_->options_.metadata_deadline_ms;
  if (code != CURLE_OPERATION_TIMEDOUT || !t.request.metadata ||
      deadline_ms <= 0)
    return false;
  // curl measures from a moment a little after `started` and reads its
  // clock before ours, which may show a millisecond less than the deadline;
  // the slack also counts a low-speed timeout that ends within it as the
  // deadline (slow either way).
  constexpr std::chrono::milliseconds kSlack{10};
  return Clock::now() - t.started + kSlack >=
         std::chrono::milliseconds(deadline_ms);
}

std::string HttpFetcher::IoLoop::Describe(const Transfer& t,
                                          CURLcode code) const {
  std::string what = t.url + " (proxy " + t.route.proxy + "): ";
  if (t.response_refused) {
    what += "HTTP " + std::to_string(t.http_code);
    if (t.proxy_error) what += " (error reported by the proxy)";
    return what;
  }
  what += t.error_buffer[0] != '\0' ? t.error_buffer : curl_easy_strerror(code);
  return what + " (curl error " + std::to_string(static_cast<int>(code)) + ")";
}

void HttpFetcher::IoLoop::Decide(Transfer* t, TransferFault fault,
                                 const std::string& what) {
  switch (fault) {
    case TransferFault::kNone:
      Finish(t, Status::Ok());
      return;
    case TransferFault::kNotFound:
      Finish(t, Status::NotFound(what));
      return;
    case TransferFault::kOther:
      Finish(t, Status::Unavailable("failed to download " + what));
      return;
    default:
      break;
  }
  if (IsRetryable(fault) && t->retries < owner_->options_.max_retries) {
    ScheduleRetry(t);
    return;
  }
  if (TryFailover(t, fault, what)) return;
  Finish(t, Status::Unavailable("failed to download " + what + "; tried " +
                                std::to_string(t->used_hosts) + " host(s), " +
                                std::to_string(t->retries) + " retry(ies)"));
}

// CVMFS's order: the next proxy while this request has not tried them all,
// then (proxies reset to the first group) the next host while it has not
// tried them all. Returns false when there is nothing left to try.
bool HttpFetcher::IoLoop::TryFailover(Transfer* t, TransferFault fault,
                                      const std::string& why) {
  FailoverState& failover = owner_->failover_;
  const auto& report = owner_->options_.on_failover;
  if (IsProxyFault(fault) && t->used_proxies < failover.num_proxies()) {
    if (failover.SwitchProxyFrom(t->route)) {
      owner_->n_failovers_++;
      if (report)
        report("switching proxy from " + t->route.proxy + " to " +
               failover.CurrentProxy() + " (" + why + ")");
    }
    t->used_proxies++;
    Restart(t);
    return true;
  }
  // A request to one given server has no other host to go to.
  if (!t->request.host.empty()) return false;
  if (t->used_hosts >= failover.num_hosts()) return false;
  if (IsProxyFault(fault)) {
    failover.ResetProxies();
    t->used_proxies = 1;
  }
  if (failover.SwitchHostFrom(t->route)) {
    owner_->n_failovers_++;
    if (report)
      report("switching host from " + t->route.host + " to " +
             failover.CurrentHost() + " (" + why + ")");
  }
  t->used_hosts++;
  Restart(t);
  return true;
}

void HttpFetcher::IoLoop::ScheduleRetry(Transfer* t) {
  const HttpFetcherOptions& opt = owner_->options_;
  if (t->backoff_ms == 0) {
    std::uniform_int_distribution<int> jitter(1,
                                              std::max(1, opt.backoff_init_ms));
    t->backoff_ms = jitter(prng_);
  } else {
    t->backoff_ms *= 2;
  }
  t->backoff_ms = std::min(t->backoff_ms, opt.backoff_max_ms);
  t->retries++;
  owner_->n_retries_++;
  retry_timers_.emplace(Clock::now() + std::chrono::milliseconds(t->backoff_ms),
                        t);
}

void HttpFetcher::IoLoop::StartDueRetries() {
  const Clock::time_point now = Clock::now();
  while (!retry_timers_.empty() && retry_timers_.begin()->first <= now) {
    Transfer* t = retry_timers_.begin()->second;
    retry_timers_.erase(retry_timers_.begin());
    Restart(t);
  }
}

// The body starts over: what the caller has not taken yet is dropped, and
// the sink forgets what it got before the caller takes anything new.
void HttpFetcher::IoLoop::Restart(Transfer* t) {
  if (t->handed_off) {
    MutexLock lock(&t->mu);
    t->body.clear();
    t->resets++;
    t->paused = false;
    t->cv.notify_one();
  } else {
    t->sink->Reset();
  }
  Admit(t, /*front=*/true);
}

int HttpFetcher::IoLoop::PollTimeoutMs() const {
  if (retry_timers_.empty()) return kMaxPollMs;
  auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
      retry_timers_.begin()->first - Clock::now());
  return static_cast<int>(std::clamp<int64_t>(wait.count() + 1, 0, kMaxPollMs));
}

void HttpFetcher::IoLoop::Finish(Transfer* t, Status status) {
  if (!status.ok() && !status.IsNotFound()) owner_->n_errors_++;
  MutexLock lock(&t->mu);
  t->result.status = std::move(status);
  t->result.host = t->route.host;
  t->result.proxy = t->route.proxy;
  t->result.bytes = t->bytes;
  t->result.http_code = t->http_code;
  t->done = true;
  // Notify under the lock: once it is released the caller may return and
  // destroy *t.
  t->cv.notify_one();
}

void HttpFetcher::IoLoop::FailAll() {
  std::vector<Transfer*> pending(in_flight_.begin(), in_flight_.end());
  for (Transfer* t : pending) {
    curl_multi_remove_handle(multi_.get(), t->curl);
    ReleaseHandle(t->curl);
    t->curl = nullptr;
  }
  in_flight_.clear();
  background_in_flight_ = 0;
  pending.insert(pending.end(), waiting_demand_.begin(), waiting_demand_.end());
  pending.insert(pending.end(), waiting_background_.begin(),
                 waiting_background_.end());
  waiting_demand_.clear();
  waiting_background_.clear();
  for (const auto& timer : retry_timers_) pending.push_back(timer.second);
  retry_timers_.clear();
  {
    MutexLock lock(&mu_);
    pending.insert(pending.end(), incoming_.begin(), incoming_.end());
    incoming_.clear();
  }
  for (Transfer* t : pending) {
    Finish(t, Status::Unavailable("download of " + t->request.url_path +
                                  " cancelled: HTTP fetcher shut down"));
  }
}

CURL* HttpFetcher::IoLoop::AcquireHandle() {
  if (idle_handles_.empty()) return curl_easy_init();
  CURL* curl = idle_handles_.back().release();
  idle_handles_.pop_back();
  return curl;
}

void HttpFetcher::IoLoop::ReleaseHandle(CURL* curl) {
  CurlEasyPtr owner(curl);
  if (idle_handles_.size() <
      static_cast<size_t>(owner_->options_.max_connections)) {
    idle_handles_.push_back(std::move(owner));
  }
}

}  // namespace cvmfs
