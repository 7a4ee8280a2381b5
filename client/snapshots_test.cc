// /.cvmfs/snapshots/<tag> (CVMFS_VIRTUAL_DIR): bind mountpoints followed as
// the CVMFS client follows them, into the tag's root catalog and its nested
// catalogs, with paths mapped into that revision's keys.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "client/repository_mount.h"
#include "cvmfs/object_store.h"
#include "publisher/catalog_tree.h"
#include "publisher/repository.h"
#include "testing/storage_fetcher.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

class SnapshotsTest : public ::testing::Test {
 protected:
  const std::string fqrn_ = "snapshots.example.org";

  void SetUp() override {
    paths_.root = root_.path();
    publisher::MkfsOptions o;
    o.fqrn = fqrn_;
    ASSERT_TRUE(publisher::Mkfs(paths_, o).ok());
    {
      std::ofstream conf(paths_.ServerConfigDir(fqrn_) + "/server.conf",
                         std::ios::app);
      conf << "CVMFS_VIRTUAL_DIR=true\nCVMFS_AUTO_TAG=false\n";
    }
    auto repo = publisher::Repository::Open(paths_, fqrn_);
    ASSERT_TRUE(repo.ok());
    // v1: /file "one", /sub (a nested catalog) with /sub/inner "inner one".
    // v2: /file "two"; the head adds /head.
    Publish(repo->get(), "v1", {{"/file", "one"}, {"/sub/inner", "inner one"}});
    Publish(repo->get(), "v2", {{"/file", "two"}});
    Publish(repo->get(), "", {{"/head", "head"}});

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

  void Publish(publisher::Repository* repo, const std::string& tag,
               const std::vector<std::pair<std::string, std::string>>& files) {
    publisher::PublishOptions options;
    options.tag_name = tag;
    auto stats = repo->Publish(
        [&](publisher::CatalogTree* tree, publisher::IngestPipeline*) {
          for (const auto& [path, content] : files) {
            if (path.rfind("/sub/", 0) == 0 &&
                !tree->Lookup("/sub")->has_value()) {
              DirectoryEntry dir;
              dir.mode = S_IFDIR | 0755;
              dir.size = 4096;
              CVMFS_RETURN_IF_ERROR(tree->Put("/sub", dir));
              CVMFS_RETURN_IF_ERROR(tree->CreateNestedCatalog("/sub"));
            }
            CVMFS_ASSIGN_OR_RETURN(Digest d, StoreObject(tree->store(), content,
                                                         ObjectSuffix::kNone,
                                                         HashAlgorithm::kSha1));
            DirectoryEntry f;
            f.mode = S_IFREG | 0644;
            f.size = content.size();
            f.content_hash = d;
            CVMFS_RETURN_IF_ERROR(tree->Put(path, f));
          }
          return Status::Ok();
        },
        options);
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  }

  // The inode of `path` ("/a/b"), looked up name by name from the root.
  uint64_t Walk(const std::string& path) {
    uint64_t inode = kRootInode;
    size_t pos = 1;
    while (pos <= path.size()) {
      size_t next = path.find('/', pos);
      if (next == std::string::npos) next = path.size();
      auto reply =
          mount_->file_system()->Lookup(inode, path.substr(pos, next - pos));
      EXPECT_TRUE(reply.ok()) << path << ": " << reply.status().ToString();
      if (!reply.ok()) return 0;
      inode = reply->inode;
      pos = next + 1;
    }
    return inode;
  }

  std::vector<std::string> Names(const std::string& path) {
    std::vector<std::string> names;
    auto listing = mount_->file_system()->ReadDir(Walk(path));
    EXPECT_TRUE(listing.ok()) << path << ": " << listing.status().ToString();
    if (listing.ok())
      for (const DirEntry& e : *listing)
        if (e.name != "." && e.name != "..") names.push_back(e.name);
    return names;
  }

  std::string Read(const std::string& path) {
    char buf[64];
    auto n = mount_->file_system()->ReadInode(Walk(path), buf, sizeof(buf), 0);
    EXPECT_TRUE(n.ok()) << path << ": " << n.status().ToString();
    return n.ok() ? std::string(buf, *n) : std::string();
  }

  testing::TempDir root_, work_;
  SystemPaths paths_;
  std::unique_ptr<RepositoryMount> mount_;
};

TEST_F(SnapshotsTest, EveryTagIsBrowsableBelowTheHiddenDirectory) {
  EXPECT_EQ((std::vector<std::string>{"file", "head", "sub"}), Names(""));
  EXPECT_EQ((std::vector<std::string>{".cvmfscatalog", "snapshots"}),
            Names("/.cvmfs"));
  EXPECT_EQ((std::vector<std::string>{"v1", "v2"}), Names("/.cvmfs/snapshots"));
  EXPECT_EQ((std::vector<std::string>{"file", "sub"}),
            Names("/.cvmfs/snapshots/v1"));
  EXPECT_EQ("one", Read("/.cvmfs/snapshots/v1/file"));
  EXPECT_EQ("two", Read("/.cvmfs/snapshots/v2/file"));
  EXPECT_EQ("two", Read("/file"));
  // A nested catalog of the tagged revision, planted below the snapshot.
  EXPECT_EQ((std::vector<std::string>{"inner"}),
            Names("/.cvmfs/snapshots/v1/sub"));
  EXPECT_EQ("inner one", Read("/.cvmfs/snapshots/v1/sub/inner"));
  // v2 was tagged after v1 was published with the virtual directory, so
  // its own /.cvmfs holds v1: snapshots nest as in CVMFS.
  EXPECT_EQ("one", Read("/.cvmfs/snapshots/v2/.cvmfs/snapshots/v1/file"));
  auto st = mount_->file_system()->GetAttr(Walk("/.cvmfs/snapshots/v1"));
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE(S_ISDIR(st->st_mode));
}

}  // namespace
}  // namespace cvmfs::client
