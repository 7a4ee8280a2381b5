#include "cvmfs/network/notification_subscriber.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace cvmfs {
namespace {

// A server that answers each connection with `reply` and then keeps it
// open for `hold` (or closes it at once).
class StreamServer {
 public:
  StreamServer(std::string reply, std::chrono::milliseconds hold)
      : reply_(std::move(reply)), hold_(hold) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::listen(fd_, 8);
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~StreamServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/api/v1";
  }
  int accepted() const { return accepted_.load(); }
  std::string last_request() const { return last_request_; }

 private:
  void Serve() {
    while (!stop_) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      std::string request;
      while (request.find("\"}") == std::string::npos) {
        const ssize_t n = ::read(c, buf, sizeof(buf));
        if (n <= 0) break;
        request.append(buf, n);
      }
      if (accepted_ == 0) last_request_ = request;
      ++accepted_;
      (void)!::write(c, reply_.data(), reply_.size());
      const auto until = std::chrono::steady_clock::now() + hold_;
      while (!stop_ && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      ::close(c);
    }
  }
  std::string reply_;
  std::chrono::milliseconds hold_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::string last_request_;
  std::thread thread_;
};

std::string Event(const std::string& repo, const std::string& manifest) {
  ActivityMessage m;
  m.timestamp = "now";
  m.repository = repo;
  m.manifest = manifest;
  return "data: " + SerializeActivity(m) + "\n\n";
}

const char kHeaders[] =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
    "Cache-Control: no-cache\r\n\r\n";

template <class F>
bool WaitFor(F done) {
  for (int i = 0; i < 500; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(NotificationSubscriberTest, DeliversMessagesAndReconnects) {
  StreamServer server(std::string(kHeaders) + Event("r.org", "one") +
                          "data: not json\n\n" + Event("other.org", "x") +
                          Event("r.org", "two"),
                      std::chrono::milliseconds(0));
  NotificationSubscriberOptions o;
  o.server = server.url();
  o.fqrn = "r.org";
  o.initial_backoff = std::chrono::milliseconds(20);
  std::mutex mu;
  std::vector<std::string> got;
  NotificationSubscriber sub(
      o,
      [&](const ActivityMessage& m) {
        std::lock_guard<std::mutex> l(mu);
        got.push_back(m.manifest);
      },
      [](const std::string&) {});
  sub.Start();
  // The server closes after each reply: the subscriber comes back.
  ASSERT_TRUE(WaitFor([&] { return server.accepted() >= 2; }));
  sub.Stop();
  std::lock_guard<std::mutex> l(mu);
  ASSERT_GE(got.size(), 4u);
  EXPECT_EQ(got[0], "one");
  EXPECT_EQ(got[1], "two");
  EXPECT_GE(sub.counters().malformed, 2u);
  EXPECT_GE(sub.counters().connections, 2u);
  const std::string req = server.last_request();
  EXPECT_EQ(req.rfind("GET /api/v1/notifications/subscribe HTTP/1.1", 0), 0u)
      << req;
  EXPECT_NE(req.find("{\"version\":1,\"repository\":\"r.org\"}"),
            std::string::npos)
      << req;
}

TEST(NotificationSubscriberTest, StopsAnIdleStreamQuickly) {
  StreamServer server(kHeaders, std::chrono::milliseconds(60000));
  NotificationSubscriberOptions o;
  o.server = server.url();
  o.fqrn = "r.org";
  NotificationSubscriber sub(
      o, [](const ActivityMessage&) {}, [](const std::string&) {});
  sub.Start();
  ASSERT_TRUE(WaitFor([&] { return server.accepted() >= 1; }));
  const auto start = std::chrono::steady_clock::now();
  sub.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST(NotificationSubscriberTest, RefusedAnswerBacksOff) {
  StreamServer server("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
                      std::chrono::milliseconds(0));
  NotificationSubscriberOptions o;
  o.server = server.url();
  o.fqrn = "r.org";
  NotificationSubscriber sub(
      o, [](const ActivityMessage&) {}, [](const std::string&) {});
  bool accepted = true;
  Status st = sub.SubscribeOnce(&accepted);
  EXPECT_FALSE(st.ok());
  EXPECT_FALSE(accepted);
  EXPECT_NE(st.message().find("404"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace cvmfs
