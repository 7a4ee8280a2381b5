// DnsResolver: turns a proxy's host name into its addresses, the seam that
// lets the proxy expansion (proxy_chain.h) be tested without a network.
//
//   SystemDnsResolver  getaddrinfo (so /etc/hosts and nsswitch count, as
//                      CVMFS's hosts file + c-ares resolver), each attempt
//                      bounded by CVMFS_DNS_TIMEOUT and repeated
//                      CVMFS_DNS_RETRIES times; the system resolver reports
//                      no record TTL (ResolvedHost::ttl unset), so the
//                      caller uses CVMFS_DNS_MIN_TTL, as CVMFS does for
//                      names from the hosts file.
//   Tests implement the interface with a table.
//
// Thread safety: Resolve may be called from several threads at once.
#ifndef CVMFS_NETWORK_DNS_RESOLVER_H_
#define CVMFS_NETWORK_DNS_RESOLVER_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cvmfs/status.h"

namespace cvmfs {

struct ResolvedHost {
  std::string name;               // the canonical name, else the one asked
  std::vector<std::string> ipv4;  // dotted quads
  std::vector<std::string> ipv6;  // without brackets
  std::optional<std::chrono::seconds> ttl;  // unset: not known
};

class DnsResolver {
 public:
  virtual ~DnsResolver() = default;
  // NotFound when the name has no address, Unavailable when no answer came
  // in time; the message names `name`.
  virtual Result<ResolvedHost> Resolve(const std::string& name) = 0;
};

struct SystemDnsOptions {
  int timeout_ms = 3000;  // CVMFS_DNS_TIMEOUT (seconds in the parameter)
  int retries = 1;        // CVMFS_DNS_RETRIES
};

std::unique_ptr<DnsResolver> NewSystemDnsResolver(SystemDnsOptions options);

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_DNS_RESOLVER_H_
