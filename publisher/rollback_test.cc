// Rollback on a repository made with Mkfs and two publishes: the target
// (trunk-previous by default, or a named tag) is republished as the next
// revision; a missing tag changes nothing.
#include "publisher/rollback.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "publisher/catalog_tree.h"
#include "publisher/fresh_repository_test_util.h"
#include "publisher/repository.h"
#include "publisher/tags.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::Status;
using cvmfs::testing::TempDir;

constexpr const char* kFqrn = "rollback.example.org";

class RollbackTest : public FreshRepositoryTest {
 protected:
  RollbackTest() : FreshRepositoryTest(kFqrn) {}

  // The names in the root directory of the current revision.
  std::vector<std::string> CurrentNames() {
    auto m = repo_->CurrentManifest();
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    std::vector<std::string> names;
    if (!m.ok()) return names;
    auto tree = CatalogTree::Open(repo_->store(), m->manifest.root_catalog,
                                  CatalogTreeOptions{{}, 240, work_.path()});
    EXPECT_TRUE(tree.ok()) << tree.status().ToString();
    if (!tree.ok()) return names;
    auto entries = (*tree)->List("");
    EXPECT_TRUE(entries.ok()) << entries.status().ToString();
    if (entries.ok())
      for (const cvmfs::DirectoryEntry& e : *entries) names.push_back(e.name);
    return names;
  }

  uint64_t CurrentRevision() {
    auto m = repo_->CurrentManifest();
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? m->manifest.revision : 0;
  }

  TempDir work_;
};

TEST_F(RollbackTest, DefaultTargetIsTrunkPrevious) {
  const cvmfs::Digest first = Publish("a");
  Publish("b");
  auto target = RollbackTarget(repo_.get(), "");
  ASSERT_TRUE(target.ok()) << target.status().ToString();
  EXPECT_EQ(target->name, "trunk-previous");
  EXPECT_EQ(target->root_hash, first);
  EXPECT_EQ(target->revision, 2u);
}

TEST_F(RollbackTest, RollBackRepublishesTheTargetAsTheNextRevision) {
  const cvmfs::Digest first = Publish("a", "v1");
  Publish("b");
  Publish("c");
  ASSERT_EQ(CurrentRevision(), 4u);
  auto target = RollbackTarget(repo_.get(), "v1");
  ASSERT_TRUE(target.ok()) << target.status().ToString();
  EXPECT_EQ(target->revision, 2u);

  auto stats = RollBack(repo_.get(), *target);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->revision, 5u);
  EXPECT_EQ(CurrentRevision(), 5u);
  auto trunk = FindTag(repo_.get(), "trunk");
  ASSERT_TRUE(trunk.ok());
  EXPECT_EQ(trunk->revision, 5u);
  // The content of v1, committed again with the new revision number.
  EXPECT_EQ(CurrentNames(), (std::vector<std::string>{"a"}));
  EXPECT_NE(trunk->root_hash, first);
}

TEST_F(RollbackTest, MissingTagIsNotFoundAndChangesNothing) {
  Publish("a");
  Publish("b");
  auto target = RollbackTarget(repo_.get(), "nope");
  ASSERT_FALSE(target.ok());
  EXPECT_EQ(target.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(target.status().message(), "tag nope does not exist");
  EXPECT_EQ(CurrentRevision(), 3u);
  EXPECT_EQ(CurrentNames(), (std::vector<std::string>{"a", "b"}));
}

TEST_F(RollbackTest, FreshRepositoryHasNoTrunkPrevious) {
  auto target = RollbackTarget(repo_.get(), "");
  ASSERT_FALSE(target.ok());
  EXPECT_EQ(target.status().message(), "tag trunk-previous does not exist");
}

}  // namespace
}  // namespace publisher
