#include "cvmfs/whitelist.h"

#include <gtest/gtest.h>

#include <ctime>
#include <string>
#include <vector>

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_name.h"
#include "cvmfs/trust_chain.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

std::string FixtureDir(const std::string& fqrn) {
  return testing::FixturesDir() + "/" + fqrn;
}
std::string RepoDir(const std::string& fqrn) {
  return FixtureDir(fqrn) + "/srv/cvmfs/" + fqrn;
}

// The repository certificate, found through the fixture's manifest.
Result<Certificate> LoadRepoCertificate(const std::string& fqrn) {
  CVMFS_ASSIGN_OR_RETURN(std::string file,
                         ReadFile(RepoDir(fqrn) + "/.cvmfspublished"));
  CVMFS_ASSIGN_OR_RETURN(SignedManifest manifest, Manifest::Parse(file));
  if (!manifest.manifest.certificate)
    return Status::Corruption("manifest without X");
  const Digest& x = *manifest.manifest.certificate;
  const std::string path =
      RepoDir(fqrn) + "/" + ObjectPath(x, ObjectSuffix::kCertificate);
  CVMFS_ASSIGN_OR_RETURN(std::string stored, ReadFile(path));
  if (HashString(x.algorithm, stored) != x)
    return Status::Corruption("certificate object hash mismatch");
  std::string pem;
  CVMFS_RETURN_IF_ERROR(Decompress(stored, &pem));
  return Certificate::FromPem(pem);
}

Result<std::vector<PublicKey>> LoadMasterKeys(const std::string& fqrn) {
  return cvmfs::LoadMasterKeys({FixtureDir(fqrn) + "/" + fqrn + ".pub"});
}

const PrivateKey& MasterKey() {
  static PrivateKey* key = new PrivateKey(PrivateKey::Generate().value());
  return *key;
}

std::vector<PublicKey> PublicKeysOf(const PrivateKey& key) {
  std::vector<PublicKey> keys;
  keys.push_back(key.Public().value());
  return keys;
}

time_t Utc(int y, int mon, int d, int h, int min, int s) {
  struct tm tm {};
  tm.tm_year = y - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = min;
  tm.tm_sec = s;
  return timegm(&tm);
}

struct Fixture {
  const char* fqrn;
  HashAlgorithm algo;  // of the fingerprint and of the hash line
  const char* fingerprint;
  time_t created;
  time_t expires;
};
const Fixture kFixtures[] = {
    {"sha1-zlib.example.org", HashAlgorithm::kSha1,
     "72:0C:F3:2B:2E:F0:79:31:2E:43:BD:C1:A8:E2:FF:9E:1B:D8:D0:9C",
     Utc(2026, 11, 22, 14, 1, 41), Utc(2036, 11, 19, 14, 1, 41)},
    {"shake128-none.example.org", HashAlgorithm::kShake128,
     "97:0F:DE:54:CA:93:3A:3F:DB:A0:91:24:88:66:1D:81:38:26:0C:65-SHAKE128",
     Utc(2026, 11, 22, 14, 2, 6), Utc(2036, 11, 19, 14, 2, 6)},
};

TEST(WhitelistTest, FixturesParseAndVerify) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.fqrn);
    auto file = ReadFile(RepoDir(f.fqrn) + "/.cvmfswhitelist");
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    auto parsed = Whitelist::Parse(*file);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    const Whitelist& w = parsed->whitelist;
    EXPECT_EQ(w.fqrn, f.fqrn);
    EXPECT_EQ(w.created, f.created);
    EXPECT_EQ(w.expires, f.expires);
    EXPECT_EQ(FormatWhitelistTime(w.expires).substr(0, 4), "2036");
    EXPECT_FALSE(w.requires_pkcs7);
    EXPECT_FALSE(w.requires_ca_chain);
    ASSERT_EQ(w.fingerprints.size(), 1u);
    EXPECT_EQ(w.fingerprints[0], f.fingerprint);
    EXPECT_EQ(parsed->signature.size(), 256u);
    // CVMFS hashes the whitelist with the repository's algorithm.
    EXPECT_EQ(Digest::Parse(parsed->hash_line)->algorithm, f.algo);
    EXPECT_EQ(w.ExportText(), parsed->text);

    auto keys = LoadMasterKeys(f.fqrn);
    ASSERT_TRUE(keys.ok()) << keys.status().ToString();
    Status st = VerifyWhitelist(*parsed, *keys);
    EXPECT_TRUE(st.ok()) << st.ToString();
    // The signature is raw RSA over the hash line, algorithm id included.
    EXPECT_TRUE(VerifyRaw((*keys)[0], parsed->hash_line, parsed->signature));

    // A fresh key does not verify it; any matching key in a list does.
    EXPECT_TRUE(
        VerifyWhitelist(*parsed, PublicKeysOf(MasterKey())).IsCorruption());
    std::vector<PublicKey> several = PublicKeysOf(MasterKey());
    several.push_back(std::move((*keys)[0]));
    EXPECT_TRUE(VerifyWhitelist(*parsed, several).ok());

    // The repository certificate is listed.
    auto cert = LoadRepoCertificate(f.fqrn);
    ASSERT_TRUE(cert.ok()) << cert.status().ToString();
    EXPECT_TRUE(w.ListsFingerprint(cert->Fingerprint(f.algo)));
    EXPECT_TRUE(w.ListsCertificate(*cert));
    // The SHA-1 fingerprint matches only where the list is SHA-1.
    EXPECT_EQ(w.ListsFingerprint(cert->Fingerprint()),
              f.algo == HashAlgorithm::kSha1);
    auto other = Certificate::CreateSelfSigned(MasterKey(), "x", 1);
    ASSERT_TRUE(other.ok());
    EXPECT_FALSE(w.ListsFingerprint(other->Fingerprint(f.algo)));
    EXPECT_FALSE(w.ListsCertificate(*other));

    // Expiry: valid now, expired at and after the hour of the expiry.
    EXPECT_FALSE(w.IsExpired(time(nullptr)));
    EXPECT_FALSE(w.IsExpired(f.expires - f.expires % 3600 - 1));
    EXPECT_TRUE(w.IsExpired(f.expires - f.expires % 3600));
    EXPECT_TRUE(w.IsExpired(f.expires));
    EXPECT_TRUE(w.IsExpired(Utc(2036, 11, 20, 0, 0, 0)));
    EXPECT_TRUE(w.IsExpired(Utc(2100, 1, 1, 0, 0, 0)));
  }
}

TEST(WhitelistTest, FixtureTamperingDetected) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.fqrn);
    auto file = ReadFile(RepoDir(f.fqrn) + "/.cvmfswhitelist");
    ASSERT_TRUE(file.ok());
    auto parsed = Whitelist::Parse(*file);
    ASSERT_TRUE(parsed.ok());
    auto keys = LoadMasterKeys(f.fqrn);
    ASSERT_TRUE(keys.ok());
    for (size_t i = 0; i < parsed->text.size(); ++i) {
      SignedWhitelist tampered = *parsed;
      tampered.text[i] ^= 0x01;
      EXPECT_TRUE(VerifyWhitelist(tampered, *keys).IsCorruption()) << i;
    }
    SignedWhitelist bad_sig = *parsed;
    bad_sig.signature[0] ^= 0x01;
    EXPECT_TRUE(VerifyWhitelist(bad_sig, *keys).IsCorruption());
    EXPECT_EQ(VerifyWhitelist(*parsed, {}).code(),
              Status::Code::kInvalidArgument);
  }
}

TEST(WhitelistTest, SignVerifyRoundTrip) {
  auto cert = Certificate::CreateSelfSigned(MasterKey(), "x", 1);
  ASSERT_TRUE(cert.ok());
  const time_t now = Utc(2026, 1, 2, 3, 4, 5);
  for (HashAlgorithm algo : {HashAlgorithm::kSha1, HashAlgorithm::kRmd160,
                             HashAlgorithm::kShake128}) {
    Whitelist w =
        Whitelist::Create("test.example.org", cert->Fingerprint(algo), now, 30);
    EXPECT_EQ(w.ExportText(),
              "20260102030405\n"
              "E20260201030405\n"
              "Ntest.example.org\n" +
                  cert->Fingerprint(algo) + "\n");
    auto file = SignWhitelist(w, MasterKey(), algo);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    auto parsed = Whitelist::Parse(*file);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->text, w.ExportText());
    EXPECT_EQ(parsed->hash_line, HashString(algo, w.ExportText()).ToString());
    EXPECT_EQ(parsed->whitelist.created, now);
    EXPECT_EQ(parsed->whitelist.expires, now + 30 * 86400);
    EXPECT_EQ(parsed->whitelist.fingerprints, w.fingerprints);
    EXPECT_TRUE(VerifyWhitelist(*parsed, PublicKeysOf(MasterKey())).ok());
    EXPECT_TRUE(parsed->whitelist.ListsFingerprint(cert->Fingerprint(algo)));
    EXPECT_TRUE(parsed->whitelist.ListsCertificate(*cert));
    // A fingerprint of another algorithm names a different digest.
    HashAlgorithm other = algo == HashAlgorithm::kSha1
                              ? HashAlgorithm::kShake128
                              : HashAlgorithm::kSha1;
    EXPECT_FALSE(parsed->whitelist.ListsFingerprint(cert->Fingerprint(other)));
  }
}

TEST(WhitelistTest, LegacyFlagsAndComments) {
  const std::string fp =
      "72:0C:F3:2B:2E:F0:79:31:2E:43:BD:C1:A8:E2:FF:9E:1B:D8:D0:9C";
  const std::string text =
      "20260102030405\nE20300102030405\nNa.b\nVpkcs7\nWcachain\n" + fp +
      " # release manager key\n"
      "\n"
      "# a comment line\n"
      "97:0f:de:54:ca:93:3a:3f:db:a0:91:24:88:66:1d:81:38:26:0c:65-shake128\t"
      "x\n";
  auto parsed = Whitelist::Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const Whitelist& w = parsed->whitelist;
  EXPECT_TRUE(w.requires_pkcs7);
  EXPECT_TRUE(w.requires_ca_chain);
  ASSERT_EQ(w.fingerprints.size(), 2u);
  EXPECT_EQ(w.fingerprints[0], fp);
  EXPECT_EQ(w.fingerprints[1],
            "97:0F:DE:54:CA:93:3A:3F:DB:A0:91:24:88:66:1D:81:38:26:0C:65-"
            "SHAKE128");
  EXPECT_TRUE(w.ListsFingerprint(fp));
  EXPECT_TRUE(w.ListsFingerprint("720cf32b2ef079312e43bdc1a8e2ff9e1bd8d09c"));
  EXPECT_FALSE(w.ListsFingerprint("garbage"));
  EXPECT_EQ(w.ExportText(),
            "20260102030405\nE20300102030405\nNa.b\nVpkcs7\nWcachain\n" + fp +
                "\n" + w.fingerprints[1] + "\n");
  // Unsigned: parses, does not verify.
  EXPECT_TRUE(parsed->hash_line.empty());
  EXPECT_TRUE(
      VerifyWhitelist(*parsed, PublicKeysOf(MasterKey())).IsCorruption());
}

TEST(WhitelistTest, ExpiryHourGranularity) {
  Whitelist w;
  w.expires = Utc(2040, 6, 1, 12, 30, 0);  // beyond 2038
  EXPECT_FALSE(w.IsExpired(Utc(2026, 1, 1, 0, 0, 0)));
  EXPECT_FALSE(w.IsExpired(Utc(2040, 6, 1, 11, 59, 59)));
  // Within the expiry hour the whitelist counts as expired already.
  EXPECT_TRUE(w.IsExpired(Utc(2040, 6, 1, 12, 0, 0)));
  EXPECT_TRUE(w.IsExpired(Utc(2040, 6, 1, 12, 29, 59)));
  EXPECT_TRUE(w.IsExpired(Utc(2040, 6, 1, 13, 0, 0)));
}

TEST(WhitelistTest, TimeFormat) {
  EXPECT_EQ(FormatWhitelistTime(0), "19700101000000");
  EXPECT_EQ(FormatWhitelistTime(Utc(2099, 12, 31, 23, 59, 58)),
            "20991231235958");
  EXPECT_EQ(ParseWhitelistTime("20991231235958").value(),
            Utc(2099, 12, 31, 23, 59, 58));
  for (const char* bad : {"", "2026010203040", "202601020304051",
                          "2026010203040x", "20260230000000", "20261301000000",
                          "20260101240000", "20260101006000"}) {
    EXPECT_TRUE(ParseWhitelistTime(bad).status().IsCorruption()) << bad;
  }
}

TEST(WhitelistTest, GarbageFailsCleanly) {
  const char* inputs[] = {
      "",
      "\n",
      "<!DOCTYPE html>\n<html><body>Access denied</body></html>\n",
      "20260102030405\n",
      "20260102030405\nX20300102030405\nNa.b\n",
      "20260102030405\nE20300102030405\n",
      "20260102030405\nE20300102030405\nfoo\n",
      "20260102030405\nE2030010203040x\nNa.b\n",
      "2026010203040x\nE20300102030405\nNa.b\n",
      "20260102030405\nE20300102030405\nNa.b\n--\nno newline",
  };
  for (const char* input : inputs) {
    auto parsed = Whitelist::Parse(input);
    ASSERT_FALSE(parsed.ok()) << input;
    EXPECT_TRUE(parsed.status().IsCorruption()) << input;
  }
  auto html = Whitelist::Parse("<html>captive portal</html>\n");
  EXPECT_NE(html.status().message().find("not a CernVM-FS whitelist"),
            std::string::npos)
      << html.status().ToString();
}

}  // namespace
}  // namespace cvmfs
