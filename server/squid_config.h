// A squid.conf for a site proxy in front of CernVM-FS Stratum 1 servers, as
// the CVMFS documentation recommends it (doc/serving.md, "Site proxies"):
// worker nodes of the listed networks may use it, objects up to 1 GB are
// cached on disk, concurrent misses for one URL become one upstream request
// (collapsed_forwarding), and the servers' Cache-Control/Expires decide how
// long anything is fresh (61 s for manifests, 3 days for objects); nothing
// overrides them.
//
// Thread safety: pure functions.
#ifndef SERVER_SQUID_CONFIG_H_
#define SERVER_SQUID_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cvmfs/status.h"

namespace server {

struct SquidConfigOptions {
  // Who may use the proxy: the worker nodes' networks (CIDR). The default
  // is every private IPv4 range; a site should narrow it.
  std::vector<std::string> client_networks = {"10.0.0.0/8", "172.16.0.0/12",
                                              "192.168.0.0/16"};
  // If not empty, the only servers the proxy forwards to (host names or
  // addresses of the Stratum 1s); empty: any destination.
  std::vector<std::string> stratum1_hosts;
  uint16_t port = 3128;
  std::string cache_dir = "/var/spool/squid";
  unsigned cache_dir_mb = 50000;  // disk cache; the working set of the site
  unsigned cache_mem_mb = 256;    // hot small objects: catalogs, manifests
};

// The complete squid.conf. kInvalidArgument names a network, host or
// directory that cannot go into the file.
cvmfs::Result<std::string> SquidConfigFor(const SquidConfigOptions& options);

}  // namespace server

#endif  // SERVER_SQUID_CONFIG_H_
