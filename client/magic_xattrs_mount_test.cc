// The magic attributes that read the mount (catalogs, cache, keys) on a
// fixture repository published by CVMFS 2.12: values and formats as CVMFS
// gives them, pages, and protection by group.
#include <gtest/gtest.h>

#include <sstream>

#include "client/fixture_mount_test.h"
#include "client/log_buffer.h"
#include "client/magic_xattrs_protection.h"

namespace cvmfs::client {
namespace {

using fixture_test::FixtureNames;
using fixture_test::FixtureTestName;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

class MagicXattrsMountTest : public fixture_test::FixtureMountTest {
 protected:
  void SetUp() override {
    MountConfig c = DemandOnlyConfig();
    auto key = ReadFile(fixture() + "/" + fqrn() + ".pub");
    ASSERT_TRUE(key.ok());
    key_ = *key;
    c.fs.public_keys = {key_};
    c.fs.log_buffer = [this] { return log_.Text(); };
    c.fs.xattr_protection.protected_names = {"user.fqrn", "user.pubkeys"};
    c.fs.xattr_protection.privileged_gids = {1234};
    auto mount = Mount(Server(), std::move(c));
    ASSERT_TRUE(mount.ok()) << mount.status().ToString();
    mount_ = std::move(mount).value();
  }
  FileSystem* fs() { return mount_->file_system(); }
  uint64_t InodeOf(const std::string& path) {
    uint64_t inode = kRootInode;
    std::istringstream in(path);
    for (std::string name; std::getline(in, name, '/');) {
      auto e = fs()->Lookup(inode, name);
      EXPECT_TRUE(e.ok()) << path << ": " << e.status().ToString();
      if (!e.ok()) return 0;
      inode = e->inode;
    }
    return inode;
  }
  std::string Get(uint64_t inode, const std::string& name) {
    auto v = fs()->GetXattr(inode, name);
    EXPECT_TRUE(v.ok()) << name << ": " << v.status().ToString();
    return v.ok() ? *v : "";
  }

  std::string key_;
  LogBuffer log_;
  std::unique_ptr<RepositoryMount> mount_;
};

TEST_P(MagicXattrsMountTest, ChunkListAgreesWithChunksAndSize) {
  for (const std::string path : {"large/big.dat", "hello.txt"}) {
    const uint64_t inode = InodeOf(path);
    auto lines = Lines(Get(inode, "user.chunk_list"));
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ("hash,offset,size", lines[0]);
    EXPECT_EQ(std::to_string(lines.size() - 1), Get(inode, "user.chunks"));
    uint64_t next = 0;
    for (size_t i = 1; i < lines.size(); ++i) {
      std::istringstream fields(lines[i]);
      std::string hash, offset, size;
      std::getline(fields, hash, ',');
      std::getline(fields, offset, ',');
      std::getline(fields, size);
      EXPECT_TRUE(Digest::Parse(hash).ok()) << lines[i];
      EXPECT_EQ(std::to_string(next), offset) << path;
      next += std::stoull(size);
    }
    EXPECT_EQ(fs()->GetAttr(inode)->st_size, static_cast<off_t>(next));
    if (lines.size() == 2) {  // unchunked: the file's own hash
      EXPECT_EQ(Get(inode, "user.hash"),
                lines[1].substr(0, lines[1].find(',')));
    }
    // One page: ~? counts it, ~0 is the plain value, ~1 does not exist.
    EXPECT_EQ("num_pages, 1", Get(inode, "user.chunk_list~?"));
    EXPECT_EQ(Get(inode, "user.chunk_list"), Get(inode, "user.chunk_list~0"));
    EXPECT_EQ(Status::Code::kNotFound,
              fs()->GetXattr(inode, "user.chunk_list~1").status().code());
    EXPECT_EQ(Status::Code::kNotFound,
              fs()->GetXattr(inode, "user.chunk_list~x").status().code());
    EXPECT_EQ(0u, Get(inode, "user.chunk_list@0")
                      .find("# Access page at idx: 0. Total num pages: 1 "));
  }
}

TEST_P(MagicXattrsMountTest, LocalHashIsTheCachedCopys) {
  const uint64_t inode = InodeOf("hello.txt");
  EXPECT_EQ("Not in cache", Get(inode, "user.lhash"));
  auto content = ReadAll(fs(), inode);
  ASSERT_TRUE(content.ok()) << content.status().ToString();
  // As CVMFS: the copy compressed again as stored, so an intact one's
  // lhash is its hash (the fixtures were compressed by CVMFS, with zlib).
  EXPECT_EQ(Get(inode, "user.hash"), Get(inode, "user.lhash"));
}

TEST_P(MagicXattrsMountTest, CatalogAndRepositoryCounters) {
  auto root = Lines(Get(kRootInode, "user.catalog_counters"));
  ASSERT_EQ(14u, root.size());
  EXPECT_EQ("catalog_hash: " + Get(kRootInode, "user.root_hash"), root[0]);
  EXPECT_EQ("catalog_mountpoint: ", root[1]);
  EXPECT_EQ(0u, root[2].find("chunked,"));
  EXPECT_EQ(0u, root[13].find("xattr,"));
  // Below the nested catalog, its own hash and mountpoint.
  // A nested catalog's mountpoint and what is below it: its own hash and
  // mountpoint.
  auto nested = Lines(Get(InodeOf("nested/inner"), "user.catalog_counters"));
  EXPECT_EQ(nested,
            Lines(Get(InodeOf("nested/inner/x.txt"), "user.catalog_counters")));
  ASSERT_EQ(14u, nested.size());
  EXPECT_NE(root[0], nested[0]);
  EXPECT_EQ("catalog_mountpoint: /nested/inner", nested[1]);
  // The repository's counters are the root catalog's, from anywhere.
  const std::string repo = Get(InodeOf("hello.txt"), "user.repo_counters");
  EXPECT_EQ(repo, Get(kRootInode, "user.repo_counters"));
  std::vector<std::string> root_csv(root.begin() + 2, root.end());
  EXPECT_EQ(root_csv, Lines(repo));
}

TEST_P(MagicXattrsMountTest, MetainfoKeysAndLog) {
  const std::string meta = Get(kRootInode, "user.repo_metainfo");
  if (fs()->Statistics().revision.manifest.metainfo) {
    EXPECT_EQ('{', meta.at(0)) << meta;  // CVMFS's JSON
  } else {
    EXPECT_EQ("metainfo not available", meta);
  }
  EXPECT_EQ(key_, Get(kRootInode, "user.pubkeys"));
  EXPECT_EQ("", Get(kRootInode, "user.logbuffer"));
  log_.Append(0, "something happened");
  EXPECT_NE(std::string::npos,
            Get(kRootInode, "user.logbuffer").find("] something happened\n"));
  EXPECT_EQ("0", Get(kRootInode, "user.timestamp_last_ioerr"));
  EXPECT_EQ("0", Get(kRootInode, "user.useddirp"));
  EXPECT_GT(std::stoll(Get(kRootInode, "user.maxfd")), -513);
  EXPECT_EQ("0", Get(InodeOf("hello.txt"), "user.external_file"));
}

TEST_P(MagicXattrsMountTest, ProtectedOnlyForPrivilegedGroups) {
  auto denied = fs()->GetXattr(kRootInode, "user.fqrn", gid_t{100});
  EXPECT_EQ(Status::Code::kNotFound, denied.status().code());
  EXPECT_EQ(
      Status::Code::kNotFound,
      fs()->GetXattr(kRootInode, "user.pubkeys~0", gid_t{0}).status().code());
  auto allowed = fs()->GetXattr(kRootInode, "user.fqrn", gid_t{1234});
  ASSERT_TRUE(allowed.ok());
  EXPECT_EQ(fqrn(), *allowed);
  EXPECT_TRUE(fs()->GetXattr(kRootInode, "user.revision", gid_t{100}).ok());
  // Still listed, as CVMFS does.
  auto names = fs()->ListXattr(kRootInode);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(1, std::count(names->begin(), names->end(), "user.fqrn"));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, MagicXattrsMountTest, FixtureNames(),
                         FixtureTestName);

TEST(MagicXattrsProtectionTest, ParsesCvmfsLists) {
  EXPECT_EQ((std::set<std::string>{"user.fqrn", "user.pubkeys"}),
            ParseProtectedXattrs(" user.fqrn,user.pubkeys ,,"));
  auto gids = ParsePrivilegedGids("0, 1000");
  ASSERT_TRUE(gids.ok());
  EXPECT_EQ((std::set<gid_t>{0, 1000}), *gids);
  EXPECT_FALSE(ParsePrivilegedGids("wheel").ok());
  EXPECT_FALSE(ParsePrivilegedGids("-1").ok());
  EXPECT_TRUE(ParsePrivilegedGids("").ok());
}

TEST(LogBufferTest, KeepsTheLastTenOldestFirstAndCutsLongLines) {
  LogBuffer log;
  for (int i = 0; i < 12; ++i) log.Append(1700000000, "m" + std::to_string(i));
  log.Append(1700000000, std::string(5000, 'x'));
  auto lines = Lines(log.Text());
  ASSERT_EQ(LogBuffer::kCapacity, lines.size());
  EXPECT_NE(std::string::npos, lines[0].find("] m3"));
  EXPECT_EQ('[', lines[0][0]);
  EXPECT_NE(std::string::npos, lines[0].find(" Nov 2023 "));
  EXPECT_EQ(std::string(4096, 'x') + " <snip>",
            lines.back().substr(lines.back().find("] ") + 2));
}

}  // namespace
}  // namespace cvmfs::client
