#include "server/replication/replica.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "server/replication/replication_test_util.h"
#include "server/replication/verified_download.h"

namespace replication {
namespace {

using cvmfs::Status;
using testing::FixtureKey;
using testing::FixtureStorage;

constexpr char kFqrn[] = "sha1-zlib.example.org";

class ReplicaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    paths_.root = tmp_.Sub("root");
    testing::ServeStorage(FixtureStorage(kFqrn), &fetcher_);
    options_.stratum0_url =
        "http://stratum0.example.org/cvmfs/sha1-zlib.example.org";
    options_.public_key = FixtureKey(kFqrn);
  }

  cvmfs::testing::TempDir tmp_;
  cvmfs::SystemPaths paths_;
  cvmfs::MemoryFetcher fetcher_;
  AddReplicaOptions options_;
};

// add-replica -s: the S3 storage line and CVMFS_STRATUM1 survive a save
// and a load; no storage directory.
TEST_F(ReplicaTest, S3ReplicaConfigRoundTrips) {
  ReplicaConfig c = ReplicaConfig::ForNew(paths_, "mirror", kFqrn);
  c.stratum0_url = options_.stratum0_url;
  c.public_keys = {FixtureKey(kFqrn)};
  c.storage_dir.clear();
  c.s3_config_file = "/etc/cvmfs/s3.conf";
  c.s3_prefix = "mirror";
  c.stratum1_url = "http://s3.example.org/bucket/mirror";
  ASSERT_TRUE(c.Save(paths_).ok());
  std::string text =
      cvmfs::ReadFile(ReplicaConfig::ConfigFile(paths_, "mirror")).value();
  EXPECT_NE(text.find("CVMFS_UPSTREAM_STORAGE='S3," + c.spool_dir +
                      "/tmp,mirror@/etc/cvmfs/s3.conf'"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("CVMFS_STRATUM1='http://s3.example.org/bucket/mirror'"),
            std::string::npos)
      << text;
  auto loaded = ReplicaConfig::Load(paths_, "mirror");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_TRUE(loaded->on_s3());
  EXPECT_EQ(loaded->s3_config_file, c.s3_config_file);
  EXPECT_EQ(loaded->s3_prefix, "mirror");
  EXPECT_EQ(loaded->stratum1_url, c.stratum1_url);
  EXPECT_EQ(loaded->storage_dir, "");
  EXPECT_EQ(loaded->Serialize(), c.Serialize());
}

TEST_F(ReplicaTest, S3ReplicaNeedsAUrlAndAValidConfiguration) {
  options_.s3_config_file = tmp_.Sub("s3.conf");
  ASSERT_TRUE(cvmfs::WriteFileAtomic(options_.s3_config_file,
                                     "CVMFS_S3_HOST=127.0.0.1\n"
                                     "CVMFS_S3_BUCKET=b\n"
                                     "CVMFS_S3_ACCESS_KEY=a\n"
                                     "CVMFS_S3_SECRET_KEY=s\n"
                                     "CVMFS_S3_FLAVOUR=awsv4\n")
                  .ok());
  auto no_url = AddReplica(paths_, options_, &fetcher_);
  EXPECT_EQ(no_url.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(no_url.status().message().find("-w"), std::string::npos)
      << no_url.status().ToString();
  options_.stratum1_url = "http://s3.example.org/bucket";
  auto bad_key = AddReplica(paths_, options_, &fetcher_);
  EXPECT_NE(bad_key.status().message().find("CVMFS_S3_FLAVOUR"),
            std::string::npos)
      << bad_key.status().ToString();
  EXPECT_FALSE(cvmfs::PathExists(ReplicaConfig::ConfigFile(paths_, kFqrn)));
}

TEST_F(ReplicaTest, AddReplicaLearnsTheNameAndLaysOutConfigKeysAndStorage) {
  auto config = AddReplica(paths_, options_, &fetcher_);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->name, kFqrn);
  EXPECT_EQ(config->fqrn, kFqrn);
  EXPECT_EQ(config->storage_dir, paths_.Storage(kFqrn));
  const std::string key = paths_.KeysDir() + "/" + kFqrn + ".pub";
  ASSERT_EQ(config->public_keys, std::vector<std::string>{key});
  EXPECT_EQ(cvmfs::ReadFile(key).value(),
            cvmfs::ReadFile(FixtureKey(kFqrn)).value());
  EXPECT_TRUE(cvmfs::IsDirectory(config->storage_dir + "/data/00"));
  EXPECT_TRUE(cvmfs::IsDirectory(config->storage_dir + "/data/ff"));
  EXPECT_TRUE(cvmfs::IsDirectory(config->storage_dir + "/data/txn"));
  EXPECT_FALSE(cvmfs::PathExists(config->storage_dir + "/.cvmfspublished"));

  auto loaded = ReplicaConfig::Load(paths_, kFqrn);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->Serialize(), config->Serialize());
  std::string text =
      cvmfs::ReadFile(ReplicaConfig::ConfigFile(paths_, kFqrn)).value();
  EXPECT_NE(text.find("CVMFS_REPOSITORY_TYPE='stratum1'"), std::string::npos);
  EXPECT_NE(text.find("CVMFS_STRATUM0='" + options_.stratum0_url + "'"),
            std::string::npos);
  EXPECT_EQ(ListReplicas(paths_), std::vector<std::string>{kFqrn});

  auto again = AddReplica(paths_, options_, &fetcher_);
  EXPECT_EQ(again.status().code(), Status::Code::kAlreadyExists)
      << again.status().ToString();
}

TEST_F(ReplicaTest, GarbageCollectionAndSnapshotGroupAreKept) {
  auto plain = AddReplica(paths_, options_, &fetcher_);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_FALSE(ReplicaConfig::Load(paths_, kFqrn)->garbage_collection);
  options_.alias = "collected";
  options_.garbage_collection = true;   // add-replica -z
  options_.snapshot_group = "nightly";  // add-replica -g
  ASSERT_TRUE(AddReplica(paths_, options_, &fetcher_).ok());
  auto loaded = ReplicaConfig::Load(paths_, "collected");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_TRUE(loaded->garbage_collection);
  EXPECT_EQ(loaded->snapshot_group, "nightly");
  EXPECT_NE(loaded->Serialize().find("CVMFS_GARBAGE_COLLECTION='true'"),
            std::string::npos)
      << loaded->Serialize();
}

TEST_F(ReplicaTest, AliasNamesConfigAndStorage) {
  options_.alias = "mirror-a";
  auto config = AddReplica(paths_, options_, &fetcher_);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->fqrn, kFqrn);
  EXPECT_EQ(config->storage_dir, paths_.Storage("mirror-a"));
  EXPECT_TRUE(IsReplica(paths_, "mirror-a"));
  EXPECT_FALSE(IsReplica(paths_, kFqrn));
  options_.alias = "bad/name";
  EXPECT_EQ(AddReplica(paths_, options_, &fetcher_).status().code(),
            Status::Code::kInvalidArgument);
}

TEST_F(ReplicaTest, AddReplicaRefusesUnreplicableOrUntrustedSources) {
  fetcher_.Remove(".cvmfs_master_replica");
  auto config = AddReplica(paths_, options_, &fetcher_);
  EXPECT_EQ(config.status().code(), Status::Code::kNotSupported)
      << config.status().ToString();
  EXPECT_NE(config.status().message().find(".cvmfs_master_replica"),
            std::string::npos);
  testing::ServeStorage(FixtureStorage(kFqrn), &fetcher_);
  options_.public_key = FixtureKey("shake128-none.example.org");
  config = AddReplica(paths_, options_, &fetcher_);
  EXPECT_TRUE(config.status().IsCorruption()) << config.status().ToString();
  options_.public_key = tmp_.Sub("missing.pub");
  EXPECT_TRUE(AddReplica(paths_, options_, &fetcher_).status().IsNotFound());
  EXPECT_TRUE(ListReplicas(paths_).empty());
}

TEST_F(ReplicaTest, ConfigOfAStratum0IsNotAReplica) {
  ASSERT_TRUE(cvmfs::MakeDirs(paths_.ServerConfigDir("s0.example.org")).ok());
  ASSERT_TRUE(cvmfs::WriteFileAtomic(
                  ReplicaConfig::ConfigFile(paths_, "s0.example.org"),
                  "CVMFS_REPOSITORY_NAME=s0.example.org\n"
                  "CVMFS_REPOSITORY_TYPE=stratum0\n")
                  .ok());
  auto c = ReplicaConfig::Load(paths_, "s0.example.org");
  EXPECT_EQ(c.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(c.status().message().find("not a replica"), std::string::npos);
  EXPECT_TRUE(
      ReplicaConfig::Load(paths_, "nothing.example.org").status().IsNotFound());
}

TEST_F(ReplicaTest, MalformedNumberIsNamed) {
  auto config = AddReplica(paths_, options_, &fetcher_).value();
  std::string file = ReplicaConfig::ConfigFile(paths_, kFqrn);
  std::string text = cvmfs::ReadFile(file).value() + "CVMFS_NUM_WORKERS=lots\n";
  ASSERT_TRUE(cvmfs::WriteFileAtomic(file, text).ok());
  auto c = ReplicaConfig::Load(paths_, kFqrn);
  EXPECT_EQ(c.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(c.status().message().find("CVMFS_NUM_WORKERS=lots"),
            std::string::npos);
}

TEST_F(ReplicaTest, SnapshotRemovesStaleTemporariesAndWritesLastSnapshot) {
  auto config = AddReplica(paths_, options_, &fetcher_).value();
  config.num_workers = 4;
  const std::string stale = config.storage_dir + "/data/txn/.tmp.1.1";
  ASSERT_TRUE(cvmfs::WriteFileAtomic(stale, "half an object").ok());
  auto stats = SnapshotReplica(config, &fetcher_);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_FALSE(cvmfs::PathExists(stale));
  EXPECT_TRUE(cvmfs::PathExists(config.storage_dir + "/.cvmfspublished"));
  EXPECT_TRUE(cvmfs::PathExists(config.storage_dir + "/" + kLastSnapshotName));
  EXPECT_TRUE(cvmfs::ListDirectory(config.spool_dir + "/tmp").value().empty());
}

TEST_F(ReplicaTest, ConcurrentSnapshotIsRefused) {
  auto config = AddReplica(paths_, options_, &fetcher_).value();
  auto held = SnapshotLock::Acquire(config.spool_dir + "/is_snapshotting.lock",
                                    config.name);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  auto stats = SnapshotReplica(config, &fetcher_);
  EXPECT_EQ(stats.status().code(), Status::Code::kBusy);
  EXPECT_NE(stats.status().message().find("another snapshot of " + config.name +
                                          " is running"),
            std::string::npos)
      << stats.status().ToString();
  EXPECT_EQ(fetcher_.total_requests(),
            4u)  // add-replica: master replica, whitelist, manifest, X
      << "the refused snapshot must not touch the source";
}

// As CVMFS's acquire_update_lock: after the initial snapshot, a held lock
// is waited for; with abort_on_conflict (`snapshot -t`) it is Busy at once.
TEST_F(ReplicaTest, HeldLockIsWaitedForUnlessAbortOnConflict) {
  auto config = AddReplica(paths_, options_, &fetcher_).value();
  ASSERT_TRUE(SnapshotReplica(config, &fetcher_).ok());
  std::optional<SnapshotLock> held;
  {
    auto lock = SnapshotLock::Acquire(
        config.spool_dir + "/is_snapshotting.lock", config.name);
    ASSERT_TRUE(lock.ok());
    held.emplace(std::move(*lock));
  }
  LockPolicy fail_fast;
  fail_fast.abort_on_conflict = true;
  auto refused = SnapshotReplica(config, &fetcher_, fail_fast);
  EXPECT_EQ(refused.status().code(), Status::Code::kBusy);

  std::atomic<bool> waiting{false}, done{false};
  LockPolicy wait;
  wait.on_wait = [&] { waiting = true; };
  cvmfs::Status result;
  std::thread snapshot([&] {
    auto stats = SnapshotReplica(config, &fetcher_, wait);
    result = stats.status();
    done = true;
  });
  for (int i = 0; i < 500 && !waiting; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(waiting);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(done) << "the snapshot did not wait for the lock";
  held.reset();
  snapshot.join();
  EXPECT_TRUE(result.ok()) << result.ToString();
}

// Objects of a replica are served by a web server running as another user
// (and by `cvmfs_server serve`, which serves only world-readable files):
// they are 0644 whatever the umask of the snapshot.
TEST(TxnFileTest, CommittedObjectIsWorldReadableUnderAStrictUmask) {
  cvmfs::testing::TempDir tmp;
  const std::string root = tmp.Sub("storage");
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((root + "/data").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((root + "/data/txn").c_str(), 0755), 0);
  mode_t old_umask = ::umask(077);
  auto file = TxnFile::Create(root, cvmfs::HashAlgorithm::kSha1);
  ::umask(old_umask);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_TRUE((*file)->Write("x", 1).ok());
  (*file)->Finish();
  ASSERT_TRUE((*file)->CommitAs(root + "/data/object").ok());
  struct stat st;
  ASSERT_EQ(::stat((root + "/data/object").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

}  // namespace
}  // namespace replication
