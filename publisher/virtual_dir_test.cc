// CVMFS_VIRTUAL_DIR: /.cvmfs/snapshots/<tag> as CVMFS 2.12 writes it
// (doc/format-catalog.md 1.9), kept in line with the tags.
#include "publisher/virtual_dir.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "publisher/check.h"
#include "publisher/fresh_repository_test_util.h"
#include "publisher/tags.h"

namespace publisher {
namespace {

using cvmfs::Digest;

class VirtualDirTest : public FreshRepositoryTest {
 protected:
  VirtualDirTest() : FreshRepositoryTest("virtual.example.org") {}

  void Configure(const std::string& lines) {
    {
      std::ofstream conf(paths_.ServerConfigDir(fqrn_) + "/server.conf",
                         std::ios::app);
      conf << lines;
    }
    repo_.reset();
    auto repo = Repository::Open(paths_, fqrn_);
    ASSERT_TRUE(repo.ok()) << repo.status().ToString();
    repo_ = std::move(*repo);
  }

  std::unique_ptr<CatalogTree> Head() {
    auto manifest = repo_->CurrentManifest();
    EXPECT_TRUE(manifest.ok());
    auto tree =
        CatalogTree::Open(repo_->store(), manifest->manifest.root_catalog,
                          {cvmfs::HashAlgorithm::kSha1, 240, work_.path()});
    EXPECT_TRUE(tree.ok()) << tree.status().ToString();
    return tree.ok() ? std::move(*tree) : nullptr;
  }

  // Snapshot name -> root catalog, as the head revision's /.cvmfs has them.
  std::map<std::string, Digest> Snapshots() {
    std::map<std::string, Digest> out;
    auto tree = Head();
    if (!tree) return out;
    auto refs = tree->BindMountpoints(kSnapshotsPath);
    EXPECT_TRUE(refs.ok()) << refs.status().ToString();
    if (refs.ok())
      for (const auto& r : *refs)
        out[r.path.substr(std::string(kSnapshotsPath).size() + 1)] = r.hash;
    return out;
  }

  Digest TagHash(const std::string& name) {
    auto tag = FindTag(repo_.get(), name);
    EXPECT_TRUE(tag.ok()) << tag.status().ToString();
    return tag.ok() ? tag->root_hash : Digest();
  }

  void ExpectCheckPasses() {
    auto manifest = repo_->CurrentManifest();
    ASSERT_TRUE(manifest.ok());
    // The fixture's files are catalog rows only: check the catalogs.
    CheckOptions options;
    options.check_data = false;
    auto report = CheckRevision(repo_->store(), manifest->manifest.root_catalog,
                                options, work_.path());
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->problems.empty()) << report->problems.front();
  }

  cvmfs::testing::TempDir work_;
};

TEST_F(VirtualDirTest, PublishGraftsEveryNamedTagButTheHeads) {
  Configure("CVMFS_VIRTUAL_DIR=true\nCVMFS_AUTO_TAG=false\n");
  Publish("a", "v1");
  Publish("b", "v2");
  std::map<std::string, Digest> want{{"v1", TagHash("v1")},
                                     {"v2", TagHash("v2")}};
  EXPECT_EQ(want, Snapshots());

  auto tree = Head();
  ASSERT_TRUE(tree);
  auto dir = tree->Lookup("/.cvmfs");
  ASSERT_TRUE(dir.ok() && *dir);
  EXPECT_TRUE((*dir)->hidden);
  EXPECT_TRUE(tree->IsNestedCatalogRoot("/.cvmfs"));
  auto marker = tree->Lookup("/.cvmfs/.cvmfscatalog");
  ASSERT_TRUE(marker.ok() && *marker);
  EXPECT_TRUE(repo_->store()->Exists(
      cvmfs::ObjectPath(*(*marker)->content_hash, cvmfs::ObjectSuffix::kNone)));
  auto v2 = tree->Lookup("/.cvmfs/snapshots/v2");
  ASSERT_TRUE(v2.ok() && *v2);
  EXPECT_TRUE((*v2)->bind_mountpoint);
  EXPECT_TRUE((*v2)->IsDirectory());
  auto below = tree->List("/.cvmfs/snapshots/v2");
  ASSERT_TRUE(below.ok());
  EXPECT_TRUE(below->empty()) << "nothing is stored below a bind mountpoint";
  // trunk names the refreshed revision, the tag the one as built.
  auto trunk = FindTag(repo_.get(), "trunk");
  ASSERT_TRUE(trunk.ok());
  EXPECT_NE(trunk->root_hash, TagHash("v2"));
  EXPECT_EQ(trunk->root_hash, repo_->CurrentManifest()->manifest.root_catalog);
  ExpectCheckPasses();
}

TEST_F(VirtualDirTest, TagChangesAreFollowedAndTurningItOffRemovesIt) {
  Configure("CVMFS_VIRTUAL_DIR=true\nCVMFS_AUTO_TAG=false\n");
  Publish("a", "v1");
  Publish("b", "v2");
  ASSERT_TRUE(RemoveTags(repo_.get(), {"v1"}).ok());
  EXPECT_EQ((std::map<std::string, Digest>{{"v2", TagHash("v2")}}),
            Snapshots());
  NewTag added{"again", "", TagHash("v2").ToString()};
  ASSERT_TRUE(AddTag(repo_.get(), added).ok());
  EXPECT_EQ((std::map<std::string, Digest>{{"again", TagHash("v2")},
                                           {"v2", TagHash("v2")}}),
            Snapshots());
  ExpectCheckPasses();

  Configure("CVMFS_VIRTUAL_DIR=false\n");
  Publish("c");
  auto tree = Head();
  ASSERT_TRUE(tree);
  auto dir = tree->Lookup("/.cvmfs");
  ASSERT_TRUE(dir.ok());
  EXPECT_FALSE(dir->has_value());
  ExpectCheckPasses();
}

TEST_F(VirtualDirTest, AUsersOwnDotCvmfsIsRefused) {
  Configure("CVMFS_VIRTUAL_DIR=true\nCVMFS_AUTO_TAG=false\n");
  auto stats = repo_->Publish(
      [](CatalogTree* t, IngestPipeline*) {
        cvmfs::DirectoryEntry d;
        d.mode = S_IFDIR | 0755;
        return t->Put("/.cvmfs", d);
      },
      {});
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().ToString().find("not the virtual directory"),
            std::string::npos)
      << stats.status().ToString();
  EXPECT_TRUE(IsVirtualDirPath("/.cvmfs"));
  EXPECT_TRUE(IsVirtualDirPath("/.cvmfs/snapshots/x"));
  EXPECT_FALSE(IsVirtualDirPath("/.cvmfs_allowed"));
  EXPECT_FALSE(IsVirtualDirPath("/.CVMFS"));
}

}  // namespace
}  // namespace publisher
