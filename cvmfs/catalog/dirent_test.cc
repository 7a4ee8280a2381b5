#include "cvmfs/catalog/dirent.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "cvmfs/catalog/flags.h"

namespace cvmfs {
namespace {

DirectoryEntry Make(uint32_t mode) {
  DirectoryEntry e;
  e.mode = mode;
  return e;
}

Digest SomeDigest(HashAlgorithm algo) {
  Digest d;
  d.algorithm = algo;
  d.bytes[0] = 1;
  return d;
}

// Flag values as found in the fixture catalogs.
TEST(DirentTest, EncodeFlagsMatchesFixtureValues) {
  DirectoryEntry dir = Make(S_IFDIR | 0755);
  EXPECT_EQ(EncodeFlags(dir), 1u);
  dir.nested_mountpoint = true;
  EXPECT_EQ(EncodeFlags(dir), 3u);
  dir.nested_mountpoint = false;
  dir.nested_root = true;
  EXPECT_EQ(EncodeFlags(dir), 33u);

  DirectoryEntry link = Make(S_IFLNK | 0777);
  link.symlink = "$(CVMFS_ARCH)/lib";
  EXPECT_EQ(EncodeFlags(link), 12u);
  DirectoryEntry fifo = Make(S_IFIFO | 0644);
  EXPECT_EQ(EncodeFlags(fifo), 20u);

  DirectoryEntry file = Make(S_IFREG | 0644);
  file.content_hash = SomeDigest(HashAlgorithm::kSha1);
  EXPECT_EQ(EncodeFlags(file), 4u);
  DirectoryEntry chunked = Make(S_IFREG | 0644);
  chunked.chunked = true;
  EXPECT_EQ(EncodeFlags(chunked), 68u);
  DirectoryEntry shake = Make(S_IFREG | 0644);
  shake.content_hash = SomeDigest(HashAlgorithm::kShake128);
  shake.hash_algorithm = HashAlgorithm::kShake128;
  shake.compression = Compression::kNone;
  EXPECT_EQ(EncodeFlags(shake), 2564u);  // 4 | 2 << 8 | 1 << 11
}

TEST(DirentTest, HashBitsOnlyWithContent) {
  // Directories, symlinks and specials carry no algorithm bits even in a
  // SHAKE-128 repository; compression bits only on regular files.
  DirectoryEntry dir = Make(S_IFDIR | 0755);
  dir.hash_algorithm = HashAlgorithm::kShake128;
  dir.compression = Compression::kNone;
  EXPECT_EQ(EncodeFlags(dir), 1u);
  DirectoryEntry chunked = Make(S_IFREG | 0644);
  chunked.chunked = true;
  chunked.hash_algorithm = HashAlgorithm::kRmd160;
  EXPECT_EQ(EncodeFlags(chunked), 4u | 64u | (1u << 8));
}

TEST(DirentTest, DecodeInvertsEncode) {
  DirectoryEntry e = Make(S_IFREG | 0600);
  e.content_hash = SomeDigest(HashAlgorithm::kRmd160);
  e.hash_algorithm = HashAlgorithm::kRmd160;
  e.compression = Compression::kNone;
  e.external = true;
  e.hidden = true;
  e.direct_io = true;
  uint32_t flags = EncodeFlags(e);
  EXPECT_EQ(flags, kFlagFile | kFlagExternal | kFlagHidden | kFlagDirectIo |
                       (1u << 8) | (1u << 11));
  DirectoryEntry d = Make(e.mode);
  d.content_hash = e.content_hash;
  DecodeFlags(flags, &d);
  EXPECT_EQ(d, e);

  DirectoryEntry bind = Make(S_IFDIR | 0755);
  bind.bind_mountpoint = true;
  EXPECT_EQ(EncodeFlags(bind), kFlagDir | kFlagBindMountpoint);
  DirectoryEntry b = Make(bind.mode);
  DecodeFlags(EncodeFlags(bind), &b);
  EXPECT_TRUE(b.bind_mountpoint);
}

TEST(DirentTest, TypePredicates) {
  EXPECT_TRUE(Make(S_IFDIR).IsDirectory());
  EXPECT_TRUE(Make(S_IFREG).IsRegular());
  EXPECT_TRUE(Make(S_IFLNK).IsSymlink());
  EXPECT_TRUE(Make(S_IFIFO).IsSpecial());
  EXPECT_TRUE(Make(S_IFSOCK).IsSpecial());
  EXPECT_TRUE(Make(S_IFCHR).IsSpecial());
  EXPECT_TRUE(Make(S_IFBLK).IsSpecial());
  EXPECT_FALSE(Make(S_IFREG).IsSpecial());
}

TEST(DirentTest, CountersFollowCvmfsRules) {
  CounterSet c;
  DirectoryEntry file = Make(S_IFREG | 0644);
  file.size = 10;
  c.Count(file, 1);
  DirectoryEntry chunked = file;
  chunked.chunked = true;
  chunked.size = 100;
  chunked.xattrs.entries.push_back({"user.a", "b"});
  c.Count(chunked, 1);
  c.Count(Make(S_IFDIR | 0755), 1);
  c.Count(Make(S_IFLNK | 0777), 1);
  c.Count(Make(S_IFIFO | 0644), 1);
  EXPECT_EQ(c.regular, 2);
  EXPECT_EQ(c.file_size, 110);
  EXPECT_EQ(c.chunked, 1);
  EXPECT_EQ(c.chunked_size, 100);
  EXPECT_EQ(c.xattr, 1);
  EXPECT_EQ(c.dir, 1);
  EXPECT_EQ(c.symlink, 1);
  EXPECT_EQ(c.special, 1);
  c.Count(chunked, -1);
  EXPECT_EQ(c.regular, 1);
  EXPECT_EQ(c.file_size, 10);

  CatalogCounters cc;
  cc.self = c;
  cc.subtree.regular = 5;
  EXPECT_EQ(cc.Total().regular, 6);
  ASSERT_NE(cc.Find("subtree_regular"), nullptr);
  EXPECT_EQ(*cc.Find("subtree_regular"), 5);
  EXPECT_EQ(*cc.Find("self_file_size"), 10);
  EXPECT_EQ(cc.Find("self_bogus"), nullptr);
  EXPECT_EQ(cc.Find("regular"), nullptr);
  CounterSet diff = cc.Total();
  diff -= cc.subtree;
  EXPECT_EQ(diff, c);
}

}  // namespace
}  // namespace cvmfs
