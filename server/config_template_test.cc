#include "server/config_template.h"

#include <gtest/gtest.h>

namespace server {
namespace {

TEST(ConfigTemplateTest, FillsEveryPlaceholder) {
  EXPECT_EQ(FillTemplate("a @X@ b @Y@ c @X@", {{"X", "1"}, {"Y", "22"}}),
            "a 1 b 22 c 1");
}

TEST(ConfigTemplateTest, InsertedValuesAreNotScannedAgain) {
  EXPECT_EQ(FillTemplate("@A@@B@", {{"A", "@B@"}, {"B", "b"}}), "@B@b");
  EXPECT_EQ(FillTemplate("@A@", {{"A", "@A@@A@"}}), "@A@@A@");
}

TEST(ConfigTemplateTest, UnknownPlaceholdersStay) {
  EXPECT_EQ(FillTemplate("@A@ @Z@ user@host", {{"A", "x"}}), "x @Z@ user@host");
}

}  // namespace
}  // namespace server
