#include "server/replication/snapshot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/mutex.h"
#include "server/replication/replication_test_util.h"
#include "server/replication/snapshot_destination.h"
#include "server/replication/source_verifier.h"
#include "testing/repository_listing.h"

namespace replication {
namespace {

using cvmfs::MemoryFetcher;
using cvmfs::Status;
using testing::FilesBelow;
using testing::FixtureKey;
using testing::FixtureStorage;

class SnapshotTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    fqrn_ = GetParam();
    source_ = FixtureStorage(fqrn_);
    testing::ServeStorage(source_, &fetcher_);
    replica_ = tmp_.Sub("replica");
    ASSERT_TRUE(cvmfs::LocalObjectStore(replica_).CreateLayout().ok());
    ASSERT_TRUE(cvmfs::MakeDirs(tmp_.Sub("scratch")).ok());
    keys_ = cvmfs::LoadMasterKeys({FixtureKey(fqrn_)}).value();
    options_.fqrn = fqrn_;
    options_.storage_root = replica_;
    options_.temp_dir = tmp_.Sub("scratch");
    options_.workers = 8;
  }

  cvmfs::Result<SnapshotStats> Snapshot() {
    return RunSnapshot(&fetcher_, keys_, options_);
  }

  // Content-addressed objects the replica holds.
  size_t ReplicaObjects() {
    size_t n = 0;
    for (auto& [path, bytes] : FilesBelow(replica_))
      n += path.rfind("data/", 0) == 0;
    return n;
  }

  void ExpectComplete() {
    auto reachable = testing::ReachableFiles(source_, tmp_.path());
    auto files = FilesBelow(replica_);
    ASSERT_TRUE(files.count(kLastSnapshotName));
    files.erase(kLastSnapshotName);
    std::set<std::string> have;
    for (auto& [path, bytes] : files) have.insert(path);
    EXPECT_EQ(reachable, have);
    for (auto& [path, bytes] : files)
      EXPECT_EQ(cvmfs::ReadFile(source_ + "/" + path).value(), bytes) << path;
    EXPECT_TRUE(FilesBelow(replica_ + "/data/txn").empty());
  }

  void ExpectNoManifest() {
    EXPECT_FALSE(cvmfs::PathExists(replica_ + "/.cvmfspublished"));
    EXPECT_FALSE(cvmfs::PathExists(replica_ + "/.cvmfswhitelist"));
    EXPECT_FALSE(cvmfs::PathExists(replica_ + "/" + kLastSnapshotName));
  }

  std::string SourceManifestField(char key) {
    auto m = cvmfs::Manifest::Parse(
        cvmfs::ReadFile(source_ + "/.cvmfspublished").value());
    const auto& mf = m.value().manifest;
    if (key == 'C')
      return cvmfs::ObjectPath(mf.root_catalog, cvmfs::ObjectSuffix::kCatalog);
    if (key == 'H')
      return cvmfs::ObjectPath(*mf.history, cvmfs::ObjectSuffix::kHistory);
    return "";
  }

  // A data object (file content or chunk).
  std::string SomeDataObject() {
    for (auto& [path, bytes] : FilesBelow(source_)) {
      char last = path.back();
      if (path.rfind("data/", 0) == 0 && last != 'C' && last != 'H' &&
          last != 'X' && last != 'M')
        return path;
    }
    return "";
  }

  cvmfs::testing::TempDir tmp_;
  std::string fqrn_, source_, replica_;
  MemoryFetcher fetcher_;
  std::vector<cvmfs::PublicKey> keys_;
  SnapshotOptions options_;
};

TEST_P(SnapshotTest, CopiesEverythingReachableByteIdentical) {
  auto stats = Snapshot();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ExpectComplete();
  EXPECT_EQ(stats->objects_copied, ReplicaObjects());
  size_t catalogs = 0;
  for (auto& [path, bytes] : FilesBelow(replica_))
    catalogs += path.back() == 'C';
  EXPECT_EQ(stats->catalogs_copied,
            catalogs);  // revisions share unchanged nested catalogs
  EXPECT_GT(stats->catalogs_copied, 1u);  // nested catalogs
  EXPECT_GE(stats->tagged_roots, 1u);
  EXPECT_EQ(stats->previous_revision, 0u);
  // Duplicate contents are downloaded once.
  for (const auto& req : fetcher_.request_log()) {
    if (req.url_path.rfind("data/", 0) == 0 && req.url_path.back() != 'X') {
      EXPECT_EQ(fetcher_.requests(req.url_path), 1u) << req.url_path;
    }
  }
}

// Every data object found is counted done once; catalogs are not counted.
TEST_P(SnapshotTest, ProgressCountsEveryObjectFoundOnce) {
  cvmfs::ProgressCounters progress("objects");
  options_.progress = &progress;
  auto stats = Snapshot();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  const cvmfs::ProgressCounters::Snapshot s = progress.Read();
  EXPECT_TRUE(s.growing);
  EXPECT_GT(s.done, 0u);
  EXPECT_EQ(s.done, s.total);
  EXPECT_LT(s.done, stats->objects_copied);  // the catalogs are not in it
  EXPECT_GT(s.bytes, 0u);
  EXPECT_LT(s.bytes, stats->bytes_copied);
}

TEST_P(SnapshotTest, ReplicaListsLikeTheSourceForHeadAndTagV1) {
  ASSERT_TRUE(Snapshot().ok());
  cvmfs::LocalObjectStore replica(replica_);
  auto m = cvmfs::Manifest::Parse(replica.Get(".cvmfspublished").value())
               .value()
               .manifest;
  std::string fixture = cvmfs::testing::FixturesDir() + "/" + fqrn_;
  auto listing = cvmfs::testing::ListRepository(&replica, m.root_catalog,
                                                tmp_.Sub("scratch"));
  ASSERT_TRUE(listing.ok()) << listing.status().ToString();
  auto expected =
      cvmfs::testing::ParseExpectedListing(fixture + "/expected.tsv").value();
  ASSERT_EQ(listing->size(), expected.size());
  for (auto& [path, line] : expected)
    EXPECT_EQ(line.ToString(), (*listing)[path].ToString()) << path;

  std::string raw = cvmfs::ReadVerifiedObject(&replica, *m.history,
                                              cvmfs::ObjectSuffix::kHistory)
                        .value();
  ASSERT_TRUE(cvmfs::WriteFileAtomic(tmp_.Sub("h.db"), raw).ok());
  auto v1 = cvmfs::HistoryDb::OpenReadOnly(tmp_.Sub("h.db"))
                .value()
                ->Get("v1")
                .value();
  ASSERT_TRUE(v1.has_value());
  auto v1_listing = cvmfs::testing::ListRepository(&replica, v1->root_hash,
                                                   tmp_.Sub("scratch"));
  ASSERT_TRUE(v1_listing.ok()) << v1_listing.status().ToString();
  auto expected_v1 =
      cvmfs::testing::ParseExpectedListing(fixture + "/expected-v1.tsv")
          .value();
  EXPECT_EQ(v1_listing->size(), expected_v1.size());
}

TEST_P(SnapshotTest, SecondSnapshotCopiesNothing) {
  ASSERT_TRUE(Snapshot().ok());
  fetcher_.ResetCounters();
  auto stats = Snapshot();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->catalogs_copied, 0u);
  EXPECT_EQ(stats->catalogs_skipped,
            1u);  // the root: its whole tree is skipped
  EXPECT_EQ(stats->objects_copied, 0u);
  EXPECT_EQ(stats->previous_revision, stats->revision);
  // Only the signed files and the certificate (to check the signature).
  for (const auto& req : fetcher_.request_log())
    EXPECT_TRUE(req.url_path[0] == '.' || req.url_path.back() == 'X')
        << req.url_path;
  ExpectComplete();
}

TEST_P(SnapshotTest, InterruptedSnapshotResumes) {
  const std::string victim = SomeDataObject();
  ASSERT_FALSE(victim.empty());
  fetcher_.FailNext(victim, 1, Status::Unavailable("connection reset"));
  auto failed = Snapshot();
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("connection reset"),
            std::string::npos)
      << failed.status().ToString();
  EXPECT_NE(failed.status().message().find("still serves nothing"),
            std::string::npos)
      << failed.status().ToString();
  ExpectNoManifest();
  EXPECT_FALSE(cvmfs::PathExists(replica_ + "/" + victim));
  EXPECT_FALSE(cvmfs::PathExists(replica_ + "/" + SourceManifestField('C')));
  EXPECT_TRUE(FilesBelow(replica_ + "/data/txn").empty());

  const size_t after_first = ReplicaObjects();
  auto stats = Snapshot();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(after_first + stats->objects_copied, ReplicaObjects());
  EXPECT_GT(stats->objects_present,
            0u);  // found from the first run, not downloaded again
  ExpectComplete();
}

TEST_P(SnapshotTest, CorruptedDataObjectIsNotStoredAndManifestStays) {
  const std::string old_manifest = "an older manifest\n";
  ASSERT_TRUE(
      cvmfs::WriteFileAtomic(replica_ + "/.cvmfspublished", old_manifest).ok());
  const std::string victim = SomeDataObject();
  std::string bytes = cvmfs::ReadFile(source_ + "/" + victim).value();
  bytes[bytes.size() / 2] ^= 0x20;
  fetcher_.Put(victim, bytes);
  auto stats = Snapshot();
  ASSERT_FALSE(stats.ok());
  EXPECT_TRUE(stats.status().IsCorruption()) << stats.status().ToString();
  EXPECT_NE(stats.status().message().find(victim.substr(5)), std::string::npos);
  EXPECT_FALSE(cvmfs::PathExists(replica_ + "/" + victim));
  EXPECT_FALSE(cvmfs::PathExists(replica_ + "/" + SourceManifestField('C')));
  EXPECT_EQ(cvmfs::ReadFile(replica_ + "/.cvmfspublished").value(),
            old_manifest);
  EXPECT_FALSE(cvmfs::PathExists(replica_ + "/.cvmfswhitelist"));
  EXPECT_TRUE(FilesBelow(replica_ + "/data/txn").empty());
  EXPECT_EQ(fetcher_.requests(victim), 2u);  // retried once with no-cache
}

TEST_P(SnapshotTest, CorruptedCatalogAndHistoryAndReflogAreRefused) {
  for (std::string victim : {SourceManifestField('C'), SourceManifestField('H'),
                             std::string(".cvmfsreflog")}) {
    SCOPED_TRACE(victim);
    std::string good = cvmfs::ReadFile(source_ + "/" + victim).value();
    std::string bad = good;
    bad[bad.size() / 3] ^= 0x01;
    fetcher_.Put(victim, bad);
    auto stats = Snapshot();
    ASSERT_FALSE(stats.ok());
    EXPECT_TRUE(stats.status().IsCorruption()) << stats.status().ToString();
    EXPECT_FALSE(cvmfs::PathExists(replica_ + "/" + victim) &&
                 cvmfs::ReadFile(replica_ + "/" + victim).value() == bad);
    ExpectNoManifest();
    fetcher_.Put(victim, good);
  }
  ASSERT_TRUE(Snapshot().ok());
  ExpectComplete();
}

TEST_P(SnapshotTest, RefusesWhatTheTrustChainDoesNotCover) {
  const std::string other = fqrn_ == std::string(testing::kFixtures[0])
                                ? testing::kFixtures[1]
                                : testing::kFixtures[0];
  // A different master key.
  auto wrong = cvmfs::LoadMasterKeys({FixtureKey(other)}).value();
  auto st = RunSnapshot(&fetcher_, wrong, options_);
  EXPECT_TRUE(st.status().IsCorruption()) << st.status().ToString();
  EXPECT_NE(st.status().message().find("master key"), std::string::npos);
  // Another repository's name.
  SnapshotOptions renamed = options_;
  renamed.fqrn = other;
  st = RunSnapshot(&fetcher_, keys_, renamed);
  EXPECT_TRUE(st.status().IsCorruption()) << st.status().ToString();
  // An expired whitelist.
  SnapshotOptions late = options_;
  late.now = 4102444800 + 3650LL * 86400;  // 2140
  st = RunSnapshot(&fetcher_, keys_, late);
  EXPECT_NE(st.status().message().find("expired"), std::string::npos)
      << st.status().ToString();
  // A manifest changed after signing.
  std::string manifest = cvmfs::ReadFile(source_ + "/.cvmfspublished").value();
  std::string tampered = manifest;
  tampered.replace(tampered.find("\nD240\n"), 6, "\nD999\n");
  fetcher_.Put(".cvmfspublished", tampered);
  st = Snapshot();
  EXPECT_TRUE(st.status().IsCorruption()) << st.status().ToString();
  fetcher_.Put(".cvmfspublished", manifest);
  // A source that does not allow replication.
  fetcher_.Remove(".cvmfs_master_replica");
  st = Snapshot();
  EXPECT_EQ(st.status().code(), Status::Code::kNotSupported)
      << st.status().ToString();
  ExpectNoManifest();
  EXPECT_EQ(ReplicaObjects(), 0u);
}

// An object store (as an S3 bucket would be) that remembers the order of
// its Puts.
class RecordingStore : public cvmfs::MemoryObjectStore {
 public:
  Status Put(const std::string& name, std::string_view bytes) override {
    {
      cvmfs::MutexLock lock(&mu_);
      order_.push_back(name);
    }
    return MemoryObjectStore::Put(name, bytes);
  }
  bool Exists(const std::string& name) override {
    {
      cvmfs::MutexLock lock(&mu_);
      ++exists_calls_;
    }
    return MemoryObjectStore::Exists(name);
  }
  std::vector<std::string> order() const {
    cvmfs::MutexLock lock(&mu_);
    return order_;
  }
  size_t exists_calls() const {
    cvmfs::MutexLock lock(&mu_);
    return exists_calls_;
  }

 private:
  mutable cvmfs::Mutex mu_;  // guards order_, exists_calls_; leaf lock
  std::vector<std::string> order_ GUARDED_BY(mu_);
  size_t exists_calls_ GUARDED_BY(mu_) = 0;
};

// Through a StoreDestination the store receives the files a local replica
// holds, byte for byte, the manifest after every object, and the staging
// directory is left empty.
TEST_P(SnapshotTest, IntoAnObjectStoreStoresTheSameFilesManifestLast) {
  RecordingStore store;
  const std::string staging = tmp_.Sub("staging");
  ASSERT_TRUE(cvmfs::MakeDirs(staging).ok());
  StoreDestination destination(&store, staging);
  options_.destination = &destination;
  auto stats = Snapshot();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  const std::vector<std::string> order = store.order();
  std::set<std::string> names(order.begin(), order.end());
  ASSERT_TRUE(names.count(kLastSnapshotName));
  names.erase(kLastSnapshotName);
  EXPECT_EQ(testing::ReachableFiles(source_, tmp_.path()), names);
  for (const std::string& name : names)
    EXPECT_EQ(cvmfs::ReadFile(source_ + "/" + name).value(),
              store.Get(name).value())
        << name;
  auto manifest = std::find(order.begin(), order.end(), ".cvmfspublished");
  ASSERT_NE(manifest, order.end());
  for (auto it = manifest; it != order.end(); ++it)
    EXPECT_NE(it->rfind("data/", 0), 0u) << *it << " after the manifest";
  EXPECT_TRUE(FilesBelow(staging).empty());
  EXPECT_EQ(stats->objects_copied, store.ListObjects().value().size());
  EXPECT_TRUE(FilesBelow(replica_).count(".cvmfspublished") == 0);
}

// After ListExisting() the store is not asked object by object, and a
// snapshot resuming an interrupted one still finds what it stored.
TEST_P(SnapshotTest, IntoAListedObjectStoreAsksNoObjectAndResumes) {
  RecordingStore store;
  const std::string staging = tmp_.Sub("staging");
  ASSERT_TRUE(cvmfs::MakeDirs(staging).ok());
  const std::string victim = SomeDataObject();
  fetcher_.FailNext(victim, 1, Status::Unavailable("connection reset"));
  {
    StoreDestination destination(&store, staging);
    ASSERT_TRUE(destination.ListExisting().ok());
    options_.destination = &destination;
    ASSERT_FALSE(Snapshot().ok());
  }
  EXPECT_EQ(store.exists_calls(), 0u);
  EXPECT_FALSE(store.Exists(".cvmfspublished"));
  StoreDestination destination(&store, staging);
  ASSERT_TRUE(destination.ListExisting().ok());
  options_.destination = &destination;
  const size_t calls = store.exists_calls();
  auto stats = Snapshot();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(store.exists_calls(), calls);
  EXPECT_GT(stats->objects_present, 0u);
  EXPECT_EQ(store.Get(".cvmfspublished").value(),
            cvmfs::ReadFile(source_ + "/.cvmfspublished").value());
  EXPECT_TRUE(FilesBelow(staging).empty());
}

TEST_P(SnapshotTest, IntoAnObjectStoreResumesAfterAFailure) {
  cvmfs::MemoryObjectStore store;
  const std::string staging = tmp_.Sub("staging");
  ASSERT_TRUE(cvmfs::MakeDirs(staging).ok());
  StoreDestination destination(&store, staging);
  options_.destination = &destination;
  const std::string victim = SomeDataObject();
  fetcher_.FailNext(victim, 1, Status::Unavailable("connection reset"));
  ASSERT_FALSE(Snapshot().ok());
  EXPECT_FALSE(store.Exists(".cvmfspublished"));
  EXPECT_FALSE(store.Exists(victim));
  EXPECT_FALSE(store.Exists(SourceManifestField('C')));
  auto stats = Snapshot();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_GT(stats->objects_present, 0u);
  EXPECT_EQ(store.Get(".cvmfspublished").value(),
            cvmfs::ReadFile(source_ + "/.cvmfspublished").value());
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SnapshotTest,
                         ::testing::ValuesIn(testing::kFixtures),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           return n.substr(0, n.find('.')) == "sha1-zlib"
                                      ? std::string("Sha1Zlib")
                                      : std::string("Shake128None");
                         });

TEST(LastSnapshotText, LooksLikeDateUtc) {
  EXPECT_EQ(LastSnapshotText(1763652961), "Thu Nov 20 15:36:01 UTC 2025\n");
  EXPECT_EQ(LastSnapshotText(0), "Thu Jan  1 00:00:00 UTC 1970\n");
}

}  // namespace
}  // namespace replication
