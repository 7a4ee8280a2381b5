#include "cvmfs/config/shell_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

TEST(AssignedParametersTest, FindsAssignmentsLikeCvmfs) {
  const char* text =
      "# CVMFS_COMMENTED=1\n"
      "CVMFS_A=1\n"
      "  \tCVMFS_B='x y'\n"
      "export CVMFS_C=\"$CVMFS_A\"\n"
      "readonly  CVMFS_D=4\n"
      "CVMFS_A=again\n"
      "CVMFS_E =not-an-assignment\n"
      "if true; then CVMFS_F=1; fi\n"
      "echo CVMFS_G=1\n"
      "1BAD=1\n"
      "exported_VAR=1";  // no trailing newline
  const std::vector<std::string> expected = {"CVMFS_A", "CVMFS_B", "CVMFS_C",
                                             "CVMFS_D", "exported_VAR"};
  EXPECT_EQ(AssignedParameters(text), expected);
}

TEST(SourceShellFileTest, ReturnsOnlyNamesThatAreSet) {
  testing::TempDir tmp;
  const std::string file = tmp.Sub("f.conf");
  ASSERT_TRUE(WriteFileAtomic(file,
                              "if false; then\n  UNSET_AFTER=1\nfi\n"
                              "FROM_ENV=\"$FROM_ENV+\"\nEMPTY=\n")
                  .ok());
  auto values = SourceShellFile(file, {"UNSET_AFTER", "FROM_ENV", "EMPTY"},
                                {{"FROM_ENV", "env"}});
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ(values->size(), 2u);
  EXPECT_EQ(values->at("FROM_ENV"), "env+");
  EXPECT_EQ(values->at("EMPTY"), "");
}

TEST(SourceShellFileTest, MissingFileIsNotFound) {
  testing::TempDir tmp;
  auto values = SourceShellFile(tmp.Sub("none.conf"), {"A"}, {});
  EXPECT_TRUE(values.status().IsNotFound()) << values.status().ToString();
}

TEST(SourceShellFileTest, FileThatExitsIsAnError) {
  testing::TempDir tmp;
  ASSERT_TRUE(
      WriteFileAtomic(tmp.Sub("f.conf"), "A=1\necho leaving >&2\nexit 0\n")
          .ok());
  auto values = SourceShellFile(tmp.Sub("f.conf"), {"A"}, {});
  ASSERT_FALSE(values.ok());
  EXPECT_EQ(values.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(values.status().message().find("leaving"), std::string::npos);
}

TEST(SourceShellFileTest, RelativePathIsResolvedBeforeChangingDirectory) {
  testing::TempDir tmp;
  ASSERT_TRUE(MakeDirs(tmp.Sub("etc")).ok());
  ASSERT_TRUE(WriteFileAtomic(tmp.Sub("etc/f.conf"), "A=ok\n").ok());
  char old_cwd[4096];
  ASSERT_NE(getcwd(old_cwd, sizeof(old_cwd)), nullptr);
  ASSERT_EQ(chdir(tmp.path().c_str()), 0);
  auto values = SourceShellFile("etc/f.conf", {"A"}, {});
  ASSERT_EQ(chdir(old_cwd), 0);
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ(values->at("A"), "ok");
}

}  // namespace
}  // namespace cvmfs
