// Proxy auto-configuration as CVMFS does it (doc/client.md, "Proxies"):
// a group "auto" in CVMFS_HTTP_PROXY is replaced by the proxies a PAC file
// names for the repository's Stratum 1s.
//
//   CVMFS_HTTP_PROXY="auto;DIRECT"  CVMFS_PAC_URLS="http://wpad/wpad.dat"
//   wpad.dat: FindProxyForURL(url, host) -> "PROXY a:3128; PROXY b:3128"
//   -> groups [http://a:3128] [http://b:3128] [DIRECT]
//
//   1. $http_proxy, when set in the client's environment, is the answer
//      (CVMFS's precedence), parsed as a proxy list.
//   2. Else each URL of CVMFS_PAC_URLS in order ("auto" there means
//      http://wpad/wpad.dat; file:// URLs work): fetched without a proxy,
//      its FindProxyForURL asked for <server>/.cvmfspublished of every
//      Stratum 1; the first server's answer counts (differing answers for
//      the others are reported, not used). The first PAC file that yields
//      a proxy wins.
//   3. A PAC answer maps to one group per entry: "PROXY h:p" becomes
//      http://h:p, DIRECT stays, SOCKS and anything else is skipped with a
//      warning; an empty answer means DIRECT.
//   4. An "auto" that found nothing is dropped from the list; then, if a
//      cache file is set, the proxies found at the last successful
//      discovery are used instead, and a successful discovery is written
//      there.
//   Nothing left: Unavailable ("failed to discover HTTP proxy servers").
//
// Thread safety: pure apart from the calls to the fetch and log callbacks
// and the cache file.
#ifndef CLIENT_PROXY_AUTOCONFIG_H_
#define CLIENT_PROXY_AUTOCONFIG_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

inline constexpr char kDefaultPacUrl[] = "http://wpad/wpad.dat";

struct AutoProxyOptions {
  std::vector<std::string> pac_urls = {kDefaultPacUrl};  // CVMFS_PAC_URLS
  std::vector<std::string> hosts;             // the Stratum 1 URLs, in order
  std::optional<std::string> http_proxy_env;  // $http_proxy
  std::string cache_file;  // last discovered proxies; empty = none
};

// Fetches one PAC file by its URL.
using PacFetch = std::function<Result<std::string>(const std::string& url)>;
using ProxyLog = std::function<void(const std::string&)>;

// Step 3 above; `skipped` gets one message per entry left out.
ProxyGroups PacAnswerToProxyGroups(const std::string& answer,
                                   std::vector<std::string>* skipped);

// Whether `configured` has a group "auto" to resolve.
bool HasAutoProxy(const ProxyGroups& configured);

// Steps 1-4 for every group "auto" of `configured`; other groups are kept.
// "auto" beside other proxies in one group is InvalidArgument (CVMFS never
// resolves it there).
Result<ProxyGroups> ResolveAutoProxies(const ProxyGroups& configured,
                                       const AutoProxyOptions& options,
                                       const PacFetch& fetch,
                                       const ProxyLog& log);

// Fetches PAC files directly (no proxy) with the timeouts and retries of
// `base` (its hosts and proxies are ignored), at most 1 MiB.
PacFetch HttpPacFetch(const HttpFetcherOptions& base);

}  // namespace cvmfs::client

#endif  // CLIENT_PROXY_AUTOCONFIG_H_
