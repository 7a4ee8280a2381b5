// The external data servers of a repository (doc/client.md, "External
// data"): where files flagged external in the catalog are downloaded from,
// by their path, instead of from the Stratum 1s by hash. As CVMFS, a
// second set of network settings cloned from the repository's own: the
// retries, backoff and low-speed limit are shared; the servers, proxies and
// timeouts are the CVMFS_EXTERNAL_* ones.
//
//   CVMFS_EXTERNAL_URL             ';'-separated servers, failed over in
//                                  order (@fqrn@, @org@ expanded)
//   CVMFS_EXTERNAL_MAX_SERVERS     use only the first N of them (0: all)
//   CVMFS_EXTERNAL_HTTP_PROXY      proxy groups; default DIRECT (not
//                                  CVMFS_HTTP_PROXY)
//   CVMFS_EXTERNAL_FALLBACK_PROXY  fallback proxy groups
//   CVMFS_EXTERNAL_TIMEOUT[_DIRECT]  default CVMFS_TIMEOUT[_DIRECT]
//
// Thread safety: a plain value.
#ifndef CLIENT_EXTERNAL_SETTINGS_H_
#define CLIENT_EXTERNAL_SETTINGS_H_

#include <string>
#include <vector>

#include "cvmfs/config/option_reader.h"
#include "cvmfs/status.h"

namespace cvmfs {

struct ExternalDataSettings {
  std::vector<std::string> urls;  // empty: external files cannot be read
  std::vector<std::vector<std::string>> proxy_groups;
  std::vector<std::vector<std::string>> fallback_proxy_groups;
  int timeout_s = 5;
  int timeout_direct_s = 10;
};

// Reads the CVMFS_EXTERNAL_* parameters; `timeout_s` and
// `timeout_direct_s` are the repository's (the defaults). InvalidArgument
// names a malformed parameter.
Result<ExternalDataSettings> ReadExternalDataSettings(const OptionReader& r,
                                                      const std::string& fqrn,
                                                      const std::string& org,
                                                      int timeout_s,
                                                      int timeout_direct_s);

}  // namespace cvmfs

#endif  // CLIENT_EXTERNAL_SETTINGS_H_
