#include "publisher/mount_table.h"

#include <gtest/gtest.h>

namespace publisher {
namespace {

// The parser's own tests are in cvmfs/mountinfo_test.cc.
constexpr char kMountInfo[] =
    "22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
    "91 22 0:51 / /cvmfs/x.org rw,nodev,relatime shared:41 master:3 - overlay "
    "overlay_x.org rw,lowerdir=/srv/spool/x.org/rdonly,upperdir=/srv/u\n"
    "93 22 0:53 / /cvmfs/x.org ro,nodev - overlay overlay_x.org ro\n";

TEST(MountTableTest, FindMountReturnsTheTopmost) {
  auto table = ParseMountInfo(kMountInfo);
  auto m = FindMount(table, "/cvmfs/x.org");
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->read_only);  // the later line is mounted on top
  EXPECT_FALSE(FindMount(table, "/cvmfs"));
  EXPECT_FALSE(FindMount(table, "/cvmfs/x.org/sub"));
}

TEST(MountTableTest, ReadsThisProcessTable) {
  auto table = ReadMountTable();
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_TRUE(FindMount(*table, "/"));
}

}  // namespace
}  // namespace publisher
