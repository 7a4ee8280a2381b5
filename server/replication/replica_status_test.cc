#include "server/replication/replica_status.h"

#include <gtest/gtest.h>

#include "server/replication/replica.h"
#include "server/replication/replication_test_util.h"
#include "server/replication/snapshot.h"

namespace replication {
namespace {

using testing::FixtureKey;
using testing::FixtureStorage;

constexpr char kFqrn[] = "sha1-zlib.example.org";
constexpr char kUrl[] =
    "http://stratum0.example.org/cvmfs/sha1-zlib.example.org";

class ReplicaStatusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    paths_.root = tmp_.Sub("root");
    testing::ServeStorage(FixtureStorage(kFqrn), &fetcher_);
    options_.stratum0_url = kUrl;
    options_.public_key = FixtureKey(kFqrn);
  }

  cvmfs::testing::TempDir tmp_;
  cvmfs::SystemPaths paths_;
  cvmfs::MemoryFetcher fetcher_;
  AddReplicaOptions options_;
};

TEST_F(ReplicaStatusTest, BeforeTheFirstSnapshotShowsSourceAndNoRevision) {
  ASSERT_TRUE(AddReplica(paths_, options_, &fetcher_).ok());
  auto s = LoadReplicaStatus(paths_, kFqrn);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(ReplicaListLine(*s), std::string(kFqrn) + " (stratum1 / local)");
  std::string info = ReplicaInfoText(*s);
  EXPECT_NE(info.find("Upstream (Stratum 0) URL: " + std::string(kUrl) + "\n"),
            std::string::npos)
      << info;
  EXPECT_NE(info.find("Last snapshot: never"), std::string::npos) << info;
  EXPECT_NE(info.find("Revision: none: no snapshot yet"), std::string::npos)
      << info;
  EXPECT_EQ(info.find("Stratum0"), std::string::npos) << info;
}

TEST_F(ReplicaStatusTest, AfterASnapshotShowsItsTimeAndTheServedRevision) {
  auto config = AddReplica(paths_, options_, &fetcher_).value();
  ASSERT_TRUE(SnapshotReplica(config, &fetcher_).ok());
  auto s = LoadReplicaStatus(paths_, kFqrn);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE(s->manifest.has_value());
  std::string last =
      cvmfs::ReadFile(config.storage_dir + "/" + kLastSnapshotName).value();
  ASSERT_TRUE(s->last_snapshot.has_value());
  EXPECT_EQ(*s->last_snapshot + "\n", last);
  std::string info = ReplicaInfoText(*s);
  EXPECT_NE(info.find("Last snapshot: " + *s->last_snapshot + "\n"),
            std::string::npos)
      << info;
  EXPECT_NE(
      info.find("Revision: " + std::to_string(s->manifest->revision) + "\n"),
      std::string::npos)
      << info;
  EXPECT_NE(info.find("Root catalog: " + s->manifest->root_catalog.ToString()),
            std::string::npos)
      << info;
  EXPECT_TRUE(s->whitelist_expires.has_value());
}

TEST_F(ReplicaStatusTest, AliasedReplicaPointsAtItsRepository) {
  options_.alias = "mirror-a";
  ASSERT_TRUE(AddReplica(paths_, options_, &fetcher_).ok());
  auto s = LoadReplicaStatus(paths_, "mirror-a");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(ReplicaListLine(*s),
            "mirror-a (stratum1 / local) -> " + std::string(kFqrn));
  EXPECT_NE(ReplicaInfoText(*s).find("Replica alias: mirror-a\n"),
            std::string::npos);
}

TEST_F(ReplicaStatusTest, DamagedManifestIsNamed) {
  auto config = AddReplica(paths_, options_, &fetcher_).value();
  const std::string manifest = config.storage_dir + "/.cvmfspublished";
  ASSERT_TRUE(cvmfs::WriteFileAtomic(manifest, "<html>not found</html>").ok());
  auto s = LoadReplicaStatus(paths_, kFqrn);
  EXPECT_TRUE(s.status().IsCorruption()) << s.status().ToString();
  EXPECT_NE(s.status().ToString().find(manifest), std::string::npos)
      << s.status().ToString();
}

TEST_F(ReplicaStatusTest, NotAReplicaIsRefused) {
  EXPECT_TRUE(
      LoadReplicaStatus(paths_, "nothing.example.org").status().IsNotFound());
}

}  // namespace
}  // namespace replication
