#include "cvmfs/object_name.h"

#include <gtest/gtest.h>

namespace cvmfs {
namespace {

TEST(ObjectNameTest, PathsAndSuffixes) {
  auto d = *Digest::Parse("68371afd82205255c360019d2471c96cd7125cad");
  EXPECT_EQ(ObjectPath(d, ObjectSuffix::kCatalog),
            "data/68/371afd82205255c360019d2471c96cd7125cadC");
  EXPECT_EQ(ObjectPath(d, ObjectSuffix::kNone),
            "data/68/371afd82205255c360019d2471c96cd7125cad");
  auto s = *Digest::Parse("7f94a01c31742c961ab142e131f8324fe9c0aacf-shake128");
  EXPECT_EQ(ObjectPath(s, ObjectSuffix::kPartial),
            "data/7f/94a01c31742c961ab142e131f8324fe9c0aacf-shake128P");
}

TEST(ObjectNameTest, ParseBack) {
  for (auto suffix : {ObjectSuffix::kNone, ObjectSuffix::kCatalog,
                      ObjectSuffix::kPartial, ObjectSuffix::kHistory,
                      ObjectSuffix::kCertificate, ObjectSuffix::kMetainfo}) {
    for (auto algo : {HashAlgorithm::kSha1, HashAlgorithm::kRmd160,
                      HashAlgorithm::kShake128}) {
      Digest d = HashString(algo, "content");
      auto parsed = ParseObjectPath(ObjectPath(d, suffix));
      ASSERT_TRUE(parsed.ok());
      EXPECT_EQ(parsed->digest, d);
      EXPECT_EQ(parsed->suffix, suffix);
    }
  }
  EXPECT_FALSE(ParseObjectPath("data/txn/abc").ok());
  EXPECT_FALSE(ParseObjectPath(".cvmfspublished").ok());
}

}  // namespace
}  // namespace cvmfs
