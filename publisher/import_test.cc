// Import: a repository made by Mkfs on one "machine" (a temporary root),
// its storage and keys moved to a second one, taken over there; publishing
// then continues. Refusals leave nothing behind. And mkfs -k.
#include "publisher/import.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/catalog/reflog_db.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "cvmfs/whitelist.h"
#include "publisher/repository.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::Status;

constexpr const char* kFqrn = "import.example.org";

class ImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    old_.root = old_root_.path();
    new_.root = new_root_.path();
  }

  // mkfs on the old machine, `publishes` revisions (the first tagged v1).
  void MakeOld(MkfsOptions o, int publishes) {
    o.fqrn = kFqrn;
    ASSERT_TRUE(Mkfs(old_, o).ok());
    auto repo = Repository::Open(old_, kFqrn);
    ASSERT_TRUE(repo.ok()) << repo.status().ToString();
    for (int i = 0; i < publishes; ++i) {
      PublishOptions po;
      if (i == 0) po.tag_name = "v1";
      auto st = (*repo)->Publish(
          [&](CatalogTree* t, IngestPipeline*) -> Status {
            cvmfs::DirectoryEntry e;
            e.name = "f" + std::to_string(i);
            e.mode = 0100644;
            e.content_hash = cvmfs::HashString(o.hash_algorithm, e.name);
            return t->Put("/" + e.name, e);
          },
          po);
      ASSERT_TRUE(st.ok()) << st.status().ToString();
    }
  }

  // The storage to the new machine's srv/cvmfs, the keys to <new>/old-keys.
  void MoveToNewMachine() {
    ASSERT_TRUE(cvmfs::MakeDirs(new_.SrvCvmfs()).ok());
    ASSERT_EQ(0, std::rename(old_.Storage(kFqrn).c_str(),
                             new_.Storage(kFqrn).c_str()));
    ASSERT_EQ(0, std::rename(old_.KeysDir().c_str(), KeysDir().c_str()));
  }

  std::string KeysDir() const { return new_root_.Sub("old-keys"); }

  ImportOptions Options() const {
    ImportOptions o;
    o.fqrn = kFqrn;
    o.keys_dir = KeysDir();
    return o;
  }

  // Nothing of a refused import is on the new machine.
  void ExpectNothingWritten() {
    EXPECT_FALSE(cvmfs::PathExists(new_.ServerConfigDir(kFqrn)));
    EXPECT_FALSE(cvmfs::PathExists(new_.Spool(kFqrn)));
    EXPECT_FALSE(cvmfs::PathExists(new_.KeysDir() + "/" + kFqrn + ".key"));
  }

  cvmfs::testing::TempDir old_root_, new_root_;
  cvmfs::SystemPaths old_, new_;
};

TEST_F(ImportTest, PublishContinuesRevisionsHistoryAndReflog) {
  MakeOld({}, 2);
  MoveToNewMachine();
  auto report = Import(new_, Options());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(3u, report->revision);
  EXPECT_EQ(4u, report->tags);  // trunk, trunk-previous, v1, a generic one
  EXPECT_TRUE(report->warnings.empty());
  EXPECT_GE(report->reflog_entries, 3u);

  auto repo = Repository::Open(new_, kFqrn);
  ASSERT_TRUE(repo.ok()) << repo.status().ToString();
  EXPECT_EQ(new_.Storage(kFqrn), (*repo)->config().storage_dir);
  EXPECT_EQ(new_.KeysDir(), (*repo)->config().keys_dir);
  auto old_root = (*repo)->CurrentManifest()->manifest.root_catalog;
  auto stats = (*repo)->Publish(
      [](CatalogTree* t, IngestPipeline*) -> Status {
        cvmfs::DirectoryEntry e;
        e.name = "after-import";
        e.mode = 0100644;
        e.content_hash = cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "x");
        return t->Put("/after-import", e);
      },
      PublishOptions{});
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(4u, stats->revision);
  auto history = (*repo)->OpenHistory(false);
  ASSERT_TRUE(history.ok());
  auto v1 = (*history)->Get("v1");
  ASSERT_TRUE(v1.ok() && v1->has_value());
  EXPECT_EQ(2u, (*v1)->revision);
  auto previous = (*history)->Get("trunk-previous");
  ASSERT_TRUE(previous.ok() && previous->has_value());
  EXPECT_EQ(old_root, (*previous)->root_hash);

  // The reflog kept the old roots and got the new one.
  auto bytes = (*repo)->store()->Get(std::string(cvmfs::kReflogName));
  ASSERT_TRUE(bytes.ok());
  const std::string file = new_root_.Sub("reflog.db");
  ASSERT_TRUE(cvmfs::WriteFileAtomic(file, *bytes).ok());
  auto reflog = cvmfs::ReflogDb::OpenReadOnly(file);
  ASSERT_TRUE(reflog.ok());
  EXPECT_TRUE(*(*reflog)->Contains((*v1)->root_hash));
  EXPECT_TRUE(*(*reflog)->Contains(old_root));
  EXPECT_TRUE(*(*reflog)->Contains(stats->root_hash));
}

TEST_F(ImportTest, SettingsComeFromTheManifest) {
  MkfsOptions o;
  o.hash_algorithm = cvmfs::HashAlgorithm::kShake128;
  o.garbage_collection = true;
  MakeOld(o, 1);
  MoveToNewMachine();
  ImportOptions io = Options();
  io.stratum0_url = "http://s0.example.org/cvmfs/import.example.org";
  auto report = Import(new_, io);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  auto config = ServerConfig::Load(new_, kFqrn);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(cvmfs::HashAlgorithm::kShake128, config->hash_algorithm);
  EXPECT_TRUE(config->garbage_collection);
  EXPECT_EQ(io.stratum0_url, config->stratum0_url);
  // The keys were copied, the private ones readable by the owner only.
  struct stat st;
  ASSERT_EQ(0, ::stat((new_.KeysDir() + "/" + kFqrn + ".key").c_str(), &st));
  EXPECT_EQ(0400u, st.st_mode & 0777);
  EXPECT_TRUE(cvmfs::PathExists(new_.KeysDir() + "/" + kFqrn + ".masterkey"));
}

TEST_F(ImportTest, RefusesKeysOfAnotherRepository) {
  MakeOld({}, 1);
  MoveToNewMachine();
  // A second repository of the same name: its keys sign nothing here.
  cvmfs::testing::TempDir other_root;
  cvmfs::SystemPaths other;
  other.root = other_root.path();
  MkfsOptions o;
  o.fqrn = kFqrn;
  ASSERT_TRUE(Mkfs(other, o).ok());
  ImportOptions io = Options();
  io.keys_dir = other.KeysDir();
  auto report = Import(new_, io);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(std::string::npos,
            report.status().message().find("keys do not match the storage"))
      << report.status().ToString();
  ExpectNothingWritten();

  // Only the master public key is foreign: the whitelist gives it away.
  const std::string pub = std::string("/") + kFqrn + ".pub";
  const std::string mkey = std::string("/") + kFqrn + ".masterkey";
  ASSERT_TRUE(cvmfs::WriteFileAtomic(KeysDir() + pub,
                                     *cvmfs::ReadFile(other.KeysDir() + pub))
                  .ok());
  ASSERT_EQ(0, ::unlink((KeysDir() + mkey).c_str()));
  report = Import(new_, Options());
  ASSERT_FALSE(report.ok());
  EXPECT_NE(std::string::npos, report.status().message().find("whitelist"))
      << report.status().ToString();
  ExpectNothingWritten();
}

TEST_F(ImportTest, RefusesMissingStorageExistingRepositoryAndBadName) {
  ImportOptions io = Options();
  auto report = Import(new_, io);
  ASSERT_FALSE(report.ok());
  EXPECT_TRUE(report.status().IsNotFound()) << report.status().ToString();
  EXPECT_NE(std::string::npos, report.status().message().find("missing"));
  ExpectNothingWritten();

  io.fqrn = "no_dot";
  report = Import(new_, io);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(std::string::npos,
            report.status().message().find("fully qualified"));

  MakeOld({}, 1);
  MoveToNewMachine();
  ASSERT_TRUE(Import(new_, Options()).ok());
  report = Import(new_, Options());
  ASSERT_FALSE(report.ok());
  EXPECT_NE(std::string::npos, report.status().message().find("already"))
      << report.status().ToString();
}

TEST_F(ImportTest, S3StorageNeedsTheBucketUrlAndAppendsThePrefix) {
  ImportOptions io = Options();
  io.s3_config_file = "/etc/cvmfs/s3.conf";
  io.s3_prefix = "prefix.of.repo";
  io.stratum0_url.clear();
  auto none = WithDefaults(new_, io);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(std::string::npos, none.status().message().find("-w"))
      << none.status().ToString();
  auto report = Import(new_, io);
  ASSERT_FALSE(report.ok());
  ExpectNothingWritten();

  io.stratum0_url = "http://s3.example.org:8333/bucket/";
  auto o = WithDefaults(new_, io);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->stratum0_url,
            "http://s3.example.org:8333/bucket/prefix.of.repo");
  EXPECT_TRUE(o->storage_dir.empty());
  EXPECT_EQ(StorageName(*o), "S3 prefix.of.repo@/etc/cvmfs/s3.conf");
}

TEST_F(ImportTest, ExpiredWhitelistNeedsResigning) {
  MkfsOptions o;
  o.whitelist_days = -1;
  MakeOld(o, 0);
  MoveToNewMachine();
  auto report = Import(new_, Options());
  ASSERT_FALSE(report.ok());
  EXPECT_NE(std::string::npos, report.status().message().find("use -r"))
      << report.status().ToString();
  ExpectNothingWritten();

  ImportOptions io = Options();
  io.recreate_whitelist = true;
  report = Import(new_, io);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->whitelist_expired);
  auto wl = cvmfs::ReadFile(new_.Storage(kFqrn) + "/.cvmfswhitelist");
  ASSERT_TRUE(wl.ok());
  auto parsed = cvmfs::Whitelist::Parse(*wl);
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed->whitelist.IsExpired(::time(nullptr)));
}

TEST_F(ImportTest, ChecksTheReflog) {
  MakeOld({}, 1);
  MoveToNewMachine();
  const std::string reflog = new_.Storage(kFqrn) + "/.cvmfsreflog";
  ASSERT_TRUE(cvmfs::WriteFileAtomic(reflog, "not the reflog").ok());
  auto report = Import(new_, Options());
  ASSERT_FALSE(report.ok());
  EXPECT_NE(std::string::npos, report.status().message().find("reflog"))
      << report.status().ToString();
  ExpectNothingWritten();

  // A readable reflog that lists nothing (and is not the manifest's):
  // imported, with a warning for each missing reference.
  const std::string empty = new_root_.Sub("empty-reflog.db");
  {
    auto db = cvmfs::ReflogDb::Create(empty, kFqrn);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Close().ok());
  }
  ASSERT_TRUE(
      cvmfs::WriteFileAtomic(reflog, *cvmfs::ReadFile(empty), 0644).ok());
  report = Import(new_, Options());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(0u, report->reflog_entries);
  // Not the manifest's; root catalog, history, certificate; the tags
  // trunk, trunk-previous, v1.
  EXPECT_EQ(1u + 3u + 3u, report->warnings.size());
}

TEST_F(ImportTest, ReplicableMarker) {
  MakeOld({}, 0);
  MoveToNewMachine();
  const std::string marker =
      new_.Storage(kFqrn) + "/" + std::string(cvmfs::kMasterReplicaName);
  ASSERT_EQ(0, ::unlink(marker.c_str()));
  ImportOptions io = Options();
  io.replicable = true;
  ASSERT_TRUE(Import(new_, io).ok());
  EXPECT_TRUE(cvmfs::PathExists(marker));
}

TEST(MkfsKeysTest, UsesExistingKeys) {
  cvmfs::testing::TempDir a_root, b_root;
  cvmfs::SystemPaths a, b;
  a.root = a_root.path();
  b.root = b_root.path();
  MkfsOptions o;
  o.fqrn = kFqrn;
  ASSERT_TRUE(Mkfs(a, o).ok());
  o.import_keys_dir = a.KeysDir();
  ASSERT_TRUE(Mkfs(b, o).ok());
  for (const char* ext : {".crt", ".key", ".pub", ".masterkey"}) {
    const std::string name = std::string("/") + kFqrn + ext;
    EXPECT_EQ(*cvmfs::ReadFile(a.KeysDir() + name),
              *cvmfs::ReadFile(b.KeysDir() + name))
        << ext;
  }
  auto repo = Repository::Open(b, kFqrn);
  ASSERT_TRUE(repo.ok());
  EXPECT_TRUE((*repo)->CurrentManifest().ok());

  // Keys already there for this name that differ are not overwritten.
  cvmfs::testing::TempDir c_root;
  cvmfs::SystemPaths c;
  c.root = c_root.path();
  MkfsOptions plain;
  plain.fqrn = "other.example.org";
  ASSERT_TRUE(Mkfs(c, plain).ok());
  for (const char* ext : {".crt", ".key", ".pub", ".masterkey"})
    ASSERT_EQ(0, std::rename((c.KeysDir() + "/other.example.org" + ext).c_str(),
                             (c.KeysDir() + "/" + kFqrn + ext).c_str()));
  Status st = Mkfs(c, o);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string::npos, st.message().find("would overwrite"))
      << st.ToString();
}

}  // namespace
}  // namespace publisher
