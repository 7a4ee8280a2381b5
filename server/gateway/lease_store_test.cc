#include "server/gateway/lease_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>

#include "cvmfs/file_util.h"
#include "server/gateway/lease_table.h"
#include "testing/test_env.h"

namespace gateway {
namespace {

using std::chrono::seconds;

publisher::LeasePath P(const char* text) {
  return *publisher::ParseLeasePath(text);
}

class LeaseStoreTest : public ::testing::Test {
 protected:
  std::string File() const { return tmp_.path() + "/leases.json"; }
  FileLeaseStore Store() {
    return FileLeaseStore(File(), [this] { return wall_; });
  }
  cvmfs::testing::TempDir tmp_;
  int64_t wall_ = 1'800'000'000;
};

// A restarted gateway (a new table on the same file) knows every lease,
// its holder and its time left; the time it was down counts.
TEST_F(LeaseStoreTest, LeasesSurviveARestartWithTheirTimeLeft) {
  {
    cvmfs::ManualClock clock;
    FileLeaseStore store = Store();
    LeaseTable table(&clock, seconds(60), &store);
    ASSERT_TRUE(table.Acquire(P("r/a"), "alice", "t1", nullptr).ok());
    clock.Advance(seconds(30));
    wall_ += 30;
    ASSERT_TRUE(table.Acquire(P("r/b"), "bob", "t2", nullptr).ok());
    ASSERT_TRUE(table.Acquire(P("r/c"), "carol", "t3", nullptr).ok());
    ASSERT_TRUE(table.Drop("t3").ok());
    // Not saved: the gateway's own lease around an admin gc.
    ASSERT_TRUE(table
                    .Acquire(P("q/"), "gc (adm)", "t5", nullptr,
                             /*durable=*/false)
                    .ok());
  }
  struct stat st;
  ASSERT_EQ(0, ::stat(File().c_str(), &st));
  EXPECT_EQ(0600u, st.st_mode & 0777);  // tokens are secrets

  wall_ += 10;  // down for 10 s
  cvmfs::ManualClock clock;
  FileLeaseStore store = Store();
  LeaseTable table(&clock, seconds(60), &store);
  ASSERT_TRUE(table.Restore().ok());
  EXPECT_EQ(table.List().size(), 2u);
  EXPECT_EQ(table.Find("t2")->key_id, "bob");
  EXPECT_FALSE(table.Find("t3").ok());
  EXPECT_FALSE(table.Find("t5").ok());
  Lease holder;
  EXPECT_FALSE(table.Acquire(P("r/a/x"), "dave", "t4", &holder).ok());
  EXPECT_EQ(holder.key_id, "alice");
  // alice had 30 s left when saved, 20 s after the downtime.
  clock.Advance(seconds(19));
  EXPECT_TRUE(table.Find("t1").ok());
  clock.Advance(seconds(1));
  EXPECT_FALSE(table.Find("t1").ok());
  EXPECT_TRUE(table.Find("t2").ok());
  // What expired while the gateway was down is not restored.
  wall_ += 60;
  FileLeaseStore later = Store();
  LeaseTable after(&clock, seconds(60), &later);
  ASSERT_TRUE(after.Restore().ok());
  EXPECT_TRUE(after.List().empty());
}

TEST_F(LeaseStoreTest, NoFileIsNoLeaseAndACorruptFileIsAnError) {
  FileLeaseStore store = Store();
  auto none = store.Load();
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  for (const char* bad :
       {"not json", "{\"version\":2,\"leases\":[]}", "{\"version\":1}",
        "{\"version\":1,\"leases\":[{\"token\":\"t\"}]}",
        "{\"version\":1,\"leases\":[{\"token\":\"t\",\"path\":\"r/../x\","
        "\"key_id\":\"k\",\"expires\":1900000000}]}"}) {
    ASSERT_TRUE(cvmfs::WriteFileAtomic(File(), bad).ok());
    auto loaded = store.Load();
    EXPECT_FALSE(loaded.ok()) << bad;
    EXPECT_NE(loaded.status().message().find(File()), std::string::npos)
        << loaded.status().ToString();
  }
}

// A lease that cannot be saved is not granted.
TEST_F(LeaseStoreTest, ALeaseThatCannotBeSavedIsRefused) {
  cvmfs::ManualClock clock;
  FileLeaseStore store(tmp_.path() + "/missing/dir/leases.json");
  LeaseTable table(&clock, seconds(60), &store);
  EXPECT_FALSE(table.Acquire(P("r/a"), "alice", "t1", nullptr).ok());
  EXPECT_TRUE(table.List().empty());
}

}  // namespace
}  // namespace gateway
