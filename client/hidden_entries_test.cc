// Hidden entries (catalog flag kFlagHidden, which CVMFS gives the .cvmfs
// directory of its snapshot directory): left out of listings, found by
// name, as the CVMFS client shows them.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "client/repository_mount.h"
#include "publisher/catalog_tree.h"
#include "publisher/repository.h"
#include "testing/storage_fetcher.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

class HiddenEntriesTest : public ::testing::Test {
 protected:
  const std::string fqrn_ = "hidden.example.org";

  void SetUp() override {
    paths_.root = root_.path();
    publisher::MkfsOptions o;
    o.fqrn = fqrn_;
    ASSERT_TRUE(publisher::Mkfs(paths_, o).ok());
    auto repo = publisher::Repository::Open(paths_, fqrn_);
    ASSERT_TRUE(repo.ok());
    auto stats = (*repo)->Publish(
        [](publisher::CatalogTree* tree, publisher::IngestPipeline*) {
          DirectoryEntry dir;
          dir.mode = S_IFDIR | 0755;
          dir.size = 4096;
          DirectoryEntry hidden = dir;
          hidden.hidden = true;
          // (Not /.cvmfs: without CVMFS_VIRTUAL_DIR a publish removes
          // it; snapshots_test.cc has the real one.)
          CVMFS_RETURN_IF_ERROR(tree->Put("/.hidden", hidden));
          CVMFS_RETURN_IF_ERROR(tree->Put("/.hidden/snapshots", dir));
          return tree->Put("/visible", dir);
        },
        {});
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();

    MountConfig c;
    c.fqrn = fqrn_;
    c.cache.dir = work_.Sub("cache");
    c.cache.quota_limit = 64 << 20;
    c.public_key_files = {paths_.KeysDir() + "/" + fqrn_ + ".pub"};
    c.fs.fqrn = fqrn_;
    auto mount = RepositoryMount::Create(
        std::move(c), [](const std::string&) {},
        std::make_unique<testing::StorageFetcher>(paths_.Storage(fqrn_)));
    ASSERT_TRUE(mount.ok()) << mount.status().ToString();
    mount_ = std::move(mount).value();
  }

  std::vector<std::string> Names(uint64_t inode) {
    std::vector<std::string> names;
    auto listing = mount_->file_system()->ReadDir(inode);
    EXPECT_TRUE(listing.ok()) << listing.status().ToString();
    if (listing.ok())
      for (const DirEntry& e : *listing) names.push_back(e.name);
    return names;
  }

  testing::TempDir root_, work_;
  SystemPaths paths_;
  std::unique_ptr<RepositoryMount> mount_;
};

TEST_F(HiddenEntriesTest, AreLeftOutOfListingsButFoundByName) {
  FileSystem* fs = mount_->file_system();
  EXPECT_EQ((std::vector<std::string>{".", "..", "visible"}),
            Names(kRootInode));
  auto hidden = fs->Lookup(kRootInode, ".hidden");
  ASSERT_TRUE(hidden.ok()) << hidden.status().ToString();
  EXPECT_TRUE(S_ISDIR(hidden->attr.st_mode));
  EXPECT_EQ((std::vector<std::string>{".", "..", "snapshots"}),
            Names(hidden->inode))
      << "what is below a hidden directory is listed";
  auto listing = fs->ListingFor(kRootInode);
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(3u, (*listing)->size()) << "the no_opendir listing too";
}

}  // namespace
}  // namespace cvmfs::client
