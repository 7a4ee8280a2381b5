// Garbage collection on repositories built with the publisher library: what
// stays on disk is exactly what the kept revisions and the tags reference,
// computed here independently by walking their catalogs.
#include "publisher/gc.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <random>
#include <set>

#include "cvmfs/catalog/reflog_db.h"
#include "cvmfs/catalog_walker.h"
#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "publisher/check.h"
#include "publisher/repository.h"
#include "publisher/tar_ingest.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::ObjectPath;
using cvmfs::ObjectSuffix;
using cvmfs::testing::TempDir;
using Names = std::set<std::string>;

constexpr const char* kFqrn = "gc.example.org";

void WriteFile(const std::string& path, const std::string& data) {
  ASSERT_TRUE(cvmfs::MakeDirs(path.substr(0, path.rfind('/'))).ok()) << path;
  ASSERT_TRUE(cvmfs::WriteFileAtomic(path, data, 0644).ok()) << path;
}

std::string RandomBytes(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// Object names a revision references (its bundles too), by a plain walk of
// all its catalogs.
Names ReferencedBy(cvmfs::ObjectStore* store, const cvmfs::Digest& root,
                   const std::string& tmp) {
  Names names;
  cvmfs::CatalogWalker walker(store, tmp);
  cvmfs::Status st = walker.Walk(root, [&](const cvmfs::CatalogVisit& v) {
    names.insert(ObjectPath(v.hash, ObjectSuffix::kCatalog));
    auto bundles = v.catalog->AllBundles();
    EXPECT_TRUE(bundles.ok());
    if (bundles.ok())
      for (const cvmfs::BundleRef& b : *bundles)
        names.insert(ObjectPath(b.hash, ObjectSuffix::kBundle));
    return cvmfs::CatalogWalker::ForEachPath(
        v.catalog,
        [&](const std::string& path, const cvmfs::DirectoryEntry& e) {
          if (!e.IsRegular()) return cvmfs::Status::Ok();
          if (e.content_hash)
            names.insert(ObjectPath(*e.content_hash, ObjectSuffix::kNone));
          auto chunks = v.catalog->Chunks(path);
          EXPECT_TRUE(chunks.ok());
          for (auto& c : *chunks)
            names.insert(ObjectPath(c.hash, ObjectSuffix::kPartial));
          return cvmfs::Status::Ok();
        });
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return names;
}

class GcTest : public ::testing::Test {
 protected:
  void SetUp() override { paths_.root = root_.path(); }

  void MakeRepository(bool garbage_collectable) {
    MkfsOptions o;
    o.fqrn = kFqrn;
    o.garbage_collection = garbage_collectable;
    ASSERT_TRUE(Mkfs(paths_, o).ok());
    // Automatic tags would pin every revision.
    auto config = ServerConfig::Load(paths_, kFqrn);
    ASSERT_TRUE(config.ok());
    auto kv = KeyValueFile::Load(config->ConfigFile(paths_));
    ASSERT_TRUE(kv.ok());
    kv->Set("CVMFS_AUTO_TAG", "false");
    ASSERT_TRUE(
        cvmfs::WriteFileAtomic(config->ConfigFile(paths_), kv->Serialize())
            .ok());
  }

  std::unique_ptr<Repository> Open() {
    auto repo = Repository::Open(paths_, kFqrn);
    EXPECT_TRUE(repo.ok()) << repo.status().ToString();
    return std::move(*repo);
  }

  // Publishes the tree under src_/<dir> into the root, removing `deletions`
  // first; returns the new root catalog. Only catalogs on the paths of the
  // tree's entries are rewritten.
  cvmfs::Digest Publish(const std::string& dir,
                        const std::vector<std::string>& deletions = {},
                        const std::string& tag = "") {
    std::string tar = work_.Sub("in.tar");
    EXPECT_EQ(
        std::system(("tar -cf " + tar + " -C " + src_.Sub(dir) + " .").c_str()),
        0);
    auto repo = Open();
    TarIngestOptions t;
    t.tarball = tar;
    t.delete_paths = deletions;
    PublishOptions options;
    options.tag_name = tag;
    auto stats =
        repo->Publish([&](CatalogTree* tree,
                          IngestPipeline* p) { return IngestTar(t, tree, p); },
                      options);
    EXPECT_TRUE(stats.ok()) << stats.status().ToString();
    return stats.ok() ? stats->root_hash : cvmfs::Digest{};
  }

  // Revisions 2 to 5 after mkfs; revision 3 is tagged v1. Returns their
  // roots. Nested catalogs /n and /m; revision 3 changes only the root
  // catalog, revision 4 also /n.
  std::vector<cvmfs::Digest> PublishHistory() {
    const std::string s = src_.path();
    std::vector<cvmfs::Digest> roots;
    WriteFile(s + "/r2/a", "a, first version");
    WriteFile(s + "/r2/big", RandomBytes(9 << 20, 1));  // chunked
    WriteFile(s + "/r2/n/.cvmfscatalog", "");
    WriteFile(s + "/r2/n/x", "x in a nested catalog");
    WriteFile(s + "/r2/m/.cvmfscatalog", "");
    WriteFile(s + "/r2/m/y", "y in another nested catalog");
    roots.push_back(Publish("r2"));
    WriteFile(s + "/r3/a", "a, second version");
    WriteFile(s + "/r3/b", "b");
    roots.push_back(Publish("r3", {}, "v1"));
    WriteFile(s + "/r4/n/x", "x, changed");
    roots.push_back(Publish("r4", {"big"}));
    WriteFile(s + "/r5/a", "a, third version");
    WriteFile(s + "/r5/c", "c");
    roots.push_back(Publish("r5"));
    return roots;
  }

  std::string Storage() const { return root_.path() + "/srv/cvmfs/" + kFqrn; }

  Names OnDisk() {
    auto repo = Open();
    auto names = repo->store()->ListObjects();
    EXPECT_TRUE(names.ok());
    return Names(names->begin(), names->end());
  }

  // What the revisions with these roots and the current manifest reference.
  Names Expected(const std::vector<cvmfs::Digest>& roots) {
    auto repo = Open();
    Names expected;
    for (const auto& root : roots) {
      Names r = ReferencedBy(repo->store(), root, work_.path());
      expected.insert(r.begin(), r.end());
    }
    auto m = repo->CurrentManifest();
    EXPECT_TRUE(m.ok());
    expected.insert(
        ObjectPath(*m->manifest.certificate, ObjectSuffix::kCertificate));
    expected.insert(ObjectPath(*m->manifest.history, ObjectSuffix::kHistory));
    expected.insert(ObjectPath(*m->manifest.metainfo, ObjectSuffix::kMetainfo));
    return expected;
  }

  cvmfs::Result<GcReport> Collect(GcOptions options, Names* swept = nullptr) {
    options.on_sweep = [swept](const std::string& name, uint64_t) {
      if (swept) swept->insert(name);
    };
    auto repo = Open();
    return CollectGarbage(repo.get(), options);
  }

  std::vector<std::pair<cvmfs::Digest, int>> ReflogEntries() {
    auto bytes = cvmfs::ReadFile(Storage() + "/.cvmfsreflog");
    EXPECT_TRUE(bytes.ok());
    std::string file = work_.Sub("reflog.copy.db");
    (void)::unlink(file.c_str());
    EXPECT_TRUE(cvmfs::WriteFileAtomic(file, *bytes).ok());
    auto reflog = cvmfs::ReflogDb::OpenReadOnly(file);
    EXPECT_TRUE(reflog.ok());
    auto list = (*reflog)->List();
    EXPECT_TRUE(list.ok());
    return *list;
  }

  static GcOptions KeepRevisions(uint64_t n) {
    GcOptions o;
    o.policy.keep_revisions = n;
    return o;
  }

  TempDir root_, work_, src_;
  cvmfs::SystemPaths paths_;
};

TEST_F(GcTest, KeepsExactlyWhatKeptRevisionsAndTagsReference) {
  MakeRepository(true);
  auto roots = PublishHistory();
  ASSERT_EQ(roots.size(), 4u);
  const Names before = OnDisk();

  // -r 0: the current revision (5); trunk-previous (4) and v1 (3) are tags.
  Names swept;
  auto report = Collect(KeepRevisions(0), &swept);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const std::vector<cvmfs::Digest> kept_roots = {roots[3], roots[2], roots[1]};
  const Names after = OnDisk();
  EXPECT_EQ(after, Expected(kept_roots));

  Names before_minus_swept;
  for (const auto& n : before)
    if (!swept.count(n)) before_minus_swept.insert(n);
  EXPECT_EQ(before_minus_swept, after);
  EXPECT_EQ(report->objects_deleted, swept.size());
  EXPECT_EQ(report->objects_scanned, before.size());
  // Revision 2's root catalog and its version of /a are gone; the chunks of
  // /big (deleted in 4) survive through the tag v1.
  EXPECT_EQ(after.count(ObjectPath(roots[0], ObjectSuffix::kCatalog)), 0u);
  EXPECT_TRUE(swept.count(ObjectPath(roots[0], ObjectSuffix::kCatalog)));

  ASSERT_EQ(report->kept.size(), 3u);
  EXPECT_EQ(report->kept[0].revision, 5u);
  EXPECT_EQ(report->kept[0].reason, "current, tag trunk");
  std::set<uint64_t> kept_revisions;
  for (const auto& k : report->kept) kept_revisions.insert(k.revision);
  EXPECT_EQ(kept_revisions, (std::set<uint64_t>{3, 4, 5}));

  // Every kept revision still checks out completely, content included.
  auto repo = Open();
  for (const auto& root : kept_roots) {
    auto check = CheckRevision(repo->store(), root, true, work_.path());
    ASSERT_TRUE(check.ok());
    EXPECT_TRUE(check->problems.empty()) << check->problems.front();
  }

  // The reflog names only objects that exist, and no longer revision 2.
  auto refs = ReflogEntries();
  // Gone: the root catalogs of revisions 1 and 2, the histories of 1 to 4.
  EXPECT_EQ(report->reflog_entries_removed, 6u);
  const ObjectSuffix kSuffixOfType[] = {
      ObjectSuffix::kCatalog, ObjectSuffix::kCertificate,
      ObjectSuffix::kHistory, ObjectSuffix::kMetainfo};
  for (const auto& [digest, type] : refs) {
    EXPECT_NE(digest, roots[0]);
    ASSERT_TRUE(type >= 0 && type < 4) << type;
    EXPECT_TRUE(after.count(ObjectPath(digest, kSuffixOfType[type])))
        << digest.ToString();
  }
  EXPECT_EQ(refs.size(), 3u + 3u)
      << "roots of 3, 4, 5; certificate, history, metainfo";

  // The manifest names the pruned reflog (checkers compare the two), and
  // still the same revision.
  auto manifest = repo->CurrentManifest();
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
  ASSERT_TRUE(manifest->manifest.reflog.has_value());
  auto reflog_bytes = cvmfs::ReadFile(Storage() + "/.cvmfsreflog");
  ASSERT_TRUE(reflog_bytes.ok());
  EXPECT_EQ(
      *manifest->manifest.reflog,
      cvmfs::HashString(manifest->manifest.reflog->algorithm, *reflog_bytes));
  EXPECT_EQ(manifest->manifest.revision, 5u);

  // A second collection finds nothing more to delete.
  auto again = Collect(KeepRevisions(0));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->objects_deleted, 0u);
  EXPECT_EQ(again->reflog_entries_removed, 0u);
}

// A Stratum 1 replica: a storage without Repository around it, holding
// only the revisions it replicated (here not revision 2's root catalog).
TEST_F(GcTest, ReplicaStorageKeepsExactlyWhatItsRevisionsReference) {
  MakeRepository(true);
  auto roots = PublishHistory();
  const std::string replica = work_.Sub("replica");
  ASSERT_EQ(std::system(("cp -a " + Storage() + " " + replica).c_str()), 0);
  cvmfs::LocalObjectStore store(replica);
  ASSERT_TRUE(store.Remove(ObjectPath(roots[0], ObjectSuffix::kCatalog)).ok());
  const std::string stray =
      ObjectPath(cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "stray"),
                 ObjectSuffix::kNone);
  ASSERT_TRUE(store.Put(stray, "stray").ok());
  auto manifest = cvmfs::Manifest::Parse(*store.Get(".cvmfspublished"));
  ASSERT_TRUE(manifest.ok());
  TempDir tmp;
  Names swept;
  GcOptions o;
  o.policy.keep_since = 0;  // every stored revision
  o.on_sweep = [&](const std::string& n, uint64_t) { swept.insert(n); };
  auto report =
      CollectStorageGarbage({&store, manifest->manifest, tmp.path()}, o);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  // Revisions 3 to 5 (the chain ends where the replica has no catalog).
  auto listed = store.ListObjects();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(Names(listed->begin(), listed->end()),
            Expected({roots[3], roots[2], roots[1]}));
  EXPECT_TRUE(swept.count(stray));
  // The Stratum 0 itself was not touched.
  EXPECT_EQ(OnDisk().count(ObjectPath(roots[0], ObjectSuffix::kCatalog)), 1u);
}

TEST_F(GcTest, DryRunDeletesNothing) {
  MakeRepository(true);
  PublishHistory();
  const Names before = OnDisk();
  auto reflog_before = cvmfs::ReadFile(Storage() + "/.cvmfsreflog");
  GcOptions o = KeepRevisions(0);
  o.dry_run = true;
  Names would;
  auto report = Collect(o, &would);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_GT(report->objects_deleted, 0u);
  EXPECT_EQ(would.size(), report->objects_deleted);
  EXPECT_EQ(OnDisk(), before);
  EXPECT_EQ(*cvmfs::ReadFile(Storage() + "/.cvmfsreflog"), *reflog_before);

  // The real run deletes what the dry run announced.
  Names swept;
  auto real = Collect(KeepRevisions(0), &swept);
  ASSERT_TRUE(real.ok());
  EXPECT_EQ(swept, would);
}

// The progress counters end in the last phase with exactly the deletion's
// numbers.
TEST_F(GcTest, ProgressEndsWithTheObjectsAndBytesDeleted) {
  MakeRepository(true);
  PublishHistory();
  cvmfs::ProgressCounters progress;
  GcOptions o = KeepRevisions(0);
  o.progress = &progress;
  auto report = Collect(o);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const cvmfs::ProgressCounters::Snapshot s = progress.Read();
  EXPECT_STREQ(s.unit, "objects deleted");
  EXPECT_GT(s.done, 0u);
  EXPECT_EQ(s.done, report->objects_deleted);
  EXPECT_EQ(s.total, report->objects_deleted);
  EXPECT_EQ(s.bytes, report->bytes_deleted);
  EXPECT_EQ(s.phase, 3u);  // marked, scanned, deleted
}

TEST_F(GcTest, RefusesRepositoriesThatAreNotGarbageCollectable) {
  MakeRepository(false);
  PublishHistory();
  const Names before = OnDisk();
  auto report = Collect(KeepRevisions(0));
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), cvmfs::Status::Code::kInvalidArgument);
  EXPECT_NE(report.status().ToString().find("not garbage-collectable"),
            std::string::npos)
      << report.status().ToString();
  EXPECT_EQ(OnDisk(), before);
}

TEST_F(GcTest, RevisionCountAndTimePolicies) {
  MakeRepository(true);
  auto roots = PublishHistory();
  auto kept = [&](const GcOptions& o) {
    GcOptions dry = o;
    dry.dry_run = true;
    auto report = Collect(dry);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    std::set<uint64_t> revisions;
    for (const auto& k : report->kept) revisions.insert(k.revision);
    return revisions;
  };
  using Revs = std::set<uint64_t>;
  // Tags: trunk (5), trunk-previous (4), v1 (3).
  EXPECT_EQ(kept(KeepRevisions(0)), (Revs{3, 4, 5}));
  EXPECT_EQ(kept(KeepRevisions(3)), (Revs{2, 3, 4, 5}));
  EXPECT_EQ(kept(KeepRevisions(100)), (Revs{1, 2, 3, 4, 5}));
  GcOptions since;
  since.policy.keep_since = 0;  // everything was current after 1970
  EXPECT_EQ(kept(since), (Revs{1, 2, 3, 4, 5}));
  since.policy.keep_since = ::time(nullptr) + 3600;  // only what is current
  EXPECT_EQ(kept(since), (Revs{3, 4, 5}));
  GcOptions by_default;  // 3 days: everything here is younger
  EXPECT_EQ(kept(by_default), (Revs{1, 2, 3, 4, 5}));
  GcOptions both = KeepRevisions(1);
  both.policy.keep_since = 0;
  EXPECT_EQ(Collect(both).status().code(),
            cvmfs::Status::Code::kInvalidArgument);

  // Removing the tags lets revision 3 and 4 go.
  auto repo = Open();
  auto history = repo->OpenHistory(true);
  ASSERT_TRUE(history.ok());
  ASSERT_TRUE((*history)->Remove("v1").ok());
  ASSERT_TRUE((*history)->Remove("trunk-previous").ok());
  ASSERT_TRUE(repo->CommitHistory(std::move(*history)).ok());
  repo.reset();
  auto report = Collect(KeepRevisions(0));
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->kept.size(), 1u);
  EXPECT_EQ(OnDisk(), Expected({roots[3]}));
}

TEST_F(GcTest, RemovesLeftoversOfKilledPublishesAndLeavesForeignFiles) {
  MakeRepository(true);
  PublishHistory();
  auto repo = Open();
  const std::string orphan =
      cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "orphan").ToString();
  const std::string orphan_name =
      "data/" + orphan.substr(0, 2) + "/" + orphan.substr(2);
  ASSERT_TRUE(repo->store()->Put(orphan_name, "orphan").ok());
  WriteFile(Storage() + "/data/00/README", "not an object");
  repo.reset();
  Names swept;
  auto report = Collect(KeepRevisions(0), &swept);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(swept.count(orphan_name));
  EXPECT_TRUE(cvmfs::PathExists(Storage() + "/data/00/README"));
  ASSERT_EQ(report->warnings.size(), 1u);
  EXPECT_NE(report->warnings[0].find("data/00/README"), std::string::npos);
}

TEST_F(GcTest, WaitsForPublishesAndTransactions) {
  MakeRepository(true);
  PublishHistory();
  const Names before = OnDisk();
  const std::string spool = ServerConfig::Load(paths_, kFqrn)->spool_dir;
  {
    cvmfs::UniqueFd fd(::open((spool + "/is_publishing.lock").c_str(),
                              O_RDWR | O_CREAT, 0644));
    ASSERT_TRUE(fd.valid());
    ASSERT_EQ(::flock(fd.get(), LOCK_EX), 0);
    auto report = Collect(KeepRevisions(0));
    EXPECT_EQ(report.status().code(), cvmfs::Status::Code::kBusy);
  }
  WriteFile(spool + "/in_transaction", "");
  auto report = Collect(KeepRevisions(0));
  EXPECT_EQ(report.status().code(), cvmfs::Status::Code::kBusy);
  EXPECT_NE(report.status().ToString().find("transaction"), std::string::npos);
  EXPECT_EQ(OnDisk(), before);
}

TEST_F(GcTest, SharedNestedCatalogsAreWalkedOnce) {
  MakeRepository(true);
  auto roots = PublishHistory();
  auto repo = Open();
  // Revisions 2 and 3 differ only in the root catalog: /n and /m are shared.
  ReachableObjects marks(repo->store(), work_.path());
  ASSERT_TRUE(marks.MarkRevision(roots[0]).ok());
  EXPECT_EQ(marks.catalogs_walked(), 3u);
  ASSERT_TRUE(marks.MarkRevision(roots[1]).ok());
  EXPECT_EQ(marks.catalogs_walked(), 4u);
  // Marking the same revision again walks nothing and still reports it.
  auto info = marks.MarkRevision(roots[1]);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->revision, 3u);
  EXPECT_EQ(info->previous_revision, roots[0]);
  EXPECT_EQ(marks.catalogs_walked(), 4u);
  EXPECT_EQ(
      marks.MarkRevision(cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "none"))
          .status()
          .code(),
      cvmfs::Status::Code::kNotFound);
}

TEST(ParseGcTimeTest, AcceptsTheFormsAdministratorsUse) {
  const int64_t now = 1700000000;
  EXPECT_EQ(*ParseGcTime("1690000000", now), 1690000000);
  EXPECT_EQ(*ParseGcTime("@1690000000", now), 1690000000);
  EXPECT_EQ(*ParseGcTime("3 days ago", now), now - 3 * 86400);
  EXPECT_EQ(*ParseGcTime("1 day ago", now), now - 86400);
  EXPECT_EQ(*ParseGcTime("2 weeks ago", now), now - 14 * 86400);
  EXPECT_EQ(*ParseGcTime(" 90 minutes ago ", now), now - 5400);
  struct tm tm = {};
  tm.tm_year = 2024 - 1900;
  tm.tm_mon = 2;
  tm.tm_mday = 5;
  tm.tm_isdst = -1;
  const int64_t day = ::mktime(&tm);
  EXPECT_EQ(*ParseGcTime("2024-03-05", now), day);
  EXPECT_EQ(*ParseGcTime("2024-03-05 13:45", now), day + 13 * 3600 + 45 * 60);
  EXPECT_EQ(*ParseGcTime("2024-03-05T13:45:10", now),
            day + 13 * 3600 + 45 * 60 + 10);
  for (const char* bad : {"", "yesterday", "2024-13-01", "2024-03-05 25:00",
                          "3 fortnights ago", "2024-03-05 13:45x", "12ab"}) {
    auto r = ParseGcTime(bad, now);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().ToString().find(bad), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace publisher
