#include "cvmfs/catalog/history_db.h"

#include <gtest/gtest.h>

#include "cvmfs/catalog/catalog_test_util.h"

namespace cvmfs {
namespace {

using catalog_test::DumpTable;
using catalog_test::FixtureRepo;

std::vector<std::string> Schema(const std::string& file) {
  return DumpTable(
             file,
             "SELECT type || '|' || name || '|' || tbl_name || '|' || rootpage "
             "|| '|' "
             "|| COALESCE(sql, '<none>') FROM sqlite_master ORDER BY rowid;")
      .value();
}

// Unpacks the history object named by the fixture's manifest.
std::string UnpackHistory(const std::string& name,
                          const testing::TempDir& tmp) {
  std::string repo = FixtureRepo(name);
  auto manifest = catalog_test::ReadManifest(repo);
  EXPECT_TRUE(manifest.ok());
  std::string file = tmp.Sub(name + "-history.db");
  Status s =
      catalog_test::UnpackObject(repo, Digest::Parse((*manifest)['H']).value(),
                                 ObjectSuffix::kHistory, file);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return file;
}

TEST(HistoryDbTest, ReadsSha1FixtureTags) {
  testing::TempDir tmp;
  auto history = HistoryDb::OpenReadOnly(UnpackHistory("sha1-zlib", tmp));
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  HistoryDb* h = history->get();
  EXPECT_EQ(h->fqrn(), "sha1-zlib.example.org");
  EXPECT_EQ(h->GetProperty("schema").value(), "1.0");
  EXPECT_EQ(h->GetProperty("schema_revision").value(), "3");
  EXPECT_EQ(h->GetPreviousRevision().value()->ToString(),
            "91febe0f2bdfd27574715901b3ac0a238bf0f530");

  auto v1 = h->Get("v1");
  ASSERT_TRUE(v1.ok() && v1->has_value());
  EXPECT_EQ((*v1)->root_hash.ToString(),
            "9e318952e9171de82b515259fad9ef9af2430503");
  EXPECT_EQ((*v1)->revision, 2u);
  EXPECT_EQ((*v1)->timestamp, 1795356100);
  EXPECT_EQ((*v1)->description, "first revision");
  EXPECT_EQ((*v1)->size, 503808u);
  EXPECT_EQ((*v1)->branch, "");

  auto trunk = h->Get(kTagTrunk);
  ASSERT_TRUE(trunk.ok() && trunk->has_value());
  EXPECT_EQ((*trunk)->root_hash.ToString(),
            "68371afd82205255c360019d2471c96cd7125cad");
  EXPECT_EQ((*trunk)->revision, 3u);
  EXPECT_EQ((*trunk)->description, "current HEAD");
  // trunk names the manifest's root catalog.
  auto manifest = catalog_test::ReadManifest(FixtureRepo("sha1-zlib")).value();
  EXPECT_EQ((*trunk)->root_hash.ToString(), manifest['C']);
  auto previous = h->Get(kTagTrunkPrevious);
  ASSERT_TRUE(previous.ok() && previous->has_value());
  EXPECT_EQ((*previous)->revision, 2u);
  EXPECT_EQ((*previous)->description, "default undo target");
  EXPECT_FALSE(h->Get("nope").value().has_value());

  auto list = h->List();
  ASSERT_TRUE(list.ok());
  std::vector<std::string> names;
  for (const Tag& t : *list) names.push_back(t.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"trunk", "v2", "trunk-previous", "v1",
                                      "generic-2026-11-22T14:01:38Z"}));
  auto generic = h->GetByRevision(1);
  ASSERT_TRUE(generic.ok() && generic->has_value());
  EXPECT_EQ((*generic)->name, "generic-2026-11-22T14:01:38Z");
  EXPECT_EQ((*generic)->size, 57344u);
  EXPECT_EQ(h->GetByRevision(3).value()->name, "trunk");
  EXPECT_FALSE(h->GetByRevision(99).value().has_value());
  // By date: the newest trunk revision published at or before it.
  EXPECT_EQ(h->GetByDate(1795356100).value()->revision, 2u);
  EXPECT_EQ(h->GetByDate(1795356100).value()->root_hash, (*v1)->root_hash);
  EXPECT_EQ(h->GetByDate(1795356099).value()->revision, 1u);
  EXPECT_EQ(h->GetByDate(1895356099).value()->revision, 3u);
  EXPECT_FALSE(h->GetByDate(1795356097).value().has_value());

  EXPECT_FALSE(h->Insert(**v1).ok());  // read-only
}

TEST(HistoryDbTest, ReadsShake128FixtureTags) {
  testing::TempDir tmp;
  auto history = HistoryDb::OpenReadOnly(UnpackHistory("shake128-none", tmp));
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  auto trunk = (*history)->Get("trunk");
  ASSERT_TRUE(trunk.ok() && trunk->has_value());
  EXPECT_EQ((*trunk)->root_hash.algorithm, HashAlgorithm::kShake128);
  EXPECT_EQ((*trunk)->root_hash.ToString(),
            "7f94a01c31742c961ab142e131f8324fe9c0aacf-shake128");
  EXPECT_EQ((*history)->List().value().size(), 4u);
}

TEST(HistoryDbTest, CreateMatchesFixtureAndRoundTrips) {
  testing::TempDir tmp;
  std::string fixture = UnpackHistory("sha1-zlib", tmp);
  std::string file = tmp.Sub("new-history.db");
  {
    auto history = HistoryDb::Create(file, "test.example.org");
    ASSERT_TRUE(history.ok()) << history.status().ToString();
    EXPECT_EQ((*history)->fqrn(), "test.example.org");
  }
  EXPECT_EQ(Schema(file), Schema(fixture));
  EXPECT_EQ(
      DumpTable(
          file,
          "SELECT quote(branch) || quote(parent) || initial_revision FROM "
          "branches;")
          .value(),
      (std::vector<std::string>{"''NULL0"}));
  EXPECT_EQ(
      DumpTable(file,
                "SELECT key || '=' || value FROM properties ORDER BY rowid;")
          .value(),
      (std::vector<std::string>{"schema=1.0", "schema_revision=3",
                                "fqrn=test.example.org"}));
  EXPECT_EQ(HistoryDb::Create(file, "x").status().code(),
            Status::Code::kAlreadyExists);

  Digest a = Digest::Parse("9e318952e9171de82b515259fad9ef9af2430503").value();
  Digest b = Digest::Parse("7f94a01c31742c961ab142e131f8324fe9c0aacf-shake128")
                 .value();
  Tag v1{"v1", a, 2, 1795356100, "first revision", 503808, ""};
  Tag trunk{"trunk", b, 3, 1795356101, "current HEAD", 503808, ""};
  {
    auto history = HistoryDb::OpenForWriting(file);
    ASSERT_TRUE(history.ok()) << history.status().ToString();
    ASSERT_TRUE((*history)->Insert(v1).ok());
    ASSERT_TRUE((*history)->Insert(trunk).ok());
    Tag replaced = v1;
    replaced.description = "replaced";
    ASSERT_TRUE((*history)->Insert(replaced).ok());
    v1 = replaced;
    Tag gone{"gone", a, 1, 1, "", 1, ""};
    ASSERT_TRUE((*history)->Insert(gone).ok());
    ASSERT_TRUE((*history)->Remove("gone").ok());
    EXPECT_EQ((*history)->Remove("gone").code(), Status::Code::kNotFound);
    ASSERT_TRUE((*history)->SetPreviousRevision(a).ok());
    ASSERT_TRUE((*history)->Close().ok());
    EXPECT_FALSE((*history)->Get("v1").ok());
  }
  auto history = HistoryDb::OpenReadOnly(file);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ((*history)->Get("v1").value().value(), v1);
  EXPECT_EQ((*history)->Get("trunk").value().value(), trunk);
  auto list = (*history)->List();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0], trunk);
  EXPECT_EQ((*list)[1], v1);
  EXPECT_EQ((*history)->GetPreviousRevision().value(), a);
  // Stored as CVMFS stores them: hash text with algorithm id, channel 0.
  EXPECT_EQ(
      DumpTable(
          file,
          "SELECT hash || '|' || channel || '|' || typeof(size) FROM tags "
          "WHERE name = 'trunk';")
          .value(),
      (std::vector<std::string>{b.ToString() + "|0|integer"}));
}

TEST(HistoryDbTest, RejectsOtherFiles) {
  testing::TempDir tmp;
  EXPECT_FALSE(HistoryDb::OpenReadOnly(tmp.Sub("missing")).ok());
  ASSERT_TRUE(WriteFileAtomic(tmp.Sub("junk"), std::string(1000, 'j')).ok());
  EXPECT_FALSE(HistoryDb::OpenReadOnly(tmp.Sub("junk")).ok());
}

}  // namespace
}  // namespace cvmfs
