// cvmfs_config probe: lists each repository's mountpoint (which makes
// autofs mount it) and checks that a cvmfs2 file system is mounted there.
#include <dirent.h>

#include <algorithm>

#include "client/tools/config_tool.h"
#include "client/tools/repository_config.h"
#include "cvmfs/file_util.h"

namespace cvmfs::tools {

namespace {

bool Probe(const ConfigToolEnv& env, const std::string& mountpoint) {
  DIR* dir = ::opendir(mountpoint.c_str());  // triggers the automounter
  if (dir == nullptr) return false;
  bool listed = ::readdir(dir) != nullptr;
  ::closedir(dir);
  if (!listed) return false;
  auto table = ReadFile(env.mount_table);
  if (!table.ok()) return false;
  auto mounts = ParseCvmfsMountpoints(*table);
  return std::find(mounts.begin(), mounts.end(), mountpoint) != mounts.end();
}

}  // namespace

int RunProbe(const ConfigToolEnv& env, const Args& args) {
  auto global = LoadGlobalOptions(env.paths);
  if (!global.ok()) {
    *env.err << "Failed to read CernVM-FS configuration: "
             << global.status().message() << "\n";
    return 1;
  }
  std::vector<std::string> repos;
  for (const std::string& a : args) repos.push_back(MakeFqrn(a, *global));
  if (repos.empty()) {
    auto known = KnownRepositories(env);
    if (known.ok()) repos = *known;
  }
  int rc = 0;
  for (const std::string& fqrn : repos) {
    auto config = LoadRepositoryConfig(env.paths, fqrn);
    if (!config.ok()) {
      *env.out << "Probing " << fqrn << "... Failed! ("
               << config.status().message() << ")\n";
      rc = 1;
      continue;
    }
    // A repository mounted elsewhere than CVMFS_MOUNT_DIR is probed there.
    std::string mountpoint = config->mountpoint;
    for (const CvmfsMount& m : MountedRepositories(env))
      if (m.fqrn == fqrn && m.mountpoint != mountpoint &&
          !PathExists(mountpoint))
        mountpoint = m.mountpoint;
    *env.out << "Probing " << mountpoint << "... " << std::flush;
    if (Probe(env, mountpoint)) {
      *env.out << "OK\n";
    } else {
      *env.out << "Failed!\n";
      rc = 1;
    }
  }
  return rc;
}

}  // namespace cvmfs::tools
