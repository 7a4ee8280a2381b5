// Test helpers for HTTP clients: an HTTP server on 127.0.0.1 (libmicrohttpd)
// that serves a map of paths and records what it saw, a port where nothing
// listens, a listener that never answers, and the fetcher options and
// bodies the HTTP tests share (cvmfs/network/http_*_test.cc).
#ifndef TESTING_HTTP_TEST_SERVER_H_
#define TESTING_HTTP_TEST_SERVER_H_

#include <microhttpd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/mutex.h"
#include "cvmfs/network/http_fetcher.h"

namespace cvmfs::testing {

// The repository path the servers below serve under.
inline constexpr char kTestRepo[] = "/cvmfs/repo.example.org";

// An HTTP server on 127.0.0.1 with an ephemeral port, one thread per
// connection, that serves a map of paths and records what it saw. As a
// proxy it accepts absolute-form targets ("GET http://host/path").
class HttpTestServer {
 public:
  HttpTestServer();
  ~HttpTestServer();
  HttpTestServer(const HttpTestServer&) = delete;
  HttpTestServer& operator=(const HttpTestServer&) = delete;

  bool ok() const { return daemon_ != nullptr; }
  std::string Origin() const {
    return "http://127.0.0.1:" + std::to_string(port_);
  }
  std::string RepoUrl() const { return Origin() + kTestRepo; }

  void Put(const std::string& rel, std::string body);
  // Every request is answered with `code` (0: serve files normally).
  void set_status(int code, bool squid_error = false) {
    status_ = code;
    squid_error_ = squid_error;
  }
  void set_delay_ms(int ms) { delay_ms_ = ms; }
  // `rel` announces `size` bytes but the connection breaks after `sent`.
  void BreakAfter(const std::string& rel, size_t size, size_t sent);
  // `rel` is `size` bytes of 'x' sent `step` bytes at a time, one step every
  // `step_ms` milliseconds: a server trickling just above a low-speed limit.
  void Trickle(const std::string& rel, size_t size, size_t step, int step_ms);

  int connections() const { return connections_; }
  int requests() const { return requests_; }
  int max_concurrent() const { return max_concurrent_; }
  // Most TCP connections open at once.
  int max_open_connections() const { return max_open_; }
  // Paths in the order their requests arrived.
  std::vector<std::string> request_order();
  int requests_for(const std::string& rel);
  std::map<std::string, std::string> last_headers();
  std::string last_target();

 private:
  struct Break {
    size_t size, sent;
  };
  struct TrickleSpec {
    size_t size, step;
    int step_ms;
  };

  static void OnConnection(void* cls, MHD_Connection*, void**,
                           MHD_ConnectionNotificationCode code);
  static MHD_Result CollectHeader(void* cls, MHD_ValueKind, const char* key,
                                  const char* value);
  static ssize_t ReadBroken(void* cls, uint64_t pos, char* buf, size_t max);
  static ssize_t ReadTrickle(void* cls, uint64_t pos, char* buf, size_t max);
  static MHD_Result OnRequest(void* cls, MHD_Connection* c, const char* url,
                              const char*, const char*, const char*, size_t*,
                              void** request_state);
  MHD_Result Serve(MHD_Connection* c, std::string target);
  MHD_Response* MakeResponse(MHD_Connection* c, const std::string& target,
                             const std::string& path, unsigned* code);

  MHD_Daemon* daemon_ = nullptr;
  uint16_t port_ = 0;
  std::atomic<int> status_{0};
  std::atomic<bool> squid_error_{false};
  std::atomic<int> delay_ms_{0};
  std::atomic<int> connections_{0}, requests_{0};
  std::atomic<int> in_flight_{0}, max_concurrent_{0};
  std::atomic<int> open_{0}, max_open_{0};
  Mutex mu_;  // guards the members below; leaf lock
  std::map<std::string, std::string> files_ GUARDED_BY(mu_);
  std::map<std::string, Break> broken_ GUARDED_BY(mu_);
  std::map<std::string, TrickleSpec> trickled_ GUARDED_BY(mu_);
  std::map<std::string, int> per_path_ GUARDED_BY(mu_);
  std::map<std::string, std::string> last_headers_ GUARDED_BY(mu_);
  std::string last_target_ GUARDED_BY(mu_);
  std::vector<std::string> order_ GUARDED_BY(mu_);
};

// A port on 127.0.0.1 where nothing listens (connections are refused).
uint16_t ClosedPort();
// A repository URL on ClosedPort().
std::string DeadHost();

// Accepts TCP connections (in the kernel backlog) but never answers.
class SilentListener {
 public:
  SilentListener();
  ~SilentListener();
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;
  std::string Url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + kTestRepo;
  }

 private:
  int fd_;
  uint16_t port_ = 0;
};

// `size` pseudo-random bytes, the same for the same seed.
std::string Pattern(size_t size, unsigned seed);

// Options for `hosts` with short timeouts and backoffs.
HttpFetcherOptions FastOptions(std::vector<std::string> hosts);

// HttpFetcher::Create, with a test failure (and null) if it fails.
std::unique_ptr<HttpFetcher> MakeFetcher(HttpFetcherOptions options);

}  // namespace cvmfs::testing

#endif  // TESTING_HTTP_TEST_SERVER_H_
