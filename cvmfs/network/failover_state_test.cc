#include "cvmfs/network/failover_state.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace cvmfs {
namespace {

const std::vector<std::string> kHosts = {"http://s1/cvmfs/r",
                                         "http://s2/cvmfs/r/"};

TEST(FailoverStateTest, ValidateNamesTheBadValue) {
  EXPECT_TRUE(FailoverState::Validate(kHosts, {}).ok());
  EXPECT_FALSE(FailoverState::Validate({}, {}).ok());
  Status st = FailoverState::Validate({"ftp://x/cvmfs/r"}, {});
  EXPECT_NE(st.message().find("ftp://x/cvmfs/r"), std::string::npos);
  EXPECT_FALSE(FailoverState::Validate(kHosts, {{}}).ok());
  EXPECT_FALSE(FailoverState::Validate(kHosts, {{""}}).ok());
  EXPECT_EQ(FailoverState::Validate(kHosts, {{"auto"}}).code(),
            Status::Code::kNotSupported);
}

TEST(FailoverStateTest, NoProxiesMeansDirectAndSlashesAreStripped) {
  FailoverState s(kHosts, {}, 1);
  Route r = s.Current();
  EXPECT_TRUE(r.direct());
  EXPECT_EQ(s.num_proxies(), 1u);
  EXPECT_EQ(s.Hosts()[1], "http://s2/cvmfs/r");
}

TEST(FailoverStateTest, HostSwitchOnlyFromTheCurrentHost) {
  FailoverState s(kHosts, {}, 1);
  Route stale = s.Current();
  EXPECT_TRUE(s.SwitchHostFrom(stale));
  EXPECT_EQ(s.CurrentHost(), "http://s2/cvmfs/r");
  // A second request that failed on s1 must not switch back.
  EXPECT_FALSE(s.SwitchHostFrom(stale));
  EXPECT_EQ(s.CurrentHost(), "http://s2/cvmfs/r");
  EXPECT_TRUE(s.SwitchHostFrom(s.Current()));  // wraps around
  EXPECT_EQ(s.CurrentHost(), "http://s1/cvmfs/r");
  FailoverState single({"http://only/cvmfs/r"}, {}, 1);
  EXPECT_FALSE(single.SwitchHostFrom(single.Current()));
}

TEST(FailoverStateTest, ProxiesBurnWithinGroupThenNextGroup) {
  FailoverState s(kHosts, {{"http://p1:3128", "http://p2:3128"}, {"DIRECT"}},
                  7);
  EXPECT_EQ(s.num_proxies(), 3u);
  std::set<std::string> seen;
  Route first = s.Current();
  seen.insert(first.proxy);
  EXPECT_TRUE(s.SwitchProxyFrom(first));
  Route second = s.Current();
  seen.insert(second.proxy);
  EXPECT_EQ(seen.size(), 2u) << "the other member of group 0 is next";
  EXPECT_FALSE(s.SwitchProxyFrom(first)) << "already burned";
  EXPECT_TRUE(s.SwitchProxyFrom(second));
  EXPECT_EQ(s.CurrentProxy(), "DIRECT");
  EXPECT_TRUE(s.ResetProxies());
  EXPECT_NE(s.CurrentProxy(), "DIRECT");
  EXPECT_FALSE(s.ResetProxies());
  // Configured order is kept for display.
  EXPECT_EQ(s.Proxies()[0][0], "http://p1:3128");
}

TEST(FailoverStateTest, LastGroupWrapsToTheFirst) {
  FailoverState s(kHosts, {{"http://p1"}, {"http://p2"}}, 3);
  EXPECT_EQ(s.CurrentProxy(), "http://p1");
  s.SwitchProxy();
  EXPECT_EQ(s.CurrentProxy(), "http://p2");
  s.SwitchProxy();
  EXPECT_EQ(s.CurrentProxy(), "http://p1");
}

// Over many seeds, the random choice within a group uses every member.
TEST(FailoverStateTest, LoadBalancesAcrossGroupMembers) {
  std::set<std::string> chosen;
  for (uint32_t seed = 0; seed < 64; ++seed) {
    FailoverState s(kHosts, {{"http://a", "http://b", "http://c"}}, seed);
    chosen.insert(s.CurrentProxy());
  }
  EXPECT_EQ(chosen.size(), 3u);
}

}  // namespace
}  // namespace cvmfs
