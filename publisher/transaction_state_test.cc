#include "publisher/transaction_state.h"

#include <gtest/gtest.h>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::testing::TempDir;

TEST(TransactionStateTest, MissingFileIsNoTransaction) {
  TempDir dir;
  auto s = TransactionState::Load(dir.Sub("in_transaction"));
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(*s);
  EXPECT_TRUE(RemoveStateFile(dir.Sub("in_transaction")).ok());
}

TEST(TransactionStateTest, RoundTripsAndRemoves) {
  TempDir dir;
  const std::string file = dir.Sub("in_transaction");
  TransactionState s{cvmfs::HashString(cvmfs::HashAlgorithm::kShake128, "root"),
                     42, 1700000000, ""};
  ASSERT_TRUE(s.Store(file).ok());
  auto loaded = TransactionState::Load(file);
  ASSERT_TRUE(loaded.ok() && *loaded) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->base_root, s.base_root);
  EXPECT_EQ((*loaded)->base_revision, 42u);
  EXPECT_EQ((*loaded)->opened_at, 1700000000);
  EXPECT_EQ((*loaded)->lease_path, "");
  // A publisher machine of a gateway records the leased path.
  s.lease_path = "/a/b";
  ASSERT_TRUE(s.Store(file).ok());
  loaded = TransactionState::Load(file);
  ASSERT_TRUE(loaded.ok() && *loaded);
  EXPECT_EQ((*loaded)->lease_path, "/a/b");
  ASSERT_TRUE(RemoveStateFile(file).ok());
  EXPECT_FALSE(cvmfs::PathExists(file));

  PublishingState p{cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "new"), 43};
  ASSERT_TRUE(p.Store(dir.Sub("publishing")).ok());
  auto lp = PublishingState::Load(dir.Sub("publishing"));
  ASSERT_TRUE(lp.ok() && *lp);
  EXPECT_EQ((*lp)->new_root, p.new_root);
  EXPECT_EQ((*lp)->new_revision, 43u);
}

TEST(TransactionStateTest, DamagedFileIsCorruptionNamingIt) {
  TempDir dir;
  const std::string file = dir.Sub("in_transaction");
  ASSERT_TRUE(
      cvmfs::WriteFileAtomic(file, "BASE_ROOT_HASH=zz\nBASE_REVISION=1\n")
          .ok());
  auto s = TransactionState::Load(file);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), cvmfs::Status::Code::kCorruption);
  EXPECT_NE(s.status().message().find(file), std::string::npos)
      << s.status().message();
}

}  // namespace
}  // namespace publisher
