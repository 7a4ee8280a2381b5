// Magic attributes against attributes stored in the repository: a magic
// name always wins (getxattr answers the magic value, listxattr names it
// once), other stored attributes are answered and listed as stored.
#include "client/magic_xattrs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "client/magic_xattrs_visibility.h"
#include "cvmfs/hash.h"

namespace cvmfs::client {
namespace {

class MagicXattrsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    info_.path = "/dir/file";
    info_.entry.name = "file";
    info_.entry.mode = S_IFREG | 0644;
    info_.entry.size = 13;
    info_.entry.content_hash = HashString(HashAlgorithm::kSha1, "content");
    // As a tar member with `SCHILY.xattr.user.*` pax headers stores them.
    info_.entry.xattrs.entries = {{"user.hash", "deadbeef"},
                                  {"user.pid", "1"},
                                  {"user.rawlink", "stored"},
                                  {"user.origin", "tar"}};
  }

  MagicXattrs View() const { return MagicXattrs(sources_, info_); }

  InodeInfo info_;
  MagicSources sources_ = {[] {
                             MountStatistics s;
                             s.fqrn = "repo.example.org";
                             return s;
                           },
                           nullptr, nullptr, nullptr};
};

TEST_F(MagicXattrsTest, MagicValuesWinOverStoredOnes) {
  auto hash = View().Lookup("user.hash");
  ASSERT_TRUE(hash.ok()) << hash.status().ToString();
  EXPECT_EQ(info_.entry.content_hash->ToString(), *hash);
  auto pid = View().Lookup("user.pid");
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(std::to_string(::getpid()), *pid);
  EXPECT_EQ("repo.example.org", *View().Lookup("user.fqrn"));
}

TEST_F(MagicXattrsTest, StoredAttributesAnswerWhereNoMagicOneApplies) {
  EXPECT_EQ("tar", *View().Lookup("user.origin"));
  // user.rawlink is magic for symlinks only: a file's stored one is its own.
  EXPECT_EQ("stored", *View().Lookup("user.rawlink"));
  EXPECT_EQ(Status::Code::kNotFound,
            View().Lookup("user.missing").status().code());
}

TEST_F(MagicXattrsTest, ListNamesEachAttributeOnce) {
  for (const bool hide : {false, true}) {
    std::vector<std::string> names = MagicXattrs::List(info_.entry, hide);
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted.end(), std::adjacent_find(sorted.begin(), sorted.end()))
        << "a name is listed twice (hide_magic=" << hide << ")";
    auto count = [&](const std::string& n) {
      return std::count(names.begin(), names.end(), n);
    };
    EXPECT_EQ(1, count("user.origin"));
    EXPECT_EQ(1, count("user.rawlink"));  // the stored one
    // Shadowed stored names are never listed; the magic ones only unhidden.
    EXPECT_EQ(hide ? 0 : 1, count("user.hash"));
    EXPECT_EQ(hide ? 0 : 1, count("user.pid"));
    EXPECT_EQ(hide ? 0 : 1, count("user.fqrn"));
    EXPECT_EQ(hide ? 2u : 2u + MagicXattrs::Names(info_.entry).size(),
              names.size());
  }
}

TEST_F(MagicXattrsTest, AMagicNameShadowsOnlyWhereItApplies) {
  EXPECT_TRUE(MagicXattrs::Shadows("user.hash", info_.entry));
  EXPECT_FALSE(MagicXattrs::Shadows("user.rawlink", info_.entry));
  EXPECT_FALSE(MagicXattrs::Shadows("user.origin", info_.entry));
  EXPECT_FALSE(MagicXattrs::Shadows("trusted.hash", info_.entry));
  DirectoryEntry dir;
  dir.mode = S_IFDIR | 0755;
  EXPECT_FALSE(MagicXattrs::Shadows("user.hash", dir));
  EXPECT_TRUE(MagicXattrs::Shadows("user.pid", dir));
}

// user.speed: KiB/s over the time the downloads took (it was always 0:
// `cvmfs_config stat`'s SPEED column).
TEST(MagicXattrsMountTest, SpeedIsBytesOverDownloadTime) {
  MountStatistics stats;
  EXPECT_EQ("n/a", *MagicXattrs::MountValue("speed", stats));  // as CVMFS
  stats.fetch.bytes_downloaded = 10u << 20;                    // 10 MiB
  stats.fetch.download_ns = 2'000'000'000;  // in 2 s of transfers
  EXPECT_EQ("5120", *MagicXattrs::MountValue("speed", stats));
  EXPECT_TRUE(MagicXattrs::IsMagic("user.speed"));
}

}  // namespace
TEST(MagicXattrsVisibilityTest, ParsesCvmfsValues) {
  using V = MagicXattrsVisibility;
  EXPECT_EQ(V::kAlways, *ParseMagicXattrsVisibility("always"));
  EXPECT_EQ(V::kRootOnly, *ParseMagicXattrsVisibility("RootOnly"));
  EXPECT_EQ(V::kNever, *ParseMagicXattrsVisibility("NEVER"));
  EXPECT_FALSE(ParseMagicXattrsVisibility("root").ok());
  EXPECT_FALSE(ParseMagicXattrsVisibility("").ok());
}

}  // namespace cvmfs::client
