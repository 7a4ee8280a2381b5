// Bundles written by publishes (doc/format-bundles.md): the bundles a
// publish makes, that a later publish rewrites only the directories it
// changed, removal, CVMFS_BUNDLES=false, `cvmfs_server bundle` (every
// directory), nested catalogs, gc and check.
#include "publisher/bundle_writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cvmfs/bundle.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "publisher/check.h"
#include "publisher/gc.h"
#include "publisher/repository.h"
#include "publisher/rollback.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::BundleRef;
using cvmfs::Digest;
using cvmfs::ObjectPath;
using cvmfs::ObjectSuffix;
using cvmfs::Status;

constexpr const char* kFqrn = "bundles.example.org";

bool Mentions(const std::vector<std::string>& problems,
              const std::string& what) {
  for (const std::string& p : problems)
    if (p.find(what) != std::string::npos) return true;
  return false;
}

std::string RandomBytes(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// Collects the members of a bundle and their bytes.
class Members : public cvmfs::BundleReader::Visitor {
 public:
  Status BeginMember(const cvmfs::BundleMember& m) override {
    list.push_back({m.digest, ""});
    return Status::Ok();
  }
  Status MemberData(const void* data, size_t size) override {
    list.back().second.append(static_cast<const char*>(data), size);
    return Status::Ok();
  }
  Status EndMember() override { return Status::Ok(); }
  std::vector<std::pair<Digest, std::string>> list;
};

cvmfs::DirectoryEntry RegularFile(const std::string& name, const Digest& hash) {
  cvmfs::DirectoryEntry e;
  e.name = name;
  e.mode = S_IFREG | 0644;
  e.content_hash = hash;
  return e;
}

// Candidates keep their objects' bytes up to the budget and past it only
// their sizes; a missing object is no candidate; the bundles built either
// way are the same.
TEST(BundleCandidatesTest, BytesAreKeptUpToTheBudget) {
  cvmfs::MemoryObjectStore store;
  std::vector<cvmfs::DirectoryEntry> listing;
  const std::vector<std::string> contents = {
      std::string(10, 'a'), std::string(20, 'b'),
      std::string(cvmfs::kBundleMemberMax + 5, 'c'), std::string(30, 'd')};
  for (size_t i = 0; i < contents.size(); ++i) {
    const Digest d =
        cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, contents[i]);
    ASSERT_TRUE(
        store.Put(ObjectPath(d, ObjectSuffix::kNone), contents[i]).ok());
    listing.push_back(RegularFile("f" + std::to_string(i), d));
  }
  listing.push_back(RegularFile(
      "missing", cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "gone")));

  std::map<std::string, std::string> held;
  auto candidates = BundleCandidates(&store, listing, &held, 15);
  ASSERT_TRUE(candidates.ok()) << candidates.status().ToString();
  ASSERT_EQ(4u, candidates->size());
  EXPECT_EQ(10u, (*candidates)[0].stored_size);
  EXPECT_EQ(20u, (*candidates)[1].stored_size);
  EXPECT_EQ(cvmfs::kBundleMemberMax + 5, (*candidates)[2].stored_size);
  EXPECT_EQ(30u, (*candidates)[3].stored_size);
  // The first two were read before the budget was spent.
  ASSERT_EQ(2u, held.size());
  EXPECT_EQ(contents[0],
            held[ObjectPath((*candidates)[0].digest, ObjectSuffix::kNone)]);

  // A writer that keeps nothing reads every member again: same bundles.
  BundleWriter keeping(&store, cvmfs::HashAlgorithm::kSha1);
  BundleWriter rereading(&store, cvmfs::HashAlgorithm::kSha1, 0);
  auto kept = keeping.BuildDirectory("/d", listing);
  auto reread = rereading.BuildDirectory("/d", listing);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_TRUE(reread.ok()) << reread.status().ToString();
  ASSERT_EQ(1u, kept->size());
  EXPECT_EQ(3u, (*kept)[0].members);  // the large one is no member
  ASSERT_EQ(kept->size(), reread->size());
  EXPECT_EQ((*kept)[0].hash, (*reread)[0].hash);
  EXPECT_EQ(1u, keeping.stats().bundles_written);
  EXPECT_EQ(1u, rereading.stats().bundles_existing);
}

class BundleWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    paths_.root = root_.path();
    MkfsOptions o;
    o.fqrn = kFqrn;
    o.garbage_collection = true;
    ASSERT_TRUE(Mkfs(paths_, o).ok());
    Configure("CVMFS_AUTO_TAG=false\n");
  }

  void Configure(const std::string& lines) {
    {
      std::ofstream conf(paths_.ServerConfigDir(kFqrn) + "/server.conf",
                         std::ios::app);
      conf << lines;
    }
    repo_.reset();
    auto repo = Repository::Open(paths_, kFqrn);
    ASSERT_TRUE(repo.ok()) << repo.status().ToString();
    repo_ = std::move(*repo);
  }

  // Stores `content` as a file's object and puts the file at `path`.
  static Status PutFile(CatalogTree* t, const std::string& path,
                        const std::string& content) {
    CVMFS_ASSIGN_OR_RETURN(
        Digest d, cvmfs::StoreObject(t->store(), content, ObjectSuffix::kNone,
                                     cvmfs::HashAlgorithm::kSha1));
    cvmfs::DirectoryEntry e;
    e.mode = 0100644;
    e.size = content.size();
    e.content_hash = d;
    return t->Put(path, e);
  }
  static Status PutDir(CatalogTree* t, const std::string& path) {
    cvmfs::DirectoryEntry e;
    e.mode = 040755;
    return t->Put(path, e);
  }

  PublishStats Publish(const std::function<Status(CatalogTree*)>& build,
                       PublishOptions options = {}) {
    auto stats = repo_->Publish(
        [&](CatalogTree* t, IngestPipeline*) { return build(t); }, options);
    EXPECT_TRUE(stats.ok()) << stats.status().ToString();
    return stats.ok() ? *stats : PublishStats{};
  }

  // A fresh scratch directory.
  std::string Scratch() {
    std::string dir = work_.Sub("scratch" + std::to_string(++scratches_));
    EXPECT_TRUE(cvmfs::MakeDirs(dir).ok());
    return dir;
  }

  std::unique_ptr<CatalogTree> Head() {
    auto manifest = repo_->CurrentManifest();
    EXPECT_TRUE(manifest.ok());
    auto tree =
        CatalogTree::Open(repo_->store(), manifest->manifest.root_catalog,
                          {cvmfs::HashAlgorithm::kSha1, 240, Scratch()});
    EXPECT_TRUE(tree.ok()) << tree.status().ToString();
    return tree.ok() ? std::move(*tree) : nullptr;
  }

  std::vector<BundleRef> Rows(const std::string& dir) {
    auto tree = Head();
    if (!tree) return {};
    auto rows = tree->Bundles(dir);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<BundleRef>{};
  }

  CheckReport Check(bool verify) {
    auto manifest = repo_->CurrentManifest();
    EXPECT_TRUE(manifest.ok());
    CheckOptions options;
    options.verify_content = verify;
    auto report = CheckRevision(repo_->store(), manifest->manifest.root_catalog,
                                options, Scratch());
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : CheckReport{};
  }

  std::string BundlePath(const BundleRef& row) {
    return root_.path() + "/srv/cvmfs/" + kFqrn + "/" +
           ObjectPath(row.hash, ObjectSuffix::kBundle);
  }

  // Three small files in /a and in /b.
  void PublishTwoDirectories() {
    Publish([](CatalogTree* t) -> Status {
      for (const char* d : {"/a", "/b"}) {
        CVMFS_RETURN_IF_ERROR(PutDir(t, d));
        for (const char* f : {"f1", "f2", "f3"})
          CVMFS_RETURN_IF_ERROR(PutFile(t, std::string(d) + "/" + f,
                                        std::string(d) + f + " content"));
      }
      return Status::Ok();
    });
  }

  cvmfs::testing::TempDir root_, work_;
  cvmfs::SystemPaths paths_;
  std::unique_ptr<Repository> repo_;
  int scratches_ = 0;
};

TEST_F(BundleWriterTest, PublishMakesTheDocumentedBundles) {
  // /d: 12 files of 100 KB random (stored a little larger), two empty
  // files with one object, a 300 KB file (too large), a symlink and a
  // subdirectory with one file (too few for a bundle).
  std::map<std::string, std::string> files;
  for (int i = 0; i < 12; ++i)
    files["r" + std::to_string(10 + i)] = RandomBytes(100000, i);
  files["e1"] = "";
  files["e2"] = "";
  files["large"] = RandomBytes(300000, 99);
  PublishStats stats = Publish([&](CatalogTree* t) -> Status {
    CVMFS_RETURN_IF_ERROR(PutDir(t, "/d"));
    CVMFS_RETURN_IF_ERROR(PutDir(t, "/d/sub"));
    CVMFS_RETURN_IF_ERROR(PutFile(t, "/d/sub/only", "alone"));
    cvmfs::DirectoryEntry link;
    link.mode = 0120777;
    link.symlink = "r10";
    CVMFS_RETURN_IF_ERROR(t->Put("/d/link", link));
    for (const auto& [name, content] : files)
      CVMFS_RETURN_IF_ERROR(PutFile(t, "/d/" + name, content));
    return Status::Ok();
  });
  EXPECT_EQ(stats.bundle_directories, 2u);  // /d and /d/sub; not /
  EXPECT_TRUE(Rows("/d/sub").empty());
  EXPECT_TRUE(Rows("").empty());

  // The plan of the format: e1 (e2 has the same object), r10..r21 (not
  // large); about 100 KB each, so e1 and r10..r19 fit in 1 MiB, r20 starts
  // a second bundle.
  std::vector<BundleRef> rows = Rows("/d");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].first_name, "e1");
  EXPECT_EQ(rows[1].first_name, "r20");
  EXPECT_EQ(rows[0].members + rows[1].members, 13u);
  EXPECT_EQ(stats.bundles_written, 2u);

  auto tree = Head();
  ASSERT_TRUE(tree);
  std::vector<std::string> names;  // member order, by the file of each digest
  for (const BundleRef& row : rows) {
    EXPECT_EQ(row.path, "/d");
    auto bytes = cvmfs::ReadFile(BundlePath(row));
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    EXPECT_EQ(bytes->size(), row.size);
    EXPECT_LE(bytes->size(), cvmfs::kBundleTargetBytes + 64 * 1024);
    Members members;
    cvmfs::BundleReader reader(cvmfs::HashAlgorithm::kSha1, &members);
    ASSERT_TRUE(reader.Feed(bytes->data(), bytes->size()).ok());
    ASSERT_TRUE(reader.Finish().ok());
    EXPECT_EQ(reader.digest(), row.hash);
    EXPECT_EQ(members.list.size(), row.members);
    for (const auto& [digest, stored] : members.list) {
      // Each member is exactly the file's stored object.
      auto object =
          repo_->store()->Get(ObjectPath(digest, ObjectSuffix::kNone));
      ASSERT_TRUE(object.ok());
      EXPECT_EQ(*object, stored);
      for (const auto& [name, content] : files) {
        auto e = tree->Lookup("/d/" + name);
        ASSERT_TRUE(e.ok() && *e);
        if ((*e)->content_hash == digest && name != "e2") names.push_back(name);
      }
    }
  }
  std::vector<std::string> want = {"e1"};
  for (int i = 0; i < 12; ++i) want.push_back("r" + std::to_string(10 + i));
  EXPECT_EQ(names, want);
  CheckReport report = Check(true);
  EXPECT_TRUE(report.problems.empty()) << report.problems.front();
}

TEST_F(BundleWriterTest, LaterPublishRewritesOnlyTheChangedDirectory) {
  PublishTwoDirectories();
  const std::vector<BundleRef> a = Rows("/a"), b = Rows("/b");
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a[0].members, 3u);

  PublishStats stats =
      Publish([](CatalogTree* t) { return PutFile(t, "/a/f2", "changed"); });
  EXPECT_EQ(stats.bundle_directories, 1u);
  EXPECT_EQ(stats.bundles_written, 1u);
  EXPECT_EQ(Rows("/b"), b);
  ASSERT_EQ(Rows("/a").size(), 1u);
  EXPECT_NE(Rows("/a")[0].hash, a[0].hash);

  // A publish that changes no file of any directory computes no bundle;
  // one that puts a file back as it was writes nothing new.
  stats = Publish([](CatalogTree* t) {
    cvmfs::DirectoryEntry e;
    e.mode = 040700;
    return t->Put("/b", e);
  });
  EXPECT_EQ(stats.bundle_directories, 0u);
  stats = Publish(
      [](CatalogTree* t) { return PutFile(t, "/a/f2", "/af2 content"); });
  EXPECT_EQ(stats.bundle_directories, 1u);
  EXPECT_EQ(stats.bundles_written, 0u);  // revision 1's bundle is stored
  EXPECT_EQ(Rows("/a"), a);
  CheckReport report = Check(true);
  EXPECT_TRUE(report.problems.empty()) << report.problems.front();
}

TEST_F(BundleWriterTest, RollbackKeepsTheRowsOfItsRevision) {
  PublishTwoDirectories();
  const std::vector<BundleRef> a = Rows("/a");
  Publish([](CatalogTree* t) { return PutFile(t, "/a/f2", "changed"); });
  ASSERT_NE(Rows("/a"), a);
  auto target = RollbackTarget(repo_.get(), "");  // trunk-previous
  ASSERT_TRUE(target.ok()) << target.status().ToString();
  auto stats = RollBack(repo_.get(), *target);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->bundle_directories, 0u);
  EXPECT_EQ(Rows("/a"), a);
  CheckReport report = Check(true);
  EXPECT_TRUE(report.problems.empty()) << report.problems.front();
}

TEST_F(BundleWriterTest, RemovedFilesAndDirectoriesLoseTheirRows) {
  PublishTwoDirectories();
  Publish([](CatalogTree* t) { return t->Remove("/a/f1"); });
  std::vector<BundleRef> a = Rows("/a");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].first_name, "f2");
  EXPECT_EQ(a[0].members, 2u);
  Publish([](CatalogTree* t) { return t->Remove("/a/f2"); });
  EXPECT_TRUE(Rows("/a").empty());  // one file left: no bundle
  Publish([](CatalogTree* t) { return t->Remove("/b"); });
  auto tree = Head();
  ASSERT_TRUE(tree);
  auto all = tree->Bundles("/b");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
  CheckReport report = Check(true);
  EXPECT_TRUE(report.problems.empty()) << report.problems.front();
}

TEST_F(BundleWriterTest, RowsMoveWithNestedCatalogs) {
  PublishTwoDirectories();
  const std::vector<BundleRef> a = Rows("/a");
  Publish([](CatalogTree* t) { return t->CreateNestedCatalog("/a"); });
  EXPECT_EQ(Rows("/a"), a);  // now from the nested catalog
  CheckReport report = Check(true);
  EXPECT_TRUE(report.problems.empty()) << report.problems.front();
  // A change inside the nested catalog, then merging it back.
  Publish([](CatalogTree* t) { return PutFile(t, "/a/f4", "four"); });
  ASSERT_EQ(Rows("/a").size(), 1u);
  EXPECT_EQ(Rows("/a")[0].members, 4u);
  const std::vector<BundleRef> a4 = Rows("/a");
  Publish([](CatalogTree* t) { return t->RemoveNestedCatalog("/a"); });
  EXPECT_EQ(Rows("/a"), a4);
  report = Check(true);
  EXPECT_TRUE(report.problems.empty()) << report.problems.front();
}

TEST_F(BundleWriterTest, DisabledDropsTheRowsOfChangedDirectoriesOnly) {
  PublishTwoDirectories();
  const std::vector<BundleRef> b = Rows("/b");
  Configure("CVMFS_BUNDLES=false\n");
  PublishStats stats = Publish([](CatalogTree* t) -> Status {
    CVMFS_RETURN_IF_ERROR(PutFile(t, "/a/f2", "changed"));
    CVMFS_RETURN_IF_ERROR(PutDir(t, "/c"));
    CVMFS_RETURN_IF_ERROR(PutFile(t, "/c/x", "x"));
    return PutFile(t, "/c/y", "y");
  });
  EXPECT_EQ(stats.bundle_directories, 0u);
  EXPECT_TRUE(Rows("/a").empty());
  EXPECT_TRUE(Rows("/c").empty());
  EXPECT_EQ(Rows("/b"), b);  // unchanged: stays

  // `cvmfs_server bundle` is refused while disabled; enabled, it gives
  // every directory its bundles, and again changes nothing.
  PublishOptions all;
  all.bundle_all_directories = true;
  auto refused = repo_->Publish(
      [](CatalogTree*, IngestPipeline*) { return Status::Ok(); }, all);
  EXPECT_EQ(refused.status().code(), Status::Code::kInvalidArgument);
  Configure("CVMFS_BUNDLES=true\n");
  stats = Publish([](CatalogTree*) { return Status::Ok(); }, all);
  EXPECT_EQ(stats.bundle_directories, 4u);  // /, /a, /b, /c
  EXPECT_EQ(stats.bundles_written, 2u);     // /a and /c
  EXPECT_EQ(Rows("/a").size(), 1u);
  EXPECT_EQ(Rows("/c").size(), 1u);
  EXPECT_EQ(Rows("/b"), b);
  stats = Publish([](CatalogTree*) { return Status::Ok(); }, all);
  EXPECT_EQ(stats.bundles_written, 0u);
  EXPECT_EQ(stats.catalogs_written, 1u);  // the root, for its revision
}

TEST_F(BundleWriterTest, GarbageCollectionKeepsTheBundlesOfKeptRevisions) {
  PublishTwoDirectories();
  const std::vector<BundleRef> old_a = Rows("/a");
  Publish([](CatalogTree* t) { return PutFile(t, "/a/f1", "new"); });
  // One more revision, so that the first is not trunk-previous (a tag).
  Publish([](CatalogTree* t) { return PutFile(t, "/c", "c"); });
  const std::vector<BundleRef> a = Rows("/a"), b = Rows("/b");
  ASSERT_EQ(old_a.size(), 1u);
  ASSERT_EQ(a.size(), 1u);
  GcOptions options;
  options.policy.keep_revisions = 0;
  std::vector<std::string> swept;
  options.on_sweep = [&](const std::string& name, uint64_t) {
    swept.push_back(name);
  };
  auto report = CollectGarbage(repo_.get(), options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const std::string old_name = ObjectPath(old_a[0].hash, ObjectSuffix::kBundle);
  EXPECT_NE(std::find(swept.begin(), swept.end(), old_name), swept.end());
  EXPECT_FALSE(repo_->store()->Exists(old_name));
  EXPECT_TRUE(
      repo_->store()->Exists(ObjectPath(a[0].hash, ObjectSuffix::kBundle)));
  EXPECT_TRUE(
      repo_->store()->Exists(ObjectPath(b[0].hash, ObjectSuffix::kBundle)));
  CheckReport check = Check(true);
  EXPECT_TRUE(check.problems.empty()) << check.problems.front();
}

TEST_F(BundleWriterTest, CheckFindsMissingAndCorruptedBundles) {
  PublishTwoDirectories();
  const BundleRef a = Rows("/a").at(0), b = Rows("/b").at(0);
  EXPECT_TRUE(Check(false).problems.empty());

  // One byte of a member changed: the header still parses, only the hashes
  // (check with content verification) tell.
  auto bytes = cvmfs::ReadFile(BundlePath(a));
  ASSERT_TRUE(bytes.ok());
  std::string bad = *bytes;
  bad.back() ^= 1;
  ASSERT_TRUE(cvmfs::WriteFileAtomic(BundlePath(a), bad, 0644).ok());
  EXPECT_TRUE(Check(false).problems.empty());
  std::vector<std::string> problems = Check(true).problems;
  ASSERT_EQ(problems.size(), 2u);  // the bundle and its last member
  EXPECT_TRUE(Mentions(problems, "hash mismatch"));
  EXPECT_TRUE(Mentions(problems, "does not match its hash"));

  // Truncated: its size differs from the row.
  bad = bytes->substr(0, bytes->size() - 1);
  ASSERT_TRUE(cvmfs::WriteFileAtomic(BundlePath(a), bad, 0644).ok());
  problems = Check(false).problems;
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("its row says"), std::string::npos) << problems[0];

  // A header naming an object of no file of the directory (b's bundle
  // copied over a's, with a's size so that only the header tells).
  auto other = cvmfs::ReadFile(BundlePath(b));
  ASSERT_TRUE(other.ok());
  ASSERT_EQ(other->size(), bytes->size());
  ASSERT_TRUE(cvmfs::WriteFileAtomic(BundlePath(a), *other, 0644).ok());
  problems = Check(false).problems;
  EXPECT_TRUE(Mentions(problems, "the object of no file of its directory"));
  EXPECT_TRUE(Mentions(problems, "its first member is not the object of"));

  // Missing.
  ASSERT_TRUE(
      repo_->store()->Remove(ObjectPath(a.hash, ObjectSuffix::kBundle)).ok());
  problems = Check(false).problems;
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].rfind("missing data/", 0), 0u) << problems[0];
}

}  // namespace
}  // namespace publisher
