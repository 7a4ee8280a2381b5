#include "client/talk/talk_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "client/talk/talk_socket.h"

namespace cvmfs::client {

namespace {

// After the first bytes of a command, a pause this long ends it (for
// clients that neither send a terminator nor shut down their side).
constexpr int kPauseMs = 100;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Strips the terminator and trailing blanks ("cache size\r\n" from a
// terminal, "cache size\0" from CVMFS clients).
std::string Trimmed(std::string s) {
  size_t end = s.find_first_of(std::string("\n\0", 2));
  if (end != std::string::npos) s.resize(end);
  while (!s.empty() &&
         (s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    s.pop_back();
  size_t begin = s.find_first_not_of(" \t");
  return begin == std::string::npos ? std::string() : s.substr(begin);
}

}  // namespace

Result<std::unique_ptr<TalkServer>> TalkServer::Start(
    const std::string& socket_path, Handler handler) {
  std::unique_ptr<TalkServer> server(
      new TalkServer(socket_path, std::move(handler)));
  CVMFS_ASSIGN_OR_RETURN(server->listen_fd_,
                         ListenUnixSocket(socket_path, 0600));
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return Status::FromErrno(errno, "pipe for the talk thread");
  server->stop_read_.Reset(fds[0]);
  server->stop_write_.Reset(fds[1]);
  server->thread_ = std::thread([s = server.get()] { s->Run(); });
  return server;
}

TalkServer::~TalkServer() {
  if (thread_.joinable()) {
    char c = 'q';
    (void)!::write(stop_write_.get(), &c, 1);
    thread_.join();
  }
  if (listen_fd_.valid()) ::unlink(path_.c_str());
}

void TalkServer::Run() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_.get(), POLLIN, 0},
                     {stop_read_.get(), POLLIN, 0}};
    int ready = ::poll(fds, 2, -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0 || fds[1].revents != 0) return;
    if (!(fds[0].revents & POLLIN)) continue;
    UniqueFd con(::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (con.valid()) Serve(con.get());
  }
}

void TalkServer::Serve(int fd) {
  std::string command = ReadCommand(fd);
  if (command.empty()) return;
  std::string reply = handler_(command);
  size_t sent = 0;
  while (sent < reply.size()) {
    ssize_t n =
        ::send(fd, reply.data() + sent, reply.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client went away
    sent += static_cast<size_t>(n);
  }
  ::shutdown(fd, SHUT_RDWR);
}

std::string TalkServer::ReadCommand(int fd) {
  std::string buf;
  const int64_t deadline = NowMs() + kReadTimeoutMs;
  char chunk[512];
  while (buf.size() < kMaxCommandSize) {
    int64_t left = deadline - NowMs();
    if (left <= 0) break;
    int wait = buf.empty() ? static_cast<int>(left)
                           : std::min<int>(kPauseMs, static_cast<int>(left));
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;  // error, or a pause after the command
    ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the client finished writing
    buf.append(chunk, static_cast<size_t>(n));
    if (buf.find('\n') != std::string::npos ||
        buf.find('\0') != std::string::npos)
      break;
  }
  return Trimmed(std::move(buf));
}

}  // namespace cvmfs::client
