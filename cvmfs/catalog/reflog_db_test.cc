#include "cvmfs/catalog/reflog_db.h"

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

std::string FixtureReflog(const std::string& name) {
  return FixtureRepo(name) + "/.cvmfsreflog";
}

TEST(ReflogDbTest, ReadsSha1Fixture) {
  auto reflog = ReflogDb::OpenReadOnly(FixtureReflog("sha1-zlib"));
  ASSERT_TRUE(reflog.ok()) << reflog.status().ToString();
  EXPECT_EQ((*reflog)->fqrn(), "sha1-zlib.example.org");
  auto refs = (*reflog)->List();
  ASSERT_TRUE(refs.ok()) << refs.status().ToString();
  std::vector<std::pair<std::string, int>> got;
  for (const auto& [hash, type] : *refs)
    got.emplace_back(hash.ToString(), type);
  std::vector<std::pair<std::string, int>> expected = {
      {"91ae420f82288ac9be26069c1bf56d223840c8b4", 0},
      {"c27331db8c3050fb7555c5e5d44331404399ca5e", 0},
      {"1aebab02b07474581da474ab0782d9ea3057140d", 2},
      {"9e318952e9171de82b515259fad9ef9af2430503", 0},
      {"91febe0f2bdfd27574715901b3ac0a238bf0f530", 2},
      {"68371afd82205255c360019d2471c96cd7125cad", 0},
      {"3c36e7d6499fe18e572a315c64ebab76d49a1487", 1},
      {"833591903600851fd0389cecdbdc1d3ae06d8392", 2},
      {"85e4f386da0d5d77c7f66cf2f58e10951f24b653", 3},
  };
  EXPECT_EQ(got, expected);

  // The manifest's C, X, H and M objects are all referenced.
  auto manifest = catalog_test::ReadManifest(FixtureRepo("sha1-zlib")).value();
  for (char key : {'C', 'X', 'H', 'M'}) {
    auto contains = (*reflog)->Contains(Digest::Parse(manifest[key]).value());
    ASSERT_TRUE(contains.ok());
    EXPECT_TRUE(*contains) << key;
  }
  auto ref = (*reflog)->Get(Digest::Parse(manifest['C']).value());
  ASSERT_TRUE(ref.ok() && ref->has_value());
  EXPECT_EQ((*ref)->first, ReflogType::kCatalog);
  EXPECT_EQ((*ref)->second, 1795356101);
  auto old_catalogs =
      (*reflog)->ListOlderThan(ReflogType::kCatalog, 1795356100);
  ASSERT_TRUE(old_catalogs.ok());
  EXPECT_EQ(old_catalogs->size(), 2u);
  EXPECT_FALSE((*reflog)->AddCatalog(Digest(), 1).ok());  // read-only
}

TEST(ReflogDbTest, ReadsShake128Fixture) {
  auto reflog = ReflogDb::OpenReadOnly(FixtureReflog("shake128-none"));
  ASSERT_TRUE(reflog.ok()) << reflog.status().ToString();
  auto refs = (*reflog)->List();
  ASSERT_TRUE(refs.ok());
  ASSERT_EQ(refs->size(), 7u);
  for (const auto& [hash, type] : *refs)
    EXPECT_EQ(hash.algorithm, HashAlgorithm::kShake128);
}

TEST(ReflogDbTest, CreateMatchesFixtureAndRoundTrips) {
  testing::TempDir tmp;
  std::string file = tmp.Sub("reflog.db");
  {
    auto reflog = ReflogDb::Create(file, "test.example.org");
    ASSERT_TRUE(reflog.ok()) << reflog.status().ToString();
  }
  EXPECT_EQ(Schema(file), Schema(FixtureReflog("sha1-zlib")));
  EXPECT_EQ(
      DumpTable(file,
                "SELECT key || '=' || value FROM properties ORDER BY rowid;")
          .value(),
      (std::vector<std::string>{"schema=1.0", "schema_revision=0",
                                "fqrn=test.example.org"}));
  EXPECT_EQ(ReflogDb::Create(file, "x").status().code(),
            Status::Code::kAlreadyExists);

  Digest catalog =
      Digest::Parse("68371afd82205255c360019d2471c96cd7125cad").value();
  Digest cert =
      Digest::Parse("1112f3d7c016c572075fe4de8f43f0244f693659-shake128")
          .value();
  Digest history =
      Digest::Parse("833591903600851fd0389cecdbdc1d3ae06d8392").value();
  Digest meta =
      Digest::Parse("85e4f386da0d5d77c7f66cf2f58e10951f24b653").value();
  {
    auto reflog = ReflogDb::OpenForWriting(file);
    ASSERT_TRUE(reflog.ok()) << reflog.status().ToString();
    ASSERT_TRUE((*reflog)->AddCatalog(catalog, 100).ok());
    ASSERT_TRUE((*reflog)->AddCertificate(cert, 101).ok());
    ASSERT_TRUE((*reflog)->AddHistory(history, 102).ok());
    ASSERT_TRUE((*reflog)->AddMetainfo(meta, 103).ok());
    ASSERT_TRUE((*reflog)->AddCatalog(catalog, 104).ok());  // replaces
    EXPECT_TRUE((*reflog)->Contains(history).value());
    ASSERT_TRUE((*reflog)->Remove(history).ok());
    EXPECT_EQ((*reflog)->Remove(history).code(), Status::Code::kNotFound);
    EXPECT_FALSE((*reflog)->Contains(history).value());
    ASSERT_TRUE((*reflog)->Close().ok());
  }
  auto reflog = ReflogDb::OpenReadOnly(file);
  ASSERT_TRUE(reflog.ok());
  auto refs = (*reflog)->List();
  ASSERT_TRUE(refs.ok());
  std::vector<std::pair<Digest, int>> expected = {
      {cert, 1}, {meta, 3}, {catalog, 0}};
  EXPECT_EQ(*refs, expected);
  EXPECT_EQ((*reflog)->Get(catalog).value()->second, 104);
  EXPECT_EQ(
      DumpTable(
          file,
          "SELECT hash || '|' || typeof(type) || '|' || typeof(timestamp) "
          "FROM refs WHERE type = 1;")
          .value(),
      (std::vector<std::string>{cert.ToString() + "|integer|integer"}));
}

}  // namespace
}  // namespace cvmfs
