#include "server/replication/verified_download.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "testing/test_env.h"

namespace replication {
namespace {

// The names in `dir` other than . and ..
std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (struct dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  return names;
}

class AnonymousTxnFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.Sub("storage");
    for (const char* d : {"", "/data", "/data/txn", "/data/ab"})
      ASSERT_EQ(::mkdir((root_ + d).c_str(), 0755), 0);
  }
  cvmfs::Result<std::unique_ptr<TxnFile>> Make() {
    return TxnFile::CreateIn(root_ + "/data/ab", root_,
                             cvmfs::HashAlgorithm::kSha1);
  }
  cvmfs::testing::TempDir tmp_;
  std::string root_;
};

// The object's directory holds nothing but committed objects, and data/txn
// nothing at all: an uncommitted download leaves no trace, even if the
// process died (the file has no name until it is linked).
TEST_F(AnonymousTxnFileTest, HasNoNameUntilCommitted) {
  auto file = Make();
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  if (!(*file)->anonymous()) GTEST_SKIP() << "no O_TMPFILE here";
  ASSERT_TRUE((*file)->Write("hello", 5).ok());
  EXPECT_TRUE(Names(root_ + "/data/ab").empty());
  EXPECT_TRUE(Names(root_ + "/data/txn").empty());
  EXPECT_EQ((*file)->Finish(),
            cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "hello"));
  // Readable by its path while it lives (the catalog walk opens it so).
  auto text = cvmfs::ReadFile((*file)->path());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "hello");
  EXPECT_FALSE((*file)->Write("more", 4).ok()) << "written after Finish";
  ASSERT_TRUE((*file)->CommitAs(root_ + "/data/ab/cdef").ok());
  EXPECT_EQ(Names(root_ + "/data/ab"), std::vector<std::string>{"cdef"});
  auto stored = cvmfs::ReadFile(root_ + "/data/ab/cdef");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(*stored, "hello");
}

TEST_F(AnonymousTxnFileTest, DestroyedUncommittedLeavesNothing) {
  {
    auto file = Make();
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    ASSERT_TRUE((*file)->Write("x", 1).ok());
    (*file)->Finish();
  }
  EXPECT_TRUE(Names(root_ + "/data/ab").empty());
  EXPECT_TRUE(Names(root_ + "/data/txn").empty());
}

// Objects are named by their content: a name that exists already holds the
// same bytes and is kept.
TEST_F(AnonymousTxnFileTest, CommitOntoAnExistingObjectKeepsIt) {
  ASSERT_TRUE(
      cvmfs::WriteFileAtomic(root_ + "/data/ab/cdef", "first", 0644).ok());
  auto file = Make();
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  if (!(*file)->anonymous()) GTEST_SKIP() << "no O_TMPFILE here";
  ASSERT_TRUE((*file)->Write("first", 5).ok());
  (*file)->Finish();
  EXPECT_TRUE((*file)->CommitAs(root_ + "/data/ab/cdef").ok());
  EXPECT_EQ(*cvmfs::ReadFile(root_ + "/data/ab/cdef"), "first");
}

TEST_F(AnonymousTxnFileTest, CommittedObjectIsWorldReadableUnderAStrictUmask) {
  mode_t old_umask = ::umask(077);
  auto file = Make();
  ::umask(old_umask);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_TRUE((*file)->Write("x", 1).ok());
  (*file)->Finish();
  ASSERT_TRUE((*file)->CommitAs(root_ + "/data/ab/object").ok());
  struct stat st;
  ASSERT_EQ(::stat((root_ + "/data/ab/object").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(AnonymousTxnFileTest, MissingDirectoryIsAnError) {
  auto file =
      TxnFile::CreateIn(root_ + "/data/zz", root_, cvmfs::HashAlgorithm::kSha1);
  EXPECT_FALSE(file.ok());
}

}  // namespace
}  // namespace replication
