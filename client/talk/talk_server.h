// TalkServer: the mount's control socket (cvmfs_io.<fqrn>), served by one
// thread. Each connection carries one command (protocol in talk_socket.h);
// the reply from `handler` is written back and the connection closed.
// Commands are served one after the other: they are short (a download for
// `pin` or `remount sync` is the longest), and a slow client cannot block
// the others for longer than kReadTimeoutMs.
//
// Ownership and lifetime: Start() creates the socket (mode 0600, so only
// the mount's owner can talk to it) and the thread; the destructor stops
// the thread and removes the socket file. The handler is called on the
// server thread only and must stay valid until the destructor returns.
#ifndef CLIENT_TALK_TALK_SERVER_H_
#define CLIENT_TALK_TALK_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "cvmfs/file_util.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

class TalkServer {
 public:
  using Handler = std::function<std::string(const std::string& command)>;

  // The longest command accepted (CVMFS: 512 bytes; paths may be longer).
  static constexpr size_t kMaxCommandSize = 4096;
  // How long a connection may take to deliver its command.
  static constexpr int kReadTimeoutMs = 5000;

  static Result<std::unique_ptr<TalkServer>> Start(
      const std::string& socket_path, Handler handler);
  ~TalkServer();
  TalkServer(const TalkServer&) = delete;
  TalkServer& operator=(const TalkServer&) = delete;

  const std::string& socket_path() const { return path_; }

  // The command a connection sends, without its terminator; exposed for
  // tests. Empty if the client sent nothing in time.
  static std::string ReadCommand(int fd);

 private:
  TalkServer(std::string path, Handler handler)
      : path_(std::move(path)), handler_(std::move(handler)) {}
  void Run();
  void Serve(int fd);

  const std::string path_;
  const Handler handler_;
  UniqueFd listen_fd_;
  UniqueFd stop_read_, stop_write_;  // a pipe; writing to it ends Run()
  std::thread thread_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_TALK_TALK_SERVER_H_
