// FreshRepositoryTest: a test fixture holding a repository made with Mkfs
// in a temporary root, open, and a way to publish a revision that adds one
// file. For the tests of what works on a repository's history (tags,
// rollback).
#ifndef PUBLISHER_FRESH_REPOSITORY_TEST_UTIL_H_
#define PUBLISHER_FRESH_REPOSITORY_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "cvmfs/hash.h"
#include "cvmfs/system_paths.h"
#include "publisher/catalog_tree.h"
#include "publisher/repository.h"
#include "testing/test_env.h"

namespace publisher {

class FreshRepositoryTest : public ::testing::Test {
 protected:
  explicit FreshRepositoryTest(std::string fqrn) : fqrn_(std::move(fqrn)) {}

  void SetUp() override {
    paths_.root = root_.path();
    MkfsOptions o;
    o.fqrn = fqrn_;
    ASSERT_TRUE(Mkfs(paths_, o).ok());
    auto repo = Repository::Open(paths_, fqrn_);
    ASSERT_TRUE(repo.ok()) << repo.status().ToString();
    repo_ = std::move(*repo);
  }

  // Publishes a revision with one more file `name` (tagged `tag` if not
  // empty); returns its root hash.
  cvmfs::Digest Publish(const std::string& name, const std::string& tag = "") {
    PublishOptions options;
    options.tag_name = tag;
    auto stats = repo_->Publish(
        [&](CatalogTree* t, IngestPipeline*) -> cvmfs::Status {
          cvmfs::DirectoryEntry e;
          e.name = name;
          e.mode = 0100644;
          e.content_hash = cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, name);
          return t->Put("/" + name, e);
        },
        options);
    EXPECT_TRUE(stats.ok()) << stats.status().ToString();
    return stats.ok() ? stats->root_hash : cvmfs::Digest();
  }

  const std::string fqrn_;
  cvmfs::testing::TempDir root_;
  cvmfs::SystemPaths paths_;
  std::unique_ptr<Repository> repo_;
};

}  // namespace publisher

#endif  // PUBLISHER_FRESH_REPOSITORY_TEST_UTIL_H_
