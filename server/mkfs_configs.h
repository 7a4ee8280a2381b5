// What `cvmfs_server mkfs` adds for serving, next to the repository's
// server.conf in etc/cvmfs/repositories.d/FQRN/:
//   apache.conf  the Apache snippet for the repository (apache_config.h)
//   squid.conf   a site proxy configuration to adapt (squid_config.h)
// and the instructions to enable them, printed on stdout.
#ifndef SERVER_MKFS_CONFIGS_H_
#define SERVER_MKFS_CONFIGS_H_

#include <string>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace server {

// Writes both files (atomically; an existing squid.conf, possibly edited,
// is kept). Returns the text to show the administrator.
cvmfs::Result<std::string> WriteServingConfigs(const cvmfs::SystemPaths& paths,
                                               const std::string& fqrn);

// The hook for cvmfs_server's mkfs: writes, prints and returns the exit
// status (0, or 1 after printing what failed).
int WriteServingConfigsAfterMkfs(const cvmfs::SystemPaths& paths,
                                 const std::string& fqrn);

}  // namespace server

#endif  // SERVER_MKFS_CONFIGS_H_
