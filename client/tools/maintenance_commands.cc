// cvmfs_config wipecache, umount and reload.
//
// wipecache empties every cache directory of the known repositories and
// the shared one. A directory a running client holds is not removed under
// its feet: a mount reachable over its control socket is asked to evict
// everything it can ("cleanup 0"); a directory locked by a client without a
// socket is left alone and reported. A client that was just unmounted
// removes its socket before it closes its cache, so a lock without a socket
// is waited for a few seconds (`cvmfs_config umount; cvmfs_config
// wipecache` works) before it counts as held.
//
// umount unmounts the cvmfs2 mounts below CVMFS_MOUNT_DIR only (other
// mounts on the node, e.g. by hand elsewhere, are not this tool's).
//
// reload asks mounted repositories to check for a new revision now
// ("remount sync"); CVMFS's reload also replaces the running binary, which
// this client does not do.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mount.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "client/talk/talk_socket.h"
#include "client/tools/config_tool.h"
#include "client/tools/repository_config.h"
#include "cvmfs/file_util.h"

namespace cvmfs::tools {

namespace {

// The control sockets in `dir` that a live client listens on.
std::vector<std::string> LiveSockets(const std::string& dir) {
  std::vector<std::string> live;
  auto names = ListDirectory(dir);
  if (!names.ok()) return live;
  for (const std::string& n : *names) {
    if (n.rfind("cvmfs_io.", 0) != 0) continue;
    const std::string path = JoinPath(dir, n);
    if (client::ConnectUnixSocket(path).ok()) live.push_back(path);
  }
  return live;
}

// Whether a client holds the directory's quota lock (PosixCache).
bool LockedByClient(const std::string& dir) {
  UniqueFd fd(
      ::open(JoinPath(dir, "lock_cachedb").c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return false;
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) {
    ::flock(fd.get(), LOCK_UN);
    return false;
  }
  return errno == EWOULDBLOCK;
}

// Waits up to kLockWait for the quota lock to be free; false if it is not.
constexpr auto kLockWait = std::chrono::seconds(10);
bool WaitForLockRelease(const std::string& dir) {
  const auto deadline = std::chrono::steady_clock::now() + kLockWait;
  while (LockedByClient(dir)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

std::string Wipe(const std::string& dir) {
  if (!PathExists(dir)) return "OK";
  std::vector<std::string> sockets = LiveSockets(dir);
  if (!sockets.empty()) {
    // A mount keeps its loaded catalogs pinned, so "Not fully cleaned" is
    // the expected answer.
    for (const std::string& s : sockets) {
      auto reply = client::TalkRequest(s, "cleanup 0");
      if (!reply.ok()) return "Failed! (" + reply.status().message() + ")";
      if (*reply != "OK\n" && reply->rfind("Not fully cleaned", 0) != 0)
        return "Failed! (" + reply->substr(0, reply->find('\n')) + ")";
    }
    return "OK (in use: unpinned objects evicted, pinned ones kept)";
  }
  if (!WaitForLockRelease(dir))
    return "Failed! (in use by a running client without control socket)";
  Status st = RemoveTree(dir);
  if (st.ok()) st = MakeDirs(dir, 0700);
  return st.ok() ? "OK" : "Failed! (" + st.message() + ")";
}

}  // namespace

int RunWipeCache(const ConfigToolEnv& env, const Args& args) {
  if (!args.empty()) {
    *env.err << "Usage: cvmfs_config wipecache\n";
    return 1;
  }
  auto dirs = CacheDirectories(env);
  if (!dirs.ok()) {
    *env.err << "Failed to read CernVM-FS configuration\n";
    return 1;
  }
  int rc = 0;
  for (const std::string& dir : *dirs) {
    *env.out << "Wiping out " << dir << " ... " << std::flush;
    std::string result = Wipe(dir);
    *env.out << result << "\n";
    if (result.rfind("OK", 0) != 0) rc = 1;
  }
  return rc;
}

int RunUmount(const ConfigToolEnv& env, const Args& args) {
  if (!args.empty()) {
    *env.err << "Usage: cvmfs_config umount\n";
    return 1;
  }
  auto global = LoadGlobalOptions(env.paths);
  if (!global.ok()) {
    *env.err << "Failed to read CernVM-FS configuration: "
             << global.status().message() << "\n";
    return 1;
  }
  const std::string mount_dir = MountDir(*global, env.paths);
  auto table = ReadFile(env.mount_table);
  if (!table.ok()) {
    *env.err << table.status().message() << "\n";
    return 1;
  }
  int rc = 0;
  for (const std::string& mp : ParseCvmfsMountpoints(*table)) {
    if (!IsBelow(mp, mount_dir)) continue;
    *env.out << "Unmounting " << mp << ": " << std::flush;
    if (::umount2(mp.c_str(), 0) == 0) {
      *env.out << "OK\n";
    } else {
      *env.out << "Failed! (" << std::strerror(errno) << ")\n";
      rc = 1;
    }
  }
  return rc;
}

int RunReload(const ConfigToolEnv& env, const Args& args) {
  if (args.size() == 1 && args[0] == "-c") return RunWipeCache(env, {});
  if (args.size() > 1) {
    *env.err << "Usage: cvmfs_config reload [-c | FQRN]\n";
    return 1;
  }
  auto global = LoadGlobalOptions(env.paths);
  std::string wanted;
  if (!args.empty())
    wanted = global.ok() ? MakeFqrn(args[0], *global) : args[0];
  int rc = 0;
  std::vector<std::string> done;  // a repository may be mounted twice
  for (const CvmfsMount& m : MountedRepositories(env)) {
    if (!m.responsive || (!wanted.empty() && m.fqrn != wanted)) continue;
    if (std::find(done.begin(), done.end(), m.fqrn) != done.end()) continue;
    done.push_back(m.fqrn);
    auto config = LoadRepositoryConfig(env.paths, m.fqrn);
    auto reply = config.ok()
                     ? client::TalkRequest(config->socket, "remount sync")
                     : Result<std::string>(config.status());
    std::string text =
        reply.ok() ? *reply : "Failed (" + reply.status().message() + ")\n";
    *env.out << m.fqrn << ": " << text;
    if (text.rfind("Failed", 0) == 0) rc = 1;
  }
  if (!wanted.empty() && done.empty()) {
    *env.out << wanted << " not mounted\n";
    return 1;
  }
  return rc;
}

}  // namespace cvmfs::tools
