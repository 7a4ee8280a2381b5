#include "cvmfs/config/config_repository_reach.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

std::vector<pid_t> Children() {
  std::vector<pid_t> pids;
  std::ifstream in("/proc/self/task/" + std::to_string(::gettid()) +
                   "/children");
  pid_t pid;
  while (in >> pid) pids.push_back(pid);
  return pids;
}

// Whether `pid` has `dir` open, and runs in a session of its own.
bool HoldsInOwnSession(pid_t pid, const std::string& dir) {
  if (::getsid(pid) == ::getsid(0)) return false;
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
  auto names = ListDirectory(fds);
  if (!names.ok()) return false;
  for (const std::string& n : *names) {
    char target[4096];
    ssize_t len = ::readlink((fds + "/" + n).c_str(), target, sizeof(target));
    if (len > 0 && std::string(target, static_cast<size_t>(len)) == dir)
      return true;
  }
  return false;
}

TEST(AutofsReachTest, HelperHoldsTheDirectoryUntilReleased) {
  testing::TempDir tmp;
  char* real = ::realpath(tmp.path().c_str(), nullptr);
  ASSERT_NE(real, nullptr);
  const std::string dir = real;
  ::free(real);
  ASSERT_TRUE(Children().empty());

  AutofsReach reach;
  reach.Reach(dir);
  std::vector<pid_t> children = Children();
  ASSERT_EQ(children.size(), 1u);
  EXPECT_TRUE(HoldsInOwnSession(children[0], dir));
  reach.Reach(dir);  // the same directory: the same helper
  EXPECT_EQ(Children(), children);

  reach.Release();  // the helper exits and is reaped
  EXPECT_TRUE(Children().empty());
}

TEST(AutofsReachTest, MissingDirectoryLeavesAHelperThatHoldsNothing) {
  AutofsReach reach;
  reach.Reach("/nonexistent/config.example.org/etc/cvmfs");
  reach.Release();
  EXPECT_TRUE(Children().empty());
}

}  // namespace
}  // namespace cvmfs
