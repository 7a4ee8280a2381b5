// CheckRevision: CVMFS's own repositories pass (their statistics are what
// our recount expects), and wrong counters or missing objects are reported.
#include "publisher/check.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "cvmfs/catalog/writable_catalog.h"
#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_name.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::testing::TempDir;

class CheckFixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CheckFixtureTest, RepositoryPublishedByCvmfsHasNoProblems) {
  const std::string fqrn = GetParam();
  cvmfs::LocalObjectStore store(cvmfs::testing::FixturesDir() + "/" + fqrn +
                                "/srv/cvmfs/" + fqrn);
  auto text = store.Get(".cvmfspublished");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto manifest = cvmfs::Manifest::Parse(*text);
  ASSERT_TRUE(manifest.ok());
  TempDir tmp;
  auto report =
      CheckRevision(&store, manifest->manifest.root_catalog, true, tmp.path());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_GE(report->catalogs, 1u);
  EXPECT_GT(report->objects_checked, 0u);
  for (const std::string& p : report->problems) ADD_FAILURE() << p;
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

}  // namespace
}  // namespace publisher
