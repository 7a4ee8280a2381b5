#include "client/external_settings.h"

#include <cstdint>

#include "cvmfs/config/url_lists.h"

namespace cvmfs {

Result<ExternalDataSettings> ReadExternalDataSettings(const OptionReader& r,
                                                      const std::string& fqrn,
                                                      const std::string& org,
                                                      int timeout_s,
                                                      int timeout_direct_s) {
  ExternalDataSettings s;
  auto urls = ParseServerUrls(r.String("CVMFS_EXTERNAL_URL", ""), fqrn, org);
  if (!urls.ok())
    return r.Invalid("CVMFS_EXTERNAL_URL",
                     "a ';'-separated list of external data URLs such as "
                     "http://data.example.org/store; " +
                         urls.status().message());
  s.urls = std::move(urls).value();
  const std::string kServers = "servers (a whole number, 0 for all)";
  CVMFS_ASSIGN_OR_RETURN(
      int64_t max_servers,
      r.Integer("CVMFS_EXTERNAL_MAX_SERVERS", 0, 0, INT32_MAX, kServers));
  if (max_servers > 0 && static_cast<size_t>(max_servers) < s.urls.size())
    s.urls.resize(static_cast<size_t>(max_servers));

  auto read_groups = [&](const char* name, auto* field) {
    auto groups = ParseProxyGroups(r.String(name, ""));
    if (!groups.ok())
      return r.Invalid(name,
                       "proxy groups such as 'http://p1:3128|http://p2:3128;"
                       "DIRECT'; " +
                           groups.status().message());
    *field = std::move(groups).value();
    return Status::Ok();
  };
  CVMFS_RETURN_IF_ERROR(
      read_groups("CVMFS_EXTERNAL_HTTP_PROXY", &s.proxy_groups));
  if (s.proxy_groups.empty()) s.proxy_groups = {{kDirectProxy}};
  CVMFS_RETURN_IF_ERROR(
      read_groups("CVMFS_EXTERNAL_FALLBACK_PROXY", &s.fallback_proxy_groups));

  const std::string kSeconds = "seconds (a whole number from 1 to 3600)";
  CVMFS_ASSIGN_OR_RETURN(
      int64_t timeout,
      r.Integer("CVMFS_EXTERNAL_TIMEOUT", timeout_s, 1, 3600, kSeconds));
  CVMFS_ASSIGN_OR_RETURN(int64_t timeout_direct,
                         r.Integer("CVMFS_EXTERNAL_TIMEOUT_DIRECT",
                                   timeout_direct_s, 1, 3600, kSeconds));
  s.timeout_s = static_cast<int>(timeout);
  s.timeout_direct_s = static_cast<int>(timeout_direct);
  return s;
}

}  // namespace cvmfs
