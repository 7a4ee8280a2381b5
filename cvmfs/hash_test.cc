#include "cvmfs/hash.h"

#include <gtest/gtest.h>

namespace cvmfs {
namespace {

TEST(HashTest, KnownAnswers) {
  EXPECT_EQ(HashString(HashAlgorithm::kSha1, "").ToString(),
            "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(HashString(HashAlgorithm::kMd5, "").ToString(),
            "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(HashString(HashAlgorithm::kRmd160, "abc").ToString(),
            "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc-rmd160");
  // SHAKE128 truncated to 160 bits.
  EXPECT_EQ(HashString(HashAlgorithm::kShake128, "").ToString(),
            "7f9c2ba4e88f827d616045507605853ed73b8093-shake128");
}

TEST(HashTest, StreamingEqualsOneShot) {
  Hasher h(HashAlgorithm::kShake128);
  h.Update("hello ");
  h.Update("world");
  EXPECT_EQ(h.Finish(), HashString(HashAlgorithm::kShake128, "hello world"));
}

TEST(HashTest, ParseRoundTrip) {
  for (auto algo : {HashAlgorithm::kSha1, HashAlgorithm::kRmd160,
                    HashAlgorithm::kShake128}) {
    Digest d = HashString(algo, "x");
    auto parsed = Digest::Parse(d.ToString());
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, d);
  }
}

TEST(HashTest, ParseRejectsGarbage) {
  EXPECT_FALSE(Digest::Parse("xyz").ok());
  EXPECT_FALSE(Digest::Parse("da39a3ee5e6b4b0d3255bfef95601890afd8070").ok());
  EXPECT_FALSE(
      Digest::Parse("da39a3ee5e6b4b0d3255bfef95601890afd80709-sha256").ok());
  EXPECT_FALSE(Digest::Parse("zz39a3ee5e6b4b0d3255bfef95601890afd80709").ok());
}

}  // namespace
}  // namespace cvmfs
