#include "cache/cache_manager_launch.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <vector>

#include "cache/cache_layout.h"
#include "cache/quota_protocol.h"

namespace cache {

using cvmfs::Result;
using cvmfs::Status;
using cvmfs::UniqueFd;

namespace {

// Recovering the cachedb of a large cache after a crash stats every file.
constexpr int kStartTimeoutMs = 120 * 1000;
constexpr int kReadyFd = 3;

Result<UniqueFd> LockManagerStart(const std::string& dir) {
  std::string path = cvmfs::JoinPath(dir, kManagerLockName);
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) return Status::FromErrno(errno, "open " + path);
  int rc;
  do rc = ::flock(fd.get(), LOCK_EX);
  while (rc != 0 && errno == EINTR);
  if (rc != 0) return Status::FromErrno(errno, "flock " + path);
  return fd;
}

// In the grandchild, between fork and exec: async-signal-safe calls only.
[[noreturn]] void ExecManager(const std::vector<char*>& argv, int ready) {
  int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
  }
  if (ready != kReadyFd) {
    ::dup2(ready, kReadyFd);  // dup2 clears FD_CLOEXEC on the copy
  } else {
    ::fcntl(kReadyFd, F_SETFD, 0);
  }
  // Nothing else of the mount (the FUSE device, sockets) may live on.
  if (::syscall(SYS_close_range, kReadyFd + 1, ~0U, 0) != 0) {
    for (int fd = kReadyFd + 1; fd < 65536; ++fd) ::close(fd);
  }
  ::execv(argv[0], argv.data());
  static const char kFailed[] = "cannot execute the cache manager program";
  (void)!::write(kReadyFd, kFailed, sizeof(kFailed) - 1);
  ::_exit(127);
}

// Reads the manager's report until it closes the pipe.
Status AwaitReady(int fd, const ManagerLaunch& launch) {
  std::string report;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(kStartTimeoutMs);
  char buf[512];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return Status::Unavailable("the cache manager for " + launch.dir +
                                 " did not report within " +
                                 std::to_string(kStartTimeoutMs / 1000) + " s");
    ssize_t got = ::read(fd, buf, sizeof(buf));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    report.append(buf, static_cast<size_t>(got));
  }
  if (report == "OK") return Status::Ok();
  return Status::Unavailable(
      "cannot start the cache manager (" + launch.exe + " " +
      kCacheManagerCommand + " " + launch.dir + "): " +
      (report.empty() ? "it exited without a report (see " +
                            cvmfs::JoinPath(launch.dir, kManagerLogName) + ")"
                      : report));
}

Status StartManager(const ManagerLaunch& launch) {
  // Everything the child needs is built before fork().
  std::string limit = std::to_string(launch.quota_limit);
  std::string ready_arg = std::to_string(kReadyFd);
  std::vector<std::string> args = {launch.exe, kCacheManagerCommand, launch.dir,
                                   limit, ready_arg};
  if (!launch.user.empty()) args.push_back(launch.user);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Status::FromErrno(errno, "pipe");
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  pid_t pid = ::fork();
  if (pid < 0) return Status::FromErrno(errno, "fork the cache manager");
  if (pid == 0) {
    ::setsid();
    pid_t grandchild = ::fork();
    if (grandchild != 0) ::_exit(grandchild < 0 ? 1 : 0);
    ExecManager(argv, write_end.get());
  }
  write_end.Reset();
  int wstatus;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  return AwaitReady(read_end.get(), launch);
}

}  // namespace

Result<UniqueFd> ConnectOrStartManager(const ManagerLaunch& launch) {
  const std::string socket = cvmfs::JoinPath(launch.dir, kManagerSocketName);
  // Held until connected: a stopping manager takes it before it stops
  // listening, so a connection made under it is always served.
  CVMFS_ASSIGN_OR_RETURN(UniqueFd lock, LockManagerStart(launch.dir));
  int err = 0;
  auto conn = ConnectUnixSocket(socket, &err);
  if (conn.ok()) return conn;
  if (err != ENOENT && err != ECONNREFUSED) return conn.status();
  if (launch.exe.empty())
    return Status::Unavailable("no cache manager listens on " + socket);
  CVMFS_RETURN_IF_ERROR(StartManager(launch));
  conn = ConnectUnixSocket(socket, &err);
  if (!conn.ok())
    return conn.status().Annotate("the cache manager started but");
  return conn;
}

}  // namespace cache
