#include "cvmfs/system_paths.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace cvmfs {
namespace {

std::string Cwd() {
  char buf[4096];
  return ::getcwd(buf, sizeof(buf)) ? buf : "";
}

TEST(SystemPathsTest, NoRootIsSlash) {
  EXPECT_EQ(SystemPaths::FromRoot("").root, "");
  EXPECT_EQ(SystemPaths::FromRoot("/").root, "");
  EXPECT_EQ(SystemPaths::FromRoot("//").root, "");
  EXPECT_EQ(SystemPaths::FromRoot("").EtcCvmfs(), "/etc/cvmfs");
}

TEST(SystemPathsTest, AbsoluteRootLosesTrailingSlashes) {
  EXPECT_EQ(SystemPaths::FromRoot("/tmp/r//").root, "/tmp/r");
  EXPECT_EQ(SystemPaths::FromRoot("/tmp/r").MountRoot(), "/tmp/r/cvmfs");
}

TEST(SystemPathsTest, RelativeRootIsMadeAbsolute) {
  const std::string cwd = Cwd();
  ASSERT_FALSE(cwd.empty());
  const std::string base = cwd == "/" ? "" : cwd;
  EXPECT_EQ(SystemPaths::FromRoot("root").root, base + "/root");
  EXPECT_EQ(SystemPaths::FromRoot("./root/").root, base + "/root");
  EXPECT_EQ(SystemPaths::FromRoot("a/b").EtcCvmfs(), base + "/a/b/etc/cvmfs");
  EXPECT_EQ(SystemPaths::FromRoot(".").root, cwd == "/" ? "" : cwd);
}

TEST(SystemPathsTest, EnvironmentGetsTheAbsoluteRoot) {
  const char* saved = std::getenv("CVMFS_ROOTDIR");
  const std::string keep = saved ? saved : "";
  ::setenv("CVMFS_ROOTDIR", "rel", 1);
  SystemPaths p = SystemPaths::FromEnvironment();
  const std::string cwd = Cwd();
  EXPECT_EQ(p.root, (cwd == "/" ? "" : cwd) + "/rel");
  EXPECT_EQ(std::string(std::getenv("CVMFS_ROOTDIR")), p.root);
  if (saved) {
    ::setenv("CVMFS_ROOTDIR", keep.c_str(), 1);
  } else {
    ::unsetenv("CVMFS_ROOTDIR");
  }
}

}  // namespace
}  // namespace cvmfs
