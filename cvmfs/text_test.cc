#include "cvmfs/text.h"

#include <gtest/gtest.h>

namespace cvmfs {
namespace {

TEST(TextTest, TrimStripsTheGivenCharactersAtBothEnds) {
  EXPECT_EQ(Trim(" \t\r\n x y \v\f"), "x y");
  EXPECT_EQ(Trim(" \t x\n", kBlanks), "x\n");
  EXPECT_EQ(Trim("\r x \r", " \t\r"), "x");
  EXPECT_EQ(Trim(" \t "), "");
  EXPECT_EQ(Trim(""), "");
}

TEST(TextTest, SplitNonEmptyDropsEmptyPieces) {
  using V = std::vector<std::string>;
  EXPECT_EQ(SplitNonEmpty("a::b:", ":"), (V{"a", "b"}));
  EXPECT_EQ(SplitNonEmpty(";x|y ; z", ";|"), (V{"x", "y ", " z"}));
  EXPECT_EQ(SplitNonEmpty("abc", ","), (V{"abc"}));
  EXPECT_EQ(SplitNonEmpty("", ","), V{});
  EXPECT_EQ(SplitNonEmpty(",,", ","), V{});
}

TEST(TextTest, IsDecimalWantsDigitsOnly) {
  EXPECT_TRUE(IsDecimal("0"));
  EXPECT_TRUE(IsDecimal("0123456789"));
  for (const char* bad : {"", "+1", "-1", " 1", "1 ", "1a", "0x1", "١"})
    EXPECT_FALSE(IsDecimal(bad)) << bad;
}

TEST(TextTest, ParseUint64TakesTheWhole64BitRange) {
  EXPECT_EQ(ParseUint64("0"), 0u);
  EXPECT_EQ(ParseUint64("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(ParseUint64("000000000000000000000000042"), 42u);
  EXPECT_FALSE(ParseUint64("18446744073709551616"));
  EXPECT_FALSE(ParseUint64("99999999999999999999"));
  for (const char* bad : {"", "+1", "-1", " 1", "1 ", "1a", "1.0"})
    EXPECT_FALSE(ParseUint64(bad)) << bad;
}

TEST(TextTest, ParseUint64HonoursTheLengthCap) {
  EXPECT_EQ(ParseUint64("999999999999999999", 18), 999999999999999999u);
  EXPECT_FALSE(ParseUint64("1000000000000000000", 18));
  EXPECT_FALSE(ParseUint64("0000000000000000001", 18));  // zeros count
  EXPECT_EQ(ParseUint64("12345", 5), 12345u);
  EXPECT_FALSE(ParseUint64("123456", 5));
}

TEST(TextTest, ParseInt64TakesASignAndTheWholeRange) {
  EXPECT_EQ(ParseInt64("42"), 42);
  EXPECT_EQ(ParseInt64("+42"), 42);
  EXPECT_EQ(ParseInt64("-42"), -42);
  EXPECT_EQ(ParseInt64("-0"), 0);
  EXPECT_EQ(ParseInt64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParseInt64("-9223372036854775808"), INT64_MIN);
  EXPECT_FALSE(ParseInt64("9223372036854775808"));
  EXPECT_FALSE(ParseInt64("-9223372036854775809"));
  for (const char* bad : {"", "+", "-", "+-1", "--1", " 1", "1 ", "1x", "0x10"})
    EXPECT_FALSE(ParseInt64(bad)) << bad;
}

TEST(TextTest, ParseBooleanKnowsTheCvmfsSpellings) {
  for (const char* on : {"yes", "YES", "On", "true", "TRUE", "1", " \tyes\t "})
    EXPECT_EQ(ParseBoolean(on), true) << on;
  for (const char* off : {"no", "No", "OFF", "false", "0", "  no"})
    EXPECT_EQ(ParseBoolean(off), false) << off;
  for (const char* junk : {"", "y", "n", "2", "yes please", "\nyes"})
    EXPECT_FALSE(ParseBoolean(junk)) << junk;
}

}  // namespace
}  // namespace cvmfs
