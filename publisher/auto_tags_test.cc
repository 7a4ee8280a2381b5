// Automatic tag names, their pattern and CVMFS_AUTO_TAG_TIMESPAN.
#include "publisher/auto_tags.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace publisher {
namespace {

constexpr int64_t kNow = 1795780670;  // 2026-11-27T11:57:50Z

TEST(AutoTagsTest, NameIsGenericUtcTimeThenNumberedWhenTaken) {
  std::set<std::string> taken;
  auto is_taken = [&](const std::string& n) { return taken.count(n) > 0; };
  EXPECT_EQ(AutoTagName(kNow, is_taken), "generic-2026-11-27T11:57:50Z");
  taken.insert("generic-2026-11-27T11:57:50Z");
  EXPECT_EQ(AutoTagName(kNow, is_taken), "generic_1-2026-11-27T11:57:50Z");
  taken.insert("generic_1-2026-11-27T11:57:50Z");
  EXPECT_EQ(AutoTagName(kNow, is_taken), "generic_2-2026-11-27T11:57:50Z");
}

TEST(AutoTagsTest, ThirtyTwoNamesInOneSecondAreDistinct) {
  std::set<std::string> taken;
  for (int i = 0; i < 32; ++i)
    taken.insert(AutoTagName(
        kNow, [&](const std::string& n) { return taken.count(n) > 0; }));
  EXPECT_EQ(taken.size(), 32u);
}

TEST(AutoTagsTest, PatternIsCvmfs) {
  EXPECT_TRUE(IsAutoTagName("generic-2026-11-27T11:57:41Z"));
  EXPECT_TRUE(IsAutoTagName("generic_1-2026-11-27T11:57:50Z"));
  EXPECT_TRUE(IsAutoTagName("generic_12-2026-11-27T11:57:50.123Z"));
  EXPECT_FALSE(IsAutoTagName("generic-release"));
  EXPECT_FALSE(IsAutoTagName("v1"));
  EXPECT_FALSE(IsAutoTagName("trunk"));
  EXPECT_FALSE(IsAutoTagName("my-generic-2026-11-27T11:57:41Z"));
}

TEST(AutoTagsTest, ThresholdReadsDateExpressions) {
  EXPECT_EQ(*AutoTagThreshold("", kNow), 0);
  EXPECT_EQ(*AutoTagThreshold("30 seconds ago", kNow), kNow - 30);
  EXPECT_EQ(*AutoTagThreshold("2 hours ago", kNow), kNow - 7200);
  EXPECT_EQ(*AutoTagThreshold("4 weeks ago", kNow), kNow - 28 * 86400);
  EXPECT_EQ(*AutoTagThreshold("1 day ago", kNow), kNow - 86400);
  EXPECT_EQ(*AutoTagThreshold("day ago", kNow), kNow - 86400);
  // Calendar months, as date: 2026-11-27 -> 2026-09-27 (61 days).
  EXPECT_EQ(*AutoTagThreshold("2 months ago", kNow), kNow - 61 * 86400);
  EXPECT_EQ(*AutoTagThreshold("1 year ago", kNow), kNow - 365 * 86400);
  EXPECT_EQ(*AutoTagThreshold("2026-11-27", kNow), 1795737600);
  EXPECT_EQ(*AutoTagThreshold("@1700000000", kNow), 1700000000);
  auto bad = AutoTagThreshold("last tuesday", kNow);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), cvmfs::Status::Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("'last tuesday'"), std::string::npos);
  EXPECT_FALSE(AutoTagThreshold("2026-13-01", kNow).ok());
}

TEST(AutoTagsTest, OutdatedAreOnlyAutoTagsOlderThanTheThreshold) {
  auto tag = [](const std::string& name, int64_t ts) {
    cvmfs::Tag t;
    t.name = name;
    t.timestamp = ts;
    return t;
  };
  std::vector<cvmfs::Tag> tags = {tag("generic-2026-11-27T11:57:41Z", 100),
                                  tag("generic_1-2026-11-27T11:57:41Z", 200),
                                  tag("v1", 100), tag("trunk-previous", 100),
                                  tag("generic-2026-11-27T11:57:50Z", 300)};
  EXPECT_EQ(OutdatedAutoTags(tags, 250),
            (std::vector<std::string>{"generic-2026-11-27T11:57:41Z",
                                      "generic_1-2026-11-27T11:57:41Z"}));
  EXPECT_TRUE(OutdatedAutoTags(tags, 0).empty());
  EXPECT_TRUE(OutdatedAutoTags(tags, 100).empty());
}

}  // namespace
}  // namespace publisher
