// Temporary names carry their owner's pid; a publish removes those of dead
// processes and keeps those of live ones.
#include "publisher/stale_temporaries.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cvmfs/file_util.h"
#include "publisher/repository.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::testing::TempDir;

TEST(StaleTemporariesTest, OwnerIsParsedFromEveryTemporaryName) {
  EXPECT_EQ(TemporaryOwner("work.1234.aBc123"), pid_t{1234});
  EXPECT_EQ(TemporaryOwner("mkfs.7.XXXXXX"), pid_t{7});
  EXPECT_EQ(TemporaryOwner(".tmp.42.0"), pid_t{42});
  for (const char* other :
       {"work.abc.x", "work..x", "work.12", "work.12x", "history.db", ".tmp.",
        "reflog.db", "xwork.1.a", "work.99999999999.a", "work.0.a"})
    EXPECT_EQ(TemporaryOwner(other), std::nullopt) << other;
}

TEST(StaleTemporariesTest, TemplateNamesTheCurrentProcess) {
  std::string t = TempDirTemplate("/spool/tmp", "work");
  EXPECT_EQ(t, "/spool/tmp/work." + std::to_string(::getpid()) + ".XXXXXX");
  EXPECT_EQ(TemporaryOwner(t.substr(t.rfind('/') + 1)), ::getpid());
}

TEST(StaleTemporariesTest, RemovesOnlyThoseOfDeadProcesses) {
  TempDir dir;
  ASSERT_TRUE(cvmfs::MakeDirs(dir.Sub("work.100.aaaaaa/sub")).ok());
  ASSERT_TRUE(
      cvmfs::WriteFileAtomic(dir.Sub("work.100.aaaaaa/sub/catalog"), "x").ok());
  ASSERT_TRUE(cvmfs::MakeDirs(dir.Sub("mkfs.101.bbbbbb")).ok());
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir.Sub(".tmp.102.3"), "partial").ok());
  ASSERT_TRUE(cvmfs::MakeDirs(dir.Sub("work.200.cccccc")).ok());  // alive
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir.Sub("unrelated"), "keep").ok());
  auto alive = [](pid_t pid) { return pid == 200; };
  auto removed = RemoveStaleTemporaries(dir.path(), alive);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, 3u);
  EXPECT_EQ(*cvmfs::ListDirectory(dir.path()),
            (std::vector<std::string>{"unrelated", "work.200.cccccc"}));
  EXPECT_EQ(*RemoveStaleTemporaries(dir.Sub("missing"), alive), 0u);
}

// The pid of a process that has exited and been reaped.
pid_t DeadPid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

TEST(StaleTemporariesTest, PublishRemovesWhatKilledPublishesLeft) {
  TempDir root;
  cvmfs::SystemPaths paths;
  paths.root = root.path();
  MkfsOptions mkfs;
  mkfs.fqrn = "stale.example.org";
  ASSERT_TRUE(Mkfs(paths, mkfs).ok());
  const std::string spool_tmp = paths.Spool(mkfs.fqrn) + "/tmp";
  const std::string txn = paths.Storage(mkfs.fqrn) + "/data/txn";
  const std::string dead = std::to_string(DeadPid());
  const std::string live = std::to_string(::getppid());
  ASSERT_TRUE(cvmfs::MakeDirs(spool_tmp + "/work." + dead + ".zzzzzz").ok());
  ASSERT_TRUE(cvmfs::MakeDirs(spool_tmp + "/work." + live + ".yyyyyy").ok());
  ASSERT_TRUE(
      cvmfs::WriteFileAtomic(txn + "/.tmp." + dead + ".5", "partial").ok());
  ASSERT_TRUE(
      cvmfs::WriteFileAtomic(txn + "/.tmp." + live + ".6", "writing").ok());

  auto repo = Repository::Open(paths, mkfs.fqrn);
  ASSERT_TRUE(repo.ok()) << repo.status().ToString();
  auto stats = (*repo)->Publish(
      [](CatalogTree*, IngestPipeline*) { return cvmfs::Status::Ok(); }, {});
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->stale_temporaries_removed, 2u);
  repo->reset();  // removes its own temporaries
  EXPECT_EQ(*cvmfs::ListDirectory(spool_tmp),
            (std::vector<std::string>{"work." + live + ".yyyyyy"}));
  EXPECT_EQ(*cvmfs::ListDirectory(txn),
            (std::vector<std::string>{".tmp." + live + ".6"}));
}

}  // namespace
}  // namespace publisher
