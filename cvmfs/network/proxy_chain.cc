#include "cvmfs/network/proxy_chain.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "cvmfs/config/url_lists.h"  // kDirectProxy

namespace cvmfs {
namespace {

// [begin, end) of the host in `url`: after "scheme://" and any "user@",
// up to ':' or '/' outside of brackets. begin == end when there is none.
void FindHost(const std::string& url, size_t* begin, size_t* end) {
  *begin = *end = 0;
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return;
  size_t b = scheme + 3;
  const size_t path = url.find('/', b);
  const size_t at = url.find('@', b);
  if (at != std::string::npos && (path == std::string::npos || at < path))
    b = at + 1;
  size_t e = b;
  bool in_brackets = false;
  for (; e < url.size(); ++e) {
    const char c = url[e];
    if (c == '[') in_brackets = true;
    if (c == ']') in_brackets = false;
    if (!in_brackets && (c == ':' || c == '/')) break;
  }
  *begin = b;
  *end = e;
}

bool IsIpv4(const std::string& s) {
  in_addr a;
  return inet_pton(AF_INET, s.c_str(), &a) == 1;
}

bool IsBracketedIpv6(const std::string& s) {
  if (s.size() < 3 || s.front() != '[' || s.back() != ']') return false;
  in6_addr a;
  return inet_pton(AF_INET6, s.substr(1, s.size() - 2).c_str(), &a) == 1;
}

std::string Remaining(Clock::Duration d) {
  // Whole seconds up, as CVMFS's (deadline and now in whole seconds).
  const long long s =  // NOLINT(runtime/int)
      std::chrono::ceil<std::chrono::seconds>(d).count();
  std::string out = s >= 0 ? "+" : "";
  if (std::llabs(s) >= 3600) return out + std::to_string(s / 3600) + "h";
  if (std::llabs(s) >= 60) return out + std::to_string(s / 60) + "m";
  return out + std::to_string(s) + "s";
}

ProxyGroups StripDirect(const ProxyGroups& groups, bool* dropped) {
  ProxyGroups out;
  for (const auto& group : groups) {
    std::vector<std::string> kept;
    for (const std::string& p : group) {
      if (p == kDirectProxy || p.empty()) {
        *dropped = true;
      } else {
        kept.push_back(p);
      }
    }
    if (!kept.empty()) out.push_back(std::move(kept));
  }
  return out;
}

}  // namespace

std::string ProxyEntry::Describe(Clock::TimePoint now) const {
  if (url == kDirectProxy) return url;
  return url + " (" + (host_name.empty() ? ":unresolved:" : host_name) + ", " +
         Remaining(deadline - now) + ")";
}

CombinedProxies CombineProxyLists(const ProxyGroups& regular,
                                  const ProxyGroups& fallback) {
  CombinedProxies c;
  const ProxyGroups fb = StripDirect(fallback, &c.dropped_direct_from_fallback);
  c.groups = fb.empty() ? regular
                        : StripDirect(regular, &c.dropped_direct_from_regular);
  c.first_fallback = c.groups.size();
  c.groups.insert(c.groups.end(), fb.begin(), fb.end());
  return c;
}

std::string ProxyHost(const std::string& url) {
  size_t b, e;
  FindHost(url, &b, &e);
  return url.substr(b, e - b);
}

std::string ReplaceProxyHost(const std::string& url,
                             const std::string& address) {
  size_t b, e;
  FindHost(url, &b, &e);
  if (b == e) return url;
  const bool v6 =
      address.find(':') != std::string::npos && address.front() != '[';
  return url.substr(0, b) + (v6 ? "[" + address + "]" : address) +
         url.substr(e);
}

ProxyGroups ProxyUrls(const ProxyEntryGroups& groups) {
  ProxyGroups out;
  for (const auto& group : groups) {
    std::vector<std::string> urls;
    for (const ProxyEntry& e : group) urls.push_back(e.url);
    out.push_back(std::move(urls));
  }
  return out;
}

ProxyExpander::ProxyExpander(DnsResolver* resolver, ProxyDnsOptions options,
                             const Clock* clock, uint32_t seed)
    : resolver_(resolver),
      options_(options),
      clock_(clock ? clock : SteadyClock()),
      prng_(seed) {}

std::vector<std::string> ProxyExpander::Pick(
    std::vector<std::string> addresses) {
  std::sort(addresses.begin(), addresses.end());
  addresses.erase(std::unique(addresses.begin(), addresses.end()),
                  addresses.end());
  while (options_.max_ipaddr_per_proxy > 0 &&
         addresses.size() > options_.max_ipaddr_per_proxy) {
    std::uniform_int_distribution<size_t> pick(0, addresses.size() - 1);
    addresses.erase(addresses.begin() + pick(prng_));
  }
  return addresses;
}

std::vector<ProxyEntry> ProxyExpander::ExpandOne(const std::string& proxy) {
  const Clock::TimePoint now = clock_->Now();
  ProxyEntry base;
  base.configured = proxy;
  base.url = proxy;
  const std::string host = ProxyHost(proxy);
  if (proxy == kDirectProxy || host.empty()) {
    base.deadline = Clock::TimePoint::max();
    return {base};
  }
  if (IsIpv4(host) || IsBracketedIpv6(host)) {
    base.host_name = host;
    base.deadline = now + options_.max_ttl;
    return {base};
  }
  auto resolved =
      resolver_ ? resolver_->Resolve(host)
                : Result<ResolvedHost>(Status::Unavailable("no resolver"));
  if (!resolved.ok()) {
    base.deadline = now + options_.min_ttl;
    return {base};
  }
  const bool v4 =
      !resolved->ipv4.empty() &&
      (options_.prefer != IpPreference::kIpv6 || resolved->ipv6.empty());
  std::vector<std::string> addresses =
      Pick(v4 ? resolved->ipv4 : resolved->ipv6);
  const std::chrono::seconds ttl =
      std::clamp(resolved->ttl.value_or(options_.min_ttl), options_.min_ttl,
                 std::max(options_.min_ttl, options_.max_ttl));
  std::vector<ProxyEntry> entries;
  for (const std::string& address : addresses) {
    ProxyEntry e = base;
    e.url = ReplaceProxyHost(proxy, address);
    e.host_name = resolved->name.empty() ? host : resolved->name;
    e.deadline = now + ttl;
    entries.push_back(std::move(e));
  }
  return entries;
}

ProxyEntryGroups ProxyExpander::Expand(const ProxyGroups& groups) {
  ProxyEntryGroups out;
  for (const auto& group : groups) {
    std::vector<ProxyEntry> entries;
    for (const std::string& proxy : group) {
      std::vector<ProxyEntry> e = ExpandOne(proxy);
      entries.insert(entries.end(), e.begin(), e.end());
    }
    out.push_back(std::move(entries));
  }
  return out;
}

bool ProxyExpander::Refresh(ProxyEntryGroups* groups) {
  const Clock::TimePoint now = clock_->Now();
  bool changed = false;
  for (auto& group : *groups) {
    // Configured proxies in their order, each with its entries.
    std::vector<std::string> order;
    std::map<std::string, std::vector<ProxyEntry>> by_proxy;
    for (const ProxyEntry& e : group) {
      if (by_proxy.find(e.configured) == by_proxy.end())
        order.push_back(e.configured);
      by_proxy[e.configured].push_back(e);
    }
    std::vector<ProxyEntry> rebuilt;
    for (const std::string& proxy : order) {
      std::vector<ProxyEntry>& old = by_proxy[proxy];
      if (old.front().deadline > now) {
        rebuilt.insert(rebuilt.end(), old.begin(), old.end());
        continue;
      }
      std::vector<ProxyEntry> fresh = ExpandOne(proxy);
      if (fresh.size() == 1 && fresh.front().host_name.empty() &&
          !old.front().host_name.empty()) {
        // Failed again: keep the addresses known, try after the minimum.
        for (ProxyEntry& e : old) e.deadline = now + options_.min_ttl;
        rebuilt.insert(rebuilt.end(), old.begin(), old.end());
        continue;
      }
      std::vector<std::string> a, b;
      for (const ProxyEntry& e : old) a.push_back(e.url);
      for (const ProxyEntry& e : fresh) b.push_back(e.url);
      if (a != b) changed = true;
      rebuilt.insert(rebuilt.end(), fresh.begin(), fresh.end());
    }
    group = std::move(rebuilt);
  }
  return changed;
}

Clock::TimePoint ProxyExpander::NextDeadline(const ProxyEntryGroups& groups) {
  Clock::TimePoint next = Clock::TimePoint::max();
  for (const auto& group : groups)
    for (const ProxyEntry& e : group) next = std::min(next, e.deadline);
  return next;
}

}  // namespace cvmfs
