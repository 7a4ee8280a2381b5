#include "cvmfs/config/config_repository_reach.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cvmfs {

namespace {

// In the forked helper: async-signal-safe calls only.
[[noreturn]] void HoldDirectory(const char* dir, int ready, int release) {
  (void)::setsid();  // a process group autofs triggers mounts for
  const int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    // Not the caller's output: a pipe read by a script would stay open.
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
  }
  const int held = ::open(dir, O_RDONLY | O_DIRECTORY);
  const char c = held >= 0 ? 'R' : 'E';
  (void)!::write(ready, &c, 1);
  ::close(ready);
  char b;
  for (;;) {
    const ssize_t n = ::read(release, &b, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  ::_exit(0);
}

}  // namespace

void AutofsReach::Reach(const std::string& dir) {
  if (holder_ >= 0 && dir == dir_) return;
  Release();
  int ready[2], release[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return;
  if (::pipe2(release, O_CLOEXEC) != 0) {
    ::close(ready[0]);
    ::close(ready[1]);
    return;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ready[0]);
    ::close(release[1]);
    HoldDirectory(dir.c_str(), ready[1], release[0]);
  }
  ::close(ready[1]);
  ::close(release[0]);
  if (pid < 0) {
    ::close(ready[0]);
    ::close(release[1]);
    return;
  }
  // Wait until the helper has opened (and so mounted) the directory.
  char c;
  while (::read(ready[0], &c, 1) < 0 && errno == EINTR) {
  }
  ::close(ready[0]);
  dir_ = dir;
  holder_ = pid;
  owner_ = ::getpid();
  release_ = UniqueFd(release[1]);
}

void AutofsReach::Release() {
  if (holder_ < 0) return;
  release_.Reset();
  if (::getpid() == owner_) {
    while (::waitpid(holder_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  holder_ = -1;
  dir_.clear();
}

}  // namespace cvmfs
