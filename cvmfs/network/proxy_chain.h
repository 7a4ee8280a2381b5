// The proxy groups a fetcher really uses, built from the configured lists
// as CVMFS builds them (doc/client.md, "Proxies"):
//
//   1. CombineProxyLists: CVMFS_FALLBACK_PROXY's groups come after
//      CVMFS_HTTP_PROXY's. DIRECT is removed from the fallback list, and,
//      when any fallback proxy is left, from the regular list too: a
//      fallback proxy is there because DIRECT must not be used.
//   2. ProxyExpander::Expand: every proxy name becomes one proxy per
//      address, in the same load-balance group ("http://squid:3128" with two
//      A records is the group {http://10.0.0.1:3128, http://10.0.0.2:3128}):
//      IPv4 addresses unless CVMFS_IPFAMILY_PREFER=6 (or the name has only
//      IPv6 ones), at most CVMFS_MAX_IPADDR_PER_PROXY of them (a random
//      choice), sorted. A name that does not resolve stays as written (curl
//      then fails on it and the failover moves on) and is retried after
//      CVMFS_DNS_MIN_TTL.
//   3. ProxyExpander::Refresh: a name whose TTL ran out (clamped to
//      CVMFS_DNS_MIN_TTL..CVMFS_DNS_MAX_TTL; the TTL is the minimum when the
//      resolver does not say) is resolved again; changed addresses replace
//      its entries.
//
//   "http://p1:3128;DIRECT" + fallback "http://f:3128;DIRECT"
//     -> [0] http://10.0.0.1:3128   (p1)
//        [1] http://10.0.0.9:3128   (f, the first fallback group)
//
// Thread safety: the free functions are pure; a ProxyExpander is used by
// one thread at a time (the fetcher serializes).
#ifndef CVMFS_NETWORK_PROXY_CHAIN_H_
#define CVMFS_NETWORK_PROXY_CHAIN_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cvmfs/clock.h"
#include "cvmfs/network/dns_resolver.h"

namespace cvmfs {

using ProxyGroups = std::vector<std::vector<std::string>>;

enum class IpPreference { kSystem, kIpv4, kIpv6 };  // CVMFS_IPFAMILY_PREFER

struct ProxyDnsOptions {
  size_t max_ipaddr_per_proxy = 0;  // CVMFS_MAX_IPADDR_PER_PROXY, 0 = all
  IpPreference prefer = IpPreference::kSystem;
  std::chrono::seconds min_ttl{60};     // CVMFS_DNS_MIN_TTL
  std::chrono::seconds max_ttl{86400};  // CVMFS_DNS_MAX_TTL
};

// One proxy as the failover uses it.
struct ProxyEntry {
  std::string url;         // the name replaced by an address, or DIRECT
  std::string configured;  // as in the proxy list
  std::string host_name;   // what the name resolved to; empty if it did not
  Clock::TimePoint deadline{};  // resolve again after this
  // As `cvmfs_talk proxy info` shows it, CVMFS's words:
  // "http://127.0.0.1:3128 (localhost, +59s)", "... (:unresolved:, +1m)",
  // "DIRECT".
  std::string Describe(Clock::TimePoint now) const;
};
using ProxyEntryGroups = std::vector<std::vector<ProxyEntry>>;

struct CombinedProxies {
  ProxyGroups groups;
  size_t first_fallback = 0;  // == groups.size() without fallback groups
  bool dropped_direct_from_fallback = false;
  bool dropped_direct_from_regular = false;
};
CombinedProxies CombineProxyLists(const ProxyGroups& regular,
                                  const ProxyGroups& fallback);

// The host part of a proxy URL ("" for DIRECT or no host), brackets kept
// around an IPv6 address; ReplaceProxyHost puts `address` there (IPv6 in
// brackets).
std::string ProxyHost(const std::string& url);
std::string ReplaceProxyHost(const std::string& url,
                             const std::string& address);

ProxyGroups ProxyUrls(const ProxyEntryGroups& groups);

class ProxyExpander {
 public:
  // `resolver` and `clock` are borrowed and must outlive the expander.
  ProxyExpander(DnsResolver* resolver, ProxyDnsOptions options,
                const Clock* clock, uint32_t seed);

  ProxyEntryGroups Expand(const ProxyGroups& groups);
  // Resolves the names past their deadline again. Returns whether any
  // address changed (deadlines move in any case).
  bool Refresh(ProxyEntryGroups* groups);
  // The earliest deadline of `groups` (a DIRECT-only chain: far future).
  static Clock::TimePoint NextDeadline(const ProxyEntryGroups& groups);

 private:
  std::vector<ProxyEntry> ExpandOne(const std::string& proxy);
  std::vector<std::string> Pick(std::vector<std::string> addresses);

  DnsResolver* const resolver_;
  const ProxyDnsOptions options_;
  const Clock* const clock_;
  std::mt19937 prng_;
};

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_PROXY_CHAIN_H_
