#include "cvmfs/manifest.h"

#include <gtest/gtest.h>

#include <string>

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

std::string RepoDir(const std::string& fqrn) {
  return testing::FixturesDir() + "/" + fqrn + "/srv/cvmfs/" + fqrn;
}

// The certificate object named by manifest X: hash-verified, decompressed.
Result<Certificate> LoadCertificate(const std::string& fqrn, const Digest& x) {
  const std::string path =
      RepoDir(fqrn) + "/" + ObjectPath(x, ObjectSuffix::kCertificate);
  CVMFS_ASSIGN_OR_RETURN(std::string stored, ReadFile(path));
  if (HashString(x.algorithm, stored) != x)
    return Status::Corruption("certificate object hash mismatch");
  std::string pem;
  CVMFS_RETURN_IF_ERROR(Decompress(stored, &pem));
  return Certificate::FromPem(pem);
}

const PrivateKey& TestKey() {
  static PrivateKey* key = new PrivateKey(PrivateKey::Generate().value());
  return *key;
}

Manifest SampleManifest() {
  Manifest m;
  m.root_catalog =
      Digest::Parse("7f94a01c31742c961ab142e131f8324fe9c0aacf-shake128")
          .value();
  m.catalog_size = 503808;
  m.revision = 7;
  m.fqrn = "test.example.org";
  m.certificate =
      Digest::Parse("1112f3d7c016c572075fe4de8f43f0244f693659-shake128")
          .value();
  m.publish_timestamp = 1795356125;
  return m;
}

struct Fixture {
  const char* fqrn;
  const char* root_catalog;
  uint64_t revision;
};
const Fixture kFixtures[] = {
    {"sha1-zlib.example.org", "68371afd82205255c360019d2471c96cd7125cad", 3},
    {"shake128-none.example.org",
     "7f94a01c31742c961ab142e131f8324fe9c0aacf-shake128", 2},
};

TEST(ManifestTest, FixturesParseAndVerify) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.fqrn);
    auto file = ReadFile(RepoDir(f.fqrn) + "/.cvmfspublished");
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    auto parsed = Manifest::Parse(*file);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    const Manifest& m = parsed->manifest;
    EXPECT_EQ(m.root_catalog.ToString(), f.root_catalog);
    EXPECT_EQ(m.catalog_size, 503808u);
    EXPECT_EQ(m.root_path_md5, Manifest::kRootPathMd5);
    EXPECT_EQ(m.ttl, 240u);
    EXPECT_EQ(m.revision, f.revision);
    EXPECT_FALSE(m.garbage_collectable);
    EXPECT_FALSE(m.has_alt_catalog_path);
    EXPECT_EQ(m.fqrn, f.fqrn);
    ASSERT_TRUE(m.certificate.has_value());
    EXPECT_TRUE(m.history.has_value());
    EXPECT_TRUE(m.metainfo.has_value());
    EXPECT_TRUE(m.reflog.has_value());
    EXPECT_FALSE(m.micro_catalog.has_value());
    EXPECT_GT(m.publish_timestamp.value_or(0), 1700000000u);
    EXPECT_TRUE(m.channel_tips.empty());
    EXPECT_EQ(parsed->signature.size(), 256u);
    // The hash line carries the root catalog's algorithm id.
    EXPECT_EQ(Digest::Parse(parsed->hash_line)->algorithm,
              m.root_catalog.algorithm);

    // Export reproduces the signed bytes exactly.
    EXPECT_EQ(m.ExportText(), parsed->text);
    EXPECT_EQ(
        parsed->text + "--\n" + parsed->hash_line + "\n" + parsed->signature,
        *file);

    auto cert = LoadCertificate(f.fqrn, *m.certificate);
    ASSERT_TRUE(cert.ok()) << cert.status().ToString();
    Status st = VerifyManifest(*parsed, *cert);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
}

TEST(ManifestTest, FixtureTamperingDetected) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.fqrn);
    auto file = ReadFile(RepoDir(f.fqrn) + "/.cvmfspublished");
    ASSERT_TRUE(file.ok());
    auto parsed = Manifest::Parse(*file);
    ASSERT_TRUE(parsed.ok());
    auto cert = LoadCertificate(f.fqrn, *parsed->manifest.certificate);
    ASSERT_TRUE(cert.ok());

    // Every single changed byte of the text is caught.
    for (size_t i = 0; i < parsed->text.size(); ++i) {
      SignedManifest tampered = *parsed;
      tampered.text[i] ^= 0x01;
      EXPECT_TRUE(VerifyManifest(tampered, *cert).IsCorruption()) << i;
    }
    // A matching hash line for a changed text still needs the signature.
    SignedManifest rehashed = *parsed;
    rehashed.text[1] ^= 0x01;
    rehashed.hash_line =
        HashString(parsed->manifest.root_catalog.algorithm, rehashed.text)
            .ToString();
    EXPECT_TRUE(VerifyManifest(rehashed, *cert).IsCorruption());

    SignedManifest bad_sig = *parsed;
    bad_sig.signature[17] ^= 0x80;
    EXPECT_TRUE(VerifyManifest(bad_sig, *cert).IsCorruption());

    // The other repository's certificate does not verify it.
    const Fixture& other = &f == &kFixtures[0] ? kFixtures[1] : kFixtures[0];
    auto other_file = ReadFile(RepoDir(other.fqrn) + "/.cvmfspublished");
    ASSERT_TRUE(other_file.ok());
    auto other_manifest = Manifest::Parse(*other_file);
    ASSERT_TRUE(other_manifest.ok());
    auto other_cert =
        LoadCertificate(other.fqrn, *other_manifest->manifest.certificate);
    ASSERT_TRUE(other_cert.ok());
    EXPECT_TRUE(VerifyManifest(*parsed, *other_cert).IsCorruption());
  }
}

TEST(ManifestTest, ExportOrderAndDefaults) {
  Manifest m;
  m.root_catalog =
      Digest::Parse("68371afd82205255c360019d2471c96cd7125cad").value();
  m.catalog_size = 10;
  m.revision = 1;
  EXPECT_EQ(m.ExportText(),
            "C68371afd82205255c360019d2471c96cd7125cad\n"
            "B10\n"
            "Rd41d8cd98f00b204e9800998ecf8427e\n"
            "D240\n"
            "S1\n"
            "Gno\n"
            "Ano\n");
  m.garbage_collectable = true;
  m.has_alt_catalog_path = true;
  m.fqrn = "a.b";
  m.reflog = Digest::Parse("58a27012257fc22aec94c08418ab13e398157ec3").value();
  m.publish_timestamp = 5;
  m.channel_tips = {"x", "y"};
  EXPECT_EQ(m.ExportText(),
            "C68371afd82205255c360019d2471c96cd7125cad\n"
            "B10\n"
            "Rd41d8cd98f00b204e9800998ecf8427e\n"
            "D240\n"
            "S1\n"
            "Gyes\n"
            "Ayes\n"
            "Na.b\n"
            "T5\n"
            "Y58a27012257fc22aec94c08418ab13e398157ec3\n"
            "Zx\n"
            "Zy\n");
}

TEST(ManifestTest, ExportParseRoundTrip) {
  Manifest m = SampleManifest();
  m.micro_catalog = HashString(HashAlgorithm::kRmd160, "l");
  m.history = HashString(HashAlgorithm::kShake128, "h");
  m.metainfo = HashString(HashAlgorithm::kShake128, "m");
  m.reflog = HashString(HashAlgorithm::kShake128, "y");
  m.garbage_collectable = true;
  m.ttl = 15;
  m.channel_tips = {"tip1", "tip2"};
  auto parsed = Manifest::Parse(m.ExportText());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(parsed->hash_line.empty());
  EXPECT_TRUE(parsed->signature.empty());
  const Manifest& p = parsed->manifest;
  EXPECT_EQ(p.root_catalog, m.root_catalog);
  EXPECT_EQ(p.catalog_size, m.catalog_size);
  EXPECT_EQ(p.ttl, 15u);
  EXPECT_EQ(p.revision, m.revision);
  EXPECT_TRUE(p.garbage_collectable);
  EXPECT_EQ(p.micro_catalog, m.micro_catalog);
  EXPECT_EQ(p.fqrn, m.fqrn);
  EXPECT_EQ(p.certificate, m.certificate);
  EXPECT_EQ(p.history, m.history);
  EXPECT_EQ(p.publish_timestamp, m.publish_timestamp);
  EXPECT_EQ(p.metainfo, m.metainfo);
  EXPECT_EQ(p.reflog, m.reflog);
  EXPECT_EQ(p.channel_tips, m.channel_tips);
  EXPECT_EQ(p.ExportText(), m.ExportText());
}

TEST(ManifestTest, SignVerifyRoundTrip) {
  auto cert = Certificate::CreateSelfSigned(
      TestKey(), "test.example.org CernVM-FS Release Managers", 365);
  ASSERT_TRUE(cert.ok());
  for (HashAlgorithm algo : {HashAlgorithm::kSha1, HashAlgorithm::kRmd160,
                             HashAlgorithm::kShake128}) {
    Manifest m = SampleManifest();
    m.root_catalog = HashString(algo, "catalog");
    auto file = SignManifest(m, TestKey());
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    auto parsed = Manifest::Parse(*file);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->text, m.ExportText());
    EXPECT_EQ(parsed->hash_line, HashString(algo, m.ExportText()).ToString());
    EXPECT_EQ(parsed->manifest.root_catalog, m.root_catalog);
    EXPECT_TRUE(VerifyManifest(*parsed, *cert).ok());

    // Signature = RSA/SHA-1 over the hash line text, algorithm id included.
    auto pub = cert->GetPublicKey();
    ASSERT_TRUE(pub.ok());
    EXPECT_TRUE(VerifySha1(*pub, parsed->hash_line, parsed->signature));

    SignedManifest tampered = *parsed;
    tampered.text[tampered.text.size() - 2] ^= 0x01;
    EXPECT_TRUE(VerifyManifest(tampered, *cert).IsCorruption());
  }
  auto other = PrivateKey::Generate();
  ASSERT_TRUE(other.ok());
  auto foreign = SignManifest(SampleManifest(), *other);
  ASSERT_TRUE(foreign.ok());
  auto parsed = Manifest::Parse(*foreign);
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(VerifyManifest(*parsed, *cert).IsCorruption());
}

TEST(ManifestTest, UnsignedManifestDoesNotVerify) {
  auto cert = Certificate::CreateSelfSigned(TestKey(), "x", 1);
  ASSERT_TRUE(cert.ok());
  auto parsed = Manifest::Parse(SampleManifest().ExportText());
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(VerifyManifest(*parsed, *cert).IsCorruption());
}

TEST(ManifestTest, GarbageFailsCleanly) {
  const char* inputs[] = {
      "",
      "\n\n\n",
      "<!DOCTYPE html>\n<html><head><title>Login required</title></head>\n"
      "<body>Please log in to the hotel network</body></html>\n",
      "<html>\n--\n<body>\n",
      "\x89PNG\r\n\x1a\n",
      "--\n",
      "--\nabc\n",
  };
  for (const char* input : inputs) {
    auto parsed = Manifest::Parse(input);
    ASSERT_FALSE(parsed.ok()) << input;
    EXPECT_TRUE(parsed.status().IsCorruption()) << input;
  }
  auto html = Manifest::Parse("<html><body>502 Bad Gateway</body></html>\n");
  EXPECT_NE(html.status().message().find("not a CernVM-FS manifest"),
            std::string::npos)
      << html.status().ToString();
}

TEST(ManifestTest, RequiredKeysAndBadValues) {
  const std::string base = SampleManifest().ExportText();
  auto without = [&base](char key) {
    std::string out;
    size_t pos = 0;
    while (pos < base.size()) {
      size_t eol = base.find('\n', pos);
      if (base[pos] != key) out += base.substr(pos, eol - pos + 1);
      pos = eol + 1;
    }
    return out;
  };
  for (char key : std::string("CRDS")) {
    auto parsed = Manifest::Parse(without(key));
    ASSERT_FALSE(parsed.ok()) << key;
    EXPECT_TRUE(parsed.status().IsCorruption());
    EXPECT_NE(parsed.status().message().find(std::string("key ") + key),
              std::string::npos)
        << parsed.status().ToString();
  }
  for (char key : std::string("BGANXTMYHL")) {
    EXPECT_TRUE(Manifest::Parse(without(key)).ok()) << key;
  }

  const char* bad_lines[] = {
      "Cnothex\n", "C68371afd8\n", "Cd41d8cd98f00b204e9800998ecf8427e\n",
      "Dten\n",    "S-1\n",        "S99999999999999999999999\n",
      "Gmaybe\n",  "Rxyz\n",       "X1234\n",
      "N\n",       "T1e9\n",
  };
  for (const char* line : bad_lines) {
    std::string text = base + line;
    // Replace rather than duplicate the key.
    text = without(line[0]) + line;
    auto parsed = Manifest::Parse(text);
    ASSERT_FALSE(parsed.ok()) << line;
    EXPECT_TRUE(parsed.status().IsCorruption()) << line;
  }
  // Duplicates are refused, unknown keys ignored.
  EXPECT_FALSE(Manifest::Parse(base + "S8\n").ok());
  auto unknown = Manifest::Parse(base + "Qsomething new\n");
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->manifest.revision, 7u);
}

TEST(ManifestTest, ParseStopsAtSeparator) {
  auto file = SignManifest(SampleManifest(), TestKey());
  ASSERT_TRUE(file.ok());
  // The signature may contain anything, including lines that look like keys.
  std::string with_junk = *file + "\nS999\nCgarbage\n";
  auto parsed = Manifest::Parse(with_junk);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->manifest.revision, 7u);
  EXPECT_FALSE(Manifest::Parse(parsed->text + "--\n").ok());  // truncated
}

}  // namespace
}  // namespace cvmfs
