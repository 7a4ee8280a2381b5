// InodeTable: exact lookup counts, and a memory bound that drops the least
// recently used inodes (never the root) even while the kernel holds them.
#include "client/inode_table.h"

#include <gtest/gtest.h>

namespace cvmfs::client {
namespace {

std::shared_ptr<const InodeInfo> Info(const std::string& path) {
  auto info = std::make_shared<InodeInfo>();
  info->path = path;
  info->entry.name = path.substr(path.rfind('/') + 1);
  return info;
}

// Inodes in one shard (the table has 32, by inode modulo 32).
constexpr uint64_t kA = 32 * 10, kB = 32 * 11, kC = 32 * 12, kD = 32 * 13;

TEST(InodeTableTest, LookupCountsAreExactWithoutABound) {
  InodeTable table;
  table.Remember(kA, Info("/a"), 2);
  table.Remember(kA, Info("/a"), 1);
  table.Forget(kA, 2);
  EXPECT_NE(table.Get(kA), nullptr);
  table.Forget(kA, 1);
  EXPECT_EQ(table.Get(kA), nullptr);
  table.Forget(kA, 1);  // unknown: ignored
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.bytes(), 0u);
}

TEST(InodeTableTest, TheLeastRecentlyUsedAreDroppedBeyondTheBound) {
  const size_t charge = InodeCharge(*Info("/a"));
  InodeTable table(32 * 2 * charge);  // two entries per shard
  table.Remember(kA, Info("/a"));
  table.Remember(kB, Info("/b"));
  EXPECT_NE(table.Get(kA), nullptr);  // now /b is the oldest
  table.Remember(kC, Info("/c"));
  EXPECT_EQ(table.Get(kB), nullptr);
  EXPECT_NE(table.Get(kA), nullptr);
  EXPECT_NE(table.Get(kC), nullptr);
  EXPECT_EQ(table.evictions(), 1u);
  EXPECT_LE(table.bytes(), 2 * charge);
  // A forget of the dropped inode is ignored; a rebuilt one (count 0)
  // goes at its first forget.
  table.Forget(kB, 1);
  table.Remember(kD, Info("/d"), 0);
  table.Forget(kD, 1);
  EXPECT_EQ(table.Get(kD), nullptr);
  EXPECT_NE(table.Get(kC), nullptr);
}

TEST(InodeTableTest, TheRootIsNeverDropped) {
  const size_t charge = InodeCharge(*Info("/a"));
  InodeTable table(32 * charge);  // one entry per shard
  table.Remember(kRootInode, Info(""));
  for (uint64_t i = 1; i <= 10; ++i)
    table.Remember(kRootInode + 32 * i, Info("/x" + std::to_string(i)));
  EXPECT_NE(table.Get(kRootInode), nullptr);
  EXPECT_NE(table.Get(kRootInode + 32 * 10), nullptr);
  EXPECT_EQ(table.Get(kRootInode + 32 * 9), nullptr);
  table.Forget(kRootInode, 100);
  EXPECT_NE(table.Get(kRootInode), nullptr);
}

TEST(InodeTableTest, ChargeCountsLongPathsAndXattrs) {
  auto small = Info("/a");
  auto big = std::make_shared<InodeInfo>();
  big->path = std::string(200, 'p');
  big->entry.xattrs.entries.emplace_back("user.k", std::string(100, 'v'));
  EXPECT_GE(InodeCharge(*big), InodeCharge(*small) + 300);
}

}  // namespace
}  // namespace cvmfs::client
