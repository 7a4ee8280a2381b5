#include "cvmfs/path_hash.h"

#include <gtest/gtest.h>

namespace cvmfs {
namespace {

// Known answers read from the root catalog of the sha1-zlib fixture.
TEST(PathHashTest, MatchesCvmfsCatalogKeys) {
  PathHash root = HashPath("");
  EXPECT_EQ(root.md5_1, 338333539836370388LL);
  EXPECT_EQ(root.md5_2, 9098107892288553193LL);
  PathHash d00 = HashPath("/d00");
  EXPECT_EQ(d00.md5_1, -4609183144043014812LL);
  EXPECT_EQ(d00.md5_2, 2044319512900655720LL);
  PathHash nr = HashPath("/new_repository");
  EXPECT_EQ(nr.md5_1, 8193369706472672701LL);
  EXPECT_EQ(nr.md5_2, 4868506713845114430LL);
}

TEST(PathHashTest, ParentAndBase) {
  EXPECT_EQ(ParentPath("/a/b"), "/a");
  EXPECT_EQ(ParentPath("/a"), "");
  EXPECT_EQ(BaseName("/a/b"), "b");
  EXPECT_EQ(BaseName(""), "");
}

}  // namespace
}  // namespace cvmfs
