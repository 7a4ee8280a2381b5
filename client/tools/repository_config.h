// What the operator tools (cvmfs_talk, cvmfs_config) need to know about a
// repository from the configuration under $CVMFS_ROOTDIR/etc/cvmfs: its
// options (with sources), its typed settings if they are valid, its cache
// directory, control socket and mountpoint.
//
// The tools read the same files as cvmfs2, the configuration repository's
// too (LoadRepositoryConfig has autofs mount it if need be,
// config_repository_reach.h), but not the files a mount was
// given with `-o config=`; a repository mounted with extra files is reached
// with `cvmfs_talk -p SOCKET`.
//
// Thread safety: plain values and free functions.
#ifndef CLIENT_TOOLS_REPOSITORY_CONFIG_H_
#define CLIENT_TOOLS_REPOSITORY_CONFIG_H_

#include <optional>
#include <string>
#include <vector>

#include "client/client_settings.h"
#include "cvmfs/config/options_manager.h"
#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace cvmfs::tools {

struct RepositoryConfig {
  std::string fqrn;
  OptionsManager options;
  // Typed settings; nullopt if the configuration is not valid for a mount
  // (settings_error says why).
  std::optional<ClientSettings> settings;
  Status settings_error;
  std::string
      cache_dir;  // ClientSettings::CacheDir(), or as near as the options allow
  std::string socket;      // <cache_dir>/cvmfs_io.<fqrn>
  std::string mountpoint;  // $CVMFS_MOUNT_DIR/<fqrn>
};

// Reads the configuration of `fqrn`. Fails only if the files cannot be
// read (a shell error, a bad name); invalid values land in settings_error.
Result<RepositoryConfig> LoadRepositoryConfig(const SystemPaths& paths,
                                              const std::string& fqrn);

// The repository-independent configuration: default.conf, default.d/*.conf,
// default.local.
Result<OptionsManager> LoadGlobalOptions(const SystemPaths& paths);

// CVMFS_REPOSITORIES (',' or blank separated), in order, without
// duplicates, each completed by MakeFqrn.
std::vector<std::string> ConfiguredRepositories(const OptionsManager& global);

// "atlas" -> "atlas.cern.ch" with CVMFS_DEFAULT_DOMAIN=cern.ch, as CVMFS's
// tools accept short names; a name with a dot is returned as is.
std::string MakeFqrn(const std::string& name, const OptionsManager& global);

// CVMFS_MOUNT_DIR, default $CVMFS_ROOTDIR/cvmfs.
std::string MountDir(const OptionsManager& options, const SystemPaths& paths);

}  // namespace cvmfs::tools

#endif  // CLIENT_TOOLS_REPOSITORY_CONFIG_H_
