// FailoverState: which repository host and which proxy the next request
// uses, and how that changes when a request fails (CVMFS semantics, see
// shared/spec/client.md 4.5).
//
// Hosts are an ordered list with a current index. Proxies are an ordered
// list of load-balancing groups; all requests use one member of the current
// group, picked at random. A failed proxy is "burned" within its group; when
// the whole group is burned the next group becomes current. A switch is
// global, but only happens if the failing request still used the current
// host/proxy: when many requests fail at once, the first one switches and
// the others just move on to the new current route.
//
//   proxies "p1|p2;DIRECT":  group 0 = {p1, p2}, group 1 = {DIRECT}
//   p1 fails -> p1 burned, p2 current; p2 fails -> group 1 (DIRECT) current
//
// Thread safety: all methods are thread-safe (one internal leaf mutex).
#ifndef CVMFS_NETWORK_FAILOVER_STATE_H_
#define CVMFS_NETWORK_FAILOVER_STATE_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "cvmfs/status.h"

namespace cvmfs {

// The proxy name that means "no proxy".
inline constexpr char kDirectProxy[] = "DIRECT";

using ProxyGroups = std::vector<std::vector<std::string>>;

// Where one attempt goes.
struct Route {
  size_t host_index = 0;
  std::string host;   // repository base URL, no trailing '/'
  std::string proxy;  // proxy URL or kDirectProxy
  bool direct() const { return proxy == kDirectProxy; }
};

class FailoverState {
 public:
  // Checks what the constructor requires: at least one host, each an
  // http:// or https:// URL; no empty group or member. Names the bad value.
  static Status Validate(const std::vector<std::string>& hosts,
                         const ProxyGroups& proxy_groups);

  // `hosts` must pass Validate; trailing '/' are removed. Empty
  // `proxy_groups` means one group {DIRECT}. `seed` drives the random choice
  // of a proxy within a group.
  FailoverState(std::vector<std::string> hosts, ProxyGroups proxy_groups,
                uint32_t seed);

  Route Current() const;
  size_t num_hosts() const;
  size_t num_proxies() const;  // over all groups

  // Failover after a request on `failed` went wrong. Returns whether the
  // global state changed (false if another request switched already).
  bool SwitchProxyFrom(const Route& failed);
  bool SwitchHostFrom(const Route& failed);
  // Before a host failover caused by proxies: back to the first group with
  // nothing burned. Returns whether anything changed.
  bool ResetProxies();

  // Administrative switches (cvmfs_talk host switch / proxy group switch).
  void SwitchHost();
  void SwitchProxy();

  std::vector<std::string> Hosts() const;
  ProxyGroups Proxies() const;  // in configured order
  std::string CurrentHost() const;
  std::string CurrentProxy() const;

  // Replaces the host list or the proxy groups (cvmfs_talk host set /
  // proxy set); Validate() rules, nothing changes on error. The new list
  // starts at its first host / first group. Requests in flight finish on
  // the route they hold (a failure there may still switch the new list on).
  Status SetHosts(std::vector<std::string> hosts);
  Status SetProxies(ProxyGroups proxy_groups);

 private:
  bool BurnLocked(const std::string& proxy);
  void RebalanceLocked();

  mutable std::mutex mu_;  // guards everything below; leaf lock
  std::vector<std::string> hosts_;
  ProxyGroups configured_groups_;  // as configured, for Proxies()
  size_t num_proxies_ = 0;
  size_t host_current_ = 0;
  // In the current group, the last `burned_` members are burned.
  ProxyGroups groups_;
  size_t group_current_ = 0;
  size_t burned_ = 0;
  std::string proxy_current_;
  std::mt19937 prng_;
};

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_FAILOVER_STATE_H_
