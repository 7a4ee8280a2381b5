#include "cvmfs/object_pack.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cvmfs/base64.h"

namespace cvmfs {
namespace {

ObjectName Id(std::string_view content,
              ObjectSuffix suffix = ObjectSuffix::kNone,
              HashAlgorithm algo = HashAlgorithm::kSha1) {
  return ObjectName{HashString(algo, content), suffix};
}

Result<std::vector<ObjectPackEntry>> ParseWhole(const ObjectPackBuilder& b,
                                                const std::string& pack) {
  std::string header = b.Header();
  return ParseObjectPack(pack, header.size(),
                         HashString(HashAlgorithm::kSha1, header));
}

TEST(Base64Test, RoundTripsBothAlphabets) {
  for (std::string s : std::vector<std::string>{"", "a", "ab", "abc", "abcd",
                                                "\xff\xfe\xfd?>"}) {
    EXPECT_EQ(*Debase64(Base64(s)), s);
    EXPECT_EQ(*Debase64(Base64Url(s)), s);
  }
  EXPECT_EQ(Base64("\xfb\xff"), "+/8=");
  EXPECT_EQ(Base64Url("\xfb\xff"), "-_8=");
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
  EXPECT_FALSE(Debase64("Zm9v!"));
  EXPECT_FALSE(Debase64("Z"));
}

TEST(ObjectPackTest, HeaderIsCvmfsFormat) {
  ObjectPackBuilder b;
  ObjectName cat = Id("catalog", ObjectSuffix::kCatalog);
  ASSERT_TRUE(b.AddCas(Id("x"), "x"));
  ASSERT_TRUE(b.AddCas(cat, "catalog"));
  ASSERT_TRUE(b.AddNamed(Id("n"), "dir/file", "n"));
  EXPECT_EQ(b.Header(), "V2\nS9\nN3\n--\nC " + Id("x").digest.ToString() +
                            " 1\nC " + cat.digest.ToString() + "C 7\nN " +
                            Id("n").digest.ToString() + " 1 " +
                            Base64Url("dir/file") + "\n");
  EXPECT_EQ(b.Serialize(), b.Header() + "xcatalogn");
}

TEST(ObjectPackTest, RoundTrip) {
  ObjectPackBuilder b;
  ObjectName chunk =
      Id("chunk", ObjectSuffix::kPartial, HashAlgorithm::kShake128);
  ASSERT_TRUE(b.AddCas(chunk, "chunk"));
  ASSERT_TRUE(b.AddCas(Id(""), ""));
  ASSERT_TRUE(b.AddNamed(Id("n"), "a/b", "named"));
  std::string pack = b.Serialize();
  auto entries = ParseWhole(b, pack);
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0].id.digest, chunk.digest);
  EXPECT_EQ((*entries)[0].id.suffix, ObjectSuffix::kPartial);
  EXPECT_EQ((*entries)[0].bytes, "chunk");
  EXPECT_EQ((*entries)[1].bytes, "");
  EXPECT_EQ((*entries)[2].kind, ObjectPackEntry::Kind::kNamed);
  EXPECT_EQ((*entries)[2].name, "a/b");
  EXPECT_EQ((*entries)[2].bytes, "named");
}

TEST(ObjectPackTest, EmptyPack) {
  ObjectPackBuilder b;
  EXPECT_EQ(b.Header(), "V2\nS0\nN0\n--\n");
  auto entries = ParseWhole(b, b.Serialize());
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  EXPECT_TRUE(entries->empty());
}

TEST(ObjectPackTest, RefusesWrongDigestTruncationAndTrailingBytes) {
  ObjectPackBuilder b;
  ASSERT_TRUE(b.AddCas(Id("abc"), "abc"));
  std::string pack = b.Serialize();
  std::string header = b.Header();
  auto wrong = ParseObjectPack(pack, header.size(),
                               HashString(HashAlgorithm::kSha1, "other"));
  EXPECT_TRUE(wrong.status().IsCorruption());
  EXPECT_FALSE(ParseWhole(b, pack.substr(0, pack.size() - 1)).ok());
  EXPECT_FALSE(ParseWhole(b, pack + "z").ok());
  EXPECT_FALSE(ParseObjectPack(header.substr(0, 3), header.size(),
                               HashString(HashAlgorithm::kSha1, header))
                   .ok());
}

TEST(ObjectPackTest, RefusesBadHeaders) {
  std::string id = Id("x").digest.ToString();
  uint64_t total = 0;
  for (const std::string& h : std::vector<std::string>{
           "V1\nS0\nN0\n--\n",                   // CVMFS's old version
           "V 2\nS0\nN0\n--\n",                  // space after the key
           "V2\nS1\nN0\n--\n",                   // S != sum
           "V2\nS1\nN2\n--\nC " + id + " 1\n",   // fewer entries than N
           "V2\nS1\nN1\n--\nC " + id + " 01\n",  // leading zero
           "V2\nS2\nN2\n--\nC " + id + " 1\nC " + id + " 1\n",  // twice
           "V2\nS1\nN1\n--\nX " + id + " 1\n",                  // unknown type
           "V2\nS1\nN1\n--\nC " + id + "Z 1\n",  // unknown suffix
           "V2\nS1\nN1\n--\nC " + id + " 1",     // no newline
           "V2\nS1\nN1\n--\nN " + id + " 1 " + Base64Url("../etc") + "\n",
           "V2\nS1\nN1\n--\nN " + id + " 1 " + Base64Url("/abs") + "\n",
           "V2\nS1\nN1\nC " + id + " 1\n",  // no -- line
       }) {
    EXPECT_FALSE(ParseObjectPackHeader(h, &total).ok()) << h;
  }
}

TEST(ObjectPackTest, BuilderRespectsLimit) {
  ObjectPackBuilder b(10);
  EXPECT_TRUE(b.AddCas(Id("a"), std::string(20, 'a')));  // first always fits
  EXPECT_FALSE(b.AddCas(Id("b"), "b"));
  ObjectPackBuilder c(10);
  EXPECT_TRUE(c.AddCas(Id("a"), std::string(5, 'a')));
  EXPECT_TRUE(c.AddCas(Id("b"), std::string(5, 'b')));
  EXPECT_FALSE(c.AddCas(Id("c"), "c"));
  EXPECT_EQ(c.objects(), 2u);
}

TEST(ObjectPackTest, SafeRelativePaths) {
  EXPECT_TRUE(IsSafeRelativePath("a/b.c"));
  for (const char* p : {"", "/a", "a//b", "a/./b", "a/..", "a/"})
    EXPECT_FALSE(IsSafeRelativePath(p)) << p;
}

}  // namespace
}  // namespace cvmfs
