// Tags on a repository made with Mkfs and a few publishes: add (for trunk
// or for a tagged root hash), move, remove, list and find.
#include "publisher/tags.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "publisher/fresh_repository_test_util.h"
#include "publisher/repository.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::Status;
using cvmfs::Tag;

constexpr const char* kFqrn = "tags.example.org";

class TagsTest : public FreshRepositoryTest {
 protected:
  TagsTest() : FreshRepositoryTest(kFqrn) {}

  // The tag names, newest revision first; without the generic-<time>
  // tags that publish adds (CVMFS_AUTO_TAG).
  std::vector<std::string> Names() {
    auto tags = ListTags(repo_.get());
    EXPECT_TRUE(tags.ok()) << tags.status().ToString();
    std::vector<std::string> names;
    if (tags.ok())
      for (const Tag& t : *tags)
        if (t.name.rfind("generic-", 0) != 0) names.push_back(t.name);
    return names;
  }

  static NewTag Named(const std::string& name, const std::string& hash = "") {
    NewTag tag;
    tag.name = name;
    tag.description = "about " + name;
    tag.root_hash = hash;
    tag.timestamp = 1700000000;
    return tag;
  }
};

TEST_F(TagsTest, AddTagsTheTrunkRevisionWithItsNameDescriptionAndTime) {
  const cvmfs::Digest root = Publish("a");
  ASSERT_TRUE(AddTag(repo_.get(), Named("v1")).ok());
  auto tag = FindTag(repo_.get(), "v1");
  ASSERT_TRUE(tag.ok()) << tag.status().ToString();
  EXPECT_EQ(tag->root_hash, root);
  EXPECT_EQ(tag->revision, 2u);
  EXPECT_EQ(tag->description, "about v1");
  EXPECT_EQ(tag->timestamp, 1700000000);
  auto trunk = FindTag(repo_.get(), "trunk");
  ASSERT_TRUE(trunk.ok());
  EXPECT_EQ(tag->size, trunk->size);
}

TEST_F(TagsTest, AddTagsAnEarlierTaggedRevisionByItsRootHash) {
  const cvmfs::Digest first = Publish("a");
  Publish("b");
  ASSERT_TRUE(AddTag(repo_.get(), Named("old", first.ToString())).ok());
  auto tag = FindTag(repo_.get(), "old");
  ASSERT_TRUE(tag.ok());
  EXPECT_EQ(tag->root_hash, first);
  EXPECT_EQ(tag->revision, 2u);
}

TEST_F(TagsTest, AddRefusesAHashNoTagHasAndABadHash) {
  Publish("a");
  const std::string untagged =
      cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "nothing").ToString();
  Status st = AddTag(repo_.get(), Named("x", untagged));
  EXPECT_EQ(st.code(), Status::Code::kNotFound);
  EXPECT_EQ(st.message(), "no tagged revision with root hash " + untagged);
  EXPECT_FALSE(AddTag(repo_.get(), Named("x", "not-hex")).ok());
  EXPECT_FALSE(FindTag(repo_.get(), "x").ok());
}

TEST_F(TagsTest, AddingAnExistingNameMovesTheTag) {
  const cvmfs::Digest first = Publish("a");
  ASSERT_TRUE(AddTag(repo_.get(), Named("v")).ok());
  const cvmfs::Digest second = Publish("b");
  ASSERT_TRUE(AddTag(repo_.get(), Named("v")).ok());
  auto tag = FindTag(repo_.get(), "v");
  ASSERT_TRUE(tag.ok());
  EXPECT_NE(first, second);
  EXPECT_EQ(tag->root_hash, second);
}

TEST_F(TagsTest, RemoveDeletesATagButNotTheOnesPublishMaintains) {
  Publish("a");
  ASSERT_TRUE(AddTag(repo_.get(), Named("v1")).ok());
  EXPECT_EQ(Names(),
            (std::vector<std::string>{"trunk", "v1", "trunk-previous"}));
  ASSERT_TRUE(RemoveTag(repo_.get(), "v1").ok());
  EXPECT_EQ(Names(), (std::vector<std::string>{"trunk", "trunk-previous"}));

  Status missing = RemoveTag(repo_.get(), "v1");
  EXPECT_EQ(missing.code(), Status::Code::kNotFound);
  EXPECT_EQ(missing.message(), "tag v1 does not exist");
  for (const char* kept : {"trunk", "trunk-previous"}) {
    Status st = RemoveTag(repo_.get(), kept);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(st.message(),
              std::string("tag ") + kept + " is maintained by publish");
  }
  EXPECT_EQ(Names(), (std::vector<std::string>{"trunk", "trunk-previous"}));
}

TEST_F(TagsTest, FindSaysWhichTagDoesNotExist) {
  auto tag = FindTag(repo_.get(), "nope");
  ASSERT_FALSE(tag.ok());
  EXPECT_EQ(tag.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(tag.status().message(), "tag nope does not exist");
}

}  // namespace
}  // namespace publisher
