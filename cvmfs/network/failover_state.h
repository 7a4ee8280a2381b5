// FailoverState: which repository host and which proxy the next request
// uses, and how that changes when a request fails (CVMFS semantics, see
// doc/operations.md, "Order of attempts").
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
// Returning to the primaries (CVMFS_PROXY_RESET_AFTER,
// CVMFS_HOST_RESET_AFTER; CVMFS's opt_timestamp_backup_proxies /
// _failover_proxies / _backup_host): a timer starts when the state leaves
// the first host, leaves the first proxy group, or burns a proxy within its
// group; it is not restarted by further failovers, and stops when the state
// comes back by itself (wrap-around, ResetProxies, Set*). The first attempt
// that starts after it expired (ForNextAttempt) goes back to the first host
// / the first group / the whole current group. A zero duration means never.
//
//   t=0 host 0 fails -> host 1, timer starts   t<N: requests use host 1
//   t>=N next attempt -> host 0 (timer off); fails again -> host 1, new timer
//
// Thread safety: all methods are thread-safe (one internal leaf mutex).
#ifndef CVMFS_NETWORK_FAILOVER_STATE_H_
#define CVMFS_NETWORK_FAILOVER_STATE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cvmfs/clock.h"
#include "cvmfs/config/url_lists.h"  // kDirectProxy
#include "cvmfs/mutex.h"
#include "cvmfs/status.h"

namespace cvmfs {

using ProxyGroups = std::vector<std::vector<std::string>>;

// Where one attempt goes.
struct Route {
  size_t host_index = 0;
  std::string host;   // repository base URL, no trailing '/'
  std::string proxy;  // proxy URL or kDirectProxy
  bool direct() const { return proxy == kDirectProxy; }
};

// When to return to the first proxy group / the first host; zero = never.
struct FailoverResetPolicy {
  std::chrono::seconds proxy_reset_after{0};  // CVMFS_PROXY_RESET_AFTER
  std::chrono::seconds host_reset_after{0};   // CVMFS_HOST_RESET_AFTER
  // Borrowed, must outlive the state; null means SteadyClock().
  const Clock* clock = nullptr;
};

class FailoverState {
 public:
  // Checks what the constructor requires: at least one host, each an
  // http:// or https:// URL; no empty group or member. Names the bad value.
  static Status Validate(const std::vector<std::string>& hosts,
                         const ProxyGroups& proxy_groups);

  // `hosts` must pass Validate; trailing '/' are removed. Empty
  // `proxy_groups` means one group {DIRECT}. `seed` drives the random choice
  // of a proxy within a group. Negative durations in `reset` count as zero.
  FailoverState(std::vector<std::string> hosts, ProxyGroups proxy_groups,
                uint32_t seed, FailoverResetPolicy reset = {});

  // The route now, as shown to the operator; expired reset timers are not
  // applied (CVMFS applies them only when a request starts).
  Route Current() const;
  // The route for an attempt that starts now: first applies the reset
  // timers that have expired, then returns Current().
  Route ForNextAttempt();
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
  // `geo_ordered`: the list comes from the Geo-API (geo_sort.h), which
  // `cvmfs_talk host info` says; any other SetHosts clears it.
  Status SetHosts(std::vector<std::string> hosts, bool geo_ordered = false);
  bool hosts_geo_ordered() const;
  Status SetProxies(ProxyGroups proxy_groups);
  // New addresses for the same groups (a proxy name resolved again,
  // proxy_chain.h): the current group stays current with nothing burned,
  // and so does the current proxy if it is still a member. InvalidArgument
  // if the number of groups differs.
  Status ReplaceProxyAddresses(ProxyGroups proxy_groups);

 private:
  using TimePoint = Clock::TimePoint;

  bool BurnLocked(const std::string& proxy) REQUIRES(mu_);
  void RebalanceLocked() REQUIRES(mu_);
  void MoveToHostLocked(size_t index) REQUIRES(mu_);
  void ClearProxyTimersLocked() REQUIRES(mu_);
  void ApplyExpiredResetsLocked() REQUIRES(mu_);

  const FailoverResetPolicy reset_;
  const Clock* const clock_;

  // Guards everything below. A leaf lock: nothing else is taken while it is
  // held.
  mutable Mutex mu_;
  std::vector<std::string> hosts_ GUARDED_BY(mu_);
  // As configured, for Proxies().
  ProxyGroups configured_groups_ GUARDED_BY(mu_);
  size_t num_proxies_ GUARDED_BY(mu_) = 0;
  size_t host_current_ GUARDED_BY(mu_) = 0;
  bool hosts_geo_ordered_ GUARDED_BY(mu_) = false;
  // In the current group, the last `burned_` members are burned.
  ProxyGroups groups_ GUARDED_BY(mu_);
  size_t group_current_ GUARDED_BY(mu_) = 0;
  size_t burned_ GUARDED_BY(mu_) = 0;
  std::string proxy_current_ GUARDED_BY(mu_);
  std::mt19937 prng_ GUARDED_BY(mu_);
  // Reset timers, running while set (only with a nonzero reset duration):
  std::optional<TimePoint> host_backup_since_ GUARDED_BY(mu_);   // left host 0
  std::optional<TimePoint> proxy_backup_since_ GUARDED_BY(mu_);  // left group 0
  // Burned within a group.
  std::optional<TimePoint> proxy_burned_since_ GUARDED_BY(mu_);
};

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_FAILOVER_STATE_H_
