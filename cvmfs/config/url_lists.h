// The two list syntaxes of the network configuration (doc/operations.md,
// "Proxies, hosts and failover"):
//
//   CVMFS_SERVER_URL  "http://s1/cvmfs/@fqrn@;http://s2/cvmfs/@fqrn@"
//                     ordered Stratum 1 list, ';' (or ',') separated
//   CVMFS_HTTP_PROXY  "http://p1:3128|http://p2:3128;http://p3:3128;DIRECT"
//                     ordered proxy groups separated by ';', load-balanced
//                     members of one group separated by '|'
//
// Blanks around entries are ignored, as are empty entries (a trailing ';').
// Errors are InvalidArgument messages describing the offending entry; the
// caller adds the parameter's name and source.
//
// Thread safety: pure functions.
#ifndef CVMFS_CONFIG_URL_LISTS_H_
#define CVMFS_CONFIG_URL_LISTS_H_

#include <string>
#include <vector>

#include "cvmfs/status.h"

namespace cvmfs {

// The proxy member meaning "no proxy".
inline constexpr char kDirectProxy[] = "DIRECT";
// The proxy member meaning "discover proxies via WPAD/PAC (CVMFS_PAC_URLS)";
// resolved by the network layer at mount.
inline constexpr char kAutoProxy[] = "auto";

// Server URLs with @fqrn@ and @org@ replaced and trailing '/' removed. Each
// must be an http://, https:// or file:// URL.
Result<std::vector<std::string>> ParseServerUrls(const std::string& text,
                                                 const std::string& fqrn,
                                                 const std::string& org);

// Proxy groups in order; each member is DIRECT, auto or an http:// URL.
Result<std::vector<std::vector<std::string>>> ParseProxyGroups(
    const std::string& text);

}  // namespace cvmfs

#endif  // CVMFS_CONFIG_URL_LISTS_H_
