#include "cache/cache_manager_main.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "cache/cache_layout.h"
#include "cache/cache_manager.h"
#include "cvmfs/credentials.h"
#include "cvmfs/file_util.h"
#include "cvmfs/time_format.h"

namespace cache {

using cvmfs::Status;

namespace {

// The log is cut when it grows past this at start-up.
constexpr off_t kMaxLogBytes = 1 << 20;

struct Arguments {
  std::string dir;
  int64_t limit = 0;
  int ready_fd = -1;
  std::string user;  // empty: no switch
};

cvmfs::Result<Arguments> ParseArguments(int argc, char** argv) {
  if (argc < 2 || argc > 4)
    return Status::InvalidArgument(
        "usage: cvmfs2 __cachemgr__ <cache dir> <limit bytes> [<ready fd> "
        "[<user>]]");
  Arguments a;
  a.dir = argv[0];
  if (a.dir.empty() || a.dir[0] != '/')
    return Status::InvalidArgument("cache directory '" + a.dir +
                                   "' is not an absolute path");
  char* end = nullptr;
  errno = 0;
  a.limit = std::strtoll(argv[1], &end, 10);
  if (errno != 0 || *end != '\0' || a.limit <= 0)
    return Status::InvalidArgument("invalid quota limit '" +
                                   std::string(argv[1]) + "' (bytes)");
  if (argc == 4) a.user = argv[3];
  if (argc >= 3) {
    a.ready_fd = static_cast<int>(std::strtol(argv[2], &end, 10));
    if (*end != '\0' || a.ready_fd < 0)
      return Status::InvalidArgument("invalid descriptor '" +
                                     std::string(argv[2]) + "'");
  }
  return a;
}

// Appends time-stamped lines to <dir>/cachemgr.log.
class LogFile {
 public:
  explicit LogFile(const std::string& dir) {
    std::string path = cvmfs::JoinPath(dir, kManagerLogName);
    struct stat st;
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
    if (::stat(path.c_str(), &st) == 0 && st.st_size > kMaxLogBytes)
      flags |= O_TRUNC;
    fd_.Reset(::open(path.c_str(), flags, 0600));
  }
  void Write(const std::string& msg) const {
    if (!fd_.valid()) return;
    std::string line =
        cvmfs::FormatTime(::time(nullptr), cvmfs::kDateTimeFormat,
                          cvmfs::TimeZone::kUtc) +
        " [" + std::to_string(::getpid()) + "] " + msg + "\n";
    (void)!::write(fd_.get(), line.data(), line.size());  // O_APPEND: whole
  }

 private:
  cvmfs::UniqueFd fd_;
};

void Report(int* fd, const std::string& message) {
  if (*fd < 0) return;
  (void)!::write(*fd, message.data(), message.size());
  ::close(*fd);
  *fd = -1;
}

Status SwitchTo(const std::string& name) {
  auto user = cvmfs::LookUpUser(name);
  if (!user.ok()) return user.status().Annotate("CVMFS_USER=" + name);
  return cvmfs::DropToUser(*user).Annotate("switching to CVMFS_USER=" + name);
}

}  // namespace

int CacheManagerMain(int argc, char** argv) {
  auto args = ParseArguments(argc, argv);
  if (!args.ok()) {
    std::fprintf(stderr, "cvmfs2 __cachemgr__: %s\n",
                 args.status().message().c_str());
    return 2;
  }
  int ready_fd = args->ready_fd;
  (void)!::chdir("/");  // do not keep the starting mount's directory busy
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  // SIGTERM/SIGINT arrive on a signalfd that stops the loop cleanly.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigprocmask(SIG_BLOCK, &stop_signals, nullptr);
  cvmfs::UniqueFd signal_fd(::signalfd(-1, &stop_signals, SFD_CLOEXEC));

  // Root switches before the first file is made (a mount that assumed the
  // user still has root as its real uid, and so has this process).
  if (!args->user.empty() && ::getuid() == 0) {
    Status st = SwitchTo(args->user);
    if (!st.ok()) {
      Report(&ready_fd, st.message());
      return 1;
    }
  }
  (void)cvmfs::MakeDirs(args->dir, kDirMode);
  LogFile log(args->dir);
  CacheManagerOptions options;
  options.dir = args->dir;
  options.quota_limit = args->limit;
  options.stop_fd = signal_fd.get();
  options.log = [&log](const std::string& m) { log.Write(m); };
  auto manager = CacheManager::Create(options);
  if (!manager.ok()) {
    std::string msg = manager.status().message();
    log.Write("cannot start: " + msg);
    Report(&ready_fd, msg);
    return 1;
  }
  Report(&ready_fd, "OK");
  Status st = (*manager)->Run();
  if (!st.ok()) log.Write("stopped: " + st.message());
  manager->reset();  // writes cachedb before the exit
  log.Write("exited");
  return st.ok() ? 0 : 1;
}

}  // namespace cache
