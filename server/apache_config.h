// The Apache httpd configuration that serves one repository the way
// CernVM-FS's `cvmfs_server mkfs` sets it up (doc/serving.md):
//
//   Alias /cvmfs/FQRN  <storage directory>
//   Options -MultiViews +FollowSymLinks -Indexes, FileETag None, no
//   Last-Modified, .cvmfs* files as application/x-cvmfs expiring after 61 s,
//   *.json after 61 s, everything else (data/) after 3 days (mod_expires).
//
// The expiry times come from cache_policy.h, so Apache and the embedded
// server (http_server.h) send the same Cache-Control headers. The snippet
// needs mod_alias, mod_mime, mod_expires and mod_headers and stops Apache
// with a message naming the module if one is missing.
//
// Thread safety: pure functions, except WriteApacheConfig (one file).
#ifndef SERVER_APACHE_CONFIG_H_
#define SERVER_APACHE_CONFIG_H_

#include <string>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace server {

// The snippet for `fqrn` served from `storage_dir` (an absolute path
// without double quotes or control characters).
cvmfs::Result<std::string> ApacheConfigFor(const std::string& fqrn,
                                           const std::string& storage_dir);

// etc/cvmfs/repositories.d/FQRN/apache.conf
std::string ApacheConfigPath(const cvmfs::SystemPaths& paths,
                             const std::string& fqrn);

// Writes the snippet for the repository's storage (SystemPaths::Storage) to
// ApacheConfigPath, replacing an older one atomically; returns the path.
cvmfs::Result<std::string> WriteApacheConfig(const cvmfs::SystemPaths& paths,
                                             const std::string& fqrn);

// How to enable the snippet at `conf_path` on Debian and Ubuntu (several
// lines, each ending in a newline).
std::string ApacheEnableInstructions(const std::string& conf_path,
                                     const std::string& fqrn);

// mod_expires' wording of a lifetime: "3 days", "61 seconds".
std::string ExpiresLifetime(int seconds);

}  // namespace server

#endif  // SERVER_APACHE_CONFIG_H_
