#include "publisher/repository_mounts.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>
#include <thread>
#include <vector>

#include "cvmfs/file_util.h"
#include "publisher/mount_table.h"
#include "publisher/server_config.h"

extern char** environ;

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

namespace {

// The client's cache lock (doc/client.md, "The cache"): held by the cvmfs2
// process for as long as it runs.
constexpr char kCacheLockName[] = "lock_cachedb";
constexpr auto kCacheReleaseTimeout = std::chrono::seconds(30);

// overlayfs splits its options at ',' and lowerdir at ':'.
Status CheckOverlayPath(const std::string& path) {
  if (path.find_first_of(",:\\") == std::string::npos) return Status::Ok();
  return Status::InvalidArgument(
      "path " + path +
      " contains ',', ':' or '\\', which overlayfs options cannot hold");
}

Result<int> RunAndWait(const std::vector<std::string>& args,
                       const std::string& log) {
  std::vector<char*> argv;
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The client daemonizes; its output goes to a file, never to a pipe a
  // daemon could hold open.
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid;
  int rc =
      ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Status::FromErrno(rc, "starting " + args[0]);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR)
      return Status::FromErrno(errno, "waiting for " + args[0]);
  }
  return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

std::string Tail(const std::string& file) {
  auto text = cvmfs::ReadFile(file);
  if (!text.ok()) return "(no output)";
  std::string t = *text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  if (t.size() > 2000) t = "..." + t.substr(t.size() - 2000);
  return t.empty() ? "(no output)" : t;
}

Status Unmount(const std::string& mountpoint, bool force) {
  if (::umount2(mountpoint.c_str(), 0) == 0) return Status::Ok();
  int err = errno;
  if (err == EBUSY && force && ::umount2(mountpoint.c_str(), MNT_DETACH) == 0)
    return Status::Ok();
  if (err == EBUSY)
    return Status::Busy(
        "cannot unmount " + mountpoint +
        ": it is in use (a shell or process has its working directory or a "
        "file there; see fuser -vm " +
        mountpoint + ")");
  return Status::FromErrno(err, "unmount " + mountpoint);
}

bool IsMounted(const std::vector<MountEntry>& table, const std::string& path) {
  return FindMount(table, path).has_value();
}

}  // namespace

std::string MountHealth::Problems(const SpoolLayout& layout) const {
  std::string out;
  if (!rdonly_mounted)
    out += layout.rdonly + " (read-only layer) is not mounted";
  if (!union_mounted) {
    if (!out.empty()) out += "; ";
    out += layout.union_mount + " (union file system) is not mounted";
  }
  return out;
}

Status RepositoryMounts::CheckSupport() {
  if (::geteuid() != 0)
    return Status::NotSupported(
        "transactions need root (mounting FUSE and overlayfs)");
  if (!cvmfs::PathExists("/dev/fuse"))
    return Status::NotSupported("/dev/fuse is missing");
  auto fs = cvmfs::ReadFile("/proc/filesystems");
  if (!fs.ok() || fs->find("\toverlay\n") == std::string::npos)
    return Status::NotSupported(
        "the kernel has no overlayfs (modprobe overlay)");
  if (fs->find("\tfuse\n") == std::string::npos)
    return Status::NotSupported(
        "the kernel has no FUSE support (modprobe fuse)");
  return Status::Ok();
}

Result<std::string> RepositoryMounts::ClientBinary() {
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return Status::FromErrno(errno, "readlink /proc/self/exe");
  std::string dir(self, static_cast<size_t>(n));
  dir = dir.substr(0, dir.rfind('/'));
  std::string client = dir + "/cvmfs2";
  if (::access(client.c_str(), X_OK) != 0)
    return Status::NotFound(
        "the client " + client +
        " (needed for the read-only layer) is missing; install cvmfs2 beside "
        "cvmfs_server");
  return client;
}

Status RepositoryMounts::WriteClientConfig(
    const std::string& server_url, const std::string& public_key) const {
  KeyValueFile kv;
  kv.Set("CVMFS_SERVER_URL", server_url);
  kv.Set("CVMFS_HTTP_PROXY", "DIRECT");
  kv.Set("CVMFS_CACHE_BASE", layout_.client_cache);
  kv.Set("CVMFS_SHARED_CACHE", "no");
  kv.Set("CVMFS_QUOTA_LIMIT", "4000");
  kv.Set("CVMFS_PUBLIC_KEY", public_key);
  // The layer changes under the overlay at every publish: no kernel caching.
  kv.Set("CVMFS_KCACHE_TIMEOUT", "0");
  kv.Set("CVMFS_AUTO_UPDATE", "no");
  // Owners as published, and no magic attributes copied up by overlayfs.
  kv.Set("CVMFS_CLAIM_OWNERSHIP", "no");
  kv.Set("CVMFS_HIDE_MAGIC_XATTRS", "yes");
  std::string text = "# The read-only layer of " + fqrn_ +
                     "'s transactions; written by cvmfs_server mkfs.\n" +
                     kv.Serialize();
  return cvmfs::WriteFileAtomic(layout_.client_config, text, 0644);
}

bool RepositoryMounts::HasClientConfig() const {
  return cvmfs::PathExists(layout_.client_config);
}

Result<MountHealth> RepositoryMounts::Health() const {
  CVMFS_ASSIGN_OR_RETURN(auto table, ReadMountTable());
  MountHealth h;
  h.rdonly_mounted = IsMounted(table, layout_.rdonly);
  auto u = FindMount(table, layout_.union_mount);
  h.union_mounted = u.has_value() && u->fstype == "overlay";
  h.union_writable = h.union_mounted && !u->read_only;
  auto local = KeyValueFile::Load(layout_.client_local);
  if (local.ok()) {
    auto d = cvmfs::Digest::Parse(local->Get("CVMFS_ROOT_HASH"));
    if (d.ok()) h.rdonly_root = *d;
  }
  return h;
}

Status RepositoryMounts::MountReadOnlyLayer(const cvmfs::Digest& root) const {
  CVMFS_ASSIGN_OR_RETURN(std::string client, ClientBinary());
  CVMFS_RETURN_IF_ERROR(layout_.CreateDirectories());
  CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(
      layout_.client_local, "CVMFS_ROOT_HASH=" + root.ToString() + "\n", 0644));
  const std::string options = "config=" + layout_.client_config + ":" +
                              layout_.client_local + ",allow_other";
  CVMFS_ASSIGN_OR_RETURN(
      int rc, RunAndWait({client, "-o", options, fqrn_, layout_.rdonly},
                         layout_.client_log));
  if (rc != 0)
    return Status::Unavailable(
        "mounting the read-only layer " + layout_.rdonly + " (" + client +
        ") failed with exit status " + std::to_string(rc) + ": " +
        Tail(layout_.client_log));
  return Status::Ok();
}

Status RepositoryMounts::WaitForCacheRelease() const {
  const std::string lock =
      layout_.client_cache + "/" + fqrn_ + "/" + kCacheLockName;
  cvmfs::UniqueFd fd(::open(lock.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid())
    return Status::Ok();  // no managed cache: nothing to wait for
  auto deadline = std::chrono::steady_clock::now() + kCacheReleaseTimeout;
  while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (std::chrono::steady_clock::now() > deadline)
      return Status::Busy("the client of " + layout_.rdonly +
                          " did not exit after the unmount (" + lock +
                          " still locked)");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::flock(fd.get(), LOCK_UN);
  return Status::Ok();
}

Status RepositoryMounts::UnmountReadOnlyLayer(bool force) const {
  CVMFS_ASSIGN_OR_RETURN(auto table, ReadMountTable());
  if (!IsMounted(table, layout_.rdonly)) return Status::Ok();
  CVMFS_RETURN_IF_ERROR(Unmount(layout_.rdonly, force));
  return WaitForCacheRelease();
}

Status RepositoryMounts::MountUnion(bool writable) const {
  for (const std::string& p :
       {layout_.rdonly, layout_.scratch_current, layout_.ofs_workdir})
    CVMFS_RETURN_IF_ERROR(CheckOverlayPath(p));
  CVMFS_RETURN_IF_ERROR(layout_.CreateDirectories());
  const std::string data =
      "lowerdir=" + layout_.rdonly + ",upperdir=" + layout_.scratch_current +
      ",workdir=" + layout_.ofs_workdir + ",redirect_dir=off,metacopy=off";
  unsigned long flags = MS_NODEV | (writable ? 0 : MS_RDONLY);
  if (::mount(("overlay_" + fqrn_).c_str(), layout_.union_mount.c_str(),
              "overlay", flags, data.c_str()) != 0)
    return Status::FromErrno(
        errno,
        "mounting overlayfs at " + layout_.union_mount + " (" + data + ")");
  return Status::Ok();
}

Status RepositoryMounts::RemountUnion(bool writable) const {
  unsigned long flags = MS_REMOUNT | MS_NODEV | (writable ? 0 : MS_RDONLY);
  if (::mount(nullptr, layout_.union_mount.c_str(), nullptr, flags, nullptr) ==
      0)
    return Status::Ok();
  if (errno == EBUSY && !writable)
    return Status::Busy("cannot make " + layout_.union_mount +
                        " read-only: files there are open for writing");
  return Status::FromErrno(errno,
                           std::string("remounting ") + layout_.union_mount +
                               (writable ? " read-write" : " read-only"));
}

Status RepositoryMounts::UnmountUnion(bool force) const {
  CVMFS_ASSIGN_OR_RETURN(auto table, ReadMountTable());
  if (!IsMounted(table, layout_.union_mount)) return Status::Ok();
  return Unmount(layout_.union_mount, force);
}

void RepositoryMounts::EmptyWastebinInBackground() const {
  pid_t child = ::fork();
  if (child < 0) return;  // the next reset tries again
  if (child == 0) {
    // Detached: a new session, and a grandchild that init adopts.
    ::setsid();
    if (::fork() != 0) ::_exit(0);
    int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
    ::execl("/bin/rm", "rm", "-rf", "--one-file-system",
            layout_.wastebin.c_str(), nullptr);
    ::_exit(127);
  }
  int wstatus;
  while (::waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
  }
}

Status RepositoryMounts::ResetScratch() const {
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(layout_.wastebin, 0700));
  if (cvmfs::PathExists(layout_.scratch_current)) {
    const std::string base = layout_.wastebin + "/" +
                             std::to_string(::getpid()) + "." +
                             std::to_string(::time(nullptr));
    std::string old = base;
    for (int n = 1; cvmfs::PathExists(old); ++n)
      old = base + "." + std::to_string(n);
    if (::rename(layout_.scratch_current.c_str(), old.c_str()) != 0)
      return Status::FromErrno(
          errno, "moving " + layout_.scratch_current + " to " + old);
  }
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(layout_.scratch_current, 0755));
  CVMFS_RETURN_IF_ERROR(cvmfs::RemoveTree(layout_.ofs_workdir));
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(layout_.ofs_workdir, 0755));
  EmptyWastebinInBackground();
  struct stat root;
  if (::stat(layout_.rdonly.c_str(), &root) != 0)
    return Status::Ok();  // not mounted
  const char* upper = layout_.scratch_current.c_str();
  if (::chmod(upper, root.st_mode & 07777) != 0 ||
      ::chown(upper, root.st_uid, root.st_gid) != 0)
    return Status::FromErrno(
        errno, "setting the attributes of " + layout_.scratch_current);
  struct timespec times[2] = {root.st_atim, root.st_mtim};
  if (::utimensat(AT_FDCWD, upper, times, 0) != 0)
    return Status::FromErrno(errno,
                             "setting the times of " + layout_.scratch_current);
  return Status::Ok();
}

}  // namespace publisher
