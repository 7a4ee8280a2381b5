#include "server/gateway/lease_table.h"

#include <gtest/gtest.h>

#include <chrono>

namespace gateway {
namespace {

using std::chrono::seconds;

publisher::LeasePath P(const char* text) {
  return *publisher::ParseLeasePath(text);
}

TEST(LeaseTableTest, ConflictingLeaseRefusedWithHolder) {
  cvmfs::ManualClock clock;
  LeaseTable table(&clock, seconds(60));
  ASSERT_TRUE(table.Acquire(P("r/a"), "alice", "t1", nullptr).ok());
  ASSERT_TRUE(table.Acquire(P("r/b"), "bob", "t2", nullptr).ok());
  Lease holder;
  auto busy = table.Acquire(P("r/a/deep"), "carol", "t3", &holder);
  EXPECT_EQ(busy.status().code(), cvmfs::Status::Code::kBusy);
  EXPECT_EQ(holder.key_id, "alice");
  EXPECT_NE(busy.status().message().find("alice"), std::string::npos);
  EXPECT_FALSE(table.Acquire(P("r/"), "carol", "t3", nullptr).ok());
  EXPECT_EQ(table.List().size(), 2u);
}

TEST(LeaseTableTest, ExpiredLeaseFreesItsPathAndItsTokenIsRefused) {
  cvmfs::ManualClock clock;
  LeaseTable table(&clock, seconds(60));
  ASSERT_TRUE(table.Acquire(P("r/a"), "alice", "t1", nullptr).ok());
  clock.Advance(seconds(59));
  EXPECT_TRUE(table.Find("t1").ok());
  EXPECT_FALSE(table.Acquire(P("r/a"), "bob", "t2", nullptr).ok());
  clock.Advance(seconds(1));
  auto gone = table.Find("t1");
  EXPECT_EQ(gone.status().message(), "lease_expired");
  ASSERT_TRUE(table.Acquire(P("r/a"), "bob", "t2", nullptr).ok());
  EXPECT_TRUE(table.Find("t1").status().IsNotFound());
}

TEST(LeaseTableTest, DropAndDropByPath) {
  cvmfs::ManualClock clock;
  LeaseTable table(&clock, seconds(60));
  ASSERT_TRUE(table.Acquire(P("r/a"), "alice", "t1", nullptr).ok());
  ASSERT_TRUE(table.Acquire(P("r/b"), "bob", "t2", nullptr).ok());
  EXPECT_TRUE(table.Drop("t1").ok());
  EXPECT_TRUE(table.Drop("t1").IsNotFound());
  EXPECT_EQ(table.DropByPath(P("r/b/")), 1u);
  EXPECT_TRUE(table.List().empty());
  EXPECT_TRUE(table.Acquire(P("r/"), "carol", "t3", nullptr).ok());
}

}  // namespace
}  // namespace gateway
