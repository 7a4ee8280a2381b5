#include "cache/recent_digests.h"

#include <gtest/gtest.h>

#include <string>

namespace cache {
namespace {

cvmfs::Digest D(int i) {
  return cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, std::to_string(i));
}

TEST(RecentDigestsTest, RemembersTheLastCapacityOnes) {
  RecentDigests recent(3);
  EXPECT_FALSE(recent.Contains(D(1)));
  for (int i = 1; i <= 4; ++i) recent.Add(D(i));
  EXPECT_FALSE(recent.Contains(D(1))) << "the oldest one went";
  for (int i = 2; i <= 4; ++i) EXPECT_TRUE(recent.Contains(D(i))) << i;
  recent.Add(D(4));  // again: not a second place in the order
  recent.Add(D(5));
  EXPECT_FALSE(recent.Contains(D(2)));
  EXPECT_TRUE(recent.Contains(D(3)));
  EXPECT_TRUE(recent.Contains(D(4)));
}

TEST(RecentDigestsTest, CapacityZeroRemembersNothing) {
  RecentDigests recent(0);
  recent.Add(D(1));
  EXPECT_FALSE(recent.Contains(D(1)));
}

}  // namespace
}  // namespace cache
