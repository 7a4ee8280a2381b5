// .cvmfs_status.json: CVMFS's own files parse, updates keep the other
// fields and their order, and the text is what jq writes.
#include "publisher/status_json.h"

#include <gtest/gtest.h>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::testing::TempDir;

TEST(StatusJsonTest, FilesWrittenByCvmfsParse) {
  for (const char* rel :
       {"/import-src.example.org/srv/cvmfs/import-src.example.org/",
        "/import-src.example.org/stratum1/"}) {
    const std::string dir = cvmfs::testing::FixturesDir() + rel;
    auto text = cvmfs::ReadFile(dir + kStatusJsonName);
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    auto fields = ParseStatusJson(*text);
    ASSERT_TRUE(fields.ok()) << fields.status().ToString();
    ASSERT_EQ(fields->size(), 1u);
    // Our writer gives back the same bytes jq wrote.
    EXPECT_EQ(SerializeStatusJson(*fields), *text);
  }
}

TEST(StatusJsonTest, UpdateKeepsOtherFieldsInOrder) {
  TempDir tmp;
  ASSERT_TRUE(UpdateStatusField(tmp.path(), "last_snapshot", "A").ok());
  ASSERT_TRUE(UpdateStatusField(tmp.path(), "last_gc", "B").ok());
  ASSERT_TRUE(UpdateStatusField(tmp.path(), "last_snapshot", "C").ok());
  auto text = cvmfs::ReadFile(tmp.path() + "/" + kStatusJsonName);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "{\n  \"last_snapshot\": \"C\",\n  \"last_gc\": \"B\"\n}\n");
  auto gc = ReadStatusField(tmp.path(), "last_gc");
  ASSERT_TRUE(gc.ok());
  EXPECT_EQ(gc->value_or("-"), "B");
  auto none = ReadStatusField(tmp.path(), "last_check");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(StatusJsonTest, MalformedIsCorruption) {
  for (const char* bad :
       {"{", "{\"a\": 1}", "[]", "{\"a\": \"b\",}", "{\"a\": \"b\"} x"}) {
    auto fields = ParseStatusJson(bad);
    EXPECT_FALSE(fields.ok()) << bad;
  }
  auto escaped = ParseStatusJson("{\"a\\\"\": \"x\\\\y\\u0041\"}");
  ASSERT_TRUE(escaped.ok());
  EXPECT_EQ((*escaped)[0].first, "a\"");
  EXPECT_EQ((*escaped)[0].second, "x\\yA");
}

TEST(StatusJsonTest, ValidateJsonAcceptsJsonOnly) {
  for (const char* good :
       {"{}", "[]", "0", "-1.5e+3", "\"x\"", "null",
        "{\n  \"administrator\" : \"Your Name\",\n  \"custom\" : "
        "{ \"_comment\" : \"a\\u00e9\" },\n  \"list\": [1, true, "
        "false, null, {\"a\": []}]\n}\n"})
    EXPECT_TRUE(ValidateJson(good).ok()) << good;
  for (const char* bad : {"", "{", "{\"a\" 1}", "[1,]", "{\"a\":1,}", "01",
                          "'x'", "{\"a\":1} {}", "[\"\\x\"]", "tru"})
    EXPECT_FALSE(ValidateJson(bad).ok()) << bad;
}

TEST(StatusJsonTest, TimeIsDateUtc) {
  EXPECT_EQ(StatusTime(1795780662), "Fri Nov 27 11:57:42 UTC 2026");
  EXPECT_EQ(StatusTime(0), "Thu Jan  1 00:00:00 UTC 1970");
}

}  // namespace
TEST(StatusJsonTest, StatusTimeParsesBack) {
  for (time_t t : {time_t{0}, time_t{1764244662}, time_t{2000000000}}) {
    auto back = ParseStatusTime(StatusTime(t));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, t);
  }
  // As CVMFS's `date --utc` wrote it into the fixture.
  auto fixture = ParseStatusTime("Fri Nov 27 11:57:42 UTC 2026");
  ASSERT_TRUE(fixture.ok());
  EXPECT_EQ(StatusTime(*fixture), "Fri Nov 27 11:57:42 UTC 2026");
  EXPECT_FALSE(ParseStatusTime("yesterday").ok());
  EXPECT_FALSE(ParseStatusTime("Fri Nov 27 11:57:42 UTC 2026 trailing").ok());
}

}  // namespace publisher
