// The subcommands of cvmfs_config (doc/operations.md, "cvmfs_config"), each a
// function that prints to the environment's streams and returns the exit code.
// They follow CVMFS's cvmfs_config script: same names, options and wording
// ("Probing /cvmfs/atlas.cern.ch... OK", the `stat` columns), with every system
// path taken below $CVMFS_ROOTDIR (SystemPaths).
//
//   probe [FQRN...]        mount (autofs) and check each repository
//   stat [-v] [FQRN]       the state of mounted repositories, from their
//                          magic attributes and /proc
//   showconfig [-s] [FQRN] the effective configuration with sources
//   chksetup               configuration and installation checks
//   setup [nouser] [nocfgmod] [nostart] [noautofs]
//                          mount helper symlink, autofs map
//   wipecache              empty the caches (cleanup 0 for mounted ones)
//   umount                 unmount every repository below CVMFS_MOUNT_DIR
//   reload [FQRN]          check for new revisions now (remount sync)
//   status                 one line per mounted repository with its pid
//   fsck [-v] [-p] [-f] [-j N]
//                          re-hash the cached objects (cache_fsck.h)
//   fuser FQRN             the processes using files of a repository
//   killall                kill every client process, unmount, clean up
//   bugreport              configuration, logs and talk output in one
//                          archive, without key material
//
// Thread safety: none needed; one command per process.
#ifndef CLIENT_TOOLS_CONFIG_TOOL_H_
#define CLIENT_TOOLS_CONFIG_TOOL_H_

#include <ostream>
#include <string>
#include <vector>

#include "client/tools/mount_table.h"
#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace cvmfs::tools {

struct ConfigToolEnv {
  SystemPaths paths;
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  std::string mount_table = "/proc/self/mounts";
  // Where cvmfs2, mount.cvmfs and cvmfs_talk are installed (the directory
  // of cvmfs_config itself).
  std::string program_dir;
  // The process table (fuser, killall).
  std::string proc = "/proc";
};

using Args = std::vector<std::string>;

int RunProbe(const ConfigToolEnv& env, const Args& args);
int RunStat(const ConfigToolEnv& env, const Args& args);
int RunShowConfig(const ConfigToolEnv& env, const Args& args);
int RunChkSetup(const ConfigToolEnv& env, const Args& args);
int RunSetup(const ConfigToolEnv& env, const Args& args);
int RunWipeCache(const ConfigToolEnv& env, const Args& args);
int RunUmount(const ConfigToolEnv& env, const Args& args);
int RunReload(const ConfigToolEnv& env, const Args& args);
int RunStatus(const ConfigToolEnv& env, const Args& args);
int RunFsck(const ConfigToolEnv& env, const Args& args);
int RunFuser(const ConfigToolEnv& env, const Args& args);
int RunKillall(const ConfigToolEnv& env, const Args& args);
int RunBugreport(const ConfigToolEnv& env, const Args& args);

// Shared by the commands: the mounted repositories (empty if the mount
// table cannot be read), and the configured (CVMFS_REPOSITORIES) followed
// by those mounted below CVMFS_MOUNT_DIR but not configured (a repository
// mounted by hand elsewhere is not described by the configuration).
std::vector<CvmfsMount> MountedRepositories(const ConfigToolEnv& env);
Result<std::vector<std::string>> KnownRepositories(const ConfigToolEnv& env);
// The cache directories of the node (wipecache, fsck): $CVMFS_CACHE_BASE/
// shared, then each known repository's own, without duplicates; some may
// not exist.
Result<std::vector<std::string>> CacheDirectories(const ConfigToolEnv& env);

// Runs a system command (no shell); true if it exited 0.
bool Run(const std::vector<std::string>& argv);
// Whether an automount process runs on the node.
bool AutomountRunning();
// A running automount reads its master map only at start and on SIGHUP
// (what `systemctl reload autofs` sends): reloads it, unless the root is
// relocated (CVMFS_ROOTDIR: that map is no business of the node's
// automount) or none runs.
void ReloadAutofs(const ConfigToolEnv& env);

// The text of $CVMFS_ROOTDIR/etc/auto.cvmfs that `setup` installs.
std::string AutofsMapScript();

}  // namespace cvmfs::tools

#endif  // CLIENT_TOOLS_CONFIG_TOOL_H_
