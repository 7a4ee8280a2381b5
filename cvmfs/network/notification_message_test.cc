#include "cvmfs/network/notification_message.h"

#include <gtest/gtest.h>

#include <string>

#include "cvmfs/base64.h"

namespace cvmfs {
namespace {

TEST(Base64Test, RoundTripsEveryLength) {
  std::string bytes;
  for (int i = 0; i < 40; ++i) {
    const std::string enc = Base64(bytes);
    EXPECT_EQ(enc.size() % 4, 0u);
    auto dec = Debase64(enc);
    ASSERT_TRUE(dec.has_value()) << enc;
    EXPECT_EQ(*dec, bytes);
    bytes += static_cast<char>(i * 37 + 200);
  }
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64("fo"), "Zm8=");
  EXPECT_EQ("fo", Debase64("Zm8").value_or("?"));  // unpadded is accepted
  EXPECT_FALSE(Debase64("Zm=v").has_value());
  EXPECT_FALSE(Debase64("Zm8*").has_value());
}

TEST(NotificationMessageTest, ActivityRoundTrip) {
  ActivityMessage m;
  m.timestamp = "28 Nov 2026 06:00:00";
  m.repository = "test.cern.ch";
  m.manifest = std::string("Cabc\nB12\nS7\n--\n\x01\xff");
  auto parsed = ParseActivity(SerializeActivity(m));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->version, 1);
  EXPECT_EQ(parsed->timestamp, m.timestamp);
  EXPECT_EQ(parsed->repository, m.repository);
  EXPECT_EQ(parsed->manifest, m.manifest);
}

TEST(NotificationMessageTest, AcceptsCvmfsSpelling) {
  // As cvmfs_swissknife notify -p writes it: spaces, any key order.
  auto parsed = ParseActivity(
      "{ \"version\" : 1, \"timestamp\" : \"t\", \"type\" : \"activity\", "
      "\"repository\" : \"r.org\", \"manifest\" : \"Zm9v\", \"x\": null}");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->repository, "r.org");
  EXPECT_EQ(parsed->manifest, "foo");
}

TEST(NotificationMessageTest, RefusesWhatIsNotAnActivity) {
  EXPECT_FALSE(ParseActivity("{\"status\":\"timeout\"}").ok());
  EXPECT_FALSE(ParseActivity("{\"version\":1,\"timestamp\":\"t\",\"type\":"
                             "\"other\",\"repository\":\"r\",\"manifest\":"
                             "\"\"}")
                   .ok());
  EXPECT_FALSE(ParseActivity("{\"version\":1,\"timestamp\":\"t\",\"type\":"
                             "\"activity\",\"repository\":\"r\",\"manifest\":"
                             "\"!!\"}")
                   .ok());
  EXPECT_FALSE(ParseActivity("{\"version\":\"1\"").ok());
  EXPECT_FALSE(ParseActivity("[1]").ok());
  EXPECT_FALSE(ParseActivity("").ok());
  EXPECT_FALSE(ParseActivity("{\"a\":{\"b\":1}}").ok());
}

// Bytes that are not UTF-8 (a timestamp from a foreign publisher) are
// written as U+FFFD instead of aborting the process.
TEST(NotificationMessageTest, WritesBytesThatAreNotUtf8) {
  ActivityMessage m;
  m.timestamp = "t\xff";
  m.repository = "r.org";
  m.manifest = "m";
  auto back = ParseActivity(SerializeActivity(m));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->timestamp, "t\xef\xbf\xbd");
  EXPECT_EQ(back->manifest, "m");
}

TEST(NotificationMessageTest, SubscriptionRequest) {
  EXPECT_EQ(SubscriptionRequest("r.org"),
            "{\"version\":1,\"repository\":\"r.org\"}");
  auto repo = ParseSubscriptionRequest(SubscriptionRequest("r.org"));
  ASSERT_TRUE(repo.ok());
  EXPECT_EQ(*repo, "r.org");
  EXPECT_EQ(NotificationUrl("http://gw:4929/api/v1/", "publish"),
            "http://gw:4929/api/v1/notifications/publish");
}

}  // namespace
}  // namespace cvmfs
