// Reads every repository in ../shared/fixtures (published by CVMFS 2.12)
// through the library: whitelist signed by the master key, manifest signed
// by the whitelisted certificate, every catalog and object hash, and the
// listed tree equal to the fixture's expected listing.
#include <gtest/gtest.h>

#include <map>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_name.h"
#include "cvmfs/object_store.h"
#include "cvmfs/signature.h"
#include "cvmfs/whitelist.h"
#include "testing/repository_listing.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

class FixtureRepositoryTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::string Dir() const {
    return cvmfs::testing::FixturesDir() + "/" + GetParam();
  }
  std::string Storage() const { return Dir() + "/srv/cvmfs/" + GetParam(); }
};

std::string ReadOrDie(const std::string& path) {
  auto r = ReadFile(path);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : "";
}

TEST_P(FixtureRepositoryTest, VerifiesAndListsAsCvmfsDoes) {
  LocalObjectStore store(Storage());
  auto manifest = Manifest::Parse(ReadOrDie(Storage() + "/.cvmfspublished"));
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
  const Manifest& m = manifest->manifest;
  EXPECT_EQ(m.fqrn, GetParam());

  // Whitelist: signed by the master key, not expired, lists the certificate.
  auto master =
      PublicKey::FromPem(ReadOrDie(Dir() + "/" + GetParam() + ".pub"));
  ASSERT_TRUE(master.ok());
  auto wl = Whitelist::Parse(ReadOrDie(Storage() + "/.cvmfswhitelist"));
  ASSERT_TRUE(wl.ok()) << wl.status().ToString();
  std::vector<PublicKey> keys;
  keys.push_back(std::move(*master));
  EXPECT_TRUE(VerifyWhitelist(*wl, keys).ok());
  EXPECT_FALSE(wl->whitelist.IsExpired(::time(nullptr)));
  EXPECT_EQ(wl->whitelist.fqrn, GetParam());

  // Certificate object, hash-verified, listed in the whitelist; manifest
  // signature verifies with it.
  ASSERT_TRUE(m.certificate.has_value());
  auto cert_obj =
      store.Get(ObjectPath(*m.certificate, ObjectSuffix::kCertificate));
  ASSERT_TRUE(cert_obj.ok());
  EXPECT_EQ(HashString(m.certificate->algorithm, *cert_obj), *m.certificate);
  std::string pem;
  ASSERT_TRUE(Decompress(*cert_obj, &pem).ok());
  auto cert = Certificate::FromPem(pem);
  ASSERT_TRUE(cert.ok());
  EXPECT_TRUE(wl->whitelist.ListsCertificate(*cert));
  EXPECT_TRUE(VerifyManifest(*manifest, *cert).ok());

  // Every catalog and object, and the listing of the newest revision.
  cvmfs::testing::TempDir tmp;
  auto listing =
      cvmfs::testing::ListRepository(&store, m.root_catalog, tmp.path());
  ASSERT_TRUE(listing.ok()) << listing.status().ToString();
  auto expected = cvmfs::testing::ParseExpectedListing(Dir() + "/expected.tsv");
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  EXPECT_EQ(listing->size(), expected->size());
  for (auto& [path, line] : *expected) {
    auto it = listing->find(path);
    if (it == listing->end()) {
      ADD_FAILURE() << "missing " << path;
      continue;
    }
    EXPECT_EQ(it->second.ToString(), line.ToString()) << path;
  }

  // Tag v1 through the history database.
  ASSERT_TRUE(m.history.has_value());
  auto hobj = store.Get(ObjectPath(*m.history, ObjectSuffix::kHistory));
  ASSERT_TRUE(hobj.ok());
  EXPECT_EQ(HashString(m.history->algorithm, *hobj), *m.history);
  std::string hraw;
  ASSERT_TRUE(Decompress(*hobj, &hraw).ok());
  ASSERT_TRUE(WriteFileAtomic(tmp.Sub("history.db"), hraw).ok());
  auto history = HistoryDb::OpenReadOnly(tmp.Sub("history.db"));
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  auto v1 = (*history)->Get("v1");
  ASSERT_TRUE(v1.ok() && v1->has_value());
  auto listing_v1 =
      cvmfs::testing::ListRepository(&store, (*v1)->root_hash, tmp.path());
  ASSERT_TRUE(listing_v1.ok()) << listing_v1.status().ToString();
  auto expected_v1 =
      cvmfs::testing::ParseExpectedListing(Dir() + "/expected-v1.tsv");
  ASSERT_TRUE(expected_v1.ok());
  EXPECT_EQ(listing_v1->size(), expected_v1->size());
  for (auto& [path, line] : *expected_v1) {
    auto it = listing_v1->find(path);
    if (it == listing_v1->end()) {
      ADD_FAILURE() << "missing in v1: " << path;
      continue;
    }
    EXPECT_EQ(it->second.ToString(), line.ToString()) << path;
  }
}

TEST_P(FixtureRepositoryTest, DetectsACorruptedCatalogObject) {
  // A copy of the root catalog with one byte changed no longer verifies.
  auto manifest = Manifest::Parse(ReadOrDie(Storage() + "/.cvmfspublished"));
  ASSERT_TRUE(manifest.ok());
  LocalObjectStore fixture(Storage());
  MemoryObjectStore store;
  std::string name =
      ObjectPath(manifest->manifest.root_catalog, ObjectSuffix::kCatalog);
  auto bytes = fixture.Get(name);
  ASSERT_TRUE(bytes.ok());
  (*bytes)[bytes->size() / 2] ^= 1;
  ASSERT_TRUE(store.Put(name, *bytes).ok());
  cvmfs::testing::TempDir tmp;
  auto listing = cvmfs::testing::ListRepository(
      &store, manifest->manifest.root_catalog, tmp.path());
  EXPECT_FALSE(listing.ok());
  EXPECT_TRUE(listing.status().IsCorruption()) << listing.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureRepositoryTest,
                         ::testing::Values("sha1-zlib.example.org",
                                           "shake128-none.example.org"),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           for (auto& c : n)
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return n;
                         });

}  // namespace
}  // namespace cvmfs
