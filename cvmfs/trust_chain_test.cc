// VerifyTrustChain over the fixture repositories' own signed files, and
// with each link broken in turn.
#include "cvmfs/trust_chain.h"

#include <gtest/gtest.h>

#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "cvmfs/object_store.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

const char* const kFixtures[] = {"sha1-zlib.example.org",
                                 "shake128-none.example.org"};
// 2030-01-01: the fixtures' whitelists are valid from 2026 to 2036.
constexpr time_t kNow = 1893456000;

std::string FixtureDir(const std::string& fqrn) {
  return testing::FixturesDir() + "/" + fqrn;
}
std::string MasterKeyFile(const std::string& fqrn) {
  return FixtureDir(fqrn) + "/" + fqrn + ".pub";
}

// The files of a fixture's storage, some replaced; records what was asked.
class FixtureSource : public TrustChainSource {
 public:
  explicit FixtureSource(const std::string& fqrn)
      : store_(FixtureDir(fqrn) + "/srv/cvmfs/" + fqrn) {}

  Result<std::string> FetchWhitelist() override {
    return Get(std::string(kWhitelistName));
  }
  Result<std::string> FetchManifest() override {
    return Get(std::string(kManifestName));
  }
  Result<std::string> FetchCertificate(const Digest& digest,
                                       const std::string& fqrn) override {
    asked_.push_back("certificate of " + fqrn);
    auto replaced = replaced_.find("X");
    if (replaced != replaced_.end()) return replaced->second;
    return ReadVerifiedObject(&store_, digest, ObjectSuffix::kCertificate);
  }

  std::string Original(const std::string& name) {
    return store_.Get(name).value();
  }
  // "X" replaces the certificate's PEM.
  void Replace(const std::string& name, Result<std::string> bytes) {
    replaced_.insert_or_assign(name, std::move(bytes));
  }
  const std::vector<std::string>& asked() const { return asked_; }

 private:
  Result<std::string> Get(const std::string& name) {
    asked_.push_back(name);
    auto replaced = replaced_.find(name);
    if (replaced != replaced_.end()) return replaced->second;
    return store_.Get(name);
  }

  LocalObjectStore store_;
  std::map<std::string, Result<std::string>> replaced_;
  std::vector<std::string> asked_;
};

class TrustChainTest : public ::testing::TestWithParam<const char*> {
 protected:
  TrustChainTest()
      : fqrn_(GetParam()),
        source_(fqrn_),
        keys_(LoadMasterKeys({MasterKeyFile(fqrn_)}).value()) {}

  Result<VerifiedChain> Verify(time_t now = kNow) {
    return VerifyTrustChain(&source_, keys_, fqrn_, now);
  }
  // The manifest with the line `from` (e.g. "D240") replaced by `to`; its
  // signature no longer matches.
  std::string ManifestWith(const std::string& from, const std::string& to) {
    std::string m = source_.Original(std::string(kManifestName));
    m.replace(m.find("\n" + from + "\n"), from.size() + 2, "\n" + to + "\n");
    return m;
  }
  // Corruption whose message contains `text`.
  static void ExpectRefused(const Result<VerifiedChain>& r,
                            const std::string& text) {
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(text), std::string::npos)
        << r.status().ToString();
  }

  std::string fqrn_;
  FixtureSource source_;
  std::vector<PublicKey> keys_;
};

TEST_P(TrustChainTest, FixtureChainHolds) {
  auto chain = Verify();
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  EXPECT_EQ(fqrn_, chain->whitelist.fqrn);
  EXPECT_EQ(fqrn_, chain->manifest.fqrn);
  EXPECT_TRUE(chain->whitelist.ListsCertificate(chain->certificate));
  EXPECT_EQ(fqrn_ + " CernVM-FS Release Managers",
            chain->certificate.CommonName());
  EXPECT_EQ((std::vector<std::string>{".cvmfswhitelist", ".cvmfspublished",
                                      "certificate of " + fqrn_}),
            source_.asked());
  // Without a name, the whitelist's is taken.
  FixtureSource unnamed(fqrn_);
  auto learned = VerifyTrustChain(&unnamed, keys_, "", kNow);
  ASSERT_TRUE(learned.ok()) << learned.status().ToString();
  EXPECT_EQ(fqrn_, learned->whitelist.fqrn);
}

TEST_P(TrustChainTest, WhitelistLinks) {
  // Signed by another master key: nothing else is fetched.
  const std::string other = fqrn_ == kFixtures[0] ? kFixtures[1] : kFixtures[0];
  auto wrong = LoadMasterKeys({MasterKeyFile(other)}).value();
  ExpectRefused(VerifyTrustChain(&source_, wrong, fqrn_, kNow),
                "whitelist of " + fqrn_ + " is not signed by a master key");
  EXPECT_EQ(std::vector<std::string>{".cvmfswhitelist"}, source_.asked());
  // Another repository's.
  ExpectRefused(VerifyTrustChain(&source_, keys_, other, kNow),
                "whitelist is for repository '" + fqrn_ + "', not " + other);
  // Expired: at and after the hour of its expiry (2036-11-19 14:0x UTC).
  ExpectRefused(Verify(2120000000),
                "whitelist of " + fqrn_ + " expired at 2036-11-19 14:");
  ExpectRefused(Verify(2120000000), "must run cvmfs_server resign");
  // Not a whitelist.
  source_.Replace(".cvmfswhitelist", std::string("<html>portal</html>"));
  ExpectRefused(Verify(), "whitelist of " + fqrn_ + ": ");
}

TEST_P(TrustChainTest, ManifestLinks) {
  // Changed after signing.
  source_.Replace(".cvmfspublished", ManifestWith("D240", "D999"));
  ExpectRefused(Verify(), "manifest of " + fqrn_);
  // Another repository's name.
  source_.Replace(".cvmfspublished",
                  ManifestWith("N" + fqrn_, "Nother.example.org"));
  ExpectRefused(Verify(),
                "manifest is for repository 'other.example.org', "
                "not " +
                    fqrn_);
  // Naming no certificate.
  std::string m = source_.Original(std::string(kManifestName));
  const size_t x = m.find("\nX");
  m.erase(x, m.find('\n', x + 1) - x);
  source_.Replace(".cvmfspublished", m);
  ExpectRefused(Verify(), "manifest of " + fqrn_ + " names no certificate");
}

TEST_P(TrustChainTest, CertificateLinks) {
  // A certificate the whitelist does not list.
  auto key = PrivateKey::Generate().value();
  auto stranger = Certificate::CreateSelfSigned(key, "stranger", 1).value();
  source_.Replace("X", stranger.ToPem());
  ExpectRefused(Verify(), "certificate " + stranger.Fingerprint() + " of " +
                              fqrn_ + " is not listed in the whitelist");
  // Not a certificate.
  source_.Replace("X", std::string("garbage"));
  auto r = Verify();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("certificate of " + fqrn_),
            std::string::npos)
      << r.status().ToString();
}

TEST_P(TrustChainTest, SourceErrorsPassThrough) {
  source_.Replace(".cvmfspublished", Status::Unavailable("all hosts down"));
  auto r = Verify();
  EXPECT_EQ(Status::Code::kUnavailable, r.status().code());
  EXPECT_EQ("all hosts down", r.status().message());
  source_.Replace("X", Status::NotFound("data/xx/yyX"));
  source_.Replace(".cvmfspublished",
                  source_.Original(std::string(kManifestName)));
  EXPECT_TRUE(Verify().status().IsNotFound());
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TrustChainTest,
                         ::testing::ValuesIn(kFixtures),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           return n.substr(0, n.find('.')) == "sha1-zlib"
                                      ? std::string("Sha1Zlib")
                                      : std::string("Shake128None");
                         });

TEST(LoadMasterKeysTest, NamesTheFileAndNeedsOne) {
  auto keys = LoadMasterKeys(
      {MasterKeyFile(kFixtures[0]), MasterKeyFile(kFixtures[1])});
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(2u, keys->size());
  const std::string missing = FixtureDir(kFixtures[0]) + "/none.pub";
  auto gone = LoadMasterKeys({MasterKeyFile(kFixtures[0]), missing});
  EXPECT_NE(gone.status().message().find("master public key " + missing),
            std::string::npos)
      << gone.status().ToString();
  const std::string not_a_key = FixtureDir(kFixtures[0]) + "/expected.tsv";
  auto bad = LoadMasterKeys({not_a_key});
  EXPECT_NE(bad.status().message().find("master public key " + not_a_key),
            std::string::npos)
      << bad.status().ToString();
  EXPECT_EQ(Status::Code::kInvalidArgument, LoadMasterKeys({}).status().code());
}

}  // namespace
}  // namespace cvmfs
