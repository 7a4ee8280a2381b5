#include "server/apache_config.h"

#include "cvmfs/file_util.h"
#include "server/cache_policy.h"
#include "server/config_template.h"

namespace server {
namespace {

using cvmfs::Status;

// The snippet, with @NAME@ placeholders filled in by ApacheConfigFor().
constexpr char kTemplate[] =
    R"APACHE(# Serves the CernVM-FS repository @FQRN@ at
# http://<this host>/cvmfs/@FQRN@ (written by cvmfs_server mkfs;
# see doc/serving.md). Needs mod_alias, mod_mime, mod_expires, mod_headers.

<IfModule !mod_expires.c>
    Error "cvmfs: this configuration needs mod_expires (Debian: a2enmod expires)"
</IfModule>
<IfModule !mod_headers.c>
    Error "cvmfs: this configuration needs mod_headers (Debian: a2enmod headers)"
</IfModule>

KeepAlive On
Alias /cvmfs/@FQRN@ "@STORAGE@"
<Directory "@STORAGE@">
    Options -MultiViews +FollowSymLinks -Indexes
    AllowOverride None
    Require all granted

    # Storage on network file systems: no mmap, no sendfile.
    EnableMMAP Off
    EnableSendFile Off

    # Signed metadata (.cvmfspublished, .cvmfswhitelist, ...) and
    # meta-information change with every publish; objects never do.
    AddType @JSON@ .json
    <FilesMatch "^\.cvmfs">
        ForceType @XCVMFS@
    </FilesMatch>
    <FilesMatch "^[^.]*$">
        ForceType @OCTET@
    </FilesMatch>

    # No validators: a proxy must not revalidate a stale manifest
    # into a fresh one; expiry alone decides.
    Header unset Last-Modified
    RequestHeader unset If-Modified-Since
    FileETag None

    ExpiresActive On
    ExpiresDefault "access plus @OBJECTS@"
    ExpiresByType @OCTET@ "access plus @OBJECTS@"
    ExpiresByType @XCVMFS@ "access plus @METADATA@"
    ExpiresByType @JSON@ "access plus @METADATA@"
</Directory>
)APACHE";

bool SafeInQuotes(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') return false;
  return true;
}

}  // namespace

std::string ExpiresLifetime(int seconds) {
  constexpr int kDay = 24 * 3600;
  if (seconds >= kDay && seconds % kDay == 0) {
    int days = seconds / kDay;
    return std::to_string(days) + (days == 1 ? " day" : " days");
  }
  return std::to_string(seconds) + (seconds == 1 ? " second" : " seconds");
}

cvmfs::Result<std::string> ApacheConfigFor(const std::string& fqrn,
                                           const std::string& storage_dir) {
  if (fqrn.empty() || !SafeInQuotes(fqrn) ||
      fqrn.find_first_of("/ ") != std::string::npos)
    return Status::InvalidArgument("invalid repository name '" + fqrn + "'");
  if (storage_dir.empty() || storage_dir[0] != '/' ||
      !SafeInQuotes(storage_dir))
    return Status::InvalidArgument(
        "storage directory '" + storage_dir +
        "' must be an absolute path without quotes or control characters");
  return FillTemplate(kTemplate,
                      {{"FQRN", fqrn},
                       {"STORAGE", storage_dir},
                       {"JSON", std::string(kJsonContentType)},
                       {"XCVMFS", std::string(kMetadataContentType)},
                       {"OCTET", std::string(kObjectContentType)},
                       {"OBJECTS", ExpiresLifetime(kObjectMaxAgeSeconds)},
                       {"METADATA", ExpiresLifetime(kMetadataMaxAgeSeconds)}});
}

std::string ApacheConfigPath(const cvmfs::SystemPaths& paths,
                             const std::string& fqrn) {
  return paths.ServerConfigDir(fqrn) + "/apache.conf";
}

cvmfs::Result<std::string> WriteApacheConfig(const cvmfs::SystemPaths& paths,
                                             const std::string& fqrn) {
  CVMFS_ASSIGN_OR_RETURN(std::string text,
                         ApacheConfigFor(fqrn, paths.Storage(fqrn)));
  std::string path = ApacheConfigPath(paths, fqrn);
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(paths.ServerConfigDir(fqrn)));
  CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(path, text, 0644));
  return path;
}

std::string ApacheEnableInstructions(const std::string& conf_path,
                                     const std::string& fqrn) {
  constexpr char kText[] = R"(To serve @FQRN@ with Apache on Debian or Ubuntu:
  ln -s @CONF@ /etc/apache2/conf-available/cvmfs.@FQRN@.conf
  a2enmod expires headers
  a2enconf cvmfs.@FQRN@
  systemctl reload apache2
On RHEL: ln -s @CONF@ /etc/httpd/conf.d/cvmfs.@FQRN@.conf
Without Apache: cvmfs_server serve @FQRN@
)";
  return FillTemplate(kText, {{"FQRN", fqrn}, {"CONF", conf_path}});
}

}  // namespace server
