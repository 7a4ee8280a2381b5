// GeoDatabase on a database written by MaxMind's own writer (Perl
// MaxMind::DB::Writer, test/lib/write_geo_db.pl); skipped without it.
#include "server/geo_database.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace server {
namespace {

class GeoDatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("perl -MMaxMind::DB::Writer::Tree -e 1 2>/dev/null") != 0)
      GTEST_SKIP() << "no Perl MaxMind::DB::Writer";
    path_ = tmp_.Sub("test.mmdb");
    const std::string command =
        "perl " + cvmfs::testing::SourceDir() + "/test/lib/write_geo_db.pl " +
        path_ +
        " 127.0.0.1/32=46.2044,6.1432 192.0.2.0/24=-33.8688,151.2093"
        " 2001:db8::/32=53.5511,9.9937";
    ASSERT_EQ(0, std::system(command.c_str())) << command;
  }
  cvmfs::testing::TempDir tmp_;
  std::string path_;
};

IpAddress Ip(const char* text) { return *IpAddress::Parse(text); }

TEST_F(GeoDatabaseTest, LocatesIpv4AndIpv6) {
  auto db = GeoDatabase::Open(path_);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto p = (*db)->ByAddress(Ip("127.0.0.1"));
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(46.2044, p->latitude);
  EXPECT_DOUBLE_EQ(6.1432, p->longitude);
  p = (*db)->ByAddress(Ip("192.0.2.77"));
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(-33.8688, p->latitude);
  p = (*db)->ByAddress(Ip("2001:db8::1"));
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(9.9937, p->longitude);
  EXPECT_FALSE((*db)->ByAddress(Ip("127.0.0.2")).has_value());
  EXPECT_FALSE((*db)->ByAddress(Ip("2001:db9::1")).has_value());
}

TEST_F(GeoDatabaseTest, OpenNamesTheFileAndTheReason) {
  auto missing = GeoDatabase::Open(tmp_.Sub("missing.mmdb"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(std::string::npos, missing.status().message().find("missing.mmdb"));
  ASSERT_TRUE(cvmfs::WriteFileAtomic(tmp_.Sub("bad.mmdb"), "not a db").ok());
  auto bad = GeoDatabase::Open(tmp_.Sub("bad.mmdb"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string::npos, bad.status().message().find("bad.mmdb: "));
}

}  // namespace
}  // namespace server
