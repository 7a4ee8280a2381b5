#include "server/mkfs_configs.h"

#include <cstdio>

#include "cvmfs/file_util.h"
#include "server/apache_config.h"
#include "server/squid_config.h"

namespace server {

cvmfs::Result<std::string> WriteServingConfigs(const cvmfs::SystemPaths& paths,
                                               const std::string& fqrn) {
  CVMFS_ASSIGN_OR_RETURN(std::string apache, WriteApacheConfig(paths, fqrn));
  std::string squid = paths.ServerConfigDir(fqrn) + "/squid.conf";
  if (!cvmfs::PathExists(squid)) {
    CVMFS_ASSIGN_OR_RETURN(std::string text,
                           SquidConfigFor(SquidConfigOptions{}));
    CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(squid, text, 0644));
  }
  return "Apache configuration: " + apache + "\n" +
         ApacheEnableInstructions(apache, fqrn) +
         "Site proxy (Squid) configuration to adapt: " + squid +
         " (or cvmfs_server squid-config)\n";
}

int WriteServingConfigsAfterMkfs(const cvmfs::SystemPaths& paths,
                                 const std::string& fqrn) {
  auto text = WriteServingConfigs(paths, fqrn);
  if (!text.ok()) {
    std::fprintf(stderr,
                 "cvmfs_server: repository %s was created, but its serving "
                 "configuration was not: %s\n",
                 fqrn.c_str(), text.status().ToString().c_str());
    return 1;
  }
  std::fputs(text->c_str(), stdout);
  return 0;
}

}  // namespace server
