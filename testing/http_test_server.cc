#include "testing/http_test_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

namespace cvmfs::testing {

HttpTestServer::HttpTestServer() {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  daemon_ = MHD_start_daemon(
      MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
          MHD_USE_AUTO,
      0, nullptr, nullptr, &HttpTestServer::OnRequest, this,
      MHD_OPTION_SOCK_ADDR, &addr, MHD_OPTION_NOTIFY_CONNECTION,
      &HttpTestServer::OnConnection, this, MHD_OPTION_END);
  if (daemon_ != nullptr) {
    port_ = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT)->port;
  }
}

HttpTestServer::~HttpTestServer() {
  if (daemon_ != nullptr) MHD_stop_daemon(daemon_);
}

void HttpTestServer::Put(const std::string& rel, std::string body) {
  MutexLock lock(&mu_);
  files_[std::string(kTestRepo) + "/" + rel] = std::move(body);
}

void HttpTestServer::BreakAfter(const std::string& rel, size_t size,
                                size_t sent) {
  MutexLock lock(&mu_);
  broken_[std::string(kTestRepo) + "/" + rel] = {size, sent};
}

void HttpTestServer::Trickle(const std::string& rel, size_t size, size_t step,
                             int step_ms) {
  MutexLock lock(&mu_);
  trickled_[std::string(kTestRepo) + "/" + rel] = {size, step, step_ms};
}

int HttpTestServer::requests_for(const std::string& rel) {
  MutexLock lock(&mu_);
  return per_path_[std::string(kTestRepo) + "/" + rel];
}

std::map<std::string, std::string> HttpTestServer::last_headers() {
  MutexLock lock(&mu_);
  return last_headers_;
}

std::vector<std::string> HttpTestServer::request_order() {
  MutexLock lock(&mu_);
  return order_;
}

std::string HttpTestServer::last_target() {
  MutexLock lock(&mu_);
  return last_target_;
}

void HttpTestServer::OnConnection(void* cls, MHD_Connection*, void**,
                                  MHD_ConnectionNotificationCode code) {
  auto* server = static_cast<HttpTestServer*>(cls);
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    server->connections_++;
    const int now = ++server->open_;
    int seen = server->max_open_.load();
    while (now > seen && !server->max_open_.compare_exchange_weak(seen, now)) {
    }
  } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
    server->open_--;
  }
}

MHD_Result HttpTestServer::CollectHeader(void* cls, MHD_ValueKind,
                                         const char* key, const char* value) {
  (*static_cast<std::map<std::string, std::string>*>(cls))[key] =
      value ? value : "";
  return MHD_YES;
}

ssize_t HttpTestServer::ReadBroken(void* cls, uint64_t pos, char* buf,
                                   size_t max) {
  auto* b = static_cast<Break*>(cls);
  if (pos >= b->sent) return MHD_CONTENT_READER_END_WITH_ERROR;
  size_t n = std::min<size_t>(max, b->sent - pos);
  std::fill(buf, buf + n, 'x');
  return static_cast<ssize_t>(n);
}

// Called by MHD's thread of the connection whenever it can send more; the
// sleep before each step after the first is the trickle. A client that
// gave up makes the next send fail, and MHD closes the connection.
ssize_t HttpTestServer::ReadTrickle(void* cls, uint64_t pos, char* buf,
                                    size_t max) {
  auto* t = static_cast<TrickleSpec*>(cls);
  if (pos >= t->size) return MHD_CONTENT_READER_END_OF_STREAM;
  if (pos > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(t->step_ms));
  size_t n = std::min({max, t->step, static_cast<size_t>(t->size - pos)});
  std::fill(buf, buf + n, 'x');
  return static_cast<ssize_t>(n);
}

// Answers on the second call for a request: a response queued on the first
// one (before the request is complete) makes MHD close the connection, and
// keep-alive is under test.
MHD_Result HttpTestServer::OnRequest(void* cls, MHD_Connection* c,
                                     const char* url, const char*, const char*,
                                     const char*, size_t*,
                                     void** request_state) {
  auto* server = static_cast<HttpTestServer*>(cls);
  if (*request_state == nullptr) {
    *request_state = server;
    return MHD_YES;
  }
  return server->Serve(c, url);
}

MHD_Result HttpTestServer::Serve(MHD_Connection* c, std::string target) {
  std::string path = target;
  if (path.rfind("http://", 0) == 0) {  // proxy request
    size_t slash = path.find('/', 7);
    path = slash == std::string::npos ? "/" : path.substr(slash);
  }
  const int now = ++in_flight_;
  int seen = max_concurrent_.load();
  while (now > seen && !max_concurrent_.compare_exchange_weak(seen, now)) {
  }
  if (delay_ms_ > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
  in_flight_--;
  requests_++;
  unsigned code = MHD_HTTP_OK;
  MHD_Response* response = MakeResponse(c, target, path, &code);
  MHD_Result ret = MHD_queue_response(c, code, response);
  MHD_destroy_response(response);
  return ret;
}

MHD_Response* HttpTestServer::MakeResponse(MHD_Connection* c,
                                           const std::string& target,
                                           const std::string& path,
                                           unsigned* code) {
  MutexLock lock(&mu_);
  per_path_[path]++;
  order_.push_back(path);
  last_target_ = target;
  last_headers_.clear();
  MHD_get_connection_values(c, MHD_HEADER_KIND, &CollectHeader, &last_headers_);
  auto broken = broken_.find(path);
  auto trickled = trickled_.find(path);
  auto file = files_.find(path);
  std::string body;
  if (status_ != 0) {
    *code = status_;
    body = "error page";
  } else if (broken != broken_.end()) {
    return MHD_create_response_from_callback(
        broken->second.size, 4096, &ReadBroken, &broken->second, nullptr);
  } else if (trickled != trickled_.end()) {
    return MHD_create_response_from_callback(
        trickled->second.size, 4096, &ReadTrickle, &trickled->second, nullptr);
  } else if (file != files_.end()) {
    body = file->second;
  } else {
    *code = MHD_HTTP_NOT_FOUND;
    body = "not found";
  }
  MHD_Response* r = MHD_create_response_from_buffer(body.size(), body.data(),
                                                    MHD_RESPMEM_MUST_COPY);
  if (squid_error_) MHD_add_response_header(r, "X-Squid-Error", "ERR_X 0");
  return r;
}

uint16_t ClosedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::string DeadHost() {
  return "http://127.0.0.1:" + std::to_string(ClosedPort()) + kTestRepo;
}

SilentListener::SilentListener() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::listen(fd_, 16);
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
}

SilentListener::~SilentListener() { ::close(fd_); }

std::string Pattern(size_t size, unsigned seed) {
  std::string s(size, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (char& c : s) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

HttpFetcherOptions FastOptions(std::vector<std::string> hosts) {
  HttpFetcherOptions o;
  o.hosts = std::move(hosts);
  o.timeout_s = o.timeout_direct_s = 3;
  o.backoff_init_ms = 5;
  o.backoff_max_ms = 20;
  return o;
}

std::unique_ptr<HttpFetcher> MakeFetcher(HttpFetcherOptions options) {
  auto fetcher = HttpFetcher::Create(std::move(options));
  EXPECT_TRUE(fetcher.ok()) << fetcher.status().ToString();
  return fetcher.ok() ? std::move(fetcher).value() : nullptr;
}

}  // namespace cvmfs::testing
