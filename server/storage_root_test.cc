#include "server/storage_root.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace server {
namespace {

using cvmfs::Status;

class StorageRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = tmp_.Sub("storage");
    ASSERT_TRUE(cvmfs::MakeDirs(storage_ + "/data/ab").ok());
    ASSERT_TRUE(cvmfs::WriteFileAtomic(storage_ + "/data/ab/cd", "obj").ok());
    ASSERT_TRUE(cvmfs::WriteFileAtomic(tmp_.Sub("secret"), "secret").ok());
    ASSERT_EQ(::symlink("../secret", (storage_ + "/escape").c_str()), 0);
    ASSERT_EQ(::symlink("data/ab/cd", (storage_ + "/inside").c_str()), 0);
    ASSERT_EQ(::symlink("loop", (storage_ + "/loop").c_str()), 0);
    ASSERT_EQ(::mkfifo((storage_ + "/fifo").c_str(), 0644), 0);
    // The storage directory itself reached through a link.
    ASSERT_EQ(::symlink("storage", tmp_.Sub("link").c_str()), 0);
    auto root = StorageRoot::Open(tmp_.Sub("link"));
    ASSERT_TRUE(root.ok()) << root.status().ToString();
    root_ = std::make_unique<StorageRoot>(std::move(*root));
  }

  Status::Code CodeOf(const std::string& rel) {
    return root_->OpenFile(rel).status().code();
  }

  cvmfs::testing::TempDir tmp_;
  std::string storage_;
  std::unique_ptr<StorageRoot> root_;
};

TEST_F(StorageRootTest, OpensRegularFiles) {
  EXPECT_EQ(root_->path(), storage_);
  for (const char* rel :
       {"data/ab/cd", "/data/ab/cd", "data//ab/./cd", "inside"}) {
    auto f = root_->OpenFile(rel);
    ASSERT_TRUE(f.ok()) << rel << ": " << f.status().ToString();
    EXPECT_EQ(f->size, 3u);
    char buf[8];
    EXPECT_EQ(::pread(f->fd.get(), buf, sizeof(buf), 0), 3);
  }
}

TEST_F(StorageRootTest, MissingIsNotFound) {
  EXPECT_EQ(CodeOf("data/ab/ce"), Status::Code::kNotFound);
  EXPECT_EQ(CodeOf("data/ab/cd/x"), Status::Code::kNotFound);
  EXPECT_EQ(CodeOf("nothing/here"), Status::Code::kNotFound);
}

TEST_F(StorageRootTest, RefusesEverythingElse) {
  EXPECT_EQ(CodeOf("../secret"), Status::Code::kPermission);
  EXPECT_EQ(CodeOf("data/../data/ab/cd"), Status::Code::kPermission);
  EXPECT_EQ(CodeOf("escape"), Status::Code::kPermission);
  EXPECT_EQ(CodeOf("loop"), Status::Code::kPermission);
  EXPECT_EQ(CodeOf("fifo"), Status::Code::kPermission);  // and did not block
  EXPECT_EQ(CodeOf(""), Status::Code::kPermission);      // a directory
  EXPECT_EQ(CodeOf("data"), Status::Code::kPermission);
}

TEST(StorageRootOpenTest, MissingDirectoryIsNamed) {
  cvmfs::testing::TempDir tmp;
  auto root = StorageRoot::Open(tmp.Sub("missing"));
  ASSERT_FALSE(root.ok());
  EXPECT_NE(root.status().message().find(tmp.Sub("missing")),
            std::string::npos);
}

}  // namespace
}  // namespace server
