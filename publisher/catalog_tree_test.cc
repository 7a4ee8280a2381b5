// CatalogTree::Put's fast paths: a new entry is inserted directly, an
// existing one replaced, an unchanged one left alone (its catalog is not
// rewritten), and the remembered parent directory never outlives a change
// that removes it.
#include "publisher/catalog_tree.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "cvmfs/file_util.h"
#include "cvmfs/object_store.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

cvmfs::DirectoryEntry Dir() {
  cvmfs::DirectoryEntry e;
  e.mode = S_IFDIR | 0755;
  e.size = 4096;
  return e;
}

cvmfs::DirectoryEntry File(uint64_t size) {
  cvmfs::DirectoryEntry e;
  e.mode = S_IFREG | 0644;
  e.size = size;
  e.content_hash =
      cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, std::to_string(size));
  return e;
}

class CatalogTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cvmfs::MakeDirs(options_.temp_dir).ok());
    tree_ =
        std::move(CatalogTree::CreateEmpty(&store_, Dir(), options_)).value();
  }
  // Commits the tree as `revision` and opens that revision.
  CommitResult CommitAndReopen(uint64_t revision) {
    auto commit = tree_->Commit(revision, 1000 + revision);
    EXPECT_TRUE(commit.ok()) << commit.status().ToString();
    tree_.reset();
    auto reopened = CatalogTree::Open(&store_, commit->root_hash, options_);
    EXPECT_TRUE(reopened.ok()) << reopened.status().ToString();
    tree_ = std::move(reopened).value();
    return *commit;
  }
  uint64_t SizeOf(const std::string& path) {
    auto e = tree_->Lookup(path);
    EXPECT_TRUE(e.ok() && e->has_value()) << path;
    return e.ok() && e->has_value() ? (*e)->size : 0;
  }

  cvmfs::testing::TempDir tmp_;
  CatalogTreeOptions options_{cvmfs::HashAlgorithm::kSha1, 240,
                              tmp_.Sub("work")};
  cvmfs::MemoryObjectStore store_;
  std::unique_ptr<CatalogTree> tree_;
};

TEST_F(CatalogTreeTest, PutInsertsNewEntriesAndReplacesExistingOnes) {
  ASSERT_TRUE(tree_->Put("/d", Dir()).ok());
  ASSERT_TRUE(tree_->Put("/d/f", File(1)).ok());
  ASSERT_TRUE(tree_->Put("/d/g", File(2)).ok());
  ASSERT_TRUE(tree_->Put("/d/f", File(3)).ok());  // a tar with the member twice
  EXPECT_EQ(SizeOf("/d/f"), 3u);
  EXPECT_EQ(tree_->List("/d").value().size(), 2u);
  ASSERT_TRUE(tree_->Put("/d/f", Dir()).ok());  // file -> directory
  ASSERT_TRUE(tree_->Put("/d/f/x", File(4)).ok());
  ASSERT_TRUE(tree_->Put("/d/f", File(5)).ok());  // directory -> file
  EXPECT_EQ(SizeOf("/d/f"), 5u);
  EXPECT_FALSE(tree_->Lookup("/d/f/x").value().has_value());
  auto commit = tree_->Commit(1, 1000);
  ASSERT_TRUE(commit.ok()) << commit.status().ToString();
}

TEST_F(CatalogTreeTest, UnchangedEntriesRewriteOnlyTheRootCatalog) {
  cvmfs::DirectoryEntry big = File(100);
  big.chunked = true;
  big.content_hash.reset();
  const std::vector<cvmfs::FileChunk> chunks = {
      {0, 60, cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "c1")},
      {60, 40, cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "c2")}};
  auto put_all = [&](const std::vector<cvmfs::FileChunk>& big_chunks) {
    ASSERT_TRUE(tree_->Put("/d", Dir()).ok());
    ASSERT_TRUE(tree_->Put("/d/f", File(1)).ok());
    ASSERT_TRUE(tree_->Put("/n", Dir()).ok());
    ASSERT_TRUE(tree_->Put("/n/big", big, big_chunks).ok());
    ASSERT_TRUE(tree_->Put("/n/sub", Dir()).ok());
  };
  put_all(chunks);
  ASSERT_TRUE(tree_->CreateNestedCatalog("/n").ok());
  CommitResult first = CommitAndReopen(1);
  EXPECT_EQ(first.committed_catalogs.size(), 2u);

  // The same entries again: the root catalog carries the new revision, the
  // nested catalog is left as it is.
  put_all(chunks);
  CommitResult again = CommitAndReopen(2);
  EXPECT_EQ(again.committed_catalogs, std::vector<std::string>{""});
  EXPECT_NE(again.root_hash, first.root_hash);
  EXPECT_TRUE(tree_->IsNestedCatalogRoot("/n"));
  EXPECT_EQ(tree_->List("/n").value().size(), 2u);

  // Different chunks with equal attributes are a change.
  std::vector<cvmfs::FileChunk> other = chunks;
  other[1].hash = cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "c3");
  put_all(other);
  CommitResult changed = CommitAndReopen(3);
  EXPECT_EQ(changed.committed_catalogs, (std::vector<std::string>{"/n", ""}));
  // A changed attribute of an otherwise equal file is a change too.
  cvmfs::DirectoryEntry touched = File(1);
  touched.mtime = 42;
  ASSERT_TRUE(tree_->Put("/d/f", touched).ok());
  CommitAndReopen(4);
  EXPECT_EQ(tree_->Lookup("/d/f").value()->mtime, 42);
}

TEST_F(CatalogTreeTest, RemovedParentIsNotRemembered) {
  ASSERT_TRUE(tree_->Put("/d", Dir()).ok());
  ASSERT_TRUE(tree_->Put("/d/f", File(1)).ok());
  ASSERT_TRUE(tree_->Remove("/d").ok());
  auto st = tree_->Put("/d/g", File(2));
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find("parent directory missing"), std::string::npos);

  ASSERT_TRUE(tree_->Put("/n", Dir()).ok());
  ASSERT_TRUE(tree_->Put("/n/a", File(1)).ok());
  ASSERT_TRUE(tree_->CreateNestedCatalog("/n").ok());  // /n's rows move out
  ASSERT_TRUE(tree_->Put("/n/b", File(2)).ok());
  EXPECT_TRUE(tree_->IsNestedCatalogRoot("/n"));
  EXPECT_EQ(tree_->List("/n").value().size(), 2u);
  ASSERT_TRUE(
      tree_->Put("/n", File(7)).ok());  // the catalog root becomes a file
  EXPECT_TRUE(tree_->Put("/n/c", File(3)).IsNotFound());
}

}  // namespace
}  // namespace publisher
