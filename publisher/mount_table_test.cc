#include "publisher/mount_table.h"

#include <gtest/gtest.h>

namespace publisher {
namespace {

constexpr char kMountInfo[] =
    "22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
    "90 22 0:50 / /srv/spool/x.org/rdonly ro,nosuid,nodev,relatime shared:40 - "
    "fuse cvmfs2 "
    "ro,user_id=0,group_id=0,allow_other\n"
    "91 22 0:51 / /cvmfs/x.org rw,nodev,relatime shared:41 master:3 - overlay "
    "overlay_x.org "
    "rw,lowerdir=/srv/spool/x.org/rdonly,upperdir=/srv/u\n"
    "92 22 0:52 / /mnt/with\\040blank ro shared:42 - tmpfs tmpfs rw\n"
    "93 22 0:53 / /cvmfs/x.org ro,nodev - overlay overlay_x.org ro\n"
    "garbage line\n";

TEST(MountTableTest, ParsesFieldsOptionalTagsAndEscapes) {
  auto table = ParseMountInfo(kMountInfo);
  ASSERT_EQ(table.size(), 5u);
  EXPECT_EQ(table[1].mountpoint, "/srv/spool/x.org/rdonly");
  EXPECT_EQ(table[1].fstype, "fuse");
  EXPECT_EQ(table[1].source, "cvmfs2");
  EXPECT_TRUE(table[1].read_only);
  EXPECT_EQ(table[2].fstype, "overlay");
  EXPECT_FALSE(table[2].read_only);
  EXPECT_EQ(table[2].super_options,
            "rw,lowerdir=/srv/spool/x.org/rdonly,upperdir=/srv/u");
  EXPECT_EQ(table[3].mountpoint, "/mnt/with blank");
}

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
