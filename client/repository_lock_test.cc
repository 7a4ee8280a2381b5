#include "client/repository_lock.h"

#include <gtest/gtest.h>

#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

TEST(RepositoryLockTest, ASecondLockOfTheSameRepositoryIsRefused) {
  testing::TempDir tmp;
  const std::string cache = tmp.Sub("cache/a.example.org");
  auto first = LockRepository(cache, "a.example.org");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = LockRepository(cache, "a.example.org");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(Status::Code::kBusy, second.status().code());
  EXPECT_NE(std::string::npos,
            second.status().message().find("a.example.org is already mounted"));
  // Another repository in the same (shared) cache directory is not locked.
  EXPECT_TRUE(LockRepository(cache, "b.example.org").ok());
  // Released with its descriptor.
  first->Reset();
  EXPECT_TRUE(LockRepository(cache, "a.example.org").ok());
}

}  // namespace
}  // namespace cvmfs::client
