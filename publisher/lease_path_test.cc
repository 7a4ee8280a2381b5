#include "publisher/lease_path.h"

#include <gtest/gtest.h>

namespace publisher {
namespace {

LeasePath P(const char* text) { return *ParseLeasePath(text); }

TEST(LeasePathTest, ParsesAndNormalizes) {
  EXPECT_EQ(P("repo.org").path, "/");
  EXPECT_EQ(P("repo.org/").path, "/");
  EXPECT_EQ(P("repo.org/a/b/").path, "/a/b");
  EXPECT_EQ(P("repo.org/a/b").fqrn, "repo.org");
  EXPECT_EQ(P("repo.org/a/b").ToString(), "repo.org/a/b");
  EXPECT_EQ(P("repo.org").ToString(), "repo.org/");
  for (const char* bad : {"", "/a", "repo.org/a//b", "repo.org/../x",
                          "repo.org/./x", "repo.org//x"})
    EXPECT_FALSE(ParseLeasePath(bad).ok()) << bad;
}

TEST(LeasePathTest, OverlapAtComponentBoundaries) {
  EXPECT_TRUE(Overlaps(P("r/a"), P("r/a/b")));
  EXPECT_TRUE(Overlaps(P("r/a/b"), P("r/a")));
  EXPECT_TRUE(Overlaps(P("r/"), P("r/x")));
  EXPECT_TRUE(Overlaps(P("r/a"), P("r/a")));
  EXPECT_FALSE(Overlaps(P("r/a"), P("r/ab")));
  EXPECT_FALSE(Overlaps(P("r/a/b"), P("r/a/c")));
  EXPECT_FALSE(Overlaps(P("r/a"), P("s/a")));
}

TEST(LeasePathTest, ChangesOutsideALease) {
  EXPECT_FALSE(ReachesOutside("/a/b", "/a"));
  EXPECT_FALSE(ReachesOutside("/a", "/a"));
  EXPECT_FALSE(ReachesOutside("/", "/a/b"));   // a parent's mtime
  EXPECT_FALSE(ReachesOutside("/a", "/a/b"));  // a parent's link count
  EXPECT_TRUE(ReachesOutside("/ab", "/a"));
  EXPECT_TRUE(ReachesOutside("/b/x", "/a"));
  EXPECT_FALSE(ReachesOutside("/anything", "/"));
}

}  // namespace
}  // namespace publisher
