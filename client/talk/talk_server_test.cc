// The control socket: one command per connection, however the client ends
// it; the socket's mode, stale sockets, a second server, long paths.
#include "client/talk/talk_server.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <atomic>

#include "client/talk/talk_socket.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

class TalkServerTest : public ::testing::Test {
 protected:
  std::unique_ptr<TalkServer> Start(const std::string& path) {
    auto server = TalkServer::Start(path, [this](const std::string& command) {
      ++calls_;
      return "got [" + command + "]\n";
    });
    EXPECT_TRUE(server.ok()) << server.status().ToString();
    return server.ok() ? std::move(server).value() : nullptr;
  }
  // Sends raw bytes without shutting down the writing side, as CVMFS's own
  // cvmfs_talk does, and reads the reply until the server closes.
  static std::string RawExchange(const std::string& path,
                                 const std::string& bytes) {
    auto fd = ConnectUnixSocket(path);
    EXPECT_TRUE(fd.ok());
    EXPECT_EQ(static_cast<ssize_t>(bytes.size()),
              ::send(fd->get(), bytes.data(), bytes.size(), MSG_NOSIGNAL));
    std::string reply;
    char buf[256];
    ssize_t n;
    while ((n = ::recv(fd->get(), buf, sizeof(buf), 0)) > 0)
      reply.append(buf, n);
    return reply;
  }

  testing::TempDir tmp_;
  std::atomic<int> calls_{0};
};

TEST_F(TalkServerTest, OneCommandPerConnectionWhateverTheTerminator) {
  const std::string path = TalkSocketPath(tmp_.path(), "repo.example.org");
  auto server = Start(path);
  ASSERT_TRUE(server);
  EXPECT_EQ(tmp_.path() + "/cvmfs_io.repo.example.org", path);
  auto reply = TalkRequest(path, "cache size");
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ("got [cache size]\n", *reply);
  EXPECT_EQ("got [cache list]\n", RawExchange(path, "cache list\n"));
  EXPECT_EQ("got [pid]\n", RawExchange(path, std::string("pid\0", 4)));
  EXPECT_EQ("got [revision]\n",
            RawExchange(path, "revision"));  // ended by a pause
  EXPECT_EQ("got [host info]\n", RawExchange(path, "  host info \r\n"));
  EXPECT_EQ(5, calls_.load());
}

TEST_F(TalkServerTest, SocketIsPrivateAndRemovedAtTheEnd) {
  const std::string path = tmp_.Sub("cvmfs_io.x.org");
  {
    auto server = Start(path);
    ASSERT_TRUE(server);
    struct stat st;
    ASSERT_EQ(0, ::stat(path.c_str(), &st));
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(0600u, st.st_mode & 07777);
  }
  EXPECT_FALSE(PathExists(path));
  EXPECT_EQ(Status::Code::kUnavailable,
            TalkRequest(path, "pid").status().code());
}

TEST_F(TalkServerTest, StaleSocketIsReplacedLiveOneIsNot) {
  const std::string path = tmp_.Sub("cvmfs_io.x.org");
  {
    // A socket file nobody listens on, as a killed client leaves it.
    auto stale = ListenUnixSocket(path, 0600);
    ASSERT_TRUE(stale.ok());
  }
  ASSERT_TRUE(PathExists(path));
  auto server = Start(path);
  ASSERT_TRUE(server);
  auto second =
      TalkServer::Start(path, [](const std::string&) { return std::string(); });
  EXPECT_EQ(Status::Code::kBusy, second.status().code());
  EXPECT_EQ("got [pid]\n", *TalkRequest(path, "pid"));
}

TEST_F(TalkServerTest, PathLongerThanSockaddr) {
  std::string dir = tmp_.path();
  while (dir.size() < 150) dir += "/a-rather-long-directory-name";
  ASSERT_TRUE(MakeDirs(dir).ok());
  const std::string path = TalkSocketPath(dir, "long.example.org");
  auto server = Start(path);
  ASSERT_TRUE(server);
  auto reply = TalkRequest(path, "version");
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ("got [version]\n", *reply);
}

TEST_F(TalkServerTest, SilentClientDoesNotBlockOthersForever) {
  const std::string path = tmp_.Sub("cvmfs_io.x.org");
  auto server = Start(path);
  ASSERT_TRUE(server);
  auto silent = ConnectUnixSocket(path);  // connects and says nothing
  ASSERT_TRUE(silent.ok());
  auto reply = TalkRequest(path, "pid",
                           /*timeout_s=*/TalkServer::kReadTimeoutMs / 1000 + 5);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ("got [pid]\n", *reply);
  EXPECT_EQ(1, calls_.load());
}

}  // namespace
}  // namespace cvmfs::client
