#include "client/proxy_autoconfig.h"

#include <algorithm>
#include <cctype>

#include "client/pac_evaluator.h"
#include "cvmfs/config/url_lists.h"
#include "cvmfs/file_util.h"
#include "cvmfs/network/proxy_chain.h"
#include "cvmfs/network/string_sink.h"
#include "cvmfs/text.h"

namespace cvmfs::client {
namespace {

constexpr size_t kMaxPacSize = 1 << 20;

bool StartsWithNoCase(const std::string& s, const std::string& prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(s[i])) !=
        std::toupper(static_cast<unsigned char>(prefix[i])))
      return false;
  }
  return true;
}

std::string AddDefaultScheme(const std::string& proxy) {
  if (proxy == kDirectProxy || StartsWithNoCase(proxy, "http://") ||
      StartsWithNoCase(proxy, "https://"))
    return proxy;
  return "http://" + proxy;
}

// "a:3128|b:3128;DIRECT" as CVMFS reads $http_proxy and its cache file:
// ';' groups of '|' members, http:// added where missing.
ProxyGroups ParseLooseProxyList(const std::string& text) {
  ProxyGroups groups;
  for (const std::string& g : SplitNonEmpty(text, ";")) {
    std::vector<std::string> group;
    for (const std::string& m : SplitNonEmpty(g, "|")) {
      std::string member(Trim(m, " \t\n"));
      if (!member.empty()) group.push_back(AddDefaultScheme(member));
    }
    if (!group.empty()) groups.push_back(std::move(group));
  }
  return groups;
}

std::string JoinGroups(const ProxyGroups& groups) {
  std::string out;
  for (const auto& group : groups) {
    if (!out.empty()) out += ";";
    for (size_t i = 0; i < group.size(); ++i) out += (i ? "|" : "") + group[i];
  }
  return out;
}

std::vector<PacQuery> QueriesFor(const std::vector<std::string>& hosts) {
  std::vector<PacQuery> queries;
  for (const std::string& h : hosts) {
    std::string name = ProxyHost(h);
    queries.push_back(
        {h + "/.cvmfspublished", name.empty() ? "localhost" : name});
  }
  return queries;
}

// The proxies one PAC file gives, or why it gives none.
Result<ProxyGroups> ProxiesFromPac(const std::string& url,
                                   const std::string& script,
                                   const std::vector<std::string>& hosts,
                                   const ProxyLog& log) {
  CVMFS_ASSIGN_OR_RETURN(std::vector<std::string> answers,
                         EvaluatePac(script, QueriesFor(hosts)));
  if (answers.empty())
    return Status::InvalidArgument("no Stratum 1 to ask the PAC file about");
  std::vector<std::string> skipped;
  ProxyGroups groups = PacAnswerToProxyGroups(answers[0], &skipped);
  for (const std::string& s : skipped) log("PAC file " + url + ": " + s);
  if (groups.empty())
    return Status::NotFound("no valid proxy found ('" + answers[0] +
                            "' returned from the PAC file)");
  for (size_t i = 1; i < answers.size(); ++i) {
    std::vector<std::string> ignored;
    if (PacAnswerToProxyGroups(answers[i], &ignored) != groups)
      log("PAC file " + url + ": proxies for " + hosts[i] + " ('" + answers[i] +
          "') differ from those for " + hosts[0] + "; not using them");
  }
  return groups;
}

// One "auto": $http_proxy, else the first PAC file that names a proxy.
Result<ProxyGroups> AutoProxy(const AutoProxyOptions& o, const PacFetch& fetch,
                              const ProxyLog& log) {
  if (o.http_proxy_env && !o.http_proxy_env->empty()) {
    log("using HTTP proxy server(s) " + *o.http_proxy_env +
        " from the http_proxy environment");
    return ParseLooseProxyList(*o.http_proxy_env);
  }
  std::string reasons;
  for (std::string url : o.pac_urls) {
    if (url == kAutoProxy) url = kDefaultPacUrl;
    Result<ProxyGroups> groups = [&]() -> Result<ProxyGroups> {
      CVMFS_ASSIGN_OR_RETURN(std::string script, fetch(url));
      return ProxiesFromPac(url, script, o.hosts, log);
    }();
    if (groups.ok()) {
      log("using HTTP proxy server(s) " + JoinGroups(*groups) +
          " from PAC file " + url);
      return groups;
    }
    reasons +=
        (reasons.empty() ? "" : "; ") + url + ": " + groups.status().message();
  }
  return Status::Unavailable(reasons.empty() ? "CVMFS_PAC_URLS is empty"
                                             : "no PAC file named a proxy (" +
                                                   reasons + ")");
}

}  // namespace

ProxyGroups PacAnswerToProxyGroups(const std::string& answer,
                                   std::vector<std::string>* skipped) {
  std::string compact;
  for (char c : answer)
    if (c != ' ' && c != '\t') compact.push_back(c);
  if (compact.empty()) return {{kDirectProxy}};
  ProxyGroups groups;
  for (const std::string& entry : SplitNonEmpty(compact, ";")) {
    if (entry == kDirectProxy) {
      groups.push_back({kDirectProxy});
    } else if (StartsWithNoCase(entry, "PROXY") && entry.size() > 5) {
      groups.push_back({AddDefaultScheme(entry.substr(5))});
    } else if (StartsWithNoCase(entry, "SOCKS")) {
      skipped->push_back("no support for SOCKS proxy, skipping " + entry);
    } else {
      skipped->push_back("invalid proxy definition: " + entry);
    }
  }
  return groups;
}

bool HasAutoProxy(const ProxyGroups& configured) {
  for (const auto& group : configured)
    for (const std::string& m : group)
      if (m == kAutoProxy) return true;
  return false;
}

Result<ProxyGroups> ResolveAutoProxies(const ProxyGroups& configured,
                                       const AutoProxyOptions& options,
                                       const PacFetch& fetch,
                                       const ProxyLog& log) {
  if (!HasAutoProxy(configured)) return configured;
  ProxyGroups resolved;
  std::string failure;
  for (const auto& group : configured) {
    if (group.size() > 1 &&
        std::find(group.begin(), group.end(), kAutoProxy) != group.end())
      return Status::InvalidArgument(
          "'auto' must be a proxy group of its own ('auto;...'), not a "
          "member of a load-balance group");
    if (group != std::vector<std::string>{kAutoProxy}) {
      resolved.push_back(group);
      continue;
    }
    Result<ProxyGroups> found = AutoProxy(options, fetch, log);
    if (!found.ok()) {
      failure = found.status().message();
      continue;
    }
    resolved.insert(resolved.end(), found->begin(), found->end());
  }
  if (!options.cache_file.empty()) {
    if (!failure.empty()) {
      auto cached = ReadFile(options.cache_file);
      if (cached.ok() && !ParseLooseProxyList(*cached).empty()) {
        log("proxy auto-discovery failed (" + failure +
            "); using the proxies found before, cached in " +
            options.cache_file);
        return ParseLooseProxyList(*cached);
      }
    } else {
      Status st =
          WriteFileAtomic(options.cache_file, JoinGroups(resolved), 0660);
      if (!st.ok()) log("cannot cache the discovered proxies: " + st.message());
    }
  }
  if (!failure.empty()) log("proxy auto-discovery failed: " + failure);
  if (resolved.empty())
    return Status::Unavailable("failed to discover HTTP proxy servers: " +
                               failure);
  return resolved;
}

PacFetch HttpPacFetch(const HttpFetcherOptions& base) {
  return [base](const std::string& url) -> Result<std::string> {
    HttpFetcherOptions o = base;
    const size_t slash = url.rfind('/');
    const size_t scheme = url.find("://");
    if (scheme == std::string::npos)
      return Status::InvalidArgument("'" + url + "' is not a URL");
    const bool has_path = slash != std::string::npos && slash > scheme + 2;
    o.hosts = {has_path ? url.substr(0, slash) : url};
    o.proxy_groups = {};
    o.fallback_proxy_groups = {};
    o.on_failover = nullptr;
    CVMFS_ASSIGN_OR_RETURN(auto fetcher, HttpFetcher::Create(o));
    StringSink sink(kMaxPacSize);
    DownloadRequest request;
    request.url_path = has_path ? url.substr(slash + 1) : "";
    request.no_cache = true;
    DownloadResult result = fetcher->Fetch(request, &sink);
    if (!result.status.ok()) return result.status;
    return sink.TakeBody();
  };
}

}  // namespace cvmfs::client
