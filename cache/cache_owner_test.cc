#include "cache/cache_owner.h"

#include <sys/stat.h>
#include <unistd.h>

#include "cache/cache_layout.h"
#include "cvmfs/file_util.h"
#include "gtest/gtest.h"
#include "testing/test_env.h"

namespace cache {
namespace {

struct stat Stat(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(0, ::lstat(path.c_str(), &st)) << path;
  return st;
}

class CacheOwnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "chown needs root";
    auto nobody = cvmfs::LookUpUser("nobody");
    if (!nobody.ok()) GTEST_SKIP() << "no user nobody";
    user_ = *nobody;
  }
  cvmfs::testing::TempDir tmp_;
  cvmfs::UserIds user_;
};

TEST_F(CacheOwnerTest, CreatesAPrivateDirectoryReachableByTheUser) {
  ASSERT_EQ(0, ::chmod(tmp_.path().c_str(), 0755));
  const std::string dir = tmp_.Sub("base/sub/shared");
  auto change = HandCacheTo(dir, user_);
  ASSERT_TRUE(change.ok()) << change.status().ToString();
  struct stat st = Stat(dir);
  EXPECT_EQ(user_.uid, st.st_uid);
  EXPECT_EQ(user_.gid, st.st_gid);
  EXPECT_EQ(0700u, st.st_mode & 07777);
  EXPECT_EQ(0755u, Stat(tmp_.Sub("base/sub")).st_mode & 07777);
  EXPECT_EQ(0u, Stat(tmp_.Sub("base/sub")).st_uid);
}

TEST_F(CacheOwnerTest, TakesOverARootCache) {
  ASSERT_EQ(0, ::chmod(tmp_.path().c_str(), 0755));
  const std::string dir = tmp_.Sub("cache");
  ASSERT_TRUE(CreateLayout(dir).ok());
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir + "/cachedb", "db", 0600).ok());
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir + "/ab/cdef", "x", 0600).ok());
  const std::string outside = tmp_.Sub("outside");
  ASSERT_TRUE(cvmfs::WriteFileAtomic(outside, "keep", 0600).ok());
  ASSERT_EQ(0, ::symlink(outside.c_str(), (dir + "/link").c_str()));
  ASSERT_EQ(0, ::chmod(dir.c_str(), 0755));

  auto change = HandCacheTo(dir, user_);
  ASSERT_TRUE(change.ok()) << change.status().ToString();
  EXPECT_TRUE(change->taken_over);
  EXPECT_GT(change->entries, 256);
  for (const char* p : {"", "/cachedb", "/ab", "/ab/cdef", "/txn", "/link"})
    EXPECT_EQ(user_.uid, Stat(dir + p).st_uid) << p;
  EXPECT_EQ(0700u, Stat(dir).st_mode & 07777);
  // The link itself, never its target.
  EXPECT_EQ(0u, Stat(outside).st_uid);

  // Once the user's, nothing to do.
  change = HandCacheTo(dir, user_);
  ASSERT_TRUE(change.ok());
  EXPECT_FALSE(change->taken_over);

  // A cache whose directory alone was handed over is taken over too.
  ASSERT_EQ(0, ::chown((dir + "/cachedb").c_str(), 0, 0));
  change = HandCacheTo(dir, user_);
  ASSERT_TRUE(change.ok());
  EXPECT_TRUE(change->taken_over);
  EXPECT_EQ(user_.uid, Stat(dir + "/cachedb").st_uid);
}

TEST_F(CacheOwnerTest, OpensTheBaseAndNamesAnUnreachableAncestor) {
  ASSERT_EQ(0, ::chmod(tmp_.path().c_str(), 0755));
  ASSERT_EQ(0, ::mkdir(tmp_.Sub("base").c_str(), 0700));
  auto change = HandCacheTo(tmp_.Sub("base/shared"), user_);
  ASSERT_TRUE(change.ok()) << change.status().ToString();
  EXPECT_EQ(0711u, Stat(tmp_.Sub("base")).st_mode & 07777);

  ASSERT_EQ(0, ::mkdir(tmp_.Sub("closed").c_str(), 0700));
  ASSERT_EQ(0, ::mkdir(tmp_.Sub("closed/base").c_str(), 0755));
  change = HandCacheTo(tmp_.Sub("closed/base/shared"), user_);
  ASSERT_FALSE(change.ok());
  EXPECT_EQ(cvmfs::Status::Code::kPermission, change.status().code());
  EXPECT_NE(std::string::npos,
            change.status().message().find(tmp_.Sub("closed") + " (mode 0700"))
      << change.status().message();
}

TEST_F(CacheOwnerTest, HandsACacheBackToRoot) {
  // CVMFS_USER=root after an unprivileged client: the directory goes back
  // to root, so that the next unprivileged client takes it over again.
  const std::string dir = tmp_.Sub("cache");
  ASSERT_TRUE(CreateLayout(dir).ok());
  ASSERT_TRUE(HandCacheTo(dir, user_).ok());
  auto change = HandCacheTo(dir, cvmfs::UserIds{"root", 0, 0});
  ASSERT_TRUE(change.ok()) << change.status().ToString();
  EXPECT_TRUE(change->taken_over);
  EXPECT_EQ(0u, Stat(dir).st_uid);
  EXPECT_EQ(0u, Stat(dir + "/ff").st_uid);
}

TEST_F(CacheOwnerTest, RefusesASymbolicLink) {
  ASSERT_EQ(0, ::mkdir(tmp_.Sub("real").c_str(), 0700));
  ASSERT_EQ(0, ::symlink(tmp_.Sub("real").c_str(), tmp_.Sub("cache").c_str()));
  auto change = HandCacheTo(tmp_.Sub("cache"), user_);
  ASSERT_FALSE(change.ok());
  EXPECT_EQ(cvmfs::Status::Code::kInvalidArgument, change.status().code());
  EXPECT_EQ(0u, Stat(tmp_.Sub("real")).st_uid);
}

}  // namespace
}  // namespace cache
