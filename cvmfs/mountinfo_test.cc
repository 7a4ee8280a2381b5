#include "cvmfs/mountinfo.h"

#include <gtest/gtest.h>

namespace cvmfs {
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

TEST(MountInfoTest, ParsesFieldsOptionalTagsAndEscapes) {
  auto table = ParseMountInfo(kMountInfo);
  ASSERT_EQ(table.size(), 5u);
  EXPECT_EQ(table[1].mountpoint, "/srv/spool/x.org/rdonly");
  EXPECT_EQ(table[1].fstype, "fuse");
  EXPECT_EQ(table[1].source, "cvmfs2");
  EXPECT_TRUE(table[1].read_only);
  EXPECT_EQ(table[1].options, "ro,nosuid,nodev,relatime");
  EXPECT_EQ(table[2].fstype, "overlay");
  EXPECT_FALSE(table[2].read_only);
  EXPECT_EQ(table[2].super_options,
            "rw,lowerdir=/srv/spool/x.org/rdonly,upperdir=/srv/u");
  EXPECT_EQ(table[3].mountpoint, "/mnt/with blank");
}

TEST(MountInfoTest, SkipsLinesWithoutSeparatorOrType) {
  EXPECT_TRUE(ParseMountInfo("1 2 3:4 / /a rw shared:1 ext4 /dev/x rw\n"
                             "1 2 3:4 / /b rw -\n"
                             "\n")
                  .empty());
}

TEST(MountInfoTest, ParsesProcMounts) {
  auto table = ParseProcMounts(
      "proc /proc proc rw 0 0\n"
      "/usr/bin/cvmfs2 /tmp/with\\040space fuse.cvmfs2 ro,nodev 0 0\n"
      "short line\n"
      "src /no/options fuse\n");
  ASSERT_EQ(table.size(), 3u);
  EXPECT_FALSE(table[0].read_only);
  const MountEntry& cvmfs = table[1];
  EXPECT_EQ(cvmfs.source + " " + cvmfs.mountpoint + " " + cvmfs.fstype + " " +
                cvmfs.options + " [" + cvmfs.super_options + "]",
            "/usr/bin/cvmfs2 /tmp/with space fuse.cvmfs2 ro,nodev []");
  EXPECT_TRUE(cvmfs.read_only);
  EXPECT_EQ(table[2].mountpoint, "/no/options");
  EXPECT_EQ(table[2].options, "");
}

TEST(MountInfoTest, UnescapesOctalTriplesOnly) {
  EXPECT_EQ(UnescapeMountField("a\\040b\\011c\\012d\\134e"), "a b\tc\nd\\e");
  EXPECT_EQ(UnescapeMountField("\\400"), "\\400");      // above one byte
  EXPECT_EQ(UnescapeMountField("\\08x"), "\\08x");      // not octal
  EXPECT_EQ(UnescapeMountField("end\\04"), "end\\04");  // cut short
  EXPECT_EQ(UnescapeMountField("plain"), "plain");
}

}  // namespace
}  // namespace cvmfs
