#include "cvmfs/symlink_expansion.h"

#include <gtest/gtest.h>

namespace cvmfs {
namespace {

std::optional<std::string> Env(const std::string& name) {
  if (name == "CVMFS_ARCH") return std::string("x86_64");
  if (name == "EMPTY") return std::string();
  return std::nullopt;
}

TEST(SymlinkExpansionTest, Variables) {
  EXPECT_EQ(ExpandSymlink("$(CVMFS_ARCH)/lib", Env), "x86_64/lib");
  EXPECT_EQ(ExpandSymlink("$(FIXTURE_UNSET:-default)/lib", Env), "default/lib");
  EXPECT_EQ(ExpandSymlink("a/$(UNSET)/b", Env), "a//b");
  EXPECT_EQ(ExpandSymlink("$(EMPTY:-x)", Env), "");
  EXPECT_EQ(ExpandSymlink("plain/path", Env), "plain/path");
  EXPECT_EQ(ExpandSymlink("open $(CVMFS_ARCH", Env), "open $(CVMFS_ARCH");
  EXPECT_EQ(ExpandSymlink("$(CVMFS_ARCH)$(CVMFS_ARCH)", Env), "x86_64x86_64");
}

}  // namespace
}  // namespace cvmfs
