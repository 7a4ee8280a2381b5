#include "cvmfs/network/failover_state.h"

#include <algorithm>
#include <utility>

namespace cvmfs {
namespace {

bool HasPrefix(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// Starts `timer` unless it runs already or resets are off.
void StartTimer(std::optional<Clock::TimePoint>* timer,
                std::chrono::seconds after, Clock::TimePoint now) {
  if (after.count() > 0 && !timer->has_value()) *timer = now;
}

bool Expired(const std::optional<Clock::TimePoint>& timer,
             std::chrono::seconds after, Clock::TimePoint now) {
  return timer.has_value() && now - *timer >= after;
}

FailoverResetPolicy Sanitize(FailoverResetPolicy p) {
  using std::chrono::seconds;
  p.proxy_reset_after = std::max(p.proxy_reset_after, seconds(0));
  p.host_reset_after = std::max(p.host_reset_after, seconds(0));
  if (p.clock == nullptr) p.clock = SteadyClock();
  return p;
}

std::vector<std::string> StripTrailingSlashes(std::vector<std::string> hosts) {
  for (std::string& host : hosts) {
    while (!host.empty() && host.back() == '/') host.pop_back();
  }
  return hosts;
}

Status ValidateProxy(const std::string& proxy) {
  if (proxy.empty()) {
    return Status::InvalidArgument("empty proxy in the proxy list");
  }
  if (proxy == "auto") {
    return Status::NotSupported(
        "proxy 'auto' must be resolved through PAC files first "
        "(CVMFS_HTTP_PROXY=auto at mount)");
  }
  if (proxy.find_first_of(" \t;|") != std::string::npos) {
    return Status::InvalidArgument("invalid proxy '" + proxy + "'");
  }
  return Status::Ok();
}

}  // namespace

Status FailoverState::Validate(const std::vector<std::string>& hosts,
                               const ProxyGroups& proxy_groups) {
  if (hosts.empty()) {
    return Status::InvalidArgument("no repository URL (CVMFS_SERVER_URL)");
  }
  for (const std::string& host : hosts) {
    if (!HasPrefix(host, "http://") && !HasPrefix(host, "https://") &&
        !HasPrefix(host, "file://")) {
      return Status::InvalidArgument(
          "repository URL '" + host +
          "' is not an http://, https:// or file:// URL");
    }
  }
  for (size_t g = 0; g < proxy_groups.size(); ++g) {
    if (proxy_groups[g].empty()) {
      return Status::InvalidArgument("proxy group " + std::to_string(g) +
                                     " is empty");
    }
    for (const std::string& proxy : proxy_groups[g]) {
      CVMFS_RETURN_IF_ERROR(ValidateProxy(proxy));
    }
  }
  return Status::Ok();
}

FailoverState::FailoverState(std::vector<std::string> hosts,
                             ProxyGroups proxy_groups, uint32_t seed,
                             FailoverResetPolicy reset)
    : reset_(Sanitize(reset)),
      clock_(reset_.clock),
      hosts_(StripTrailingSlashes(std::move(hosts))),
      configured_groups_(proxy_groups.empty() ? ProxyGroups{{kDirectProxy}}
                                              : std::move(proxy_groups)),
      groups_(configured_groups_),
      prng_(seed) {
  for (const auto& group : groups_) num_proxies_ += group.size();
  MutexLock lock(&mu_);
  RebalanceLocked();
}

Route FailoverState::Current() const {
  MutexLock lock(&mu_);
  return Route{host_current_, hosts_[host_current_], proxy_current_};
}

Route FailoverState::ForNextAttempt() {
  MutexLock lock(&mu_);
  ApplyExpiredResetsLocked();
  return Route{host_current_, hosts_[host_current_], proxy_current_};
}

// CVMFS's order: back to the first group, else unburn the current group,
// then back to the first host.
void FailoverState::ApplyExpiredResetsLocked() {
  const TimePoint now = clock_->Now();
  if (Expired(proxy_backup_since_, reset_.proxy_reset_after, now)) {
    group_current_ = 0;
    burned_ = 0;
    ClearProxyTimersLocked();
    RebalanceLocked();
  } else if (Expired(proxy_burned_since_, reset_.proxy_reset_after, now)) {
    burned_ = 0;
    proxy_burned_since_.reset();
    RebalanceLocked();
  }
  if (Expired(host_backup_since_, reset_.host_reset_after, now)) {
    MoveToHostLocked(0);
  }
}

void FailoverState::MoveToHostLocked(size_t index) {
  host_current_ = index;
  if (index == 0) {
    host_backup_since_.reset();
  } else {
    StartTimer(&host_backup_since_, reset_.host_reset_after, clock_->Now());
  }
}

void FailoverState::ClearProxyTimersLocked() {
  proxy_backup_since_.reset();
  proxy_burned_since_.reset();
}

bool FailoverState::SwitchProxyFrom(const Route& failed) {
  MutexLock lock(&mu_);
  if (!BurnLocked(failed.proxy)) return false;
  RebalanceLocked();
  return true;
}

bool FailoverState::SwitchHostFrom(const Route& failed) {
  MutexLock lock(&mu_);
  if (hosts_.size() < 2 || failed.host_index != host_current_) return false;
  MoveToHostLocked((host_current_ + 1) % hosts_.size());
  return true;
}

bool FailoverState::ResetProxies() {
  MutexLock lock(&mu_);
  if (group_current_ == 0 && burned_ == 0) return false;
  group_current_ = 0;
  burned_ = 0;
  ClearProxyTimersLocked();
  RebalanceLocked();
  return true;
}

void FailoverState::SwitchHost() {
  MutexLock lock(&mu_);
  MoveToHostLocked((host_current_ + 1) % hosts_.size());
}

void FailoverState::SwitchProxy() {
  MutexLock lock(&mu_);
  BurnLocked(proxy_current_);
  RebalanceLocked();
}

// Burns every unburned member of the current group equal to `proxy` and
// moves to the next group once the current one is all burned; starts or
// stops the reset timers accordingly. Returns whether `proxy` was found.
bool FailoverState::BurnLocked(const std::string& proxy) {
  std::vector<std::string>& group = groups_[group_current_];
  bool found = false;
  size_t i = 0;
  while (i < group.size() - burned_) {
    if (group[i] == proxy) {
      burned_++;
      std::swap(group[i], group[group.size() - burned_]);
      found = true;
    } else {
      ++i;
    }
  }
  if (!found) return false;
  const TimePoint now = clock_->Now();
  if (burned_ < group.size()) {
    StartTimer(&proxy_burned_since_, reset_.proxy_reset_after, now);
    return true;
  }
  burned_ = 0;
  proxy_burned_since_.reset();
  group_current_ = (group_current_ + 1) % groups_.size();
  if (group_current_ == 0) {
    proxy_backup_since_.reset();
  } else {
    StartTimer(&proxy_backup_since_, reset_.proxy_reset_after, now);
  }
  return true;
}

void FailoverState::RebalanceLocked() {
  const std::vector<std::string>& group = groups_[group_current_];
  std::uniform_int_distribution<size_t> pick(0, group.size() - burned_ - 1);
  proxy_current_ = group[pick(prng_)];
}

std::vector<std::string> FailoverState::Hosts() const {
  MutexLock lock(&mu_);
  return hosts_;
}

ProxyGroups FailoverState::Proxies() const {
  MutexLock lock(&mu_);
  return configured_groups_;
}

bool FailoverState::hosts_geo_ordered() const {
  MutexLock lock(&mu_);
  return hosts_geo_ordered_;
}

size_t FailoverState::num_hosts() const {
  MutexLock lock(&mu_);
  return hosts_.size();
}

size_t FailoverState::num_proxies() const {
  MutexLock lock(&mu_);
  return num_proxies_;
}

Status FailoverState::SetHosts(std::vector<std::string> hosts,
                               bool geo_ordered) {
  CVMFS_RETURN_IF_ERROR(Validate(hosts, {}));
  MutexLock lock(&mu_);
  hosts_ = StripTrailingSlashes(std::move(hosts));
  hosts_geo_ordered_ = geo_ordered;
  MoveToHostLocked(0);
  return Status::Ok();
}

Status FailoverState::SetProxies(ProxyGroups proxy_groups) {
  if (proxy_groups.empty()) proxy_groups = ProxyGroups{{kDirectProxy}};
  CVMFS_RETURN_IF_ERROR(Validate({"http://placeholder"}, proxy_groups));
  MutexLock lock(&mu_);
  configured_groups_ = std::move(proxy_groups);
  groups_ = configured_groups_;
  num_proxies_ = 0;
  for (const auto& group : groups_) num_proxies_ += group.size();
  group_current_ = 0;
  burned_ = 0;
  ClearProxyTimersLocked();
  RebalanceLocked();
  return Status::Ok();
}

Status FailoverState::ReplaceProxyAddresses(ProxyGroups proxy_groups) {
  CVMFS_RETURN_IF_ERROR(Validate({"http://placeholder"}, proxy_groups));
  MutexLock lock(&mu_);
  if (proxy_groups.size() != groups_.size())
    return Status::InvalidArgument("proxy group count changed");
  configured_groups_ = std::move(proxy_groups);
  groups_ = configured_groups_;
  num_proxies_ = 0;
  for (const auto& group : groups_) num_proxies_ += group.size();
  burned_ = 0;
  proxy_burned_since_.reset();
  const auto& current = groups_[group_current_];
  if (std::find(current.begin(), current.end(), proxy_current_) ==
      current.end())
    RebalanceLocked();
  return Status::Ok();
}

std::string FailoverState::CurrentHost() const {
  MutexLock lock(&mu_);
  return hosts_[host_current_];
}

std::string FailoverState::CurrentProxy() const {
  MutexLock lock(&mu_);
  return proxy_current_;
}

}  // namespace cvmfs
