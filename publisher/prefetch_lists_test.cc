// Storing recorded prefetch lists: each change is a new, checkable revision
// whose root catalog names the list set; later publishes keep it; stale
// entries are counted and refreshed; bad input is refused.
#include "publisher/prefetch_lists.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "cvmfs/catalog/catalog.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "publisher/check.h"
#include "publisher/gc.h"
#include "publisher/tar_ingest.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::PrefetchList;

class PrefetchListsTest : public ::testing::Test {
 protected:
  const std::string fqrn_ = "lists.example.org";

  void SetUp() override {
    paths_.root = root_.path();
    MkfsOptions o;
    o.fqrn = fqrn_;
    o.garbage_collection = true;
    ASSERT_TRUE(Mkfs(paths_, o).ok());
    Publish(
        "mkdir -p a b && echo one > a/one && echo two > b/two && ln -s one "
        "a/link");
  }

  std::unique_ptr<Repository> Repo() {
    auto repo = Repository::Open(paths_, fqrn_);
    EXPECT_TRUE(repo.ok()) << repo.status().ToString();
    return repo.ok() ? std::move(repo).value() : nullptr;
  }

  void Publish(const std::string& script) {
    std::string dir = work_.Sub("tree");
    std::string cmd = "rm -rf " + dir + " && mkdir -p " + dir + " && cd " +
                      dir + " && " + script + " && tar -cf " +
                      work_.Sub("in.tar") + " -C " + dir + " .";
    ASSERT_EQ(0, std::system(cmd.c_str()));
    TarIngestOptions t;
    t.tarball = work_.Sub("in.tar");
    t.base_dir = "/";
    auto stats = Repo()->Publish(
        [&](CatalogTree* tree, IngestPipeline* p) {
          return IngestTar(t, tree, p);
        },
        {});
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  }

  // The current root catalog, opened from a temporary copy.
  std::unique_ptr<cvmfs::Catalog> Root() {
    auto repo = Repo();
    auto manifest = repo->CurrentManifest();
    EXPECT_TRUE(manifest.ok());
    auto raw = cvmfs::ReadVerifiedObject(repo->store(),
                                         manifest->manifest.root_catalog,
                                         cvmfs::ObjectSuffix::kCatalog);
    EXPECT_TRUE(raw.ok());
    const std::string file =
        work_.Sub("root" + std::to_string(++copies_) + ".db");
    EXPECT_TRUE(cvmfs::WriteFileAtomic(file, *raw, 0600).ok());
    auto catalog = cvmfs::Catalog::Open(file);
    EXPECT_TRUE(catalog.ok());
    return std::move(catalog).value();
  }

  void ExpectCheckPasses() {
    auto repo = Repo();
    auto manifest = repo->CurrentManifest();
    ASSERT_TRUE(manifest.ok());
    ASSERT_TRUE(cvmfs::MakeDirs(work_.Sub("check")).ok());
    auto report = CheckRevision(repo->store(), manifest->manifest.root_catalog,
                                true, work_.Sub("check"));
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->problems.empty()) << report->problems.front();
  }

  uint64_t Revision() { return Repo()->CurrentManifest()->manifest.revision; }

  cvmfs::testing::TempDir root_, work_;
  cvmfs::SystemPaths paths_;
  int copies_ = 0;
};

TEST_F(PrefetchListsTest, AddPublishesARevisionReferencingTheLists) {
  const uint64_t before = Revision();
  auto change = AddPrefetchList(Repo().get(), "w", {"/b/two", "/a/one"}, {});
  ASSERT_TRUE(change.ok()) << change.status().ToString();
  EXPECT_EQ(change->stats.revision, before + 1);
  EXPECT_EQ(Revision(), before + 1);
  auto root = Root();
  EXPECT_EQ(root->revision(), before + 1);
  auto ref = cvmfs::PrefetchListsObjectOf(*root);
  ASSERT_TRUE(ref.ok() && ref->has_value());
  // The object is a compressed data object whose text is the list set.
  auto text = cvmfs::ReadVerifiedObject(Repo()->store(), **ref,
                                        cvmfs::ObjectSuffix::kNone);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto lists = cvmfs::ParsePrefetchLists(*text);
  ASSERT_TRUE(lists.ok());
  ASSERT_EQ(lists->size(), 1u);
  EXPECT_EQ((*lists)[0].trigger(), "/b/two");
  EXPECT_EQ((*lists)[0].files[1].path, "/a/one");
  auto entry = root->Lookup("/a/one");
  ASSERT_TRUE(entry.ok() && entry->has_value());
  EXPECT_EQ((*lists)[0].files[1].hash, (*entry)->content_hash);
  ExpectCheckPasses();
  auto history = Repo()->OpenHistory(false);
  ASSERT_TRUE(history.ok());
  auto trunk = (*history)->Get("trunk");
  ASSERT_TRUE(trunk.ok() && trunk->has_value());
  EXPECT_EQ((*trunk)->revision, before + 1);
}

// The list object is reachable from the root catalog: garbage collection
// keeps it (and check verifies it) even when only the current revision is
// kept.
TEST_F(PrefetchListsTest, GarbageCollectionKeepsTheListObject) {
  ASSERT_TRUE(AddPrefetchList(Repo().get(), "w", {"/a/one"}, {}).ok());
  auto ref = cvmfs::PrefetchListsObjectOf(*Root());
  ASSERT_TRUE(ref.ok() && ref->has_value());
  Publish("mkdir -p a && echo changed > a/one");  // the old /a/one: garbage
  GcOptions options;
  options.policy.keep_revisions = 0;
  auto report = CollectGarbage(Repo().get(), options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_GT(report->objects_deleted, 0u);
  EXPECT_TRUE(Repo()->store()->Exists(
      cvmfs::ObjectPath(**ref, cvmfs::ObjectSuffix::kNone)));
  ExpectCheckPasses();
}

TEST_F(PrefetchListsTest, ListsSurviveLaterPublishesAndGoStale) {
  ASSERT_TRUE(
      AddPrefetchList(Repo().get(), "w", {"/a/one", "/b/two"}, {}).ok());
  Publish("mkdir -p a b && echo ONE > a/one && echo two > b/two");
  auto lists = CurrentPrefetchLists(Repo().get());
  ASSERT_TRUE(lists.ok()) << lists.status().ToString();
  ASSERT_EQ(lists->size(), 1u);
  auto stale = CountStaleFiles(Repo().get(), (*lists)[0]);
  ASSERT_TRUE(stale.ok());
  EXPECT_EQ(*stale, 1u);  // a/one changed

  auto refreshed = RefreshPrefetchLists(Repo().get(), {});
  ASSERT_TRUE(refreshed.ok()) << refreshed.status().ToString();
  lists = CurrentPrefetchLists(Repo().get());
  ASSERT_TRUE(lists.ok());
  EXPECT_EQ(*CountStaleFiles(Repo().get(), (*lists)[0]), 0u);
  ExpectCheckPasses();
}

TEST_F(PrefetchListsTest, AddReplacesByNameAndRemoveDropsTheProperty) {
  ASSERT_TRUE(AddPrefetchList(Repo().get(), "w", {"/a/one"}, {}).ok());
  ASSERT_TRUE(AddPrefetchList(Repo().get(), "v", {"/b/two"}, {}).ok());
  ASSERT_TRUE(
      AddPrefetchList(Repo().get(), "w", {"/b/two", "/a/one"}, {}).ok());
  auto lists = CurrentPrefetchLists(Repo().get());
  ASSERT_TRUE(lists.ok());
  ASSERT_EQ(lists->size(), 2u);
  EXPECT_EQ((*lists)[0].name, "w");
  EXPECT_EQ((*lists)[0].files.size(), 2u);

  auto missing = RemovePrefetchList(Repo().get(), "nope", {});
  EXPECT_EQ(missing.status().code(), cvmfs::Status::Code::kNotFound);
  ASSERT_TRUE(RemovePrefetchList(Repo().get(), "w", {}).ok());
  ASSERT_TRUE(RemovePrefetchList(Repo().get(), "v", {}).ok());
  EXPECT_FALSE(Root()->Property(cvmfs::kPrefetchListsProperty).has_value());
  lists = CurrentPrefetchLists(Repo().get());
  ASSERT_TRUE(lists.ok());
  EXPECT_TRUE(lists->empty());
  ExpectCheckPasses();
}

TEST_F(PrefetchListsTest, PathsThatAreNotRegularFilesAreLeftOut) {
  auto change = AddPrefetchList(Repo().get(), "w",
                                {"/gone", "/a/one", "/a/link", "/b"}, {});
  ASSERT_TRUE(change.ok()) << change.status().ToString();
  ASSERT_EQ(change->lists[0].files.size(), 1u);
  EXPECT_EQ(change->warnings.size(), 3u);
  EXPECT_NE(change->warnings[0].find("/gone"), std::string::npos)
      << change->warnings[0];

  const uint64_t revision = Revision();
  auto none = AddPrefetchList(Repo().get(), "x", {"/gone", "/b"}, {});
  EXPECT_EQ(none.status().code(), cvmfs::Status::Code::kInvalidArgument);
  auto bad_name = AddPrefetchList(Repo().get(), "a b", {"/a/one"}, {});
  EXPECT_EQ(bad_name.status().code(), cvmfs::Status::Code::kInvalidArgument);
  EXPECT_EQ(Revision(), revision);  // nothing published
}

// A garbage collection that does not know the list set object may delete
// it: listing says so, and the next change starts from no lists.
TEST_F(PrefetchListsTest, MissingListSetObjectIsReportedAndReplaced) {
  ASSERT_TRUE(AddPrefetchList(Repo().get(), "w", {"/a/one"}, {}).ok());
  auto ref = cvmfs::PrefetchListsObjectOf(*Root());
  ASSERT_TRUE(ref.ok() && ref->has_value());
  const std::string object =
      paths_.Storage(fqrn_) + "/" +
      cvmfs::ObjectPath(**ref, cvmfs::ObjectSuffix::kNone);
  ASSERT_EQ(0, ::unlink(object.c_str())) << object;

  auto lists = CurrentPrefetchLists(Repo().get());
  EXPECT_EQ(lists.status().code(), cvmfs::Status::Code::kNotFound);
  EXPECT_NE(lists.status().message().find((*ref)->ToString()),
            std::string::npos)
      << lists.status().ToString();

  auto change = AddPrefetchList(Repo().get(), "v", {"/b/two"}, {});
  ASSERT_TRUE(change.ok()) << change.status().ToString();
  ASSERT_FALSE(change->warnings.empty());
  EXPECT_NE(change->warnings[0].find("lost"), std::string::npos)
      << change->warnings[0];
  lists = CurrentPrefetchLists(Repo().get());
  ASSERT_TRUE(lists.ok()) << lists.status().ToString();
  ASSERT_EQ(lists->size(), 1u);
  EXPECT_EQ((*lists)[0].name, "v");
  ExpectCheckPasses();
}

}  // namespace
}  // namespace publisher
