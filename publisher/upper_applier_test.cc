// Upper layers built by hand (".wh." names and ".wh..wh..opq" markers, the
// forms that need no root) applied to a catalog tree in a memory store.
#include "publisher/upper_applier.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <ctime>

#include "cvmfs/file_util.h"
#include "cvmfs/object_store.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::testing::TempDir;

class UpperApplierTest : public ::testing::Test {
 protected:
  void Write(const std::string& rel, const std::string& data) {
    std::string path = layer_ + "/" + rel;
    ASSERT_TRUE(cvmfs::MakeDirs(path.substr(0, path.rfind('/'))).ok());
    ASSERT_TRUE(cvmfs::WriteFileAtomic(path, data).ok()) << path;
  }
  void Mkdir(const std::string& rel) {
    ASSERT_TRUE(cvmfs::MakeDirs(layer_ + "/" + rel).ok());
  }

  // Starts a new upper layer.
  void NewLayer() {
    layer_ = tmp_.Sub("layer" + std::to_string(++layers_));
    ASSERT_TRUE(cvmfs::MakeDirs(layer_).ok());
  }

  // Applies the current layer on top of the last revision and commits.
  UpperChanges ApplyAndCommit() {
    // A fresh work directory per tree: catalog file names restart in each.
    CatalogTreeOptions topts{cvmfs::HashAlgorithm::kSha1, 240,
                             tmp_.Sub("work" + std::to_string(layers_))};
    EXPECT_TRUE(cvmfs::MakeDirs(topts.temp_dir).ok());
    std::unique_ptr<CatalogTree> tree;
    if (root_.IsNull()) {
      cvmfs::DirectoryEntry root;
      root.mode = S_IFDIR | 0755;
      tree = std::move(CatalogTree::CreateEmpty(&store_, root, topts)).value();
    } else {
      tree = std::move(CatalogTree::Open(&store_, root_, topts)).value();
    }
    UpperChanges changes;
    {
      IngestPipeline pipeline(&store_, IngestOptions{});
      cvmfs::Status st = ApplyUpperLayer(layer_, UpperApplyOptions{},
                                         tree.get(), &pipeline, &changes);
      EXPECT_TRUE(st.ok()) << st.ToString();
    }
    auto commit = tree->Commit(++revision_, ::time(nullptr));
    EXPECT_TRUE(commit.ok()) << commit.status().ToString();
    root_ = commit->root_hash;
    topts.temp_dir += ".read";
    EXPECT_TRUE(cvmfs::MakeDirs(topts.temp_dir).ok());
    tree_ = std::move(CatalogTree::Open(&store_, root_, topts)).value();
    return changes;
  }

  bool Exists(const std::string& path) {
    auto e = tree_->Lookup(path);
    return e.ok() && e->has_value();
  }
  cvmfs::DirectoryEntry Get(const std::string& path) {
    auto e = tree_->Lookup(path);
    EXPECT_TRUE(e.ok() && e->has_value()) << path;
    return e.ok() && e->has_value() ? **e : cvmfs::DirectoryEntry{};
  }
  std::string Content(const std::string& path) {
    auto e = Get(path);
    auto data = cvmfs::ReadVerifiedObject(&store_, *e.content_hash,
                                          cvmfs::ObjectSuffix::kNone);
    return data.ok() ? *data : "<" + data.status().ToString() + ">";
  }

  TempDir tmp_;
  std::string layer_;
  int layers_ = 0;
  uint64_t revision_ = 0;
  cvmfs::MemoryObjectStore store_;
  cvmfs::Digest root_;
  std::unique_ptr<CatalogTree> tree_;
};

TEST_F(UpperApplierTest,
       AppliesAdditionsDeletionsTypeChangesAndOpaqueDirectories) {
  NewLayer();
  Write("keep.txt", "keep");
  Write("a/f", "file f");
  Write("a/sub/s", "s");
  Write("t", "t was a file");
  Write("d/x", "old content of d");
  Mkdir("n");
  ApplyAndCommit();
  ASSERT_TRUE(Exists("/a/sub/s"));

  NewLayer();
  Write("a/.wh.f", "");         // rm a/f
  Write("t/.wh..wh..opq", "");  // rm t; mkdir t
  Write("t/inside", "inside");
  Write("d/.wh..wh..opq", "");  // rm -r d; mkdir d
  Write("d/y", "new content of d");
  Write("a/sub/s", "s changed");
  Write("n/.cvmfscatalog", "");
  Write("n/in-nested", "nested");
  UpperChanges c = ApplyAndCommit();

  EXPECT_EQ(Content("/keep.txt"), "keep");
  EXPECT_FALSE(Exists("/a/f"));
  EXPECT_EQ(Content("/a/sub/s"), "s changed");
  EXPECT_TRUE(Get("/t").IsDirectory());
  EXPECT_EQ(Content("/t/inside"), "inside");
  EXPECT_FALSE(Exists("/d/x"));
  EXPECT_EQ(Content("/d/y"), "new content of d");
  EXPECT_TRUE(tree_->IsNestedCatalogRoot("/n"));
  EXPECT_EQ(Content("/n/in-nested"), "nested");
  EXPECT_EQ(c.removed, 1u);
  EXPECT_EQ(c.opaque_directories, 2u);
  EXPECT_EQ(c.catalogs_created, 1u);

  // Directory -> file, and the marker deleted: the catalog merges back.
  NewLayer();
  Write(".wh.t", "");
  Write("n/.wh..cvmfscatalog", "");
  ApplyAndCommit();
  NewLayer();
  Write("t", "t is a file again");
  c = ApplyAndCommit();
  EXPECT_EQ(Content("/t"), "t is a file again");
  EXPECT_FALSE(Exists("/t/inside"));
  EXPECT_FALSE(tree_->IsNestedCatalogRoot("/n"));
  EXPECT_EQ(Content("/n/in-nested"), "nested");
}

// As CVMFS (its test 638): /.cvmfs is the publisher's; a transaction may
// neither create it (file, link or directory) nor change what is below it.
TEST_F(UpperApplierTest, TheVirtualDirectoryIsRefused) {
  NewLayer();
  Write("a", "a");
  ApplyAndCommit();
  for (const char* rel : {".cvmfs", ".cvmfs/snapshots/x"}) {
    NewLayer();
    Write(rel, "x");
    CatalogTreeOptions topts{cvmfs::HashAlgorithm::kSha1, 240,
                             tmp_.Sub("refused" + std::to_string(layers_))};
    ASSERT_TRUE(cvmfs::MakeDirs(topts.temp_dir).ok());
    auto tree = CatalogTree::Open(&store_, root_, topts);
    ASSERT_TRUE(tree.ok());
    UpperChanges changes;
    IngestPipeline pipeline(&store_, IngestOptions{});
    cvmfs::Status st = ApplyUpperLayer(layer_, UpperApplyOptions{}, tree->get(),
                                       &pipeline, &changes);
    pipeline.Drain();
    EXPECT_FALSE(st.ok()) << rel;
    EXPECT_NE(st.ToString().find("reserved"), std::string::npos)
        << st.ToString();
  }
  NewLayer();
  Write(".CVMFS", "x");
  Write(".cvmfs_allowed", "x");
  ApplyAndCommit();
  EXPECT_TRUE(Exists("/.cvmfs_allowed"));
}

TEST_F(UpperApplierTest, DirtabAppliesToDirectoriesTheTransactionTouches) {
  NewLayer();
  Write(".cvmfsdirtab", "/sw/*\n");
  Write("sw/old/file", "old");
  ApplyAndCommit();
  EXPECT_TRUE(tree_->IsNestedCatalogRoot(
      "/sw/old"));  // the dirtab came in the same layer
  EXPECT_TRUE(Exists("/sw/old/.cvmfscatalog"));

  NewLayer();
  Write("sw/new/file", "new");
  ApplyAndCommit();
  EXPECT_TRUE(tree_->IsNestedCatalogRoot("/sw/new"));
  EXPECT_TRUE(Exists("/sw/new/.cvmfscatalog"));
}

// The rules are those of the new revision, applied as each directory is
// published: the transaction's own dirtab (or its deletion) counts.
TEST_F(UpperApplierTest, DirtabOfTheTransactionDecides) {
  NewLayer();
  Write(".cvmfsdirtab", "/sw/*\n");
  Write("sw/a/file", "a");
  ApplyAndCommit();
  ASSERT_TRUE(tree_->IsNestedCatalogRoot("/sw/a"));

  NewLayer();
  Write(".cvmfsdirtab", "/pkg/*\n");
  Write("sw/b/file", "b");
  Write("pkg/p/file", "p");
  UpperChanges c = ApplyAndCommit();
  EXPECT_FALSE(tree_->IsNestedCatalogRoot("/sw/b"));
  EXPECT_TRUE(tree_->IsNestedCatalogRoot("/pkg/p"));
  EXPECT_TRUE(tree_->IsNestedCatalogRoot("/sw/a"));  // existing catalogs stay
  EXPECT_EQ(c.catalogs_created, 1u);
  EXPECT_EQ(Content("/pkg/p/file"), "p");

  NewLayer();
  Write(".wh..cvmfsdirtab", "");
  Write("pkg/q/file", "q");
  c = ApplyAndCommit();
  EXPECT_FALSE(tree_->IsNestedCatalogRoot("/pkg/q"));
  EXPECT_EQ(c.catalogs_created, 0u);
}

// `rm -r sw; cp -a ... sw`: an opaque directory whose children the dirtab
// makes catalogs again; every entry lands in its catalog, nothing is lost.
TEST_F(UpperApplierTest, OpaqueDirectoryUnderDirtabGetsItsCatalogsAgain) {
  NewLayer();
  Write(".cvmfsdirtab", "/sw/*\n");
  for (const char* d : {"a", "b"})
    for (int i = 0; i < 20; ++i)
      Write(std::string("sw/") + d + "/f" + std::to_string(i), d);
  Write("sw/a/deep/er/file", "deep");
  ApplyAndCommit();

  NewLayer();
  Write("sw/.wh..wh..opq", "");
  for (const char* d : {"a", "b"})
    for (int i = 0; i < 20; ++i)
      Write(std::string("sw/") + d + "/f" + std::to_string(i), d);
  Write("sw/a/deep/er/file", "deep again");
  UpperChanges c = ApplyAndCommit();
  EXPECT_EQ(c.opaque_directories, 1u);
  EXPECT_EQ(c.catalogs_created, 2u);
  for (const char* d : {"/sw/a", "/sw/b"}) {
    EXPECT_TRUE(tree_->IsNestedCatalogRoot(d)) << d;
    EXPECT_TRUE(Exists(std::string(d) + "/.cvmfscatalog")) << d;
    for (int i = 0; i < 20; ++i)
      EXPECT_EQ(Content(std::string(d) + "/f" + std::to_string(i)),
                std::string(d).substr(4));
  }
  EXPECT_EQ(Content("/sw/a/deep/er/file"), "deep again");
  EXPECT_EQ(Get("/sw/a").linkcount, 3u);  // ., .., deep
  EXPECT_EQ(Get("/sw").linkcount, 4u);
}

TEST_F(UpperApplierTest, RenamedDirectoryIsDeletePlusAdd) {
  NewLayer();
  Write("old/one", "1");
  Write("old/deep/two", "2");
  ApplyAndCommit();
  NewLayer();  // what `mv old new` leaves with redirect_dir=off
  Write(".wh.old", "");
  Write("new/one", "1");
  Write("new/deep/two", "2");
  ApplyAndCommit();
  EXPECT_FALSE(Exists("/old"));
  EXPECT_FALSE(Exists("/old/one"));
  EXPECT_EQ(Content("/new/deep/two"), "2");
  EXPECT_EQ(Get("").linkcount, 3u);  // ., .., new
}

}  // namespace
}  // namespace publisher
