// CheckRevision: CVMFS's own repositories pass (their statistics are what
// our recount expects), and wrong counters or missing objects are reported.
#include "publisher/check.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>

#include "cvmfs/catalog/writable_catalog.h"
#include "cvmfs/catalog_walker.h"
#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_name.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::testing::TempDir;

class CheckFixtureTest : public ::testing::TestWithParam<std::string> {
 protected:
  // The fixture repository's storage and its root catalog.
  void SetUp() override {
    const std::string fqrn = GetParam();
    store_ = std::make_unique<cvmfs::LocalObjectStore>(
        cvmfs::testing::FixturesDir() + "/" + fqrn + "/srv/cvmfs/" + fqrn);
    auto text = store_->Get(".cvmfspublished");
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    auto manifest = cvmfs::Manifest::Parse(*text);
    ASSERT_TRUE(manifest.ok());
    root_ = manifest->manifest.root_catalog;
  }
  std::unique_ptr<cvmfs::LocalObjectStore> store_;
  cvmfs::Digest root_;
  TempDir tmp_;
};

TEST_P(CheckFixtureTest, RepositoryPublishedByCvmfsHasNoProblems) {
  auto report = CheckRevision(store_.get(), root_, true, tmp_.path());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_GE(report->catalogs, 1u);
  EXPECT_GT(report->objects_checked, 0u);
  for (const std::string& p : report->problems) ADD_FAILURE() << p;
}

// The progress total comes from the root catalog's statistics; for a
// repository CVMFS published it is exactly the number of entries walked.
TEST_P(CheckFixtureTest, ProgressTotalIsTheNumberOfEntriesWalked) {
  cvmfs::ProgressCounters progress;
  CheckOptions options;
  options.progress = &progress;
  auto report = CheckRevision(store_.get(), root_, options, tmp_.path());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const cvmfs::ProgressCounters::Snapshot s = progress.Read();
  EXPECT_STREQ(s.unit, "entries");
  EXPECT_GT(s.total, 0u);
  EXPECT_EQ(s.done, report->entries);
  EXPECT_EQ(s.total, report->entries);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CheckFixtureTest,
                         ::testing::Values("sha1-zlib.example.org",
                                           "shake128-none.example.org"));

// A one-catalog revision whose statistics the test chooses.
cvmfs::Digest StoreCatalog(cvmfs::ObjectStore* store, const std::string& dir,
                           const cvmfs::CounterSet& subtree,
                           bool reference_missing_object) {
  cvmfs::DirectoryEntry root;
  root.mode = S_IFDIR | 0755;
  root.size = 4096;
  root.linkcount = 2;
  const std::string file = dir + "/catalog.db";
  auto catalog = cvmfs::WritableCatalog::Create(file, "", root, false);
  EXPECT_TRUE(catalog.ok());
  std::string content = cvmfs::ZlibCompress("data");
  cvmfs::Digest content_hash =
      cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, content);
  if (!reference_missing_object) {
    const std::string name =
        cvmfs::ObjectPath(content_hash, cvmfs::ObjectSuffix::kNone);
    EXPECT_TRUE(store->Put(name, content).ok());
  }
  cvmfs::DirectoryEntry f;
  f.mode = S_IFREG | 0644;
  f.size = 4;
  f.content_hash = content_hash;
  EXPECT_TRUE((*catalog)->AddEntry("/f", f).ok());
  EXPECT_TRUE((*catalog)->SetSubtreeCounters(subtree).ok());
  EXPECT_TRUE((*catalog)->Commit(2, 0, std::nullopt, 240).ok());
  std::string compressed = cvmfs::ZlibCompress(*cvmfs::ReadFile(file));
  cvmfs::Digest hash =
      cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, compressed);
  EXPECT_TRUE(store
                  ->Put(cvmfs::ObjectPath(hash, cvmfs::ObjectSuffix::kCatalog),
                        compressed)
                  .ok());
  return hash;
}

TEST(CheckTest, ConsistentCatalogPasses) {
  TempDir tmp;
  cvmfs::MemoryObjectStore store;
  auto root = StoreCatalog(&store, tmp.path(), {}, false);
  auto report = CheckRevision(&store, root, true, tmp.path());
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->entries, 2u);  // the root and /f
  EXPECT_TRUE(report->problems.empty()) << report->problems.front();
}

TEST(CheckTest, WrongSubtreeCountersAreReported) {
  TempDir tmp;
  cvmfs::MemoryObjectStore store;
  cvmfs::CounterSet subtree;
  subtree.regular = 5;  // there is no nested catalog to hold them
  auto root = StoreCatalog(&store, tmp.path(), subtree, false);
  auto report = CheckRevision(&store, root, false, tmp.path());
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_NE(report->problems[0].find("subtree counters regular 5 (expected 0)"),
            std::string::npos)
      << report->problems[0];
}

TEST(CheckTest, MissingObjectIsReported) {
  TempDir tmp;
  cvmfs::MemoryObjectStore store;
  auto root = StoreCatalog(&store, tmp.path(), {}, true);
  auto report = CheckRevision(&store, root, false, tmp.path());
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_NE(report->problems[0].find("missing"), std::string::npos);
  EXPECT_NE(report->problems[0].find("/f"), std::string::npos);
}

TEST(CheckTest, NoDataCheckSkipsObjects) {  // check -c
  TempDir tmp;
  cvmfs::MemoryObjectStore store;
  auto root = StoreCatalog(&store, tmp.path(), {}, true);
  CheckOptions options;
  options.check_data = false;
  auto report = CheckRevision(&store, root, options, tmp.path());
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->objects_checked, 0u);
  EXPECT_TRUE(report->problems.empty()) << report->problems.front();
}

std::string FixtureStorage(const std::string& fqrn) {
  return cvmfs::testing::FixturesDir() + "/" + fqrn + "/srv/cvmfs/" + fqrn;
}

TEST(CheckTest, SubtreeStartsAtTheNestedCatalog) {  // check -s
  const std::string fqrn = "import-src.example.org";
  cvmfs::LocalObjectStore store(FixtureStorage(fqrn));
  auto manifest = cvmfs::Manifest::Parse(*store.Get(".cvmfspublished"));
  ASSERT_TRUE(manifest.ok());
  const cvmfs::Digest root = manifest->manifest.root_catalog;
  TempDir tmp;
  std::vector<std::string> mountpoints;
  cvmfs::CatalogWalker walker(&store, tmp.path());
  ASSERT_TRUE(walker
                  .Walk(root,
                        [&](const cvmfs::CatalogVisit& v) {
                          mountpoints.push_back(v.mountpoint);
                          return cvmfs::Status::Ok();
                        })
                  .ok());
  ASSERT_GE(mountpoints.size(), 2u) << "the fixture has no nested catalog";
  const std::string sub = mountpoints[1];
  uint64_t below = 0;
  for (const std::string& m : mountpoints)
    if (m == sub || m.compare(0, sub.size() + 1, sub + "/") == 0) ++below;
  CheckOptions options;
  options.subtree = sub;
  auto report = CheckRevision(&store, root, options, tmp.path());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->catalogs, below);
  EXPECT_LT(report->catalogs, mountpoints.size());
  for (const std::string& p : report->problems) ADD_FAILURE() << p;

  options.subtree = sub + "/no-such-nested-catalog";
  auto missing = CheckRevision(&store, root, options, tmp.path());
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound()) << missing.status().ToString();
}

TEST(CheckTest, StoredTrustChainVerifiesWithThePublicKeyOnly) {
  const std::string fqrn = "sha1-zlib.example.org";
  const std::string key =
      cvmfs::testing::FixturesDir() + "/" + fqrn + "/" + fqrn + ".pub";
  cvmfs::LocalObjectStore store(FixtureStorage(fqrn));
  auto parsed = cvmfs::Manifest::Parse(*store.Get(".cvmfspublished"));
  ASSERT_TRUE(parsed.ok());
  const time_t when =
      static_cast<time_t>(parsed->manifest.publish_timestamp.value_or(0));
  auto manifest = VerifyStoredTrustChain(&store, {key}, fqrn, when);
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
  EXPECT_EQ(manifest->root_catalog, parsed->manifest.root_catalog);

  // Another repository's key does not verify it.
  const std::string other = cvmfs::testing::FixturesDir() +
                            "/shake128-none.example.org/"
                            "shake128-none.example.org.pub";
  auto wrong = VerifyStoredTrustChain(&store, {other}, fqrn, when);
  EXPECT_FALSE(wrong.ok());
  // A tampered manifest does not verify.
  TempDir tmp;
  cvmfs::LocalObjectStore copy(tmp.path());
  ASSERT_TRUE(copy.CreateLayout().ok());
  for (const char* f : {".cvmfswhitelist", ".cvmfspublished"})
    ASSERT_TRUE(copy.Put(f, *store.Get(f)).ok());
  ASSERT_TRUE(
      copy.Put(cvmfs::ObjectPath(*parsed->manifest.certificate,
                                 cvmfs::ObjectSuffix::kCertificate),
               *store.Get(cvmfs::ObjectPath(*parsed->manifest.certificate,
                                            cvmfs::ObjectSuffix::kCertificate)))
          .ok());
  ASSERT_TRUE(VerifyStoredTrustChain(&copy, {key}, fqrn, when).ok());
  std::string text = *store.Get(".cvmfspublished");
  text.replace(text.find("\nS"), 2, "\nS9");
  ASSERT_TRUE(copy.Put(".cvmfspublished", text).ok());
  EXPECT_FALSE(VerifyStoredTrustChain(&copy, {key}, fqrn, when).ok());
}

TEST(CheckTest, ScrubFindsObjectsThatDoNotMatchTheirNames) {  // check -i
  TempDir tmp;
  cvmfs::LocalObjectStore store(tmp.path());
  ASSERT_TRUE(store.CreateLayout().ok());
  std::string good = cvmfs::ZlibCompress("good");
  std::string bad = cvmfs::ZlibCompress("bad");
  const std::string good_name =
      cvmfs::ObjectPath(cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, good),
                        cvmfs::ObjectSuffix::kNone);
  const std::string bad_name =
      cvmfs::ObjectPath(cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, bad),
                        cvmfs::ObjectSuffix::kPartial);
  ASSERT_TRUE(store.Put(good_name, good).ok());
  ASSERT_TRUE(store.Put(bad_name, bad + "x").ok());
  auto report = ScrubStorage(&store);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->objects_checked, 2u);
  ASSERT_EQ(report->problems.size(), 1u);
  EXPECT_NE(report->problems[0].find(bad_name), std::string::npos)
      << report->problems[0];
}

}  // namespace
}  // namespace publisher
