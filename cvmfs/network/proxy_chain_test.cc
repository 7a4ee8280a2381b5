#include "cvmfs/network/proxy_chain.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>

#include "cvmfs/clock.h"

namespace cvmfs {
namespace {

using std::chrono::seconds;

// A resolver answering from a table; counts the questions.
class TableResolver : public DnsResolver {
 public:
  Result<ResolvedHost> Resolve(const std::string& name) override {
    ++calls[name];
    auto it = table.find(name);
    if (it == table.end()) return Status::NotFound("no such name " + name);
    return it->second;
  }
  std::map<std::string, ResolvedHost> table;
  std::map<std::string, int> calls;
};

ResolvedHost Host(std::string name, std::vector<std::string> v4,
                  std::vector<std::string> v6 = {},
                  std::optional<seconds> ttl = std::nullopt) {
  ResolvedHost h;
  h.name = std::move(name);
  h.ipv4 = std::move(v4);
  h.ipv6 = std::move(v6);
  h.ttl = ttl;
  return h;
}

TEST(ProxyChainTest, FallbackComesLastAndDropsDirect) {
  // No fallback: the regular list as it is, DIRECT included.
  CombinedProxies c = CombineProxyLists({{"http://p1:3128"}, {"DIRECT"}}, {});
  EXPECT_EQ(c.groups, (ProxyGroups{{"http://p1:3128"}, {"DIRECT"}}));
  EXPECT_EQ(c.first_fallback, 2u);
  // A fallback proxy removes DIRECT from both lists, empty groups vanish.
  c = CombineProxyLists({{"http://p1:3128", "DIRECT"}, {"DIRECT"}},
                        {{"DIRECT", "http://f1:3128"}, {"http://f2:3128"}});
  EXPECT_EQ(c.groups,
            (ProxyGroups{
                {"http://p1:3128"}, {"http://f1:3128"}, {"http://f2:3128"}}));
  EXPECT_EQ(c.first_fallback, 1u);
  EXPECT_TRUE(c.dropped_direct_from_fallback);
  EXPECT_TRUE(c.dropped_direct_from_regular);
  // A fallback of only DIRECT is no fallback: DIRECT stays in the regular.
  c = CombineProxyLists({{"DIRECT"}}, {{"DIRECT"}});
  EXPECT_EQ(c.groups, (ProxyGroups{{"DIRECT"}}));
  EXPECT_TRUE(c.dropped_direct_from_fallback);
  EXPECT_FALSE(c.dropped_direct_from_regular);
  // Regular DIRECT only + a fallback: only the fallback is left.
  c = CombineProxyLists({{"DIRECT"}}, {{"http://f:3128"}});
  EXPECT_EQ(c.groups, (ProxyGroups{{"http://f:3128"}}));
  EXPECT_EQ(c.first_fallback, 0u);
}

TEST(ProxyChainTest, HostOfAProxyUrl) {
  EXPECT_EQ(ProxyHost("http://squid.example.org:3128"), "squid.example.org");
  EXPECT_EQ(ProxyHost("http://user:pw@squid:3128/"), "squid");
  EXPECT_EQ(ProxyHost("http://[::1]:3128"), "[::1]");
  EXPECT_EQ(ProxyHost("http://squid"), "squid");
  EXPECT_EQ(ProxyHost("DIRECT"), "");
  EXPECT_EQ(ReplaceProxyHost("http://squid:3128", "10.0.0.1"),
            "http://10.0.0.1:3128");
  EXPECT_EQ(ReplaceProxyHost("http://squid:3128", "fd00::1"),
            "http://[fd00::1]:3128");
  EXPECT_EQ(ReplaceProxyHost("DIRECT", "10.0.0.1"), "DIRECT");
}

TEST(ProxyChainTest, NamesBecomeOneProxyPerAddressInTheirGroup) {
  TableResolver dns;
  dns.table["squid"] = Host("squid.site", {"10.0.0.2", "10.0.0.1"});
  dns.table["other"] = Host("other", {"10.0.1.1"});
  ManualClock clock;
  ProxyExpander x(&dns, {}, &clock, 1);
  ProxyEntryGroups g = x.Expand({{"http://squid:3128", "http://other:3128"},
                                 {"http://127.0.0.1:1"},
                                 {"DIRECT"}});
  EXPECT_EQ(ProxyUrls(g),
            (ProxyGroups{{"http://10.0.0.1:3128", "http://10.0.0.2:3128",
                          "http://10.0.1.1:3128"},
                         {"http://127.0.0.1:1"},
                         {"DIRECT"}}));
  EXPECT_EQ(g[0][0].configured, "http://squid:3128");
  EXPECT_EQ(g[0][0].Describe(clock.Now()),
            "http://10.0.0.1:3128 (squid.site, +1m)");
  // An address is not resolved; it stays for the maximum TTL.
  EXPECT_EQ(dns.calls.count("127.0.0.1"), 0u);
  EXPECT_EQ(g[1][0].Describe(clock.Now()),
            "http://127.0.0.1:1 (127.0.0.1, +24h)");
  EXPECT_EQ(g[2][0].Describe(clock.Now()), "DIRECT");
}

TEST(ProxyChainTest, UnresolvedNameStaysAsWritten) {
  TableResolver dns;
  ManualClock clock;
  ProxyExpander x(&dns, {}, &clock, 1);
  ProxyEntryGroups g = x.Expand({{"http://nowhere:3128"}});
  EXPECT_EQ(ProxyUrls(g), (ProxyGroups{{"http://nowhere:3128"}}));
  EXPECT_EQ(g[0][0].Describe(clock.Now()),
            "http://nowhere:3128 (:unresolved:, +1m)");
}

TEST(ProxyChainTest, IpFamilyPreference) {
  TableResolver dns;
  dns.table["dual"] = Host("dual", {"10.0.0.1"}, {"fd00::1"});
  dns.table["v6only"] = Host("v6only", {}, {"fd00::2"});
  ManualClock clock;
  ProxyDnsOptions o;
  ProxyExpander sys(&dns, o, &clock, 1);
  EXPECT_EQ(ProxyUrls(sys.Expand({{"http://dual:1", "http://v6only:1"}})),
            (ProxyGroups{{"http://10.0.0.1:1", "http://[fd00::2]:1"}}));
  o.prefer = IpPreference::kIpv6;
  ProxyExpander v6(&dns, o, &clock, 1);
  EXPECT_EQ(ProxyUrls(v6.Expand({{"http://dual:1"}})),
            (ProxyGroups{{"http://[fd00::1]:1"}}));
}

TEST(ProxyChainTest, MaxAddressesPerProxyPicksASubset) {
  TableResolver dns;
  dns.table["rr"] =
      Host("rr", {"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"});
  ManualClock clock;
  ProxyDnsOptions o;
  o.max_ipaddr_per_proxy = 2;
  std::set<std::string> seen;
  for (uint32_t seed = 0; seed < 20; ++seed) {
    ProxyExpander x(&dns, o, &clock, seed);
    ProxyGroups urls = ProxyUrls(x.Expand({{"http://rr:1"}}));
    ASSERT_EQ(urls[0].size(), 2u) << "seed " << seed;
    seen.insert(urls[0].begin(), urls[0].end());
  }
  EXPECT_GT(seen.size(), 2u);  // a random choice, not always the first two
}

TEST(ProxyChainTest, ResolvedAgainAfterTheClampedTtl) {
  TableResolver dns;
  dns.table["squid"] = Host("squid", {"10.0.0.1"}, {}, seconds(5));
  ManualClock clock;
  ProxyDnsOptions o;
  o.min_ttl = seconds(30);
  o.max_ttl = seconds(100);
  ProxyExpander x(&dns, o, &clock, 1);
  ProxyEntryGroups g = x.Expand({{"http://squid:1"}, {"DIRECT"}});
  EXPECT_EQ(ProxyExpander::NextDeadline(g), clock.Now() + seconds(30));
  clock.Advance(seconds(29));
  EXPECT_FALSE(x.Refresh(&g));
  EXPECT_EQ(dns.calls["squid"], 1);
  // Same address after the TTL: no change, a new deadline (TTL 500 -> 100).
  dns.table["squid"].ttl = seconds(500);
  clock.Advance(seconds(1));
  EXPECT_FALSE(x.Refresh(&g));
  EXPECT_EQ(dns.calls["squid"], 2);
  EXPECT_EQ(ProxyExpander::NextDeadline(g), clock.Now() + seconds(100));
  // New addresses replace the old ones in place.
  dns.table["squid"].ipv4 = {"10.0.0.7", "10.0.0.8"};
  clock.Advance(seconds(100));
  EXPECT_TRUE(x.Refresh(&g));
  EXPECT_EQ(
      ProxyUrls(g),
      (ProxyGroups{{"http://10.0.0.7:1", "http://10.0.0.8:1"}, {"DIRECT"}}));
  // The name vanishes: the known addresses stay, tried again after the
  // minimum TTL.
  dns.table.erase("squid");
  clock.Advance(seconds(100));
  EXPECT_FALSE(x.Refresh(&g));
  EXPECT_EQ(g[0].size(), 2u);
  EXPECT_EQ(ProxyExpander::NextDeadline(g), clock.Now() + seconds(30));
}

// The real resolver, without network: localhost comes from /etc/hosts; a
// lookup that cannot succeed ends within its timeout.
TEST(SystemDnsResolverTest, LocalhostAndBoundedFailure) {
  SystemDnsOptions o;
  o.timeout_ms = 500;
  o.retries = 0;
  auto dns = NewSystemDnsResolver(o);
  auto local = dns->Resolve("localhost");
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  const bool v4 = std::find(local->ipv4.begin(), local->ipv4.end(),
                            "127.0.0.1") != local->ipv4.end();
  const bool v6 = std::find(local->ipv6.begin(), local->ipv6.end(), "::1") !=
                  local->ipv6.end();
  EXPECT_TRUE(v4 || v6);
  const auto start = std::chrono::steady_clock::now();
  auto none = dns->Resolve("no-such-proxy.invalid");
  EXPECT_FALSE(none.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_NE(none.status().message().find("no-such-proxy.invalid"),
            std::string::npos);
}

}  // namespace
}  // namespace cvmfs
