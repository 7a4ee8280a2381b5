// Tags on a repository made with Mkfs and a few publishes: add (for trunk
// or for a tagged root hash), move, remove, list and find.
#include "publisher/tags.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "publisher/auto_tags.h"
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
        if (!IsAutoTagName(t.name)) names.push_back(t.name);
    return names;
  }

  static NewTag Named(const std::string& name, const std::string& hash = "") {
    NewTag tag;
    tag.name = name;
    tag.description = "about " + name;
    tag.root_hash = hash;
    return tag;
  }
};

TEST_F(TagsTest, AddTagsTheTrunkRevisionWithItsNameDescriptionAndTime) {
  const cvmfs::Digest root = Publish("a");
  auto trunk_before = FindTag(repo_.get(), "trunk");
  ASSERT_TRUE(trunk_before.ok());
  sleep(1);  // tagging later must not change the tag's time
  auto added = AddTag(repo_.get(), Named("v1"));
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(*added, TagChange::kCreated);
  auto tag = FindTag(repo_.get(), "v1");
  ASSERT_TRUE(tag.ok()) << tag.status().ToString();
  EXPECT_EQ(tag->root_hash, root);
  EXPECT_EQ(tag->revision, 2u);
  EXPECT_EQ(tag->description, "about v1");
  // The revision's own publish time, not the time of tagging.
  EXPECT_EQ(tag->timestamp, trunk_before->timestamp);
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
  Status st = AddTag(repo_.get(), Named("x", untagged)).status();
  EXPECT_EQ(st.code(), Status::Code::kNotFound);
  EXPECT_EQ(st.message(), "no tagged revision with root hash " + untagged);
  EXPECT_FALSE(AddTag(repo_.get(), Named("x", "not-hex")).ok());
  EXPECT_FALSE(FindTag(repo_.get(), "x").ok());
}

TEST_F(TagsTest, AnExistingNameIsRefusedUnlessMovedWithAHash) {
  const cvmfs::Digest first = Publish("a");
  ASSERT_TRUE(AddTag(repo_.get(), Named("v")).ok());
  const cvmfs::Digest second = Publish("b");
  NewTag again = Named("v");
  again.description = "";
  auto refused = AddTag(repo_.get(), again);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kAlreadyExists);
  EXPECT_EQ(refused.status().message(),
            "a tag with the name v already exists; move it with -h <root "
            "hash>");
  auto kept = FindTag(repo_.get(), "v");
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->root_hash, first);
  EXPECT_EQ(kept->description, "about v");

  // Moved explicitly: the other revision, the old description kept.
  again.root_hash = second.ToString();
  auto moved = AddTag(repo_.get(), again);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_EQ(*moved, TagChange::kMoved);
  auto tag = FindTag(repo_.get(), "v");
  ASSERT_TRUE(tag.ok());
  EXPECT_NE(first, second);
  EXPECT_EQ(tag->root_hash, second);
  EXPECT_EQ(tag->revision, 3u);
  EXPECT_EQ(tag->description, "about v");
  // Moving to where it points already is refused.
  auto same = AddTag(repo_.get(), again);
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.status().code(), Status::Code::kInvalidArgument);
}

TEST_F(TagsTest, AddRefusesSpacesAndTheUndoTags) {
  Publish("a");
  EXPECT_EQ(AddTag(repo_.get(), Named("a b")).status().code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(AddTag(repo_.get(), Named("trunk")).status().code(),
            Status::Code::kInvalidArgument);
  EXPECT_FALSE(FindTag(repo_.get(), "a b").ok());
}

TEST_F(TagsTest, QuickPublishesGetDistinctAutoTags) {
  for (int i = 0; i < 32; ++i) Publish("f" + std::to_string(i));
  auto tags = ListTags(repo_.get());
  ASSERT_TRUE(tags.ok());
  std::set<std::string> autos;
  std::set<uint64_t> revisions;
  for (const Tag& t : *tags)
    if (IsAutoTagName(t.name) && t.revision >= 2) {
      autos.insert(t.name);
      revisions.insert(t.revision);
    }
  // One of its own for each of the 32 publishes (revisions 2..33).
  EXPECT_EQ(autos.size(), 32u);
  EXPECT_EQ(revisions.size(), 32u);
}

TEST_F(TagsTest, PublishRefusesATagNameInUse) {
  Publish("a", "release");
  PublishOptions options;
  options.tag_name = "release";
  options.tag_description = "again";
  auto st = repo_->Publish(
      [](CatalogTree*, IngestPipeline*) { return Status::Ok(); }, options);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().code(), Status::Code::kAlreadyExists);
  auto tag = FindTag(repo_.get(), "release");
  ASSERT_TRUE(tag.ok());
  EXPECT_EQ(tag->revision, 2u);
}

TEST_F(TagsTest, AutoTagTimespanRemovesOlderAutoTagsOnPublish) {
  Publish("a", "keep-me");
  // Backdate: every auto tag so far is older than the timespan.
  {
    auto history = repo_->OpenHistory(true);
    ASSERT_TRUE(history.ok());
    auto all = (*history)->List();
    ASSERT_TRUE(all.ok());
    for (Tag t : *all) {
      t.timestamp -= 10 * 86400;
      ASSERT_TRUE((*history)->Insert(t).ok());
    }
    ASSERT_TRUE(repo_->CommitHistory(std::move(*history)).ok());
  }
  const std::string conf = paths_.ServerConfigDir(kFqrn) + "/server.conf";
  auto text = cvmfs::ReadFile(conf);
  ASSERT_TRUE(text.ok());
  ASSERT_TRUE(cvmfs::WriteFileAtomic(
                  conf, *text + "CVMFS_AUTO_TAG_TIMESPAN='1 week ago'\n", 0644)
                  .ok());
  repo_.reset();
  auto reopened = Repository::Open(paths_, kFqrn);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  repo_ = std::move(*reopened);
  Publish("b");
  auto tags = ListTags(repo_.get());
  ASSERT_TRUE(tags.ok());
  std::vector<std::string> autos;
  bool kept = false;
  for (const Tag& t : *tags) {
    if (IsAutoTagName(t.name)) autos.push_back(t.name);
    if (t.name == "keep-me") kept = true;
  }
  ASSERT_EQ(autos.size(), 1u);  // only the new revision's
  auto trunk = FindTag(repo_.get(), "trunk");
  ASSERT_TRUE(trunk.ok());
  EXPECT_EQ(trunk->revision, 3u);
  EXPECT_TRUE(kept) << "a named tag is not an auto tag";
}

TEST_F(TagsTest, AnUnreadableAutoTagTimespanFailsThePublish) {
  const std::string conf = paths_.ServerConfigDir(kFqrn) + "/server.conf";
  auto text = cvmfs::ReadFile(conf);
  ASSERT_TRUE(text.ok());
  ASSERT_TRUE(
      cvmfs::WriteFileAtomic(
          conf, *text + "CVMFS_AUTO_TAG_TIMESPAN='next blue moon'\n", 0644)
          .ok());
  repo_.reset();
  auto reopened = Repository::Open(paths_, kFqrn);
  ASSERT_TRUE(reopened.ok());
  repo_ = std::move(*reopened);
  auto st =
      repo_->Publish([](CatalogTree*, IngestPipeline*) { return Status::Ok(); },
                     PublishOptions{});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("next blue moon"), std::string::npos);
  auto m = repo_->CurrentManifest();
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->manifest.revision, 1u);
}

TEST_F(TagsTest, RemoveDeletesATagButNotTheOnesPublishMaintains) {
  Publish("a");
  ASSERT_TRUE(AddTag(repo_.get(), Named("v1")).ok());
  EXPECT_EQ(Names(),
            (std::vector<std::string>{"trunk", "v1", "trunk-previous"}));
  ASSERT_TRUE(RemoveTags(repo_.get(), {"v1"}).ok());
  EXPECT_EQ(Names(), (std::vector<std::string>{"trunk", "trunk-previous"}));

  Status missing = RemoveTags(repo_.get(), {"v1"});
  EXPECT_EQ(missing.code(), Status::Code::kNotFound);
  EXPECT_EQ(missing.message(), "tag v1 does not exist");
  for (const char* kept : {"trunk", "trunk-previous"}) {
    Status st = RemoveTags(repo_.get(), {kept});
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(st.message(),
              std::string("tag ") + kept + " is maintained by publish");
  }
  EXPECT_EQ(Names(), (std::vector<std::string>{"trunk", "trunk-previous"}));
}

TEST_F(TagsTest, RemoveTakesSeveralAndRemovesNoneWhenOneIsMissing) {
  Publish("a");
  ASSERT_TRUE(AddTag(repo_.get(), Named("x")).ok());
  ASSERT_TRUE(AddTag(repo_.get(), Named("y")).ok());
  Status st = RemoveTags(repo_.get(), {"x", "nope", "y"});
  EXPECT_EQ(st.code(), Status::Code::kNotFound);
  EXPECT_TRUE(FindTag(repo_.get(), "x").ok());
  EXPECT_TRUE(FindTag(repo_.get(), "y").ok());
  ASSERT_TRUE(RemoveTags(repo_.get(), {"x", "y"}).ok());
  EXPECT_FALSE(FindTag(repo_.get(), "x").ok());
  EXPECT_FALSE(FindTag(repo_.get(), "y").ok());
}

TEST_F(TagsTest, FindSaysWhichTagDoesNotExist) {
  auto tag = FindTag(repo_.get(), "nope");
  ASSERT_FALSE(tag.ok());
  EXPECT_EQ(tag.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(tag.status().message(), "tag nope does not exist");
}

}  // namespace
}  // namespace publisher
