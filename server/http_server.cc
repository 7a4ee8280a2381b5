#include "server/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <string_view>
#include <thread>

#include "cvmfs/clock.h"
#include "cvmfs/mutex.h"
#include "server/access_log.h"
#include "server/header_deadlines.h"
#include "server/reply.h"
#include "server/request_target.h"
#include "server/serve_metrics.h"
#include "server/storage_root.h"

namespace server {
namespace {

using cvmfs::Result;
using cvmfs::Status;

constexpr std::string_view kUrlPrefix = "/cvmfs/";

// Lives from the request line to the end of the response (MHD's per-request
// context), then becomes an access log line.
struct Request {
  AccessRecord record;
  cvmfs::Clock::TimePoint started;  // the request line arrived
  bool headers_complete = false;
};

// libmicrohttpd's message for a connection it closes at once because of
// MHD_OPTION_CONNECTION_LIMIT or MHD_OPTION_PER_IP_CONNECTION_LIMIT (the
// library has no other hook for it; daemon.c, internal_add_connection).
constexpr std::string_view kRefusedMessage = "Server reached connection limit";

Status CheckMetricsPath(const std::string& path) {
  if (path.empty()) return Status::Ok();
  if (path[0] != '/' || path == "/" || path == "/cvmfs" ||
      path.compare(0, kUrlPrefix.size(), kUrlPrefix) == 0)
    return Status::InvalidArgument(
        "metrics path '" + path +
        "' must be an absolute path other than / and outside /cvmfs/");
  return Status::Ok();
}

struct ListenAddress {
  sockaddr_storage storage{};
  bool ipv6 = false;
  std::string url_host;  // "127.0.0.1", "[::1]"
};

Result<ListenAddress> ParseListenAddress(const std::string& address,
                                         uint16_t port) {
  ListenAddress out;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&out.storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&out.storage);
  if (inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    out.url_host = address;
  } else if (inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    out.ipv6 = true;
    out.url_host = "[" + address + "]";
  } else {
    return Status::InvalidArgument("listen address '" + address +
                                   "' is not a numeric IPv4 or IPv6 address");
  }
  return out;
}

std::string ClientAddress(MHD_Connection* c) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == nullptr || info->client_addr == nullptr) return "-";
  char buf[INET6_ADDRSTRLEN] = "-";
  const sockaddr* sa = info->client_addr;
  if (sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, buf,
              sizeof(buf));
  else if (sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr,
              buf, sizeof(buf));
  return buf;
}

// The deadline record of a connection (OnConnection put it there).
HeaderDeadlines::Connection* Tracked(MHD_Connection* c) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info == nullptr
             ? nullptr
             : static_cast<HeaderDeadlines::Connection*>(info->socket_context);
}

bool IsGetOrHead(std::string_view method) {
  return method == MHD_HTTP_METHOD_GET || method == MHD_HTTP_METHOD_HEAD;
}

// The request announces a body (RFC 9112 6.1-6.3).
bool HasBody(MHD_Connection* c) {
  if (MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                  MHD_HTTP_HEADER_TRANSFER_ENCODING) != nullptr)
    return true;
  const char* length = MHD_lookup_connection_value(
      c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
  return length != nullptr && std::string_view(length).find_first_not_of(
                                  "0 \t") != std::string_view::npos;
}

}  // namespace

class HttpServer::Impl {
 public:
  Status Init(const HttpServerOptions& options);
  Status Listen(const HttpServerOptions& options, const ListenAddress& addr);
  ~Impl() {
    StopReaper();
    if (daemon_ != nullptr) MHD_stop_daemon(daemon_);
  }

  uint16_t port() const { return port_; }
  const std::string& url_host() const { return url_host_; }

 private:
  static void* OnRequestLine(void* cls, const char* uri, MHD_Connection* c);
  static MHD_Result OnRequest(void* cls, MHD_Connection* c, const char* url,
                              const char* method, const char* version,
                              const char* upload_data, size_t* upload_data_size,
                              void** context);
  static void OnCompleted(void* cls, MHD_Connection* c, void** context,
                          MHD_RequestTerminationCode code);
  static void OnConnection(void* cls, MHD_Connection* c, void** socket_context,
                           MHD_ConnectionNotificationCode code);
  static void OnLibraryMessage(void* cls, const char* format, va_list ap);

  // Cuts connections past their header deadline until StopReaper().
  void StartReaper(std::chrono::milliseconds tick);
  void StopReaper();

  MHD_Result Answer(MHD_Connection* c, Request* request, const char* url,
                    const char* method);
  Reply Serve(MHD_Connection* c, std::string_view url, std::string_view method);
  Reply AnswerGeo(MHD_Connection* c, std::string_view path) const;
  Result<OpenedFile> Lookup(std::string_view url,
                            std::string_view* storage_path) const;

  // Filled by Init(), then read-only while the daemon runs.
  std::map<std::string, StorageRoot, std::less<>> roots_;
  std::unique_ptr<AccessLog> access_log_;
  std::unique_ptr<HeaderDeadlines> deadlines_;
  std::unique_ptr<ServeMetrics> metrics_;
  std::string metrics_path_;               // "" for no metrics page
  std::shared_ptr<const GeoApi> geo_api_;  // null: no Geo-API
  std::string url_host_;
  uint16_t port_ = 0;
  MHD_Daemon* daemon_ = nullptr;

  // Guards the members below (MHD threads log); a leaf lock.
  cvmfs::Mutex mu_;
  std::string last_message_ GUARDED_BY(mu_);
  // A message repeating within the second it was printed in (one per
  // refused connection during a flood) is counted, not printed.
  time_t last_printed_ GUARDED_BY(mu_) = 0;
  unsigned long repeats_ GUARDED_BY(mu_) = 0;
  // Set once MHD_start_daemon() has returned.
  bool running_ GUARDED_BY(mu_) = false;

  std::thread reaper_;
  // Guards stop_reaper_; a leaf lock.
  cvmfs::Mutex reaper_mu_;
  std::condition_variable reaper_cv_;  // stop_reaper_ was set
  bool stop_reaper_ GUARDED_BY(reaper_mu_) = false;
};

Status HttpServer::Impl::Init(const HttpServerOptions& options) {
  if (options.repositories.empty())
    return Status::InvalidArgument("no repository to serve");
  for (const ServedRepository& repo : options.repositories) {
    if (repo.fqrn.empty() || repo.fqrn.find('/') != std::string::npos ||
        repo.fqrn[0] == '.')
      return Status::InvalidArgument("invalid repository name '" + repo.fqrn +
                                     "'");
    auto root = StorageRoot::Open(repo.storage_dir);
    if (!root.ok()) return root.status().Annotate("repository " + repo.fqrn);
    roots_.insert_or_assign(repo.fqrn, std::move(*root));
  }
  if (!options.access_log.empty()) {
    CVMFS_ASSIGN_OR_RETURN(access_log_, AccessLog::Open(options.access_log));
  }
  CVMFS_RETURN_IF_ERROR(CheckMetricsPath(options.metrics_path));
  metrics_path_ = options.metrics_path;
  geo_api_ = options.geo_api;
  metrics_ = std::make_unique<ServeMetrics>(cvmfs::SteadyClock());
  if (options.header_timeout_seconds == 0)
    return Status::InvalidArgument("the header timeout must be at least 1 s");
  deadlines_ = std::make_unique<HeaderDeadlines>(
      cvmfs::SteadyClock(),
      std::chrono::seconds(options.header_timeout_seconds),
      std::chrono::seconds(options.idle_timeout_seconds));
  return Status::Ok();
}

Status HttpServer::Impl::Listen(const HttpServerOptions& options,
                                const ListenAddress& addr) {
  unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
  if (addr.ipv6) flags |= MHD_USE_IPv6;
  unsigned threads = options.threads == 0 ? 1 : options.threads;
  daemon_ = MHD_start_daemon(
      // The port is in the address; MHD uses this one in its messages.
      flags, options.port, nullptr, nullptr, &Impl::OnRequest, this,
      MHD_OPTION_EXTERNAL_LOGGER, &Impl::OnLibraryMessage, this,
      MHD_OPTION_SOCK_ADDR, reinterpret_cast<const sockaddr*>(&addr.storage),
      MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_LIMIT,
      options.max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
      options.max_connections_per_address, MHD_OPTION_CONNECTION_TIMEOUT,
      options.idle_timeout_seconds, MHD_OPTION_URI_LOG_CALLBACK,
      &Impl::OnRequestLine, this, MHD_OPTION_NOTIFY_CONNECTION,
      &Impl::OnConnection, this, MHD_OPTION_NOTIFY_COMPLETED,
      &Impl::OnCompleted, this, MHD_OPTION_END);
  std::string where = addr.url_host + ":" + std::to_string(options.port);
  if (daemon_ == nullptr) {
    cvmfs::MutexLock lock(&mu_);
    return Status::Unavailable(
        "cannot serve on " + where + ": " +
        (last_message_.empty() ? "libmicrohttpd failed" : last_message_));
  }
  const MHD_DaemonInfo* info =
      MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
  port_ = info != nullptr ? info->port : options.port;
  url_host_ = addr.url_host;
  // A tenth of the timeout: a connection is cut at most 10% late.
  StartReaper(std::clamp(
      std::chrono::milliseconds(100 * options.header_timeout_seconds),
      std::chrono::milliseconds(50), std::chrono::milliseconds(1000)));
  cvmfs::MutexLock lock(&mu_);
  running_ = true;
  return Status::Ok();
}

void HttpServer::Impl::StartReaper(std::chrono::milliseconds tick) {
  reaper_ = std::thread([this, tick] {
    for (;;) {
      {
        cvmfs::MutexLock lock(&reaper_mu_);
        if (!stop_reaper_) lock.WaitFor(&reaper_cv_, tick);
        if (stop_reaper_) return;
      }
      metrics_->HeadersTimedOut(deadlines_->CutOverdue());
    }
  });
}

void HttpServer::Impl::StopReaper() {
  if (!reaper_.joinable()) return;
  {
    cvmfs::MutexLock lock(&reaper_mu_);
    stop_reaper_ = true;
  }
  reaper_cv_.notify_all();
  reaper_.join();
}

// Called before the library closes the socket (daemon.c: the CLOSED
// notification precedes the close), which HeaderDeadlines relies on.
void HttpServer::Impl::OnConnection(void* cls, MHD_Connection* c,
                                    void** socket_context,
                                    MHD_ConnectionNotificationCode code) {
  auto* self = static_cast<Impl*>(cls);
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    self->metrics_->ConnectionOpened();
    const MHD_ConnectionInfo* info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info != nullptr)
      *socket_context = self->deadlines_->Opened(info->connect_fd);
  } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
    self->metrics_->ConnectionClosed();
    if (*socket_context != nullptr)
      self->deadlines_->Closed(
          static_cast<HeaderDeadlines::Connection*>(*socket_context));
    *socket_context = nullptr;
  }
}

void HttpServer::Impl::OnLibraryMessage(void* cls, const char* format,
                                        va_list ap) {
  char buf[512];
  std::vsnprintf(buf, sizeof(buf), format, ap);
  std::string message(buf);
  while (!message.empty() && message.back() == '\n') message.pop_back();
  auto* self = static_cast<Impl*>(cls);
  if (message.compare(0, kRefusedMessage.size(), kRefusedMessage) == 0 &&
      self->metrics_)
    self->metrics_->ConnectionRefused();
  cvmfs::MutexLock lock(&self->mu_);
  time_t now = ::time(nullptr);
  if (message == self->last_message_ && now == self->last_printed_) {
    ++self->repeats_;
    return;
  }
  self->last_message_ = message;
  // Before the daemon runs, Listen() reports the message itself.
  if (!self->running_) return;
  if (self->repeats_ != 0)
    std::fprintf(stderr,
                 "cvmfs_server serve: (the last message %lu times more)\n",
                 self->repeats_);
  self->repeats_ = 0;
  self->last_printed_ = now;
  std::fprintf(stderr, "cvmfs_server serve: %s\n", message.c_str());
}

void* HttpServer::Impl::OnRequestLine(void* cls, const char* uri,
                                      MHD_Connection* c) {
  if (HeaderDeadlines::Connection* tracked = Tracked(c))
    static_cast<Impl*>(cls)->deadlines_->RequestLineReceived(tracked);
  auto* request = new Request;
  request->started = cvmfs::SteadyClock()->Now();
  request->record.time = ::time(nullptr);
  request->record.target = uri;
  request->record.client = ClientAddress(c);
  return request;
}

MHD_Result HttpServer::Impl::OnRequest(void* cls, MHD_Connection* c,
                                       const char* url, const char* method,
                                       const char* version, const char*,
                                       size_t* upload_data_size,
                                       void** context) {
  auto* self = static_cast<Impl*>(cls);
  auto* request = static_cast<Request*>(*context);
  if (request == nullptr) return MHD_NO;  // OnRequestLine always sets it
  // First call: headers only.
  if (!request->headers_complete) {
    request->headers_complete = true;
    request->record.method = method;
    request->record.version = version;
    if (HeaderDeadlines::Connection* tracked = Tracked(c))
      self->deadlines_->HeadersComplete(tracked);
    // Answering now makes MHD skip the body and close the connection after
    // the answer: right for a method we refuse and for a body we have no use
    // for (never read a large upload just to refuse it).
    if (!IsGetOrHead(method) || HasBody(c))
      return self->Answer(c, request, url, method);
    // Otherwise the answer waits for the (empty) body, which keeps the
    // connection alive.
    return MHD_YES;
  }
  if (*upload_data_size != 0) {  // not announced, so not expected
    *upload_data_size = 0;
    return MHD_YES;
  }
  return self->Answer(c, request, url, method);
}

MHD_Result HttpServer::Impl::Answer(MHD_Connection* c, Request* request,
                                    const char* url, const char* method) {
  Reply reply = Serve(c, url, method);
  request->record.status = reply.status;
  bool head = std::strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
  request->record.body_bytes = head ? 0 : reply.body_bytes;
  if (!reply.response) return MHD_NO;
  return MHD_queue_response(c, reply.status, reply.response.get());
}

void HttpServer::Impl::OnCompleted(void* cls, MHD_Connection* c, void** context,
                                   MHD_RequestTerminationCode) {
  std::unique_ptr<Request> request(static_cast<Request*>(*context));
  *context = nullptr;
  auto* self = static_cast<Impl*>(cls);
  if (HeaderDeadlines::Connection* tracked = Tracked(c))
    self->deadlines_->RequestDone(tracked);
  // Requests MHD rejected before our handler ran have no status to log.
  if (!request || request->record.status == 0) return;
  self->metrics_->RequestDone(request->record.status,
                              request->record.body_bytes,
                              cvmfs::SteadyClock()->Now() - request->started);
  if (self->access_log_) self->access_log_->Write(request->record);
}

Reply HttpServer::Impl::Serve(MHD_Connection* c, std::string_view url,
                              std::string_view method) {
  if (!IsGetOrHead(method)) return MethodNotAllowed();
  if (!metrics_path_.empty() && RequestPath(url) == metrics_path_)
    return MetricsReply(metrics_->Render());
  const std::string_view path = RequestPath(url);
  if (geo_api_ && path.substr(0, kUrlPrefix.size()) == kUrlPrefix &&
      GeoApi::IsApiPath(path.substr(kUrlPrefix.size())))
    return AnswerGeo(c, path.substr(kUrlPrefix.size()));
  std::string_view storage_path;
  auto file = Lookup(url, &storage_path);
  if (!file.ok()) return ErrorReply(file.status());
  return FileReply(c, storage_path, std::move(*file));
}

Reply HttpServer::Impl::AnswerGeo(MHD_Connection* c,
                                  std::string_view path) const {
  auto header = [c](const char* name) -> std::optional<std::string> {
    const char* value = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
  GeoRequest request;
  request.path = path;
  request.remote_address = ClientAddress(c);
  request.forwarded_for = header("X-Forwarded-For");
  request.cf_connecting_ip = header("CF-Connecting-IP");
  const GeoAnswer answer = geo_api_->Answer(request);
  return GeoReply(answer.status, answer.body, answer.max_age_s);
}

// url is "/cvmfs/FQRN/<storage_path>" or the same in absolute-form
// ("http://host/cvmfs/..."), already percent-decoded by MHD.
Result<OpenedFile> HttpServer::Impl::Lookup(
    std::string_view url, std::string_view* storage_path) const {
  url = RequestPath(url);
  if (url.substr(0, kUrlPrefix.size()) != kUrlPrefix)
    return Status::NotFound("outside /cvmfs/");
  url.remove_prefix(kUrlPrefix.size());
  size_t slash = url.find('/');
  auto root = roots_.find(url.substr(0, slash));
  if (root == roots_.end()) return Status::NotFound("unknown repository");
  *storage_path = slash == std::string_view::npos ? std::string_view()
                                                  : url.substr(slash + 1);
  return root->second.OpenFile(*storage_path);
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;

Result<std::unique_ptr<HttpServer>> HttpServer::Start(
    const HttpServerOptions& options) {
  CVMFS_ASSIGN_OR_RETURN(ListenAddress addr,
                         ParseListenAddress(options.address, options.port));
  auto impl = std::make_unique<Impl>();
  CVMFS_RETURN_IF_ERROR(impl->Init(options));
  CVMFS_RETURN_IF_ERROR(impl->Listen(options, addr));
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

uint16_t HttpServer::port() const { return impl_->port(); }

std::string HttpServer::BaseUrl() const {
  return "http://" + impl_->url_host() + ":" + std::to_string(port());
}

std::string HttpServer::RepositoryUrl(const std::string& fqrn) const {
  return BaseUrl() + "/cvmfs/" + fqrn;
}

}  // namespace server
