#include "cvmfs/signature.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/x509.h>

#include <cctype>
#include <string>

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

// A throwaway 1024-bit test key (openssl genrsa -traditional 1024) in the
// forms CVMFS installations have on disk, for known-answer tests.
constexpr char kKatKey[] = R"pem(-----BEGIN RSA PRIVATE KEY-----
MIICXAIBAAKBgQDUkA9t2B8GD3zxXFeAoRq5dNY4oWdTEhcjiIiJ4CERtDhxb4RP
JR/P2OMC4+VRbwD/p4kAEvwgGe7CZuwMpV4GMxieU6kRo9WozpESaSlqtlbiLAj5
615RtM0qgGTc/26xcZJVjHYJRxAAHcrRdmSqmpnT/1U9soc6t2oZtgvhqQIDAQAB
AoGBANE/e6DTZz7tEj77ezwp3AgDJzsaUH+rSFH3fwnTNFqcQhARCntq/VT7mgXn
WICAuMfzId+L0Ny9Cpge/3I3fETsvUJu/ylKb0nbNI+BC9k9xkl9Sa/EIGT2XaVp
wg7tfvja9MKORdMhLYw19+YQomFuFRKokIKi6g5flG6DM7Z9AkEA7c/v0Ts51w9A
qV/PA3VThwcf+a8bAbgqbxwlNuCrP/dniKGVEUaBnkxMX1okKIJTrL5BBV/Chc6H
G0721MgWzwJBAOTRxRUznkvWl2ctAbYfeSt68zEvCgjRTUV7lF7EenHY0oz5WUF1
7QP/5W0SCtdnXGQt+Nyrf+ozteqrqzlpHgcCQF56zydMJWWYrLLd2ovgMAgkP4Le
G5eqSEmOYAaWadLnAt4Ye/W6EkMGwwza7iSd6oplp8VvzwOEEs85pvzQZacCQCI2
dzhXUnjWaibkJNhdVlm49XnKJb7xxJL6ClItIH27RKgNdFoETt8FOQGY7AQPEVJt
SUN9ZQ/YkX+4EU7xN6sCQFF46tgt09wRyXYRa6X6os4VIaakVqH6ByOhiIkpfwcH
AGHPvL3AI3PiWe+XbQClqnHz/7PW419yOpKhVuQ7so8=
-----END RSA PRIVATE KEY-----
)pem";
constexpr char kKatPkcs8[] = R"pem(-----BEGIN PRIVATE KEY-----
MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBANSQD23YHwYPfPFc
V4ChGrl01jihZ1MSFyOIiIngIRG0OHFvhE8lH8/Y4wLj5VFvAP+niQAS/CAZ7sJm
7AylXgYzGJ5TqRGj1ajOkRJpKWq2VuIsCPnrXlG0zSqAZNz/brFxklWMdglHEAAd
ytF2ZKqamdP/VT2yhzq3ahm2C+GpAgMBAAECgYEA0T97oNNnPu0SPvt7PCncCAMn
OxpQf6tIUfd/CdM0WpxCEBEKe2r9VPuaBedYgIC4x/Mh34vQ3L0KmB7/cjd8ROy9
Qm7/KUpvSds0j4EL2T3GSX1Jr8QgZPZdpWnCDu1++Nr0wo5F0yEtjDX35hCiYW4V
EqiQgqLqDl+UboMztn0CQQDtz+/ROznXD0CpX88DdVOHBx/5rxsBuCpvHCU24Ks/
92eIoZURRoGeTExfWiQoglOsvkEFX8KFzocbTvbUyBbPAkEA5NHFFTOeS9aXZy0B
th95K3rzMS8KCNFNRXuUXsR6cdjSjPlZQXXtA//lbRIK12dcZC343Kt/6jO16qur
OWkeBwJAXnrPJ0wlZZisst3ai+AwCCQ/gt4bl6pISY5gBpZp0ucC3hh79boSQwbD
DNruJJ3qimWnxW/PA4QSzzmm/NBlpwJAIjZ3OFdSeNZqJuQk2F1WWbj1ecolvvHE
kvoKUi0gfbtEqA10WgRO3wU5AZjsBA8RUm1JQ31lD9iRf7gRTvE3qwJAUXjq2C3T
3BHJdhFrpfqizhUhpqRWofoHI6GIiSl/BwcAYc+8vcAjc+JZ75dtAKWqcfP/s9bj
X3I6kqFW5Duyjw==
-----END PRIVATE KEY-----
)pem";
constexpr char kKatRsaPublic[] = R"pem(-----BEGIN RSA PUBLIC KEY-----
MIGJAoGBANSQD23YHwYPfPFcV4ChGrl01jihZ1MSFyOIiIngIRG0OHFvhE8lH8/Y
4wLj5VFvAP+niQAS/CAZ7sJm7AylXgYzGJ5TqRGj1ajOkRJpKWq2VuIsCPnrXlG0
zSqAZNz/brFxklWMdglHEAAdytF2ZKqamdP/VT2yhzq3ahm2C+GpAgMBAAE=
-----END RSA PUBLIC KEY-----
)pem";
constexpr char kKatPublic[] = R"pem(-----BEGIN PUBLIC KEY-----
MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDUkA9t2B8GD3zxXFeAoRq5dNY4
oWdTEhcjiIiJ4CERtDhxb4RPJR/P2OMC4+VRbwD/p4kAEvwgGe7CZuwMpV4GMxie
U6kRo9WozpESaSlqtlbiLAj5615RtM0qgGTc/26xcZJVjHYJRxAAHcrRdmSqmpnT
/1U9soc6t2oZtgvhqQIDAQAB
-----END PUBLIC KEY-----
)pem";
constexpr char kKatEncrypted[] = R"pem(-----BEGIN ENCRYPTED PRIVATE KEY-----
MIIC3TBXBgkqhkiG9w0BBQ0wSjApBgkqhkiG9w0BBQwwHAQIMbj1UpvfHegCAggA
MAwGCCqGSIb3DQIJBQAwHQYJYIZIAWUDBAECBBAzThpgsO1dUtCi5Hhfs7XyBIIC
gJo+85z5nVk7PMszActViNLy2qz1ND0SmpyfvKXzjpWzd3LwMow3C3f37jT2ySxU
jr6+dETay3qDIn64tpgknKDi2J3lTnJkcPajlaLpqyEKxSa/wf87gzMF32UQcMJz
S3wUEk4bE4dSnwC08VkJJdgbnXwEOBvDrMfum1rsqB1x/RO7TYFN1RF78MhUrHdS
UnszJmndjXzhPAMD2OATC5vDUyViqJZJ7vlMLpTsKgMxRyP5c31PnDn6htoyrW0A
NPQo+lIySX7s+bDJHeNX/iVG9SbWgK08U6opj3aSQVf6haOIMfeg4mHY8FG0DbYx
Ab1Ud0+zy+Y1SVAVkoR/DN5uJNPBImrVg2j/4zGKfwbGi5oOc6qBdfnHMaHt3q8d
bOr7GbtakdSyhvw1mInc13Yd3QBXnpCfntF/WooG0EnXTF9Cnal2knfsGMTtj0I/
3jnWNON1ZXL+CTiWPZQEj+fflgH3DSqwdxODR109qq1o16ofPPkvrOCQSmhcBPgo
T4lBQPxvZfRrTH0WP/V78LETDYwGhQ8smgpUGWyxoqSIXZBsK5l69PksrSEQEgR7
dNR0ylCQC46BNtFsKyb3+Eu1JVhT+YAPC5ftRbkVYc73r4gGFRa7VV06VAPgDfuJ
LukoJjifccwHSXgrnquPU187I7E7AyLs5ilOHZvxtH+Rrum2YjCP9OMmi8ACcZr/
xfgEInNpwAKrUOkizeh/Mu/8NYDmLWuB6groraliWIkjpEYiP+ifT8ZWiRmSMya4
7j9gkEfefXGXYZjfRQWmhSSuGZzomqEQkvQPi4koO3GyFZgSaFqSvoT+vY6HfJDO
BfiEcQilCHTPsZ+HE1msWHo=
-----END ENCRYPTED PRIVATE KEY-----
)pem";

// `openssl dgst -sha1 -sign kat.key` and `openssl pkeyutl -sign -inkey
// kat.key` over "hello".
constexpr char kKatSha1SigHex[] =
    "bba59f14ceaf81fb2dceabd61719e39f62e968b53dc563babd6b9c3aee0f3090"
    "640251bd2dca8bc24f03a761d73b1f620d4fb68bdb5a2a78f53d8b43c0c11af0"
    "2ed6d70b23d88e4e611cc37e444c912919aba2c7ca0604bc2ce5310ad03851aa"
    "3747b393b8283c506eca0c85c763f0bbb791854ea10de0f021b41d3c22941885";
constexpr char kKatRawSigHex[] =
    "b2d81d0b626b4ee6de1f49270b8e0cc28fa51dfcde2ab564cbfeab156f4ba4b6"
    "270299b6d373c1973700080575f6de6db2d7e9c14d1b4e741d32f67011ce7ab0"
    "557438c192d3d16f1521ab750f085e236c8b3199cb2a6174af7d9068a16e2719"
    "6308ba532d62c8e45a75d6d4f3ed695f39102d62b5642e62d68e0062b6d0b48e";

std::string Unhex(const char* hex) { return FromHex(hex).value(); }

// Generating RSA keys is slow; the tests share two.
const PrivateKey& TestKey() {
  static PrivateKey* key = new PrivateKey(PrivateKey::Generate().value());
  return *key;
}
const PrivateKey& OtherKey() {
  static PrivateKey* key = new PrivateKey(PrivateKey::Generate().value());
  return *key;
}
PublicKey PublicOf(const PrivateKey& key) { return key.Public().value(); }

TEST(SignatureTest, KnownAnswerSha1) {
  auto key = PrivateKey::FromPem(kKatKey);
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  auto sig = SignSha1(*key, "hello");
  ASSERT_TRUE(sig.ok()) << sig.status().ToString();
  EXPECT_EQ(ToHex(sig->data(), sig->size()), kKatSha1SigHex);
  auto pub = PublicKey::FromPem(kKatPublic);
  ASSERT_TRUE(pub.ok()) << pub.status().ToString();
  EXPECT_TRUE(VerifySha1(*pub, "hello", Unhex(kKatSha1SigHex)));
  EXPECT_FALSE(VerifySha1(*pub, "hellO", Unhex(kKatSha1SigHex)));
}

TEST(SignatureTest, KnownAnswerRaw) {
  auto key = PrivateKey::FromPem(kKatKey);
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  auto sig = SignRaw(*key, "hello");
  ASSERT_TRUE(sig.ok()) << sig.status().ToString();
  EXPECT_EQ(ToHex(sig->data(), sig->size()), kKatRawSigHex);
  auto pub = PublicKey::FromPem(kKatPublic);
  ASSERT_TRUE(pub.ok());
  EXPECT_TRUE(VerifyRaw(*pub, "hello", Unhex(kKatRawSigHex)));
  EXPECT_FALSE(VerifyRaw(*pub, "hell", Unhex(kKatRawSigHex)));
  // The two schemes do not accept each other's signatures.
  EXPECT_FALSE(VerifySha1(*pub, "hello", Unhex(kKatRawSigHex)));
  EXPECT_FALSE(VerifyRaw(*pub, "hello", Unhex(kKatSha1SigHex)));
}

TEST(SignatureTest, Sha1EqualsEvpDigestSign) {
  // SignSha1 builds the DigestInfo itself; it must equal what OpenSSL's own
  // SHA-1 signing produces (where the crypto policy still allows that).
  const std::string msg = "0123456789abcdef0123456789abcdef01234567-shake128";
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  size_t len = 0;
  std::string expected;
  if (EVP_DigestSignInit(ctx, nullptr, EVP_sha1(), nullptr, TestKey().get()) ==
          1 &&
      EVP_DigestSign(ctx, nullptr, &len,
                     reinterpret_cast<const unsigned char*>(msg.data()),
                     msg.size()) == 1) {
    expected.resize(len);
    if (EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(expected.data()),
                       &len, reinterpret_cast<const unsigned char*>(msg.data()),
                       msg.size()) != 1)
      expected.clear();
  }
  EVP_MD_CTX_free(ctx);
  if (expected.empty()) GTEST_SKIP() << "SHA-1 signatures disabled by policy";
  auto sig = SignSha1(TestKey(), msg);
  ASSERT_TRUE(sig.ok());
  EXPECT_EQ(*sig, expected);
}

TEST(SignatureTest, GeneratedKeySignsAndVerifies) {
  const PrivateKey& key = TestKey();
  EXPECT_EQ(key.bits(), 2048);
  PublicKey pub = PublicOf(key);
  PublicKey other = PublicOf(OtherKey());
  const std::string msg = "554d15faf3924fab14585927d49f6620c81789c7";

  auto sha1 = SignSha1(key, msg);
  ASSERT_TRUE(sha1.ok());
  EXPECT_EQ(sha1->size(), 256u);
  EXPECT_TRUE(VerifySha1(pub, msg, *sha1));
  EXPECT_FALSE(VerifySha1(pub, msg + "x", *sha1));
  EXPECT_FALSE(VerifySha1(other, msg, *sha1));

  auto raw = SignRaw(key, msg);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->size(), 256u);
  EXPECT_TRUE(VerifyRaw(pub, msg, *raw));
  EXPECT_FALSE(VerifyRaw(pub, msg.substr(1), *raw));
  EXPECT_FALSE(VerifyRaw(other, msg, *raw));

  for (std::string* sig : {&*sha1, &*raw}) {
    std::string flipped = *sig;
    flipped[100] ^= 0x01;
    EXPECT_FALSE(VerifySha1(pub, msg, flipped));
    EXPECT_FALSE(VerifyRaw(pub, msg, flipped));
    // Truncated, extended and empty signatures are refused.
    EXPECT_FALSE(VerifySha1(pub, msg, sig->substr(1)));
    EXPECT_FALSE(VerifyRaw(pub, msg, sig->substr(1)));
    EXPECT_FALSE(VerifyRaw(pub, msg, *sig + "x"));
    EXPECT_FALSE(VerifyRaw(pub, msg, ""));
  }
}

TEST(SignatureTest, RawMessageTooLong) {
  // PKCS#1 type-1 padding needs 11 bytes of the 256-byte modulus.
  EXPECT_TRUE(SignRaw(TestKey(), std::string(245, 'a')).ok());
  auto sig = SignRaw(TestKey(), std::string(246, 'a'));
  ASSERT_FALSE(sig.ok());
  EXPECT_EQ(sig.status().code(), Status::Code::kInvalidArgument);
}

TEST(SignatureTest, GenerateRejectsBadSizes) {
  EXPECT_FALSE(PrivateKey::Generate(512).ok());
  EXPECT_FALSE(PrivateKey::Generate(0).ok());
}

TEST(SignatureTest, PrivateKeyPemRoundTrip) {
  std::string pem = TestKey().ToPem();
  EXPECT_EQ(pem.rfind("-----BEGIN RSA PRIVATE KEY-----\n", 0), 0u) << pem;
  auto loaded = PrivateKey::FromPem(pem);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->ToPem(), pem);
  EXPECT_EQ(loaded->PublicPem(), TestKey().PublicPem());
  auto sig = SignRaw(*loaded, "x");
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(VerifyRaw(PublicOf(TestKey()), "x", *sig));
}

TEST(SignatureTest, LoadsBothPrivateKeyForms) {
  auto traditional = PrivateKey::FromPem(kKatKey);
  auto pkcs8 = PrivateKey::FromPem(kKatPkcs8);
  ASSERT_TRUE(traditional.ok()) << traditional.status().ToString();
  ASSERT_TRUE(pkcs8.ok()) << pkcs8.status().ToString();
  EXPECT_EQ(pkcs8->ToPem(), traditional->ToPem());
  EXPECT_EQ(traditional->ToPem(), kKatKey);
  EXPECT_EQ(traditional->PublicPem(), kKatPublic);
  EXPECT_EQ(traditional->bits(), 1024);
}

TEST(SignatureTest, RefusesBadPrivateKeys) {
  auto encrypted = PrivateKey::FromPem(kKatEncrypted);
  ASSERT_FALSE(encrypted.ok());
  EXPECT_NE(encrypted.status().message().find("encrypted"), std::string::npos);
  EXPECT_FALSE(PrivateKey::FromPem("").ok());
  EXPECT_FALSE(PrivateKey::FromPem("<html>502 Bad Gateway</html>").ok());
  EXPECT_FALSE(PrivateKey::FromPem(kKatPublic).ok());
  std::string broken = kKatKey;
  broken[100] = '!';
  EXPECT_FALSE(PrivateKey::FromPem(broken).ok());
}

TEST(SignatureTest, LoadsBothPublicKeyForms) {
  auto spki = PublicKey::FromPem(kKatPublic);
  auto pkcs1 = PublicKey::FromPem(kKatRsaPublic);
  ASSERT_TRUE(spki.ok()) << spki.status().ToString();
  ASSERT_TRUE(pkcs1.ok()) << pkcs1.status().ToString();
  EXPECT_EQ(pkcs1->ToPem(), kKatPublic);
  EXPECT_EQ(spki->bits(), 1024);
  EXPECT_TRUE(VerifySha1(*pkcs1, "hello", Unhex(kKatSha1SigHex)));
  // Leading text (comments) before the block is skipped.
  EXPECT_TRUE(
      PublicKey::FromPem(std::string("# master key\n") + kKatPublic).ok());
}

TEST(SignatureTest, RefusesBadPublicKeys) {
  EXPECT_FALSE(PublicKey::FromPem("").ok());
  EXPECT_FALSE(PublicKey::FromPem("<html><body>captive</body></html>").ok());
  // A private key is not accepted where a public key is expected.
  EXPECT_FALSE(PublicKey::FromPem(kKatKey).ok());
  std::string broken = kKatPublic;
  broken[40] = '*';
  EXPECT_FALSE(PublicKey::FromPem(broken).ok());
}

TEST(SignatureCertificateTest, CreateLoadFingerprintStable) {
  const std::string cn = "test.example.org CernVM-FS Release Managers";
  auto cert = Certificate::CreateSelfSigned(TestKey(), cn, 365);
  ASSERT_TRUE(cert.ok()) << cert.status().ToString();
  EXPECT_EQ(cert->CommonName(), cn);
  std::string pem = cert->ToPem();
  EXPECT_EQ(pem.rfind("-----BEGIN CERTIFICATE-----\n", 0), 0u);

  auto loaded = Certificate::FromPem(pem);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->Der(), cert->Der());

  // X.509 v3, SHA-256 with RSA, positive 20-byte serial.
  std::string der = cert->Der();
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  X509* x509 = d2i_X509(nullptr, &p, static_cast<long>(der.size()));  // NOLINT
  ASSERT_NE(x509, nullptr);
  EXPECT_EQ(X509_get_version(x509), 2);
  EXPECT_EQ(X509_get_signature_nid(x509), NID_sha256WithRSAEncryption);
  const ASN1_INTEGER* serial = X509_get0_serialNumber(x509);
  EXPECT_EQ(ASN1_STRING_length(serial), 20);
  EXPECT_EQ(ASN1_STRING_type(serial), V_ASN1_INTEGER);
  X509_free(x509);
  EXPECT_EQ(loaded->ToPem(), pem);
  EXPECT_EQ(loaded->Fingerprint(), cert->Fingerprint());
  EXPECT_EQ(loaded->Fingerprint(HashAlgorithm::kShake128),
            cert->Fingerprint(HashAlgorithm::kShake128));

  // The certificate carries the key's public half.
  auto pub = loaded->GetPublicKey();
  ASSERT_TRUE(pub.ok());
  EXPECT_EQ(pub->ToPem(), TestKey().PublicPem());
  auto sig = SignSha1(TestKey(), "abc");
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(VerifySha1(*pub, "abc", *sig));
}

TEST(SignatureCertificateTest, FingerprintFormat) {
  auto cert = Certificate::CreateSelfSigned(TestKey(), "x", 1);
  ASSERT_TRUE(cert.ok());
  std::string der = cert->Der();
  std::string sha1 = cert->Fingerprint();
  ASSERT_EQ(sha1.size(), 20u * 3 - 1);
  Digest d = HashString(HashAlgorithm::kSha1, der);
  std::string hex = d.Hex();
  for (size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(static_cast<char>(std::tolower(sha1[3 * i])), hex[2 * i]);
    EXPECT_EQ(static_cast<char>(std::tolower(sha1[3 * i + 1])), hex[2 * i + 1]);
    if (i < 19) {
      EXPECT_EQ(sha1[3 * i + 2], ':');
    }
  }
  EXPECT_EQ(sha1.find_first_of("abcdef"), std::string::npos);
  std::string shake = cert->Fingerprint(HashAlgorithm::kShake128);
  EXPECT_EQ(shake.size(), 20u * 3 - 1 + 9);
  EXPECT_EQ(shake.substr(shake.size() - 9), "-SHAKE128");
  EXPECT_EQ(cert->Fingerprint(HashAlgorithm::kRmd160).substr(59), "-RMD160");
}

TEST(SignatureCertificateTest, TwoCertificatesDiffer) {
  // Random serials: the same key and name give different certificates.
  auto a = Certificate::CreateSelfSigned(TestKey(), "x", 1);
  auto b = Certificate::CreateSelfSigned(TestKey(), "x", 1);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->Fingerprint(), b->Fingerprint());
}

TEST(SignatureCertificateTest, LongCommonName) {
  // A 60-character fqrn makes the CVMFS CN longer than X.520's 64 limit.
  const std::string cn = std::string(60, 'a') + " CernVM-FS Release Managers";
  auto cert = Certificate::CreateSelfSigned(TestKey(), cn, 365);
  ASSERT_TRUE(cert.ok()) << cert.status().ToString();
  auto loaded = Certificate::FromPem(cert->ToPem());
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->CommonName(), cn);
}

TEST(SignatureCertificateTest, RefusesBadInput) {
  EXPECT_FALSE(Certificate::CreateSelfSigned(TestKey(), "x", 0).ok());
  EXPECT_FALSE(Certificate::CreateSelfSigned(TestKey(), "", 1).ok());
  auto html = Certificate::FromPem("<html>404 Not Found</html>");
  ASSERT_FALSE(html.ok());
  EXPECT_TRUE(html.status().IsCorruption());
  EXPECT_FALSE(Certificate::FromPem(kKatPublic).ok());
}

// The certificate objects of the fixture repositories (CVMFS 2.12).
struct FixtureCert {
  const char* fqrn;
  const char* object;       // manifest X
  const char* fingerprint;  // as in the fixture's whitelist
  HashAlgorithm algo;
  const char* sha1_fingerprint;  // `openssl x509 -fingerprint -sha1`
};
const FixtureCert kFixtureCerts[] = {
    {"sha1-zlib.example.org", "3c36e7d6499fe18e572a315c64ebab76d49a1487",
     "72:0C:F3:2B:2E:F0:79:31:2E:43:BD:C1:A8:E2:FF:9E:1B:D8:D0:9C",
     HashAlgorithm::kSha1,
     "72:0C:F3:2B:2E:F0:79:31:2E:43:BD:C1:A8:E2:FF:9E:1B:D8:D0:9C"},
    {"shake128-none.example.org",
     "1112f3d7c016c572075fe4de8f43f0244f693659-shake128",
     "97:0F:DE:54:CA:93:3A:3F:DB:A0:91:24:88:66:1D:81:38:26:0C:65-SHAKE128",
     HashAlgorithm::kShake128,
     "E7:50:11:34:64:B3:F6:10:59:02:CF:22:B9:2D:D8:E7:0F:47:E0:4D"},
};

TEST(SignatureCertificateTest, FixtureFingerprints) {
  for (const FixtureCert& f : kFixtureCerts) {
    SCOPED_TRACE(f.fqrn);
    Digest x = Digest::Parse(f.object).value();
    std::string path = testing::FixturesDir() + "/" + f.fqrn + "/srv/cvmfs/" +
                       f.fqrn + "/" + ObjectPath(x, ObjectSuffix::kCertificate);
    auto stored = ReadFile(path);
    ASSERT_TRUE(stored.ok()) << stored.status().ToString();
    ASSERT_EQ(HashString(x.algorithm, *stored), x);
    std::string pem;
    ASSERT_TRUE(Decompress(*stored, &pem).ok());
    auto cert = Certificate::FromPem(pem);
    ASSERT_TRUE(cert.ok()) << cert.status().ToString();
    EXPECT_EQ(cert->Fingerprint(f.algo), f.fingerprint);
    EXPECT_EQ(cert->Fingerprint(), f.sha1_fingerprint);
    EXPECT_EQ(cert->CommonName(),
              std::string(f.fqrn) + " CernVM-FS Release Managers");
    EXPECT_EQ(cert->ToPem(), pem);
  }
}

TEST(SignatureFingerprintTest, ParseAndFormat) {
  const std::string fp =
      "97:0F:DE:54:CA:93:3A:3F:DB:A0:91:24:88:66:1D:81:38:26:0C:65-SHAKE128";
  auto d = ParseFingerprint(fp);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->algorithm, HashAlgorithm::kShake128);
  EXPECT_EQ(FormatFingerprint(*d), fp);
  // Comments after space, tab or '#' are ignored; case does not matter.
  EXPECT_EQ(ParseFingerprint(fp + " release key 2026").value(), *d);
  EXPECT_EQ(ParseFingerprint(fp + "\tx").value(), *d);
  EXPECT_EQ(ParseFingerprint(fp + "#x").value(), *d);
  std::string lower = fp;
  for (char& c : lower) c = static_cast<char>(std::tolower(c));
  EXPECT_EQ(ParseFingerprint(lower).value(), *d);
  const char* colonless = "970FDE54CA933A3FDBA0912488661D8138260C65-shake128";
  EXPECT_EQ(ParseFingerprint(colonless).value(), *d);
  EXPECT_FALSE(ParseFingerprint("").ok());
  EXPECT_FALSE(ParseFingerprint("# comment").ok());
  EXPECT_FALSE(ParseFingerprint("72:0C:F3").ok());
  EXPECT_FALSE(ParseFingerprint("D4:1D:8C:D9:8F:00:B2:04:E9:80:09:98:EC:F8:"
                                "42:7E")
                   .ok());  // MD5-sized
}

TEST(SignatureLetterTest, Split) {
  auto l = SplitLetter("Ca\nSb\n--\nhash\nsig\nnature");
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l->is_signed);
  EXPECT_EQ(l->text, "Ca\nSb\n");
  EXPECT_EQ(l->hash_line, "hash");
  EXPECT_EQ(l->signature, "sig\nnature");

  auto unsigned_letter = SplitLetter("Ca\nSb\n");
  ASSERT_TRUE(unsigned_letter.ok());
  EXPECT_FALSE(unsigned_letter->is_signed);
  EXPECT_EQ(unsigned_letter->text, "Ca\nSb\n");

  auto empty_text = SplitLetter("--\nh\n");
  ASSERT_TRUE(empty_text.ok());
  EXPECT_EQ(empty_text->text, "");
  EXPECT_EQ(empty_text->hash_line, "h");

  EXPECT_FALSE(SplitLetter("Ca\n--\nhash-without-newline").ok());
  EXPECT_FALSE(SplitLetter("Ca\n--").ok());
  // "--" inside a line is not the separator.
  auto inline_dashes = SplitLetter("Na--b\n");
  ASSERT_TRUE(inline_dashes.ok());
  EXPECT_FALSE(inline_dashes->is_signed);
}

TEST(SignatureLetterTest, CheckHash) {
  const std::string text = "Ca\n";
  std::string sha1 = HashString(HashAlgorithm::kSha1, text).ToString();
  std::string shake = HashString(HashAlgorithm::kShake128, text).ToString();
  EXPECT_TRUE(CheckLetterHash(text, sha1, "t").ok());
  EXPECT_TRUE(CheckLetterHash(text, shake, "t").ok());
  EXPECT_TRUE(CheckLetterHash("Cb\n", sha1, "t").status().IsCorruption());
  EXPECT_FALSE(CheckLetterHash(text, "zz", "t").ok());
  EXPECT_FALSE(CheckLetterHash(text, "", "t").ok());
  EXPECT_FALSE(CheckLetterHash(
                   text, HashString(HashAlgorithm::kMd5, text).ToString(), "t")
                   .ok());
}

}  // namespace
}  // namespace cvmfs
