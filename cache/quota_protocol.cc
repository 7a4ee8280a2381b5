#include "cache/quota_protocol.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cache {

using cvmfs::Result;
using cvmfs::Status;
using cvmfs::UniqueFd;
using Code = cvmfs::Status::Code;

namespace {

void PutLength(uint32_t n, char* out) {
  out[0] = static_cast<char>(n >> 24);
  out[1] = static_cast<char>(n >> 16);
  out[2] = static_cast<char>(n >> 8);
  out[3] = static_cast<char>(n);
}

uint32_t GetLength(const char* in) {
  const auto* b = reinterpret_cast<const unsigned char*>(in);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) |
         (uint32_t{b[2]} << 8) | uint32_t{b[3]};
}

Status Oversized(uint64_t n) {
  return Status::Corruption("cache manager message of " + std::to_string(n) +
                            " bytes exceeds the limit of " +
                            std::to_string(kMaxFrameBytes));
}

// Reads exactly `size` bytes; Unavailable on EOF or reset.
Status ReadExactly(int fd, char* buf, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, buf + done, size - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n == 0) {
      return Status::Unavailable("the cache manager closed the connection");
    } else if (errno != EINTR) {
      if (errno == ECONNRESET)
        return Status::Unavailable("the cache manager reset the connection");
      return Status::FromErrno(errno, "read from the cache manager socket");
    }
  }
  return Status::Ok();
}

// A sockaddr for `path`; long paths go through an O_PATH fd of the
// directory, which `dir_fd` keeps open until the call is done.
Result<sockaddr_un> SocketAddress(const std::string& path, UniqueFd* dir_fd) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string name = path;
  if (name.size() >= sizeof(addr.sun_path)) {
    size_t slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
    dir_fd->Reset(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!dir_fd->valid()) return Status::FromErrno(errno, "open " + dir);
    name = "/proc/self/fd/" + std::to_string(dir_fd->get()) + "/" +
           path.substr(slash + 1);
    if (name.size() >= sizeof(addr.sun_path))
      return Status::InvalidArgument("socket name too long: " + path);
  }
  std::memcpy(addr.sun_path, name.c_str(), name.size() + 1);
  return addr;
}

}  // namespace

std::string EncodeFrame(const google::protobuf::MessageLite& msg) {
  std::string body = msg.SerializeAsString();
  std::string frame(kFrameHeaderBytes, '\0');
  PutLength(static_cast<uint32_t>(body.size()), frame.data());
  frame += body;
  return frame;
}

Status SendFrame(int fd, const google::protobuf::MessageLite& msg) {
  if (msg.ByteSizeLong() > kMaxFrameBytes) return Oversized(msg.ByteSizeLong());
  std::string frame = EncodeFrame(msg);
  size_t done = 0;
  while (done < frame.size()) {
    ssize_t n =
        ::send(fd, frame.data() + done, frame.size() - done, MSG_NOSIGNAL);
    if (n >= 0) {
      done += static_cast<size_t>(n);
    } else if (errno == EPIPE || errno == ECONNRESET) {
      return Status::Unavailable("the cache manager connection is closed");
    } else if (errno != EINTR) {
      return Status::FromErrno(errno, "write to the cache manager socket");
    }
  }
  return Status::Ok();
}

Status ReceiveFrame(int fd, google::protobuf::MessageLite* msg) {
  char header[kFrameHeaderBytes];
  CVMFS_RETURN_IF_ERROR(ReadExactly(fd, header, sizeof(header)));
  uint32_t size = GetLength(header);
  if (size > kMaxFrameBytes) return Oversized(size);
  std::string body(size, '\0');
  CVMFS_RETURN_IF_ERROR(ReadExactly(fd, body.data(), size));
  if (!msg->ParseFromString(body))
    return Status::Corruption("unparsable cache manager message (" +
                              std::to_string(size) + " bytes)");
  return Status::Ok();
}

Result<bool> TakeFrame(std::string* buffer, std::string* payload) {
  if (buffer->size() < kFrameHeaderBytes) return false;
  uint32_t size = GetLength(buffer->data());
  if (size > kMaxFrameBytes) return Oversized(size);
  if (buffer->size() < kFrameHeaderBytes + size) return false;
  payload->assign(*buffer, kFrameHeaderBytes, size);
  buffer->erase(0, kFrameHeaderBytes + size);
  return true;
}

protocol::StatusCode ToWireCode(Code code) {
  // The enums are one to one by construction (quota_protocol.proto).
  return static_cast<protocol::StatusCode>(static_cast<int>(code));
}

Status StatusOf(const protocol::Reply& reply) {
  const std::string& m = reply.message();
  switch (reply.code()) {
    case protocol::OK:
      return Status::Ok();
    case protocol::NOT_FOUND:
      return Status::NotFound(m);
    case protocol::CORRUPTION:
      return Status::Corruption(m);
    case protocol::IO_ERROR:
      return Status::IoError(m);
    case protocol::INVALID_ARGUMENT:
      return Status::InvalidArgument(m);
    case protocol::NO_SPACE:
      return Status::NoSpace(m);
    case protocol::PERMISSION:
      return Status::Permission(m);
    case protocol::UNAVAILABLE:
      return Status::Unavailable(m);
    case protocol::ALREADY_EXISTS:
      return Status::AlreadyExists(m);
    case protocol::BUSY:
      return Status::Busy(m);
    case protocol::NOT_SUPPORTED:
      return Status::NotSupported(m);
    default:
      return Status::Corruption("unknown status code " +
                                std::to_string(reply.code()) +
                                " from the cache manager: " + m);
  }
}

void SetStatus(const Status& status, protocol::Reply* reply) {
  reply->set_code(ToWireCode(status.code()));
  reply->set_message(status.message());
}

Result<UniqueFd> ConnectUnixSocket(const std::string& path, int* error_number) {
  *error_number = 0;
  UniqueFd dir_fd;
  CVMFS_ASSIGN_OR_RETURN(sockaddr_un addr, SocketAddress(path, &dir_fd));
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return Status::FromErrno(errno, "socket");
  int rc;
  do {
    rc = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    *error_number = errno;
    return Status::FromErrno(errno, "connect to " + path);
  }
  return fd;
}

Result<UniqueFd> ListenUnixSocket(const std::string& path) {
  UniqueFd dir_fd;
  CVMFS_ASSIGN_OR_RETURN(sockaddr_un addr, SocketAddress(path, &dir_fd));
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return Status::FromErrno(errno, "socket");
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return Status::FromErrno(errno, "remove the old socket " + path);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
    return Status::FromErrno(errno, "bind " + path);
  ::chmod(path.c_str(), 0600);
  if (::listen(fd.get(), 128) != 0)
    return Status::FromErrno(errno, "listen on " + path);
  return fd;
}

}  // namespace cache
