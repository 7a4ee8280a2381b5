// cvmfs_config killall: the emergency stop of every CernVM-FS client on the
// node, in CVMFS's steps and words (no confirmation and no options, as in
// CVMFS; root only):
//
//   Terminating cvmfs_config processes... OK   other cvmfs_config runs
//   Terminating cvmfs2 processes... OK         every mount and the cache
//                                              manager (SIGKILL)
//   Unmounting stale mount points... OK        below CVMFS_MOUNT_DIR; lazily
//                                              if a plain unmount fails
//   Cleaning up run-time variable data... OK   $CVMFS_ROOTDIR/var/run/cvmfs
//   Reloading autofs... OK                     if automount runs
//
// "Every" means the processes of this installation: those running the
// cvmfs2 (and cvmfs_config) beside this program, as CVMFS matches
// ${INSTALL_BASE}/bin/cvmfs2. Another installation's clients on the node
// are not touched. Exit code 1 if a step failed (the later ones are then
// not run, as in CVMFS).
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <functional>
#include <thread>

#include "client/tools/config_tool.h"
#include "client/tools/process_table.h"
#include "client/tools/repository_config.h"
#include "cvmfs/file_util.h"

namespace cvmfs::tools {

namespace {

constexpr auto kKillWait = std::chrono::seconds(10);

// SIGKILLs every process running `exe` but this one and waits for them to
// be gone; false if some remain after kKillWait.
bool KillAll(const ConfigToolEnv& env, const std::string& exe) {
  std::vector<pid_t> pids = ProcessesRunning(env.proc, exe, ::getpid());
  for (pid_t pid : pids) ::kill(pid, SIGKILL);
  const auto deadline = std::chrono::steady_clock::now() + kKillWait;
  while (!ProcessesRunning(env.proc, exe, ::getpid()).empty()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

// Unmounts the cvmfs2 mounts below the mount directory, lazily when a
// plain unmount fails (a dead client's mount answers ENOTCONN).
bool UnmountStale(const ConfigToolEnv& env) {
  auto global = LoadGlobalOptions(env.paths);
  auto table = ReadFile(env.mount_table);
  if (!global.ok() || !table.ok()) return false;
  const std::string mount_dir = MountDir(*global, env.paths);
  bool ok = true;
  for (const std::string& mp : ParseCvmfsMountpoints(*table)) {
    if (!IsBelow(mp, mount_dir)) continue;
    if (::umount2(mp.c_str(), 0) != 0 && ::umount2(mp.c_str(), MNT_DETACH) != 0)
      ok = false;
  }
  return ok;
}

// Empties the run-time directory (it stays).
bool CleanRunDir(const ConfigToolEnv& env) {
  const std::string dir = env.paths.RunDir();
  auto names = ListDirectory(dir);
  if (!names.ok()) return names.status().IsNotFound();
  bool ok = true;
  for (const std::string& n : *names)
    ok = RemoveTree(JoinPath(dir, n)).ok() && ok;
  return ok;
}

}  // namespace

int RunKillall(const ConfigToolEnv& env, const Args& args) {
  if (!args.empty()) {
    *env.err << "Usage: cvmfs_config killall\n";
    return 1;
  }
  struct Step {
    const char* what;
    std::function<bool()> run;
  };
  const Step steps[] = {
      {"Terminating cvmfs_config processes... ",
       [&] { return KillAll(env, JoinPath(env.program_dir, "cvmfs_config")); }},
      {"Terminating cvmfs2 processes... ",
       [&] { return KillAll(env, JoinPath(env.program_dir, "cvmfs2")); }},
      {"Unmounting stale mount points... ", [&] { return UnmountStale(env); }},
      {"Cleaning up run-time variable data... ",
       [&] { return CleanRunDir(env); }},
  };
  for (const Step& step : steps) {
    *env.out << step.what << std::flush;
    if (!step.run()) {
      *env.out << "Failed!\n";
      return 1;
    }
    *env.out << "OK\n";
  }
  if (env.paths.root.empty() && AutomountRunning()) {
    *env.out << "Reloading autofs... " << std::flush;
    ReloadAutofs(env);
    *env.out << "OK\n";
  }
  return 0;
}

}  // namespace cvmfs::tools
