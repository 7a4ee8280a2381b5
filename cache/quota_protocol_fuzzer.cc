// Fuzz target: the cache manager protocol (quota_protocol.h,
// doc/format-cache-protocol.md) from the side that trusts nothing: the
// manager reading requests from any local process that can reach
// <cache dir>/cachemgr.
//
// The input is decoded frame by frame as Request and as Reply (what either
// side parses), and then sent as a raw byte stream over a real connection to
// a CacheManager (cache_manager.h) running in a temporary directory, which
// frames, parses and dispatches it against its quota store. The client half
// closes after the input and reads replies to the end, so every input is
// fully handled before the manager is stopped.
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "cache/cache_manager.h"
#include "cache/quota_protocol.h"
#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace {

void Decode(const uint8_t* data, size_t size) {
  std::string buffer(reinterpret_cast<const char*>(data), size);
  std::string payload;
  while (true) {
    auto frame = cache::TakeFrame(&buffer, &payload);
    if (!frame.ok() || !*frame) break;
    cache::protocol::Request request;
    if (request.ParseFromString(payload)) (void)cache::EncodeFrame(request);
    cache::protocol::Reply reply;
    if (reply.ParseFromString(payload)) (void)cache::StatusOf(reply);
  }
}

// Sends `input` and reads until the manager closes, without blocking on
// either direction (the manager may stop reading, or answer a lot).
void Converse(int fd, const uint8_t* data, size_t size) {
  size_t sent = 0;
  bool writing = true;
  char buf[16 * 1024];
  while (true) {
    if (writing && sent == size) {
      ::shutdown(fd, SHUT_WR);
      writing = false;
    }
    pollfd p = {fd, static_cast<short>(POLLIN | (writing ? POLLOUT : 0)), 0};
    if (::poll(&p, 1, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (p.revents & POLLIN || p.revents & (POLLHUP | POLLERR)) {
      ssize_t n = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return;
    }
    if (writing && (p.revents & POLLOUT)) {
      ssize_t n =
          ::send(fd, data + sent, size - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) sent += static_cast<size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) writing = false;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Decode(data, size);

  // One directory for all inputs (creating the cache layout's 256
  // directories each time would be most of the work); the quota database
  // is deleted after each input, so every input starts from an empty
  // cache. Removed at exit.
  static cvmfs::testing::TempDir tmp;
  cache::CacheManagerOptions options;
  options.dir = tmp.Sub("shared");
  options.quota_limit = 1 << 20;
  auto manager = cache::CacheManager::Create(options);
  if (!manager.ok()) abort();
  std::thread server([&] { (void)(*manager)->Run(); });
  int error_number = 0;
  auto fd = cache::ConnectUnixSocket((*manager)->socket_path(), &error_number);
  if (fd.ok()) Converse(fd->get(), data, size);
  (*manager)->Stop();
  server.join();
  manager->reset();
  for (const char* name : {"cachedb", "cachedb-journal", "cachedb-wal"})
    (void)cvmfs::RemoveTree(options.dir + "/" + name);
  return 0;
}
