// cvmfs_config: common configuration tasks for CernVM-FS (the commands of
// CVMFS's cvmfs_config script; tools/config_tool.h describes each).
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "client/magic_xattrs.h"
#include "client/tools/config_tool.h"
#include "cvmfs/system_paths.h"

namespace {

void Usage(std::ostream& out) {
  out << "Common configuration tasks for CernVM-FS\n"
         "Usage: cvmfs_config <command>\n"
         "Commands:\n"
         "  setup [nouser] [nocfgmod] [nostart] [noautofs]\n"
         "  chksetup\n"
         "  showconfig [-s(hort output, only non-empty parameters)] "
         "[<repository>]\n"
         "  stat [-v] [<repository>]\n"
         "  status\n"
         "  probe [<repository list>]\n"
         "  fsck [-v] [-p] [-f] [-j <threads>]\n"
         "  fuser <repository>\n"
         "  reload [-c | <repository>]\n"
         "  umount\n"
         "  wipecache\n"
         "  killall\n"
         "  bugreport\n"
         "\n"
         "  setup      prepare the node: mount directory, cvmfs user, "
         "mount.cvmfs,\n"
         "             autofs map (nouser, nocfgmod, nostart, noautofs skip "
         "parts)\n"
         "  chksetup   check the installation and every repository's "
         "configuration\n"
         "  showconfig the effective configuration with the file each value "
         "comes from\n"
         "  stat       the state of mounted repositories (-v: one value a "
         "line)\n"
         "  status     one line per mounted repository: its mountpoint and "
         "pid\n"
         "  probe      mount (through autofs) and check each repository\n"
         "  fsck       re-hash every object in the cache directories; -p "
         "moves\n"
         "             corrupted ones to quarantaine/, -f rebuilds cachedb, "
         "-v is\n"
         "             verbose, -j runs threads in parallel; exit bits: 1 "
         "fixed,\n"
         "             4 errors left, 8 operational error, 16 usage\n"
         "  fuser      the pids of the processes using files of a "
         "repository\n"
         "  killall    kill every cvmfs2 process (mounts and cache manager) "
         "of\n"
         "             this installation and other cvmfs_config runs, "
         "unmount\n"
         "             what is left below CVMFS_MOUNT_DIR, empty "
         "/var/run/cvmfs,\n"
         "             reload autofs; no confirmation asked\n"
         "  reload     check mounted repositories for a new revision now "
         "(-c: wipecache)\n"
         "  umount     unmount every repository below CVMFS_MOUNT_DIR\n"
         "  wipecache  empty the caches (in use: evict what is not pinned)\n"
         "  bugreport  configuration (no keys: names only), talk output, "
         "logs,\n"
         "             mounts and versions in one tar.gz; prints its path\n"
         "Commands other than probe, stat, status, showconfig and fuser "
         "need root.\n";
}

std::string ProgramDir() {
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "/usr/bin";
  std::string path(self, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

}  // namespace

int main(int argc, char** argv) {
  using Command =
      int (*)(const cvmfs::tools::ConfigToolEnv&, const cvmfs::tools::Args&);
  // Commands that change the node need root, as in CVMFS.
  const std::map<std::string, std::pair<Command, bool>> commands = {
      {"probe", {cvmfs::tools::RunProbe, false}},
      {"stat", {cvmfs::tools::RunStat, false}},
      {"showconfig", {cvmfs::tools::RunShowConfig, false}},
      {"chksetup", {cvmfs::tools::RunChkSetup, true}},
      {"setup", {cvmfs::tools::RunSetup, true}},
      {"wipecache", {cvmfs::tools::RunWipeCache, true}},
      {"umount", {cvmfs::tools::RunUmount, true}},
      {"reload", {cvmfs::tools::RunReload, true}},
      {"status", {cvmfs::tools::RunStatus, false}},
      {"fsck", {cvmfs::tools::RunFsck, true}},
      {"fuser", {cvmfs::tools::RunFuser, false}},
      {"killall", {cvmfs::tools::RunKillall, true}},
      {"bugreport", {cvmfs::tools::RunBugreport, true}},
  };
  if (argc < 2 || std::strcmp(argv[1], "-h") == 0 ||
      std::strcmp(argv[1], "--help") == 0) {
    Usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 1 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::cout << "CernVM-FS version " << cvmfs::client::kClientVersion << "\n";
    return 0;
  }
  auto it = commands.find(argv[1]);
  if (it == commands.end()) {
    Usage(std::cerr);
    return 1;
  }
  if (it->second.second && ::geteuid() != 0) {
    std::cout << "root privileges required\n";
    return 1;
  }
  cvmfs::tools::ConfigToolEnv env;
  env.paths = cvmfs::SystemPaths::FromEnvironment();
  env.out = &std::cout;
  env.err = &std::cerr;
  env.program_dir = ProgramDir();
  return it->second.first(env, cvmfs::tools::Args(argv + 2, argv + argc));
}
