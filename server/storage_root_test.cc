#include "server/storage_root.h"

#include <fcntl.h>
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
    ASSERT_EQ(::symlink("../missing", (storage_ + "/escape_missing").c_str()),
              0);
    ASSERT_EQ(::symlink("data/ab/cd", (storage_ + "/inside").c_str()), 0);
    ASSERT_EQ(::symlink("loop", (storage_ + "/loop").c_str()), 0);
    ASSERT_EQ(::mkfifo((storage_ + "/fifo").c_str(), 0644), 0);
    // The storage directory itself reached through a link.
    ASSERT_EQ(::symlink("storage", tmp_.Sub("link").c_str()), 0);
    auto root = StorageRoot::Open(tmp_.Sub("link"));
    ASSERT_TRUE(root.ok()) << root.status().ToString();
    root_ = std::make_unique<StorageRoot>(std::move(*root));
  }

  // A symbolic link at `rel` (below the storage) pointing at `target`.
  void Link(const std::string& target, const std::string& rel) {
    ASSERT_EQ(::symlink(target.c_str(), (storage_ + "/" + rel).c_str()), 0)
        << rel;
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
  EXPECT_EQ(CodeOf("loop"), Status::Code::kPermission);
  EXPECT_EQ(CodeOf("fifo"), Status::Code::kPermission);  // and did not block
  EXPECT_EQ(CodeOf(""), Status::Code::kPermission);      // a directory
  EXPECT_EQ(CodeOf("data"), Status::Code::kPermission);
}

// Links are followed inside the directory, through directories and "..".
TEST_F(StorageRootTest, FollowsLinksInside) {
  Link("data/ab", "abdir");
  Link("../ab/cd", "data/ab/up");
  Link(storage_ + "/data/ab/cd", "absolute_inside");
  Link("abdir/../ab/./cd", "winding");
  for (const char* rel :
       {"abdir/cd", "data/ab/up", "absolute_inside", "winding", "abdir/up"}) {
    auto f = root_->OpenFile(rel);
    ASSERT_TRUE(f.ok()) << rel << ": " << f.status().ToString();
    EXPECT_EQ(f->size, 3u) << rel;
  }
}

// A link out of the directory is "not found" whether or not its target
// exists: the answer must not tell what exists outside.
TEST_F(StorageRootTest, LinksOutAreNotFoundWhateverTheTarget) {
  Link("/etc/passwd", "abs_exists");
  Link("/nonexistent/file", "abs_missing");
  Link(tmp_.Sub("secret"), "abs_secret");
  Link("../../../storage/data/ab/cd", "data/ab/out_and_back");
  Link("..", "data/parent");  // inside: resolves to the directory itself
  for (const char* rel : {"escape", "escape_missing", "abs_exists",
                          "abs_missing", "abs_secret", "data/ab/out_and_back",
                          "data/parent/escape", "data/parent/../secret"}) {
    auto f = root_->OpenFile(rel);
    if (std::string(rel).find("..") != std::string::npos) {
      EXPECT_EQ(f.status().code(), Status::Code::kPermission) << rel;
      continue;
    }
    EXPECT_EQ(f.status().code(), Status::Code::kNotFound) << rel;
    // The message (logged, never sent) does not name the target either.
    EXPECT_EQ(f.status().message().find("secret"), std::string::npos) << rel;
    EXPECT_EQ(f.status().message().find("passwd"), std::string::npos) << rel;
  }
  EXPECT_EQ(CodeOf("data/parent/data/ab/cd"), Status::Code::kOk);
}

// Only world-readable files are served; the others look missing.
TEST_F(StorageRootTest, UnreadableIsNotFound) {
  ASSERT_EQ(::chmod((storage_ + "/data/ab/cd").c_str(), 0600), 0);
  EXPECT_EQ(CodeOf("data/ab/cd"), Status::Code::kNotFound);
  EXPECT_EQ(CodeOf("inside"), Status::Code::kNotFound);
  ASSERT_EQ(::chmod((storage_ + "/data/ab/cd").c_str(), 0604), 0);
  EXPECT_EQ(CodeOf("data/ab/cd"), Status::Code::kOk);
}

// Temporaries, named as the publisher and replication name them, are never
// served, even when world-readable and complete.
TEST_F(StorageRootTest, TemporariesAreNotFound) {
  ASSERT_TRUE(cvmfs::MakeDirs(storage_ + "/data/txn").ok());
  std::string in_txn = cvmfs::TempNameFor(storage_ + "/data/txn/obj");
  std::string beside = cvmfs::TempNameFor(storage_ + "/.cvmfspublished");
  for (const std::string& path :
       {in_txn, beside, storage_ + "/data/txn/plain"}) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    ASSERT_GE(fd, 0) << path;
    ASSERT_EQ(::write(fd, "tmp", 3), 3);
    ::close(fd);
    std::string rel = path.substr(storage_.size() + 1);
    EXPECT_EQ(CodeOf(rel), Status::Code::kNotFound) << rel;
  }
  Link(in_txn.substr(storage_.size() + 1), "to_txn");
  EXPECT_EQ(CodeOf("to_txn"), Status::Code::kNotFound);
  EXPECT_EQ(CodeOf("data/txn"), Status::Code::kNotFound);
  EXPECT_EQ(CodeOf("data/ab/cd"), Status::Code::kOk);
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
