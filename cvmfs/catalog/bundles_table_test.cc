// The `bundles` catalog table (doc/format-bundles.md section 3), written by
// WritableCatalog::SetBundles and read by Catalog::Bundles / AllBundles.
#include <gtest/gtest.h>

#include "cvmfs/catalog/catalog.h"
#include "cvmfs/catalog/catalog_test_util.h"
#include "cvmfs/catalog/writable_catalog.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

using catalog_test::DirEntry;

BundleRef Row(std::string path, std::string first, std::string_view data) {
  return BundleRef{std::move(path), std::move(first),
                   HashString(HashAlgorithm::kSha1, data), data.size() * 10, 3};
}

class BundlesTableTest : public ::testing::Test {
 protected:
  std::unique_ptr<WritableCatalog> NewCatalog() {
    auto c = WritableCatalog::Create(file_, "", DirEntry(), false);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(*c) : nullptr;
  }
  testing::TempDir tmp_;
  std::string file_ = tmp_.Sub("catalog.db");
};

TEST_F(BundlesTableTest, CatalogWithoutBundlesHasNoTable) {
  auto w = NewCatalog();
  ASSERT_TRUE(w->SetBundles("/a", {}).ok());
  ASSERT_TRUE(w->Commit(1, 1700000000, std::nullopt, 240).ok());
  auto c = Catalog::Open(file_);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE((*c)->has_bundles());
  EXPECT_TRUE((*c)->Bundles("/a").value().empty());
  EXPECT_TRUE((*c)->AllBundles().value().empty());
}

TEST_F(BundlesTableTest, RowsRoundTripAndReplacePerDirectory) {
  auto w = NewCatalog();
  ASSERT_TRUE(w->SetBundles("", {Row("", "m", "2"), Row("", "a", "1")}).ok());
  ASSERT_TRUE(w->SetBundles("/d", {Row("/d", "x", "3")}).ok());
  ASSERT_TRUE(w->SetBundles("/e", {Row("/e", "y", "4")}).ok());
  // Replaced, then removed.
  ASSERT_TRUE(w->SetBundles("/d", {Row("/d", "z", "5")}).ok());
  ASSERT_TRUE(w->SetBundles("/e", {}).ok());
  EXPECT_EQ(w->SetBundles("/f", {Row("/g", "z", "5")}).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(
      w->SetBundles("/f", {Row("/f", "z", "5"), Row("/f", "z", "6")}).code(),
      Status::Code::kAlreadyExists);
  ASSERT_TRUE(w->SetBundles("/f", {}).ok());
  ASSERT_TRUE(w->Commit(1, 1700000000, std::nullopt, 240).ok());

  auto c = Catalog::Open(file_);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE((*c)->has_bundles());
  std::vector<BundleRef> root = (*c)->Bundles("").value();
  ASSERT_EQ(root.size(), 2u);
  EXPECT_EQ(root[0], Row("", "a", "1"));
  EXPECT_EQ(root[1], Row("", "m", "2"));
  std::vector<BundleRef> all = (*c)->AllBundles().value();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2], Row("/d", "z", "5"));
  EXPECT_TRUE((*c)->Bundles("/e").value().empty());
}

TEST_F(BundlesTableTest, ReopenedForWritingKeepsAndExtendsTheTable) {
  {
    auto w = NewCatalog();
    ASSERT_TRUE(w->SetBundles("/d", {Row("/d", "x", "3")}).ok());
    ASSERT_TRUE(w->Commit(1, 1700000000, std::nullopt, 240).ok());
  }
  {
    auto w = WritableCatalog::OpenForWriting(file_);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->SetBundles("/e", {Row("/e", "y", "4")}).ok());
    ASSERT_TRUE((*w)->Commit(2, 1700000001, std::nullopt, 240).ok());
  }
  auto c = Catalog::Open(file_);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->AllBundles().value().size(), 2u);
}

}  // namespace
}  // namespace cvmfs
