#include "cvmfs/catalog/xattr_blob.h"

#include <gtest/gtest.h>

#include "cvmfs/hash.h"

namespace cvmfs {
namespace {

// The xattr column of /xattr/tagged.txt in the sha1-zlib fixture.
constexpr char kFixtureBlobHex[] =
    "01020A00757365722E656D7074790B07757365722E6F726967696E66697874757265";

std::string FixtureBlob() { return FromHex(kFixtureBlobHex).value(); }

TEST(XattrBlobTest, ParsesFixtureBlob) {
  auto list = ParseXattrs(FixtureBlob());
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->entries.size(), 2u);
  EXPECT_EQ(list->entries[0].first, "user.empty");
  EXPECT_EQ(list->entries[0].second, "");
  EXPECT_EQ(list->entries[1].first, "user.origin");
  EXPECT_EQ(list->entries[1].second, "fixture");
}

TEST(XattrBlobTest, SerializesLikeCvmfsSortedByKey) {
  XattrList list;
  list.entries = {{"user.origin", "fixture"}, {"user.empty", ""}};
  auto blob = SerializeXattrs(list);
  ASSERT_TRUE(blob.ok()) << blob.status().ToString();
  EXPECT_EQ(*blob, FixtureBlob());
}

TEST(XattrBlobTest, RoundTripsBinaryValuesAndLimits) {
  XattrList list;
  list.entries.push_back({std::string(255, 'k'), std::string(255, '\xff')});
  list.entries.push_back({"user.bin", std::string("a\0b", 3)});
  auto blob = SerializeXattrs(list);
  ASSERT_TRUE(blob.ok());
  auto back = ParseXattrs(*blob);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->entries.size(), 2u);
  EXPECT_EQ(back->entries[0], list.entries[0]);
  EXPECT_EQ(back->entries[1], list.entries[1]);

  XattrList many;
  for (int i = 0; i < 255; ++i)
    many.entries.push_back({"user.k" + std::to_string(i), "v"});
  auto many_blob = SerializeXattrs(many);
  ASSERT_TRUE(many_blob.ok());
  EXPECT_EQ(static_cast<uint8_t>((*many_blob)[1]), 255);
  EXPECT_EQ(ParseXattrs(*many_blob)->entries.size(), 255u);
}

TEST(XattrBlobTest, RejectsInvalidLists) {
  auto invalid = [](const XattrList& l) {
    return SerializeXattrs(l).status().code() == Status::Code::kInvalidArgument;
  };
  EXPECT_TRUE(invalid(XattrList{{{std::string(256, 'k'), "v"}}}));
  EXPECT_TRUE(invalid(XattrList{{{"user.k", std::string(256, 'v')}}}));
  EXPECT_TRUE(invalid(XattrList{{{"", "v"}}}));
  EXPECT_TRUE(invalid(XattrList{{{std::string("a\0b", 3), "v"}}}));
  EXPECT_TRUE(invalid(XattrList{{{"user.a", "1"}, {"user.a", "2"}}}));
  XattrList too_many;
  for (int i = 0; i < 256; ++i)
    too_many.entries.push_back({"user.k" + std::to_string(i), ""});
  EXPECT_TRUE(invalid(too_many));
}

TEST(XattrBlobTest, RejectsCorruptBlobs) {
  std::string blob = FixtureBlob();
  for (size_t len = 0; len < blob.size(); ++len) {
    EXPECT_TRUE(ParseXattrs(blob.substr(0, len)).status().IsCorruption())
        << len;
  }
  std::string bad_version = blob;
  bad_version[0] = 2;
  EXPECT_TRUE(ParseXattrs(bad_version).status().IsCorruption());
  EXPECT_TRUE(ParseXattrs(blob + "x").status().IsCorruption());
  std::string empty_list("\x01\x00", 2);
  auto parsed = ParseXattrs(empty_list);
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->empty());
}

}  // namespace
}  // namespace cvmfs
