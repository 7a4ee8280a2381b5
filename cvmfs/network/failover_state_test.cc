#include "cvmfs/network/failover_state.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>

#include "cvmfs/clock.h"

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

using std::chrono::seconds;

const std::vector<std::string> kThreeHosts = {"http://s1/r", "http://s2/r",
                                              "http://s3/r"};

FailoverResetPolicy ResetAfter(const Clock* clock, int host_s, int proxy_s) {
  FailoverResetPolicy p;
  p.host_reset_after = seconds(host_s);
  p.proxy_reset_after = seconds(proxy_s);
  p.clock = clock;
  return p;
}

TEST(FailoverResetTest, HostReturnsToTheFirstAfterTheInterval) {
  ManualClock clock;
  FailoverState s(kHosts, {}, 1, ResetAfter(&clock, 10, 0));
  ASSERT_TRUE(s.SwitchHostFrom(s.ForNextAttempt()));
  clock.Advance(seconds(9));
  EXPECT_EQ(s.ForNextAttempt().host_index, 1u) << "not yet expired";
  clock.Advance(seconds(1));
  // Only an attempt applies the reset; the operator sees the state as is.
  EXPECT_EQ(s.Current().host_index, 1u);
  Route r = s.ForNextAttempt();
  EXPECT_EQ(r.host_index, 0u);
  EXPECT_EQ(r.host, "http://s1/cvmfs/r");
  EXPECT_EQ(s.CurrentHost(), "http://s1/cvmfs/r");
}

// The timer runs from leaving host 0; failing over further does not
// restart it.
TEST(FailoverResetTest, TimerStartsWhenLeavingTheFirstHost) {
  ManualClock clock;
  FailoverState s(kThreeHosts, {}, 1, ResetAfter(&clock, 10, 0));
  ASSERT_TRUE(s.SwitchHostFrom(s.ForNextAttempt()));  // t=0: -> s2
  clock.Advance(seconds(6));
  ASSERT_TRUE(s.SwitchHostFrom(s.ForNextAttempt()));  // t=6: -> s3
  EXPECT_EQ(s.CurrentHost(), "http://s3/r");
  clock.Advance(seconds(4));  // t=10
  EXPECT_EQ(s.ForNextAttempt().host, "http://s1/r");
}

// Back on host 0 by wrapping around stops the timer; leaving it again
// starts a new one.
TEST(FailoverResetTest, WrapAroundStopsTheTimer) {
  ManualClock clock;
  FailoverState s(kHosts, {}, 1, ResetAfter(&clock, 10, 0));
  ASSERT_TRUE(s.SwitchHostFrom(s.ForNextAttempt()));  // t=0: -> s2
  clock.Advance(seconds(5));
  ASSERT_TRUE(s.SwitchHostFrom(s.ForNextAttempt()));  // t=5: -> s1
  clock.Advance(seconds(1));
  ASSERT_TRUE(s.SwitchHostFrom(s.ForNextAttempt()));  // t=6: -> s2
  clock.Advance(seconds(9));                          // t=15
  EXPECT_EQ(s.ForNextAttempt().host_index, 1u);
  clock.Advance(seconds(1));  // t=16
  EXPECT_EQ(s.ForNextAttempt().host_index, 0u);
}

TEST(FailoverResetTest, ZeroMeansNever) {
  ManualClock clock;
  FailoverState s(kHosts, {{"http://p1"}, {"http://p2"}}, 1,
                  ResetAfter(&clock, 0, 0));
  ASSERT_TRUE(s.SwitchHostFrom(s.ForNextAttempt()));
  ASSERT_TRUE(s.SwitchProxyFrom(s.ForNextAttempt()));
  clock.Advance(seconds(1000000));
  Route r = s.ForNextAttempt();
  EXPECT_EQ(r.host_index, 1u);
  EXPECT_EQ(r.proxy, "http://p2");
}

// cvmfs_talk host switch and host set take part like a failover does.
TEST(FailoverResetTest, AdministrativeSwitchAndSetHosts) {
  ManualClock clock;
  FailoverState s(kHosts, {}, 1, ResetAfter(&clock, 10, 0));
  s.SwitchHost();  // t=0: -> s2, timer on
  clock.Advance(seconds(1));
  ASSERT_TRUE(s.SetHosts(kThreeHosts).ok());  // t=1: -> s1, timer off
  clock.Advance(seconds(7));
  s.SwitchHost();             // t=8: -> s2, new timer
  clock.Advance(seconds(9));  // t=17
  EXPECT_EQ(s.ForNextAttempt().host_index, 1u);
  clock.Advance(seconds(1));  // t=18
  EXPECT_EQ(s.ForNextAttempt().host_index, 0u);
}

TEST(FailoverResetTest, ProxyGroupReturnsToTheFirst) {
  ManualClock clock;
  FailoverState s(kHosts, {{"http://p1"}, {"http://p2"}, {"DIRECT"}}, 1,
                  ResetAfter(&clock, 0, 5));
  ASSERT_TRUE(s.SwitchProxyFrom(s.ForNextAttempt()));  // t=0: -> p2
  clock.Advance(seconds(3));
  ASSERT_TRUE(s.SwitchProxyFrom(s.ForNextAttempt()));  // t=3: -> DIRECT
  clock.Advance(seconds(1));
  EXPECT_EQ(s.ForNextAttempt().proxy, "DIRECT");
  clock.Advance(seconds(1));  // t=5
  EXPECT_EQ(s.ForNextAttempt().proxy, "http://p1");
  // The host timer is independent (and off here).
  EXPECT_EQ(s.ForNextAttempt().host_index, 0u);
}

// A proxy burned within its group comes back after the interval: the
// group's other member failing then stays within the group.
TEST(FailoverResetTest, BurnedProxiesInTheGroupComeBack) {
  for (bool wait : {false, true}) {
    ManualClock clock;
    FailoverState s(kHosts, {{"http://a", "http://b"}, {"DIRECT"}}, 3,
                    ResetAfter(&clock, 0, 5));
    ASSERT_TRUE(s.SwitchProxyFrom(s.ForNextAttempt()));  // one burned
    clock.Advance(seconds(wait ? 5 : 4));
    ASSERT_TRUE(s.SwitchProxyFrom(s.ForNextAttempt()));
    if (wait) {
      EXPECT_NE(s.CurrentProxy(), "DIRECT") << "the group was unburned";
    } else {
      EXPECT_EQ(s.CurrentProxy(), "DIRECT") << "both members burned";
    }
  }
}

// A host failover caused by proxies resets them (ResetProxies), which also
// stops the proxy timer; `proxy set` likewise.
TEST(FailoverResetTest, ResetProxiesAndSetProxiesStopTheTimer) {
  ManualClock clock;
  FailoverState s(kHosts, {{"http://p1"}, {"http://p2"}}, 1,
                  ResetAfter(&clock, 0, 5));
  ASSERT_TRUE(s.SwitchProxyFrom(s.ForNextAttempt()));  // t=0: -> p2
  ASSERT_TRUE(s.ResetProxies());                       // -> p1, timer off
  clock.Advance(seconds(4));
  ASSERT_TRUE(s.SwitchProxyFrom(s.ForNextAttempt()));  // t=4: -> p2
  clock.Advance(seconds(4));                           // t=8
  EXPECT_EQ(s.ForNextAttempt().proxy, "http://p2");
  ASSERT_TRUE(s.SetProxies({{"http://q1"}, {"http://q2"}}).ok());
  s.SwitchProxy();  // t=8: -> q2, new timer
  clock.Advance(seconds(4));
  EXPECT_EQ(s.ForNextAttempt().proxy, "http://q2");
  clock.Advance(seconds(1));
  EXPECT_EQ(s.ForNextAttempt().proxy, "http://q1");
}

TEST(FailoverStateTest, ReplaceProxyAddressesKeepsTheCurrentProxy) {
  FailoverState state(kHosts, {{"http://a:1"}, {"http://b:1"}, {"DIRECT"}}, 7);
  state.SwitchProxy();  // to group 1
  EXPECT_EQ(state.CurrentProxy(), "http://b:1");
  ASSERT_TRUE(
      state
          .ReplaceProxyAddresses(
              {{"http://a2:1"}, {"http://b:1", "http://b2:1"}, {"DIRECT"}})
          .ok());
  EXPECT_EQ(state.CurrentProxy(), "http://b:1");
  EXPECT_EQ(state.num_proxies(), 4u);
  // The proxy in use is gone: another member of the same group.
  ASSERT_TRUE(
      state
          .ReplaceProxyAddresses({{"http://a2:1"}, {"http://b3:1"}, {"DIRECT"}})
          .ok());
  EXPECT_EQ(state.CurrentProxy(), "http://b3:1");
  EXPECT_FALSE(state.ReplaceProxyAddresses({{"http://a:1"}}).ok());
}

}  // namespace
}  // namespace cvmfs
