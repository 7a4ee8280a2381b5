#include "cvmfs/credentials.h"

#include <sys/wait.h>
#include <unistd.h>

#include <functional>

#include "gtest/gtest.h"

namespace cvmfs {
namespace {

// Runs `body` in a child process (the switches are process-wide and one
// way) and returns its exit code: 0 = every step behaved.
int InChild(const std::function<int()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

TEST(CredentialsTest, LooksUpUsers) {
  auto root = LookUpUser("root");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(0u, root->uid);
  EXPECT_EQ(0u, root->gid);
  auto missing = LookUpUser("no-such-user-cvmfs-test");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(Status::Code::kNotFound, missing.status().code());
  EXPECT_NE(std::string::npos,
            missing.status().message().find("no-such-user-cvmfs-test"));
  EXPECT_FALSE(LookUpUser("").ok());
}

TEST(CredentialsTest, ReadsOwnCredentials) {
  auto self = ReadCredentials();
  ASSERT_TRUE(self.ok()) << self.status().ToString();
  EXPECT_EQ(::getuid(), self->uid[0]);
  EXPECT_EQ(::geteuid(), self->uid[1]);
  EXPECT_EQ(::getgid(), self->gid[0]);
  auto by_pid = ReadCredentials(::getpid());
  ASSERT_TRUE(by_pid.ok());
  EXPECT_EQ(self->uid[1], by_pid->uid[1]);
  EXPECT_FALSE(ReadCredentials(-5).ok());
}

TEST(CredentialsTest, NonRootCannotSwitch) {
  if (::geteuid() == 0) {
    // Become nobody first, then try again.
    auto nobody = LookUpUser("nobody");
    if (!nobody.ok()) GTEST_SKIP() << "no user nobody";
    EXPECT_EQ(0, InChild([&] {
                if (!DropToUser(*nobody).ok()) return 1;
                if (AssumeUser(*nobody).code() != Status::Code::kPermission)
                  return 2;
                if (RegainRoot().ok()) return 3;
                if (::geteuid() == 0) return 4;
                return 0;
              }));
    return;
  }
  EXPECT_EQ(Status::Code::kPermission,
            AssumeUser(UserIds{"root", 0, 0}).code());
}

TEST(CredentialsTest, AssumeRegainThenDropForGood) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  auto nobody = LookUpUser("nobody");
  if (!nobody.ok()) GTEST_SKIP() << "no user nobody";
  const UserIds u = *nobody;
  EXPECT_EQ(0, InChild([&] {
              if (!AssumeUser(u).ok()) return 1;
              auto c = ReadCredentials();
              if (!c.ok()) return 2;
              // Effective ids switched, real and saved kept, nothing
              // effective, no new privileges.
              if (c->uid[0] != 0 || c->uid[1] != u.uid || c->uid[2] != 0)
                return 3;
              if (c->gid[1] != u.gid) return 4;
              if (c->cap_effective != 0 || !c->no_new_privs) return 5;
              if (!RegainRoot().ok() || ::geteuid() != 0) return 6;
              if (!DropToUser(u).ok()) return 7;
              c = ReadCredentials();
              if (!c.ok()) return 8;
              for (int i = 0; i < 3; ++i)
                if (c->uid[i] != u.uid || c->gid[i] != u.gid) return 9;
              if (c->cap_effective || c->cap_permitted || c->cap_ambient)
                return 10;
              if (!c->no_new_privs) return 11;
              // No way back.
              if (RegainRoot().ok() || ::setuid(0) == 0) return 12;
              // Supplementary groups: only the user's.
              gid_t groups[64];
              int n = ::getgroups(64, groups);
              for (int i = 0; i < n; ++i)
                if (groups[i] == 0) return 13;
              return 0;
            }));
}

TEST(CredentialsTest, DropsStraightFromRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  auto nobody = LookUpUser("nobody");
  if (!nobody.ok()) GTEST_SKIP() << "no user nobody";
  EXPECT_EQ(0, InChild([&] {
              if (!DropToUser(*nobody).ok()) return 1;
              return ::getuid() == nobody->uid ? 0 : 2;
            }));
}

}  // namespace
}  // namespace cvmfs
