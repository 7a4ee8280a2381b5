#include "server/header_deadlines.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>

namespace server {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

// A connected socket pair: the server's end (what HeaderDeadlines may cut)
// and the client's, where a cut shows as end of file.
class SocketPair {
 public:
  SocketPair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  ~SocketPair() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  int server() const { return fds_[0]; }
  void CloseServer() {
    ::close(fds_[0]);
    fds_[0] = -1;
  }
  // The client sees the server's end shut down (without waiting).
  bool ClientSeesEof() const {
    pollfd p{fds_[1], POLLIN, 0};
    if (::poll(&p, 1, 0) != 1) return false;
    char c;
    return ::recv(fds_[1], &c, 1, MSG_DONTWAIT) == 0;
  }

 private:
  int fds_[2] = {-1, -1};
};

class HeaderDeadlinesTest : public ::testing::Test {
 protected:
  cvmfs::ManualClock clock_;
  HeaderDeadlines deadlines_{&clock_, seconds(10), seconds(60)};
};

TEST_F(HeaderDeadlinesTest, HeadersMustArriveInTime) {
  SocketPair s;
  HeaderDeadlines::Connection* c = deadlines_.Opened(s.server());
  clock_.Advance(seconds(10) - milliseconds(1));
  EXPECT_EQ(deadlines_.CutOverdue(), 0u);
  EXPECT_FALSE(s.ClientSeesEof());
  clock_.Advance(milliseconds(1));
  EXPECT_EQ(deadlines_.CutOverdue(), 1u);
  EXPECT_TRUE(s.ClientSeesEof());
  EXPECT_EQ(deadlines_.CutOverdue(), 0u);  // once
  deadlines_.Closed(c);
  EXPECT_EQ(deadlines_.size(), 0u);
}

// The request line arriving late does not extend the deadline of the
// connection (a slow-loris trickles it).
TEST_F(HeaderDeadlinesTest, TricklingDoesNotExtend) {
  SocketPair s;
  HeaderDeadlines::Connection* c = deadlines_.Opened(s.server());
  clock_.Advance(seconds(9));
  deadlines_.RequestLineReceived(c);
  clock_.Advance(seconds(1));
  EXPECT_EQ(deadlines_.CutOverdue(), 1u);
  deadlines_.Closed(c);
}

TEST_F(HeaderDeadlinesTest, NoDeadlineWhileAnswering) {
  SocketPair s;
  HeaderDeadlines::Connection* c = deadlines_.Opened(s.server());
  deadlines_.RequestLineReceived(c);
  deadlines_.HeadersComplete(c);
  clock_.Advance(hours(5));  // a slow download
  EXPECT_EQ(deadlines_.CutOverdue(), 0u);
  EXPECT_FALSE(s.ClientSeesEof());
  deadlines_.Closed(c);
}

TEST_F(HeaderDeadlinesTest, KeepAliveGetsTheIdleTimeoutFirst) {
  SocketPair s;
  HeaderDeadlines::Connection* c = deadlines_.Opened(s.server());
  deadlines_.HeadersComplete(c);
  clock_.Advance(seconds(30));
  deadlines_.RequestDone(c);
  clock_.Advance(seconds(69));
  EXPECT_EQ(deadlines_.CutOverdue(), 0u);
  clock_.Advance(seconds(1));
  EXPECT_EQ(deadlines_.CutOverdue(), 1u);
  deadlines_.Closed(c);
}

TEST_F(HeaderDeadlinesTest, NextRequestLineStartsTheHeaderClock) {
  SocketPair s;
  HeaderDeadlines::Connection* c = deadlines_.Opened(s.server());
  deadlines_.HeadersComplete(c);
  deadlines_.RequestDone(c);
  clock_.Advance(seconds(50));
  deadlines_.RequestLineReceived(c);  // then the headers trickle
  clock_.Advance(seconds(10));
  EXPECT_EQ(deadlines_.CutOverdue(), 1u);
  deadlines_.Closed(c);
}

// After Closed() the descriptor is the library's to close and reuse: a new
// socket with the same number is not cut for the old connection.
TEST_F(HeaderDeadlinesTest, ClosedConnectionsAreForgotten) {
  auto old_pair = std::make_unique<SocketPair>();
  int old_fd = old_pair->server();
  HeaderDeadlines::Connection* c = deadlines_.Opened(old_fd);
  SocketPair other;
  HeaderDeadlines::Connection* o = deadlines_.Opened(other.server());
  deadlines_.HeadersComplete(o);
  EXPECT_EQ(deadlines_.size(), 2u);
  deadlines_.Closed(c);
  old_pair->CloseServer();
  SocketPair reused;  // most likely gets old_fd again
  clock_.Advance(seconds(11));
  EXPECT_EQ(deadlines_.CutOverdue(), 0u);
  EXPECT_FALSE(reused.ClientSeesEof()) << "fd " << old_fd;
  EXPECT_EQ(deadlines_.size(), 1u);
  deadlines_.Closed(o);
}

}  // namespace
}  // namespace server
