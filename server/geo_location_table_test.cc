#include "server/geo_location_table.h"

#include <gtest/gtest.h>

namespace server {
namespace {

IpAddress Ip(const char* text) { return *IpAddress::Parse(text); }

TEST(LocationTableTest, NamesAddressesAndPrefixes) {
  auto table = LocationTable::Parse(
      "# a comment\n"
      "\n"
      "Stratum1.Example.org  46.2330  6.0557   # CERN\n"
      "squid.site.example.org\t41.8781\t-87.6298\n"
      "192.0.2.0/24  53.5511 9.9937\n"
      "192.0.2.128/25  +10 20\n"
      "10.1.2.3  35.6762 139.6503\r\n"
      "2001:db8::/32 -33.8688 151.2093\n"
      "0.0.0.0/0 1 2\n",
      "t");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(7u, table->size());
  auto at = [](std::optional<GeoPoint> p) {
    return p ? std::to_string(p->latitude) + "," + std::to_string(p->longitude)
             : std::string("none");
  };
  EXPECT_EQ("46.233000,6.055700", at(table->ByName("stratum1.example.ORG")));
  EXPECT_EQ("41.878100,-87.629800",
            at(table->ByName("squid.site.example.org")));
  EXPECT_EQ("none", at(table->ByName("example.org")));
  // Longest prefix wins; a lone address is a /32; /0 catches the rest.
  EXPECT_EQ("53.551100,9.993700", at(table->ByAddress(Ip("192.0.2.1"))));
  EXPECT_EQ("10.000000,20.000000", at(table->ByAddress(Ip("192.0.2.200"))));
  EXPECT_EQ("35.676200,139.650300", at(table->ByAddress(Ip("10.1.2.3"))));
  EXPECT_EQ("1.000000,2.000000", at(table->ByAddress(Ip("10.1.2.4"))));
  EXPECT_EQ("-33.868800,151.209300", at(table->ByAddress(Ip("2001:db8::5"))));
  EXPECT_EQ("none", at(table->ByAddress(Ip("2001:db9::5"))));
}

TEST(LocationTableTest, EmptyTableFindsNothing) {
  auto table = LocationTable::Parse("# nothing\n\n", "t");
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(0u, table->size());
  EXPECT_FALSE(table->ByAddress(Ip("127.0.0.1")));
}

TEST(LocationTableTest, BadLinesAreNamedByNumber) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"a.org 1\n", "t line 1: expected 'name-or-CIDR latitude longitude'"},
      {"\na.org 1 2 3\n", "t line 2: expected"},
      {"a.org 91 0\n", "latitude '91' is not a decimal number from -90 to 90"},
      {"a.org 0 -180.5\n", "longitude '-180.5' is not"},
      {"a.org 1e1 0\n", "latitude '1e1'"},
      {"a.org nan 0\n", "latitude 'nan'"},
      {"a.org 1. 0\n", "latitude '1.'"},
      {"a.org .5 0\n", "latitude '.5'"},
      {"a/b 1 2\n", "'a/b' is neither a host name"},
      {"a!b 1 2\n", "'a!b' is neither"},
      {"10.0.0.0/33 1 2\n", "prefix length of '10.0.0.0/33' is not 0 to 32"},
      {"::/129 1 2\n", "is not 0 to 128"},
      {"10.0.0.0/x 1 2\n", "prefix length"},
      {"a.org 1 2\nA.ORG 3 4\n", "t line 2: 'A.ORG' is listed twice"},
      {"10.0.0.1/8 1 2\n10.0.0.0/8 3 4\n", "line 2: '10.0.0.0/8' is listed"},
  };
  for (const Case& c : cases) {
    auto table = LocationTable::Parse(c.text, "t");
    ASSERT_FALSE(table.ok()) << c.text;
    EXPECT_NE(std::string::npos, table.status().message().find(c.message))
        << c.text << " gave " << table.status().message();
  }
}

TEST(LocationTableTest, LoadNamesAMissingFile) {
  auto table = LocationTable::Load("/nonexistent/locations");
  ASSERT_FALSE(table.ok());
  EXPECT_NE(std::string::npos,
            table.status().ToString().find("/nonexistent/locations"));
}

}  // namespace
}  // namespace server
