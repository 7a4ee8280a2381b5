#include "server/http_server.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace server {
namespace {

const char kFqrn[] = "repo.test.org";
const char kObject[] = "data/ab/cdef0123456789abcdef0123456789abcdef01";

struct Response {
  long status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  long connects = 0;  // new connections this transfer opened
};

size_t OnBody(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

size_t OnHeader(char* data, size_t size, size_t n, void* out) {
  std::string line(data, size * n);
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(c));
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ')) value.erase(0, 1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n'))
      value.pop_back();
    (*static_cast<std::map<std::string, std::string>*>(out))[name] = value;
  }
  return size * n;
}

// One libcurl handle; reusing it reuses the connection (keep-alive).
class Client {
 public:
  Client() : curl_(curl_easy_init()) {}
  ~Client() { curl_easy_cleanup(curl_); }

  Response Get(const std::string& url, const std::string& range = "",
               const char* method = nullptr) {
    Response r;
    curl_easy_reset(curl_);
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_PATH_AS_IS, 1L);  // keep ".." as sent
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, &OnBody);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(curl_, CURLOPT_HEADERFUNCTION, &OnHeader);
    curl_easy_setopt(curl_, CURLOPT_HEADERDATA, &r.headers);
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT, 20L);
    if (!range.empty()) curl_easy_setopt(curl_, CURLOPT_RANGE, range.c_str());
    if (method != nullptr && std::string(method) == "HEAD")
      curl_easy_setopt(curl_, CURLOPT_NOBODY, 1L);
    else if (method != nullptr)
      curl_easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, method);
    CURLcode rc = curl_easy_perform(curl_);
    EXPECT_EQ(rc, CURLE_OK) << url << ": " << curl_easy_strerror(rc);
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &r.status);
    curl_easy_getinfo(curl_, CURLINFO_NUM_CONNECTS, &r.connects);
    return r;
  }

 private:
  CURL* curl_;
};

// A raw TCP connection to 127.0.0.1:port from `source` (any address of the
// loopback's 127/8), for requests libcurl will not send.
class RawConnection {
 public:
  RawConnection(uint16_t port, const char* source = "127.0.0.1")
      : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in from{};
    from.sin_family = AF_INET;
    inet_pton(AF_INET, source, &from.sin_addr);
    EXPECT_EQ(
        ::bind(fd_.get(), reinterpret_cast<sockaddr*>(&from), sizeof(from)), 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    EXPECT_EQ(
        ::connect(fd_.get(), reinterpret_cast<sockaddr*>(&to), sizeof(to)), 0);
  }

  bool Send(const std::string& data) {
    return ::send(fd_.get(), data.data(), data.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(data.size());
  }

  // What arrives until the server closes the connection or `timeout_ms`
  // pass; `closed` tells which.
  std::string ReadUntilClosed(int timeout_ms, bool* closed) {
    std::string out;
    *closed = false;
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(timeout_ms);
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{fd_.get(), POLLIN, 0};
      if (left.count() <= 0 ||
          ::poll(&p, 1, static_cast<int>(left.count())) <= 0)
        return out;
      char buf[4096];
      ssize_t n = ::recv(fd_.get(), buf, sizeof(buf), 0);
      if (n <= 0) {
        *closed = true;
        return out;
      }
      out.append(buf, static_cast<size_t>(n));
    }
  }

 private:
  cvmfs::UniqueFd fd_;
};

std::string Pattern(size_t size, unsigned seed) {
  std::string s(size, '\0');
  for (size_t i = 0; i < size; ++i)
    s[i] = static_cast<char>((i * 131 + seed * 7 + (i >> 8)) & 0xff);
  return s;
}

// Seconds between an HTTP date and now.
long SecondsFromNow(const std::string& http_date) {
  struct tm tm {};
  if (strptime(http_date.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm) == nullptr)
    return -1000000;
  return static_cast<long>(timegm(&tm) - ::time(nullptr));
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = tmp_.Sub("srv/" + std::string(kFqrn));
    manifest_ = "Cabc\nRdef\nS7\n--\nsignature";
    object_ = Pattern(300000, 1);
    Put(".cvmfspublished", manifest_);
    Put(".cvmfswhitelist", "whitelist");
    Put(kObject, object_);
    Put("data/ab/empty", "");
    Put("info/v1/meta.json", "{}");
    ASSERT_TRUE(cvmfs::WriteFileAtomic(tmp_.Sub("srv/secret"), "secret").ok());
    ASSERT_EQ(::symlink("../secret", (storage_ + "/escape").c_str()), 0);
    ASSERT_EQ(::mkfifo((storage_ + "/fifo").c_str(), 0644), 0);
    StartServer();
  }

  void StartServer(unsigned per_address = 64,
                   const std::string& metrics_path = "/metrics") {
    server_.reset();
    HttpServerOptions options;
    options.max_connections_per_address = per_address;
    options.metrics_path = metrics_path;
    options.port = 0;
    options.repositories = {{kFqrn, storage_}};
    options.access_log = tmp_.Sub("access.log");
    auto server = HttpServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    url_ = server_->RepositoryUrl(kFqrn);
  }

  void Put(const std::string& rel, const std::string& content) {
    std::string path = storage_ + "/" + rel;
    ASSERT_TRUE(cvmfs::MakeDirs(path.substr(0, path.rfind('/'))).ok());
    ASSERT_TRUE(cvmfs::WriteFileAtomic(path, content).ok());
  }

  cvmfs::testing::TempDir tmp_;
  std::string storage_, manifest_, object_, url_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, UrlsNameTheRepository) {
  EXPECT_NE(server_->port(), 0);
  EXPECT_EQ(url_, "http://127.0.0.1:" + std::to_string(server_->port()) +
                      "/cvmfs/" + kFqrn);
}

TEST_F(HttpServerTest, MetadataHeaders) {
  Client client;
  for (const char* name : {".cvmfspublished", ".cvmfswhitelist"}) {
    Response r = client.Get(url_ + "/" + name);
    EXPECT_EQ(r.status, 200) << name;
    EXPECT_EQ(r.headers["cache-control"], "max-age=61") << name;
    long expires_in = SecondsFromNow(r.headers["expires"]);
    EXPECT_GE(expires_in, 59) << r.headers["expires"];
    EXPECT_LE(expires_in, 62) << r.headers["expires"];
    EXPECT_EQ(r.headers["content-type"], "application/x-cvmfs");
    EXPECT_EQ(r.headers.count("etag"), 0u);
    EXPECT_EQ(r.headers.count("last-modified"), 0u);
  }
  EXPECT_EQ(client.Get(url_ + "/.cvmfspublished").body, manifest_);
}

TEST_F(HttpServerTest, ObjectHeadersAndBody) {
  Response r = Client().Get(url_ + "/" + kObject);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, object_);
  EXPECT_EQ(r.headers["content-length"], std::to_string(object_.size()));
  EXPECT_EQ(r.headers["cache-control"], "max-age=259200");
  long expires_in = SecondsFromNow(r.headers["expires"]);
  EXPECT_GE(expires_in, 259198);
  EXPECT_LE(expires_in, 259201);
  EXPECT_EQ(r.headers["content-type"], "application/octet-stream");
  EXPECT_EQ(r.headers["accept-ranges"], "bytes");
  EXPECT_EQ(r.headers.count("etag"), 0u);
  EXPECT_EQ(r.headers.count("last-modified"), 0u);
}

TEST_F(HttpServerTest, EmptyFileAndJson) {
  Client client;
  Response empty = client.Get(url_ + "/data/ab/empty");
  EXPECT_EQ(empty.status, 200);
  EXPECT_EQ(empty.body, "");
  EXPECT_EQ(empty.headers["content-length"], "0");
  Response json = client.Get(url_ + "/info/v1/meta.json");
  EXPECT_EQ(json.headers["content-type"], "application/json");
  EXPECT_EQ(json.headers["cache-control"], "max-age=61");
}

TEST_F(HttpServerTest, Head) {
  Response r = Client().Get(url_ + "/" + kObject, "", "HEAD");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
  EXPECT_EQ(r.headers["content-length"], std::to_string(object_.size()));
  EXPECT_EQ(r.headers["cache-control"], "max-age=259200");
}

TEST_F(HttpServerTest, SingleRange) {
  Client client;
  Response r = client.Get(url_ + "/" + kObject, "1000-1999");
  EXPECT_EQ(r.status, 206);
  EXPECT_EQ(r.body, object_.substr(1000, 1000));
  EXPECT_EQ(r.headers["content-range"],
            "bytes 1000-1999/" + std::to_string(object_.size()));
  EXPECT_EQ(r.headers["cache-control"], "max-age=259200");

  Response suffix = client.Get(url_ + "/" + kObject, "-10");
  EXPECT_EQ(suffix.status, 206);
  EXPECT_EQ(suffix.body, object_.substr(object_.size() - 10));

  Response open_end = client.Get(url_ + "/" + kObject, "299990-");
  EXPECT_EQ(open_end.status, 206);
  EXPECT_EQ(open_end.body, object_.substr(299990));
}

TEST_F(HttpServerTest, UnsatisfiableAndMultipleRanges) {
  Client client;
  Response r = client.Get(url_ + "/" + kObject, "300000-");
  EXPECT_EQ(r.status, 416);
  EXPECT_EQ(r.headers["content-range"],
            "bytes */" + std::to_string(object_.size()));
  Response multi = client.Get(url_ + "/" + kObject, "0-9,20-29");
  EXPECT_EQ(multi.status, 200);
  EXPECT_EQ(multi.body, object_);
}

TEST_F(HttpServerTest, MissingIs404) {
  Client client;
  EXPECT_EQ(client.Get(url_ + "/data/ab/missing").status, 404);
  EXPECT_EQ(client.Get(url_ + "/.cvmfspublished/x").status, 404);
  std::string base = server_->BaseUrl();
  EXPECT_EQ(client.Get(base + "/cvmfs/other.repo/.cvmfspublished").status, 404);
  EXPECT_EQ(client.Get(base + "/" + kFqrn + "/.cvmfspublished").status, 404);
  EXPECT_EQ(client.Get(base + "/").status, 404);
}

TEST_F(HttpServerTest, TraversalAndDirectoriesAreRefused) {
  Client client;
  std::string base = server_->BaseUrl();
  auto refused = [&](const std::string& url) {
    Response r = client.Get(url);
    EXPECT_TRUE(r.status == 403 || r.status == 404) << url << ": " << r.status;
    EXPECT_EQ(r.body.find("secret"), std::string::npos) << url;
  };
  refused(url_ + "/../secret");
  refused(url_ + "/data/../../secret");
  refused(url_ + "/%2e%2e/secret");
  refused(url_ + "/data%2f..%2f..%2fsecret");
  refused(base + "/cvmfs/../srv/secret");
  refused(base + "/cvmfs/%2e%2e/secret");
  // A link out of the storage: 404, as if nothing were there.
  EXPECT_EQ(client.Get(url_ + "/escape").status, 404);
  EXPECT_EQ(client.Get(url_ + "/fifo").status, 403);
  EXPECT_EQ(client.Get(url_ + "/").status, 403);  // no listings
  EXPECT_EQ(client.Get(url_).status, 403);
  EXPECT_EQ(client.Get(url_ + "/data/ab").status, 403);
}

TEST_F(HttpServerTest, OnlyGetAndHead) {
  Response r = Client().Get(url_ + "/.cvmfspublished", "", "DELETE");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.headers["allow"], "GET, HEAD");
  EXPECT_TRUE(cvmfs::PathExists(storage_ + "/.cvmfspublished"));
}

// A refused method is answered as soon as its headers are in: the body it
// announces is never read, and the connection is closed after the answer.
TEST_F(HttpServerTest, RefusedUploadIsNotRead) {
  for (const char* method : {"PUT", "POST"}) {
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.Send(std::string(method) + " /cvmfs/" + kFqrn +
                          "/.cvmfspublished HTTP/1.1\r\nHost: x\r\n"
                          "Content-Length: 209715200\r\n\r\n" +
                          std::string(65536, 'x')));
    bool closed = false;
    std::string answer = conn.ReadUntilClosed(5000, &closed);
    EXPECT_EQ(answer.rfind("HTTP/1.1 405 ", 0), 0u) << method << ": " << answer;
    EXPECT_NE(answer.find("Allow: GET, HEAD\r\n"), std::string::npos) << answer;
    EXPECT_TRUE(closed) << method;
  }
  // A GET with a body is answered at once too, and the connection closed.
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.Send("GET /cvmfs/" + std::string(kFqrn) +
                        "/.cvmfswhitelist HTTP/1.1\r\nHost: x\r\n"
                        "Content-Length: 1000000\r\n\r\n"));
  bool closed = false;
  std::string answer = conn.ReadUntilClosed(5000, &closed);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200 ", 0), 0u) << answer;
  EXPECT_EQ(answer.substr(answer.size() - 9), "whitelist");
  EXPECT_TRUE(closed);
}

// RFC 9112 3.2.2: a server must accept the absolute-form.
TEST_F(HttpServerTest, AbsoluteFormTarget) {
  std::string base = server_->BaseUrl();
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.Send("GET " + url_ +
                        "/.cvmfspublished HTTP/1.1\r\nHost: x\r\n"
                        "Connection: close\r\n\r\n"));
  bool closed = false;
  std::string answer = conn.ReadUntilClosed(5000, &closed);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200 ", 0), 0u) << answer;
  EXPECT_EQ(answer.substr(answer.size() - manifest_.size()), manifest_);
  RawConnection other(server_->port());
  ASSERT_TRUE(other.Send("GET http://elsewhere.example.org/cvmfs/" +
                         std::string(kFqrn) +
                         "/data/ab/missing HTTP/1.1\r\nHost: x\r\n"
                         "Connection: close\r\n\r\n"));
  answer = other.ReadUntilClosed(5000, &closed);
  EXPECT_EQ(answer.rfind("HTTP/1.1 404 ", 0), 0u) << answer;
}

// One address cannot take every connection: past its limit new connections
// are closed, while another address is served.
TEST_F(HttpServerTest, ConnectionsPerAddressAreLimited) {
  StartServer(4);
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(std::make_unique<RawConnection>(server_->port()));
    ASSERT_TRUE(idle.back()->Send("G"));  // and never more
  }
  RawConnection fifth(server_->port());
  bool closed = false;
  fifth.Send("GET /cvmfs/x HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(fifth.ReadUntilClosed(5000, &closed), "");
  EXPECT_TRUE(closed);
  RawConnection other(server_->port(), "127.0.0.2");
  ASSERT_TRUE(other.Send("GET /cvmfs/" + std::string(kFqrn) +
                         "/.cvmfspublished HTTP/1.1\r\nHost: x\r\n"
                         "Connection: close\r\n\r\n"));
  std::string answer = other.ReadUntilClosed(5000, &closed);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200 ", 0), 0u) << answer;
  idle.clear();  // the slots are free again
  Response r;
  for (int i = 0; i < 50 && r.status != 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    r = Client().Get(url_ + "/.cvmfspublished");
  }
  EXPECT_EQ(r.status, 200);
}

// The value of one sample of a metrics page, -1 if absent.
long Metric(const std::string& page, const std::string& sample) {
  const size_t at = page.find("\n" + sample + " ");
  if (at == std::string::npos) return -1;
  return std::strtol(page.c_str() + at + sample.size() + 2, nullptr, 10);
}

TEST_F(HttpServerTest, MetricsCountRequestsAndRefusals) {
  const std::string base = server_->BaseUrl();
  Client client;
  Response before = client.Get(base + "/metrics");
  EXPECT_EQ(before.status, 200);
  EXPECT_EQ(before.headers["content-type"],
            "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(before.body.rfind("# HELP cvmfs_serve_requests_total ", 0), 0u)
      << before.body;
  const long ok_before =
      Metric(before.body, "cvmfs_serve_requests_total{code=\"2xx\"}");
  ASSERT_GE(ok_before, 0);
  EXPECT_EQ(client.Get(url_ + "/" + kObject).status, 200);
  EXPECT_EQ(client.Get(url_ + "/nothing").status, 404);
  const std::string after = client.Get(base + "/metrics").body;
  EXPECT_EQ(Metric(after, "cvmfs_serve_requests_total{code=\"2xx\"}"),
            ok_before + 2);  // the object and the first /metrics
  EXPECT_EQ(Metric(after, "cvmfs_serve_requests_total{code=\"4xx\"}"), 1);
  EXPECT_GE(Metric(after, "cvmfs_serve_sent_bytes_total"),
            static_cast<long>(object_.size()));
  EXPECT_GE(Metric(after, "cvmfs_serve_connections_open"), 1);

  StartServer(1);
  RawConnection idle(server_->port());
  ASSERT_TRUE(idle.Send("G"));
  bool closed = false;
  RawConnection refused(server_->port());
  refused.Send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(refused.ReadUntilClosed(5000, &closed), "");
  RawConnection other(server_->port(), "127.0.0.2");
  ASSERT_TRUE(other.Send(
      "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  const std::string page = other.ReadUntilClosed(5000, &closed);
  EXPECT_EQ(Metric(page, "cvmfs_serve_connections_refused_total"), 1) << page;
}

TEST_F(HttpServerTest, MetricsPathCanMoveOrBeOff) {
  StartServer(64, "/internal/m");
  EXPECT_EQ(Client().Get(server_->BaseUrl() + "/metrics").status, 404);
  EXPECT_EQ(Client().Get(server_->BaseUrl() + "/internal/m").status, 200);
  StartServer(64, "");
  EXPECT_EQ(Client().Get(server_->BaseUrl() + "/metrics").status, 404);
  for (const char* bad : {"metrics", "/", "/cvmfs", "/cvmfs/x"}) {
    HttpServerOptions options;
    options.port = 0;
    options.repositories = {{kFqrn, storage_}};
    options.metrics_path = bad;
    auto r = HttpServer::Start(options);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("metrics path"), std::string::npos);
  }
}

TEST_F(HttpServerTest, KeepAlive) {
  Client client;
  long connects = 0;
  for (int i = 0; i < 10; ++i) {
    Response r = client.Get(url_ + (i % 2 ? "/.cvmfspublished" : "/data/ab/x"));
    connects += r.connects;
  }
  EXPECT_EQ(connects, 1);  // one connection for all ten requests
}

TEST_F(HttpServerTest, ConcurrentClients) {
  constexpr int kClients = 24, kRequests = 20;
  for (int i = 0; i < kClients; ++i)
    Put("data/cc/" + std::to_string(i), Pattern(50000 + i * 1000, i));
  std::atomic<int> wrong{0}, connections{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      Client client;
      for (int i = 0; i < kRequests; ++i) {
        int n = (t + i) % kClients;
        Response r = client.Get(url_ + "/data/cc/" + std::to_string(n));
        connections += static_cast<int>(r.connects);
        if (r.status != 200 || r.body != Pattern(50000 + n * 1000, n)) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(connections.load(), kClients);  // each client kept its connection
}

TEST_F(HttpServerTest, AccessLog) {
  Client client;
  client.Get(url_ + "/.cvmfspublished");
  client.Get(url_ + "/" + kObject, "0-99");
  client.Get(url_ + "/data/ab/missing");
  client.Get(url_ + "/" + kObject, "", "HEAD");
  server_.reset();  // every request is complete and logged
  auto log = cvmfs::ReadFile(tmp_.Sub("access.log"));
  ASSERT_TRUE(log.ok());
  std::string prefix = "\"GET /cvmfs/" + std::string(kFqrn);
  EXPECT_NE(log->find(prefix + "/.cvmfspublished HTTP/1.1\" 200 " +
                      std::to_string(manifest_.size()) + "\n"),
            std::string::npos)
      << *log;
  EXPECT_NE(log->find(prefix + "/" + kObject + " HTTP/1.1\" 206 100\n"),
            std::string::npos)
      << *log;
  EXPECT_NE(log->find(prefix + "/data/ab/missing HTTP/1.1\" 404 "),
            std::string::npos)
      << *log;
  EXPECT_NE(log->find("\"HEAD /cvmfs/"), std::string::npos) << *log;
  EXPECT_EQ(log->rfind("127.0.0.1 - - [", 0), 0u) << *log;
}

TEST(HttpServerStartTest, ErrorsNameTheCulprit) {
  cvmfs::testing::TempDir tmp;
  HttpServerOptions options;
  options.port = 0;
  options.repositories = {{"missing.repo", tmp.Sub("nothing")}};
  auto r = HttpServer::Start(options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("missing.repo"), std::string::npos)
      << r.status().ToString();

  ASSERT_TRUE(cvmfs::MakeDirs(tmp.Sub("s")).ok());
  options.repositories = {{"x.repo", tmp.Sub("s")}};
  options.address = "localhost:80";
  r = HttpServer::Start(options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("localhost:80"), std::string::npos);

  options.repositories.clear();
  options.address = "127.0.0.1";
  EXPECT_FALSE(HttpServer::Start(options).ok());
}

TEST(HttpServerStartTest, PortInUse) {
  cvmfs::testing::TempDir tmp;
  ASSERT_TRUE(cvmfs::MakeDirs(tmp.Sub("s")).ok());
  HttpServerOptions options;
  options.port = 0;
  options.repositories = {{"x.repo", tmp.Sub("s")}};
  auto first = HttpServer::Start(options);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  options.port = (*first)->port();
  auto second = HttpServer::Start(options);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find(std::to_string(options.port)),
            std::string::npos)
      << second.status().ToString();
}

TEST(HttpServerStartTest, Ipv6Loopback) {
  cvmfs::testing::TempDir tmp;
  ASSERT_TRUE(cvmfs::MakeDirs(tmp.Sub("s")).ok());
  ASSERT_TRUE(cvmfs::WriteFileAtomic(tmp.Sub("s/.cvmfspublished"), "m").ok());
  HttpServerOptions options;
  options.address = "::1";
  options.port = 0;
  options.repositories = {{"x.repo", tmp.Sub("s")}};
  auto server = HttpServer::Start(options);
  if (!server.ok())
    GTEST_SKIP() << "no IPv6 here: " << server.status().ToString();
  EXPECT_EQ((*server)->BaseUrl().rfind("http://[::1]:", 0), 0u);
  Response r =
      Client().Get((*server)->RepositoryUrl("x.repo") + "/.cvmfspublished");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "m");
}

}  // namespace
}  // namespace server
