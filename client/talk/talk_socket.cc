#include "client/talk/talk_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cvmfs::client {

namespace {

// The address of `path`; for a path too long for sun_path, the address
// goes through `*dir_fd`, an O_PATH descriptor of its directory that must
// stay open while the address is used.
Result<sockaddr_un> AddressOf(const std::string& path, UniqueFd* dir_fd) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string target = path;
  if (target.size() >= sizeof(addr.sun_path)) {
    size_t slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
    dir_fd->Reset(::open(dir.empty() ? "/" : dir.c_str(),
                         O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!dir_fd->valid())
      return Status::FromErrno(errno, "open directory " + dir);
    target = "/proc/self/fd/" + std::to_string(dir_fd->get()) + "/" +
             path.substr(slash + 1);
    if (target.size() >= sizeof(addr.sun_path))
      return Status::InvalidArgument("socket name too long: " + path);
  }
  std::memcpy(addr.sun_path, target.c_str(), target.size() + 1);
  return addr;
}

Result<UniqueFd> NewSocket() {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return Status::FromErrno(errno, "socket(AF_UNIX)");
  return fd;
}

}  // namespace

std::string TalkSocketPath(const std::string& cache_dir,
                           const std::string& fqrn) {
  return JoinPath(cache_dir, "cvmfs_io." + fqrn);
}

Result<UniqueFd> ConnectUnixSocket(const std::string& path) {
  UniqueFd dir_fd;
  CVMFS_ASSIGN_OR_RETURN(sockaddr_un addr, AddressOf(path, &dir_fd));
  CVMFS_ASSIGN_OR_RETURN(UniqueFd fd, NewSocket());
  int rc;
  do {
    rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  } while (rc != 0 && errno == EINTR);
  if (rc != 0)
    return Status::Unavailable("cannot connect to " + path + ": " +
                               std::strerror(errno));
  return fd;
}

Result<UniqueFd> ListenUnixSocket(const std::string& path, int mode) {
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return Status::AlreadyExists(path + " exists and is not a socket");
    if (ConnectUnixSocket(path).ok())
      return Status::Busy("another process listens on " + path);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      return Status::FromErrno(errno, "remove stale socket " + path);
  }
  UniqueFd dir_fd;
  CVMFS_ASSIGN_OR_RETURN(sockaddr_un addr, AddressOf(path, &dir_fd));
  CVMFS_ASSIGN_OR_RETURN(UniqueFd fd, NewSocket());
  // The socket file is created with the umask applied; restrict it before
  // anyone can connect, then set the exact mode.
  mode_t old_umask = ::umask(0077);
  int rc = ::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  int bind_errno = errno;
  ::umask(old_umask);
  if (rc != 0) return Status::FromErrno(bind_errno, "bind " + path);
  if (::chmod(path.c_str(), static_cast<mode_t>(mode)) != 0)
    return Status::FromErrno(errno, "chmod " + path);
  if (::listen(fd.get(), 16) != 0)
    return Status::FromErrno(errno, "listen on " + path);
  return fd;
}

Result<std::string> TalkRequest(const std::string& path,
                                const std::string& command, int timeout_s) {
  CVMFS_ASSIGN_OR_RETURN(UniqueFd fd, ConnectUnixSocket(path));
  if (::send(fd.get(), command.data(), command.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(command.size()))
    return Status::FromErrno(errno, "send to " + path);
  ::shutdown(fd.get(), SHUT_WR);
  std::string reply;
  char buf[4096];
  for (;;) {
    pollfd p{fd.get(), POLLIN, 0};
    int ready = ::poll(&p, 1, timeout_s * 1000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return Status::FromErrno(errno, "poll " + path);
    if (ready == 0)
      return Status::Unavailable("no reply from " + path + " within " +
                                 std::to_string(timeout_s) + " s");
    ssize_t n = ::recv(fd.get(), buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, "receive from " + path);
    if (n == 0) return reply;
    reply.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace cvmfs::client
