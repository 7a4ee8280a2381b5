// process_table.h over a fake /proc: links and maps written by the test.
#include "client/tools/process_table.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace cvmfs::tools {
namespace {

class ProcessTableTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(MakeDirs(proc_).ok()); }
  // A process with `exe`, working directory `cwd` and descriptors `fds`.
  void AddProcess(pid_t pid, const std::string& exe, const std::string& cwd,
                  const std::vector<std::string>& fds,
                  const std::string& maps = "") {
    const std::string dir = JoinPath(proc_, std::to_string(pid));
    ASSERT_TRUE(MakeDirs(dir + "/fd").ok());
    ASSERT_EQ(::symlink(exe.c_str(), (dir + "/exe").c_str()), 0);
    ASSERT_EQ(::symlink(cwd.c_str(), (dir + "/cwd").c_str()), 0);
    ASSERT_EQ(::symlink("/", (dir + "/root").c_str()), 0);
    for (size_t i = 0; i < fds.size(); ++i)
      ASSERT_EQ(
          ::symlink(fds[i].c_str(), (dir + "/fd/" + std::to_string(i)).c_str()),
          0);
    ASSERT_TRUE(WriteFileAtomic(dir + "/maps", maps).ok());
  }

  testing::TempDir tmp_;
  std::string proc_ = tmp_.Sub("proc");
};

TEST_F(ProcessTableTest, ListsNumericEntriesOnly) {
  AddProcess(12, "/usr/bin/cvmfs2", "/", {});
  AddProcess(3, "/usr/bin/bash", "/", {});
  ASSERT_TRUE(MakeDirs(proc_ + "/self").ok());
  ASSERT_TRUE(MakeDirs(proc_ + "/sys").ok());
  EXPECT_EQ(ListPids(proc_), (std::vector<pid_t>{3, 12}));
}

TEST_F(ProcessTableTest, ProcessesRunningMatchesTheWholePath) {
  AddProcess(10, "/usr/bin/cvmfs2", "/", {});
  AddProcess(11, "/usr/bin/cvmfs2 (deleted)", "/", {});  // upgraded binary
  AddProcess(12, "/opt/other/bin/cvmfs2", "/", {});      // another installation
  AddProcess(13, "/usr/bin/cvmfs2", "/", {});
  EXPECT_EQ(ProcessesRunning(proc_, "/usr/bin/cvmfs2", 13),
            (std::vector<pid_t>{10, 11}));
}

TEST_F(ProcessTableTest, MountUsers) {
  const std::string mp = "/cvmfs/atlas.cern.ch";
  AddProcess(20, "/usr/bin/cat", "/home", {"/dev/null", mp + "/data/x"});
  AddProcess(21, "/usr/bin/bash", mp + "/sw", {"pipe:[123]"});
  AddProcess(22, "/usr/bin/bash", "/cvmfs/atlas.cern.ch.old", {});  // a prefix
  AddProcess(23, "/usr/bin/python3", "/", {"socket:[4]"},
             "7f00-7f10 r-xp 00000000 00:2f 1234   /whatever\n");
  AddProcess(24, mp + "/bin/tool (deleted)", "/", {});
  EXPECT_EQ(ProcessesUsingMount(proc_, mp, "0:47"),
            (std::vector<pid_t>{20, 21, 23, 24}));
  // Without the device, mappings are not looked at.
  EXPECT_EQ(ProcessesUsingMount(proc_, mp, ""),
            (std::vector<pid_t>{20, 21, 24}));
  EXPECT_TRUE(ProcessesUsingMount(proc_, "/cvmfs/other.org", "0:1").empty());
}

}  // namespace
}  // namespace cvmfs::tools
