#include "client/proxy_autoconfig.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "client/pac_evaluator.h"
#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

// Chooses by host, as a site's PAC file does.
const char kPac[] = R"(
function FindProxyForURL(url, host) {
  if (shExpMatch(host, "*.cern.ch"))
    return "PROXY squid1.example.org:3128; PROXY squid2.example.org:3128";
  if (dnsDomainIs(host, ".fnal.gov"))
    return "PROXY fnal-squid:3128; DIRECT";
  if (url.indexOf("/cvmfs/special.") >= 0) return "PROXY special:8080";
  return "DIRECT";
}
)";

// Serves PAC files from a table; counts the fetches.
struct FakePacServer {
  std::map<std::string, std::string> files;
  std::vector<std::string> fetched;
  PacFetch Fetch() {
    return [this](const std::string& url) -> Result<std::string> {
      fetched.push_back(url);
      auto it = files.find(url);
      if (it == files.end()) return Status::Unavailable("refused: " + url);
      return it->second;
    };
  }
};

TEST(PacEvaluatorTest, FindProxyForUrlByUrlAndHost) {
  auto answers = EvaluatePac(
      kPac, {{"http://s1.cern.ch/cvmfs/a/.cvmfspublished", "s1.cern.ch"},
             {"http://s.fnal.gov/cvmfs/a/.cvmfspublished", "s.fnal.gov"},
             {"http://x.org/cvmfs/special.x.org/.cvmfspublished", "x.org"},
             {"http://x.org/cvmfs/a/.cvmfspublished", "x.org"}});
  ASSERT_TRUE(answers.ok()) << answers.status().ToString();
  EXPECT_EQ(*answers,
            (std::vector<std::string>{"PROXY squid1.example.org:3128; PROXY "
                                      "squid2.example.org:3128",
                                      "PROXY fnal-squid:3128; DIRECT",
                                      "PROXY special:8080", "DIRECT"}));
}

TEST(PacEvaluatorTest, BrokenScriptIsAnError) {
  auto answers = EvaluatePac("function FindProxyForURL(url, host) {",
                             {{"http://x/", "x"}});
  ASSERT_FALSE(answers.ok());
  EXPECT_NE(answers.status().message().find("does not parse"),
            std::string::npos);
  // The library is usable again afterwards.
  EXPECT_TRUE(EvaluatePac(kPac, {{"http://x/", "x"}}).ok());
  auto thrown = EvaluatePac(
      "function FindProxyForURL(url, host) { return undefined_name; }",
      {{"http://x/", "x"}});
  EXPECT_FALSE(thrown.ok());
}

// libpacparser has one global context: concurrent callers are serialized
// and each gets its own answers.
TEST(PacEvaluatorTest, ConcurrentEvaluationsDoNotMix) {
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &wrong] {
      const std::string script =
          "function FindProxyForURL(url, host) { return \"PROXY p" +
          std::to_string(t) + ":1\"; }";
      for (int i = 0; i < 20; ++i) {
        auto a = EvaluatePac(script, {{"http://x/", "x"}});
        if (!a.ok() || (*a)[0] != "PROXY p" + std::to_string(t) + ":1") wrong++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ProxyAutoconfigTest, PacAnswerMapsToOneGroupPerEntry) {
  std::vector<std::string> skipped;
  EXPECT_EQ(
      PacAnswerToProxyGroups("PROXY a:3128; PROXY b:3128; DIRECT", &skipped),
      (ProxyGroups{{"http://a:3128"}, {"http://b:3128"}, {"DIRECT"}}));
  EXPECT_TRUE(skipped.empty());
  EXPECT_EQ(PacAnswerToProxyGroups("", &skipped), (ProxyGroups{{"DIRECT"}}));
  EXPECT_EQ(
      PacAnswerToProxyGroups("SOCKS s:1080; proxy c:1; HTTPS h:443", &skipped),
      (ProxyGroups{{"http://c:1"}}));
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_NE(skipped[0].find("SOCKS"), std::string::npos);
  EXPECT_NE(skipped[1].find("invalid proxy definition"), std::string::npos);
}

TEST(ProxyAutoconfigTest, AutoGroupReplacedByTheFirstServersAnswer) {
  FakePacServer pac;
  pac.files["http://wpad/wpad.dat"] = kPac;
  AutoProxyOptions o;
  o.pac_urls = {"http://dead/none.pac", "auto"};
  o.hosts = {"http://s1.cern.ch/cvmfs/a", "http://s.fnal.gov/cvmfs/a"};
  std::vector<std::string> log;
  auto groups = ResolveAutoProxies(
      {{"http://site:3128"}, {"auto"}, {"DIRECT"}}, o, pac.Fetch(),
      [&](const std::string& m) { log.push_back(m); });
  ASSERT_TRUE(groups.ok()) << groups.status().ToString();
  EXPECT_EQ(*groups, (ProxyGroups{{"http://site:3128"},
                                  {"http://squid1.example.org:3128"},
                                  {"http://squid2.example.org:3128"},
                                  {"DIRECT"}}));
  EXPECT_EQ(pac.fetched, (std::vector<std::string>{"http://dead/none.pac",
                                                   "http://wpad/wpad.dat"}));
  bool differ = false;
  for (const auto& m : log) differ |= m.find("differ") != std::string::npos;
  EXPECT_TRUE(differ) << "the second server's other answer is reported";
}

TEST(ProxyAutoconfigTest, HttpProxyEnvironmentWins) {
  FakePacServer pac;
  AutoProxyOptions o;
  o.hosts = {"http://s1/cvmfs/a"};
  o.http_proxy_env = "envsquid:3128|http://other:3128";
  auto groups =
      ResolveAutoProxies({{"auto"}}, o, pac.Fetch(), [](const std::string&) {});
  ASSERT_TRUE(groups.ok());
  EXPECT_EQ(*groups,
            (ProxyGroups{{"http://envsquid:3128", "http://other:3128"}}));
  EXPECT_TRUE(pac.fetched.empty());
}

TEST(ProxyAutoconfigTest, NothingFoundDropsAutoOrFails) {
  FakePacServer pac;
  AutoProxyOptions o;
  o.hosts = {"http://s1/cvmfs/a"};
  auto log = [](const std::string&) {};
  // Other groups are left: "auto;DIRECT" becomes DIRECT.
  auto groups = ResolveAutoProxies({{"auto"}, {"DIRECT"}}, o, pac.Fetch(), log);
  ASSERT_TRUE(groups.ok());
  EXPECT_EQ(*groups, (ProxyGroups{{"DIRECT"}}));
  // Nothing left: the mount cannot go on.
  groups = ResolveAutoProxies({{"auto"}}, o, pac.Fetch(), log);
  ASSERT_FALSE(groups.ok());
  EXPECT_NE(
      groups.status().message().find("failed to discover HTTP proxy servers"),
      std::string::npos);
  EXPECT_NE(groups.status().message().find("http://wpad/wpad.dat"),
            std::string::npos);
  // A PAC file naming only SOCKS proxies gives nothing either.
  pac.files["http://wpad/wpad.dat"] =
      "function FindProxyForURL(u, h) { return \"SOCKS s:1\"; }";
  EXPECT_FALSE(ResolveAutoProxies({{"auto"}}, o, pac.Fetch(), log).ok());
  // 'auto' inside a load-balance group is refused.
  groups = ResolveAutoProxies({{"auto", "http://p:1"}}, o, pac.Fetch(), log);
  EXPECT_EQ(groups.status().code(), Status::Code::kInvalidArgument);
}

TEST(ProxyAutoconfigTest, CacheFileKeepsTheLastDiscovery) {
  testing::TempDir dir;
  FakePacServer pac;
  pac.files["http://wpad/wpad.dat"] = kPac;
  AutoProxyOptions o;
  o.hosts = {"http://s1.cern.ch/cvmfs/a"};
  o.cache_file = dir.path() + "/proxies.a";
  auto log = [](const std::string&) {};
  auto first = ResolveAutoProxies({{"auto"}}, o, pac.Fetch(), log);
  ASSERT_TRUE(first.ok());
  pac.files.clear();  // the PAC server is gone
  auto second = ResolveAutoProxies({{"auto"}}, o, pac.Fetch(), log);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, *first);
}

}  // namespace
}  // namespace cvmfs::client
