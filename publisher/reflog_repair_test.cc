#include "publisher/reflog_repair.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cvmfs/catalog/reflog_db.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "publisher/fresh_repository_test_util.h"

namespace publisher {
namespace {

class ReflogRepairTest : public FreshRepositoryTest {
 protected:
  ReflogRepairTest() : FreshRepositoryTest("reflog.test.org") {}

  std::string ReflogPath() {
    return repo_->config().storage_dir + "/" + std::string(cvmfs::kReflogName);
  }
  // The digests the stored reflog lists.
  std::set<cvmfs::Digest> Listed() {
    auto bytes = cvmfs::ReadFile(ReflogPath());
    EXPECT_TRUE(bytes.ok());
    const std::string copy = root_.Sub("reflog.copy.db");
    EXPECT_TRUE(cvmfs::WriteFileAtomic(copy, *bytes, 0600).ok());
    auto db = cvmfs::ReflogDb::OpenReadOnly(copy);
    EXPECT_TRUE(db.ok());
    auto list = (*db)->List();
    EXPECT_TRUE(list.ok());
    std::set<cvmfs::Digest> out;
    for (const auto& [digest, type] : *list) out.insert(digest);
    return out;
  }
  // Whether the manifest's reflog hash names the stored reflog.
  bool ManifestNamesReflog() {
    auto m = repo_->CurrentManifest();
    auto bytes = cvmfs::ReadFile(ReflogPath());
    return m.ok() && bytes.ok() && m->manifest.reflog &&
           *m->manifest.reflog ==
               cvmfs::HashString(m->manifest.reflog->algorithm, *bytes);
  }
};

TEST_F(ReflogRepairTest, IntactReflogIsLeftAlone) {
  Publish("a");
  auto before = cvmfs::ReadFile(ReflogPath());
  auto r = RepairReflog(repo_.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->reason.empty());
  EXPECT_FALSE(r->rebuilt);
  EXPECT_FALSE(r->resigned);
  EXPECT_EQ(*cvmfs::ReadFile(ReflogPath()), *before);
}

TEST_F(ReflogRepairTest, MissingReflogIsRebuiltFromEveryRevision) {
  const cvmfs::Digest r2 = Publish("a", "release-1");
  const cvmfs::Digest r3 = Publish("b");
  const std::set<cvmfs::Digest> original = Listed();
  ASSERT_EQ(::unlink(ReflogPath().c_str()), 0);

  auto r = RepairReflog(repo_.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->rebuilt);
  EXPECT_TRUE(r->resigned);
  EXPECT_NE(r->reason.find("missing"), std::string::npos) << r->reason;
  const std::set<cvmfs::Digest> rebuilt = Listed();
  EXPECT_TRUE(rebuilt.count(r2));
  EXPECT_TRUE(rebuilt.count(r3));
  // Every root catalog, history, certificate and metainfo the publisher
  // recorded is found again from the repository itself.
  for (const cvmfs::Digest& d : original)
    EXPECT_TRUE(rebuilt.count(d)) << d.ToString() << " not rebuilt";
  EXPECT_TRUE(ManifestNamesReflog());
}

TEST_F(ReflogRepairTest, GarbageReflogIsRebuilt) {
  Publish("a");
  ASSERT_TRUE(cvmfs::WriteFileAtomic(ReflogPath(), "not sqlite", 0644).ok());
  auto r = RepairReflog(repo_.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->rebuilt);
  EXPECT_GE(Listed().size(), 4u) << "roots of 1 and 2, history, certificate";
  EXPECT_TRUE(ManifestNamesReflog());
}

TEST_F(ReflogRepairTest, ManifestIsResignedForAReadableReflog) {
  Publish("a");
  // A reflog with one more entry than the manifest's hash covers.
  auto bytes = cvmfs::ReadFile(ReflogPath());
  const std::string copy = root_.Sub("edit.db");
  ASSERT_TRUE(cvmfs::WriteFileAtomic(copy, *bytes, 0600).ok());
  {
    auto db = cvmfs::ReflogDb::OpenForWriting(copy);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        (*db)
            ->AddCatalog(
                cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "extra"), 1)
            .ok());
    ASSERT_TRUE((*db)->Close().ok());
  }
  ASSERT_TRUE(
      cvmfs::WriteFileAtomic(ReflogPath(), *cvmfs::ReadFile(copy), 0644).ok());
  ASSERT_FALSE(ManifestNamesReflog());
  auto r = RepairReflog(repo_.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->rebuilt);
  EXPECT_TRUE(r->resigned);
  EXPECT_TRUE(ManifestNamesReflog());
}

}  // namespace
}  // namespace publisher
