#include "publisher/open_writers.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::testing::TempDir;

// A fake /proc: <pid>/comm, <pid>/fd/<n> -> target, <pid>/fdinfo/<n>.
void AddFd(const TempDir& proc, const std::string& pid, const std::string& fd,
           const std::string& target, int flags) {
  ASSERT_TRUE(cvmfs::MakeDirs(proc.Sub(pid + "/fd")).ok());
  ASSERT_TRUE(cvmfs::MakeDirs(proc.Sub(pid + "/fdinfo")).ok());
  ASSERT_TRUE(cvmfs::WriteFileAtomic(proc.Sub(pid + "/comm"), "editor\n").ok());
  ASSERT_EQ(::symlink(target.c_str(), proc.Sub(pid + "/fd/" + fd).c_str()), 0);
  char info[64];
  std::snprintf(info, sizeof(info), "pos:\t0\nflags:\t0%o\nmnt_id:\t1\n",
                flags);
  ASSERT_TRUE(
      cvmfs::WriteFileAtomic(proc.Sub(pid + "/fdinfo/" + fd), info).ok());
}

TEST(OpenWritersTest, FindsWritersBelowTheDirectoryOnly) {
  TempDir proc;
  AddFd(proc, "100", "3", "/cvmfs/x.org/a/file",
        O_WRONLY | O_CREAT | O_LARGEFILE);
  AddFd(proc, "100", "4", "/cvmfs/x.org/b/read-only", O_RDONLY | O_LARGEFILE);
  AddFd(proc, "200", "5", "/cvmfs/x.org.other/file", O_RDWR);
  AddFd(proc, "300", "6", "/cvmfs/x.org", O_RDWR);
  ASSERT_TRUE(cvmfs::MakeDirs(proc.Sub("self")).ok());  // not a pid

  auto writers = FindOpenWriters("/cvmfs/x.org", proc.path());
  ASSERT_EQ(writers.size(), 2u);
  std::sort(
      writers.begin(), writers.end(),
      [](const OpenWriter& a, const OpenWriter& b) { return a.pid < b.pid; });
  EXPECT_EQ(writers[0].pid, 100);
  EXPECT_EQ(writers[0].command, "editor");
  EXPECT_EQ(writers[0].path, "/cvmfs/x.org/a/file");
  EXPECT_EQ(writers[1].pid, 300);
  EXPECT_NE(DescribeOpenWriters(writers).find(
                "pid 100 (editor) has /cvmfs/x.org/a/file open "
                "for writing"),
            std::string::npos);
}

TEST(OpenWritersTest, SeesAnotherProcessOfThisMachine) {
  TempDir dir;
  const std::string file = dir.Sub("held");
  pid_t child = ::fork();
  if (child == 0) {
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT, 0644);
    ::pause();
    ::_exit(fd < 0);
  }
  std::vector<OpenWriter> writers;
  for (int i = 0; i < 200 && writers.empty(); ++i) {
    ::usleep(10000);
    writers = FindOpenWriters(dir.path());
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_EQ(writers.size(), 1u);
  EXPECT_EQ(writers[0].pid, child);
  EXPECT_EQ(writers[0].path, file);
}

}  // namespace
}  // namespace publisher
