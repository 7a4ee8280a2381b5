// DiffRevisions on revisions built entry by entry, so that every attribute
// (and so every expected difference) is under the test's control.
#include "publisher/diff.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "publisher/repository.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::DirectoryEntry;
using cvmfs::Status;
using cvmfs::testing::TempDir;

constexpr const char* kFqrn = "diff.example.org";

DirectoryEntry File(const std::string& name, const std::string& content,
                    int64_t mtime = 1000) {
  DirectoryEntry e;
  e.name = name;
  e.mode = 0100644;
  e.size = content.size();
  e.mtime = mtime;
  // Diffs read catalogs only; the objects need not exist.
  e.content_hash = cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, content);
  return e;
}

DirectoryEntry Dir(const std::string& name) {
  DirectoryEntry e;
  e.name = name;
  e.mode = 040755;
  e.size = 4096;
  e.mtime = 1000;
  e.linkcount = 2;
  return e;
}

DirectoryEntry Link(const std::string& name, const std::string& target) {
  DirectoryEntry e;
  e.name = name;
  e.mode = 0120777;
  e.size = target.size();
  e.mtime = 1000;
  e.symlink = target;
  return e;
}

class DiffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    paths_.root = root_.path();
    MkfsOptions o;
    o.fqrn = kFqrn;
    ASSERT_TRUE(Mkfs(paths_, o).ok());
  }

  using Edit = std::function<Status(CatalogTree*)>;
  cvmfs::Digest Publish(const Edit& edit) {
    auto repo = Repository::Open(paths_, kFqrn);
    EXPECT_TRUE(repo.ok());
    auto stats = (*repo)->Publish(
        [&](CatalogTree* t, IngestPipeline*) { return edit(t); }, {});
    EXPECT_TRUE(stats.ok()) << stats.status().ToString();
    return stats->root_hash;
  }

  std::vector<std::string> Diff(const cvmfs::Digest& from,
                                const cvmfs::Digest& to,
                                DiffOptions options = {}, bool machine = true) {
    auto repo = Repository::Open(paths_, kFqrn);
    EXPECT_TRUE(repo.ok());
    std::vector<std::string> lines;
    auto summary = DiffRevisions((*repo)->store(), from, to, work_.path(),
                                 options, [&](const PathChange& c) {
                                   lines.push_back(FormatChange(c, machine));
                                 });
    EXPECT_TRUE(summary.ok()) << summary.status().ToString();
    if (summary.ok()) summary_ = *summary;
    return lines;
  }

  // Revision with files, a directory, a symlink and two nested catalogs.
  cvmfs::Digest PublishBase() {
    return Publish([](CatalogTree* t) -> Status {
      for (const auto& [path, entry] :
           std::vector<std::pair<std::string, DirectoryEntry>>{
               {"/a", File("a", "one")},
               {"/d", Dir("d")},
               {"/d/x", File("x", "x")},
               {"/l", Link("l", "a")},
               {"/m", Dir("m")},
               {"/m/z", File("z", "z")},
               {"/n", Dir("n")},
               {"/n/y", File("y", "y")},
               {"/t", File("t", "t")}}) {
        CVMFS_RETURN_IF_ERROR(t->Put(path, entry));
      }
      CVMFS_RETURN_IF_ERROR(t->CreateNestedCatalog("/m"));
      return t->CreateNestedCatalog("/n");
    });
  }

  TempDir root_, work_;
  cvmfs::SystemPaths paths_;
  DiffSummary summary_;
};

TEST_F(DiffTest, ReportsAddedRemovedAndModifiedPathsInCvmfsOrder) {
  const cvmfs::Digest from = PublishBase();
  const cvmfs::Digest to = Publish([](CatalogTree* t) -> Status {
    CVMFS_RETURN_IF_ERROR(t->Put("/a", File("a", "two")));  // same size
    CVMFS_RETURN_IF_ERROR(t->Remove("/d"));
    CVMFS_RETURN_IF_ERROR(t->Put("/e", Dir("e")));
    CVMFS_RETURN_IF_ERROR(t->Put("/e/f", File("f", "f")));
    CVMFS_RETURN_IF_ERROR(t->Put("/l", Link("l", "bb")));
    CVMFS_RETURN_IF_ERROR(
        t->Put("/n/y", File("y", "yy")));           // in a nested catalog
    CVMFS_RETURN_IF_ERROR(t->Put("/t", Dir("t")));  // file -> directory
    return t->Put("/t/u", File("u", "u"));
  });
  EXPECT_EQ(Diff(from, to),
            (std::vector<std::string>{
                "M[C]\tF\t/a",
                "R\tF\t/d/x",
                "R\tD\t/d",
                "A\tD\t/e",
                "A\tF\t/e/f",
                "M[SL]\tS\t/l",
                "M[SC]\tF\t/n/y",
                "M[ISM]\tFD\t/t",  // the types show the content change
                "A\tF\t/t/u",
            }));
  // /m is equal in both revisions: its catalogs were not even loaded.
  EXPECT_EQ(summary_.catalogs_skipped, 1u);
  EXPECT_EQ(summary_.catalogs_loaded, 4u);  // two roots, /n twice
  EXPECT_EQ(summary_.delta.files, 0);       // a x y z t -> a f y z u
  EXPECT_EQ(summary_.delta.symlinks, 0);
  EXPECT_EQ(summary_.delta.directories, 1);  // d n m -> e n m t
  EXPECT_EQ(summary_.delta.catalogs, 0);

  // The other way round, in human-readable form.
  EXPECT_EQ(Diff(to, from, {}, false),
            (std::vector<std::string>{
                "/a modify file [content]",
                "/d add directory",
                "/d/x add file",
                "/e/f remove file",
                "/e remove directory",
                "/l modify symlink [size, symlink-target]",
                "/n/y modify file [size, content]",
                "/t modify directory->file [link-count, size, mode]",
                "/t/u remove file",
            }));
}

TEST_F(DiffTest, IdenticalRevisionsHaveNoDifferences) {
  const cvmfs::Digest from = PublishBase();
  EXPECT_TRUE(Diff(from, from).empty());
  EXPECT_EQ(summary_.catalogs_loaded, 2u);
  EXPECT_EQ(summary_.catalogs_skipped, 2u);
}

TEST_F(DiffTest, TimestampsOwnersAndNestedCatalogTransitions) {
  const cvmfs::Digest from = PublishBase();
  const cvmfs::Digest to = Publish([](CatalogTree* t) -> Status {
    CVMFS_RETURN_IF_ERROR(
        t->Put("/a", File("a", "one", 2000)));  // touched only
    DirectoryEntry x = File("x", "x");
    x.uid = 42;
    CVMFS_RETURN_IF_ERROR(t->Put("/d/x", x));
    CVMFS_RETURN_IF_ERROR(
        t->CreateNestedCatalog("/d"));  // same content, new catalog
    return t->RemoveNestedCatalog("/m");
  });
  EXPECT_EQ(Diff(from, to), (std::vector<std::string>{
                                "M[T]\tF\t/a",
                                "M[N]\tD\t/d",
                                "M[O]\tF\t/d/x",
                                "M[N]\tD\t/m",
                            }));
  EXPECT_EQ(summary_.delta.catalogs, 0);
  DiffOptions ignore;
  ignore.ignore_timestamps = true;
  EXPECT_EQ(Diff(from, to, ignore),
            (std::vector<std::string>{"M[N]\tD\t/d", "M[O]\tF\t/d/x",
                                      "M[N]\tD\t/m"}));
}

TEST(FormatChangeTest, EscapesPathsInMachineReadableForm) {
  PathChange c{ChangeKind::kAdded, "/a\tb\\c\nd", EntryType::kUnknown,
               EntryType::kUnknown, ""};
  EXPECT_EQ(FormatChange(c, true), "A\tU\t/a\\tb\\\\c\\nd");
  EXPECT_EQ(FormatDelta(CounterDelta{3, -1, 2, 0}, true),
            "S\tF\t3\nS\tS\t-1\nS\tD\t2\nS\tN\t0\n");
  EXPECT_EQ(FormatDelta(CounterDelta{3, -1, 2, 0}, false),
            "d(# regular files): 3\nd(# symlinks): -1\nd(# directories): "
            "2\nd(# catalogs): 0\n");
}

}  // namespace
}  // namespace publisher
