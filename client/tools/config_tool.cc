#include "client/tools/config_tool.h"

#include <algorithm>

#include "client/tools/repository_config.h"
#include "cvmfs/file_util.h"

namespace cvmfs::tools {

std::vector<CvmfsMount> MountedRepositories(const ConfigToolEnv& env) {
  auto mounts = ListCvmfsMounts(env.mount_table);
  return mounts.ok() ? *mounts : std::vector<CvmfsMount>();
}

Result<std::vector<std::string>> KnownRepositories(const ConfigToolEnv& env) {
  CVMFS_ASSIGN_OR_RETURN(OptionsManager global, LoadGlobalOptions(env.paths));
  std::vector<std::string> repos = ConfiguredRepositories(global);
  const std::string mount_dir = MountDir(global, env.paths);
  for (const CvmfsMount& m : MountedRepositories(env)) {
    if (IsBelow(m.mountpoint, mount_dir) &&
        std::find(repos.begin(), repos.end(), m.fqrn) == repos.end())
      repos.push_back(m.fqrn);
  }
  return repos;
}

Result<std::vector<std::string>> CacheDirectories(const ConfigToolEnv& env) {
  CVMFS_ASSIGN_OR_RETURN(OptionsManager global, LoadGlobalOptions(env.paths));
  CVMFS_ASSIGN_OR_RETURN(std::vector<std::string> repos,
                         KnownRepositories(env));
  std::string base = global.Get("CVMFS_CACHE_BASE").value_or("");
  if (base.empty()) base = env.paths.VarLibCvmfs();
  std::vector<std::string> dirs = {JoinPath(base, "shared")};
  for (const std::string& fqrn : repos) {
    auto config = LoadRepositoryConfig(env.paths, fqrn);
    if (config.ok() &&
        std::find(dirs.begin(), dirs.end(), config->cache_dir) == dirs.end())
      dirs.push_back(config->cache_dir);
  }
  return dirs;
}

std::string AutofsMapScript() {
  return R"(#!/bin/sh
# CernVM-FS autofs map, installed by `cvmfs_config setup`: autofs runs it
# with the name looked up below the mount directory and mounts what it
# prints. Only repository names are mounted: they start with a letter or
# digit, hold a dot and only [A-Za-z0-9._-], and do not end in a dot.
fqrn="$1"
case "$fqrn" in
  [A-Za-z0-9]*.*) ;;
  *) exit 1 ;;
esac
case "$fqrn" in
  *[!A-Za-z0-9._-]* | *.) exit 1 ;;
esac
echo "-fstype=cvmfs :$fqrn"
)";
}

}  // namespace cvmfs::tools
