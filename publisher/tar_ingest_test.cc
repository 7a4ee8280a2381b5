// What tar ingest refuses and how members that conflict are placed: each
// test builds a small tarball (libarchive's writer, or GNU tar for sparse
// members), ingests it into a fresh repository and reads the published
// revision back through the library. A refused tarball must leave the
// manifest (revision and root catalog) as it was.
#include "publisher/tar_ingest.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "publisher/repository.h"
#include "testing/repository_listing.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::testing::ListingLine;
using cvmfs::testing::TempDir;

const char kFqrn[] = "tar.example.org";

// One tar member: a regular file (data), directory, symlink (target) or
// hardlink (to an earlier member).
struct Member {
  std::string name;
  unsigned type = AE_IFREG;
  std::string data;  // content, or the symlink's target
  int64_t uid = 0, gid = 0;
  std::string hardlink;
};

Member Make(std::string name, unsigned type, std::string data = "") {
  Member m;
  m.name = std::move(name);
  m.type = type;
  m.data = std::move(data);
  return m;
}
Member File(std::string name, std::string data = "x\n") {
  return Make(std::move(name), AE_IFREG, std::move(data));
}
Member Dir(std::string name) { return Make(std::move(name), AE_IFDIR); }
Member Link(std::string name, std::string target) {
  return Make(std::move(name), AE_IFLNK, std::move(target));
}
Member Hardlink(std::string name, std::string target) {
  Member m = Make(std::move(name), AE_IFREG);
  m.hardlink = std::move(target);
  return m;
}

// A pax tarball of `members` at `path`.
void WriteTar(const std::string& path, const std::vector<Member>& members) {
  archive* a = archive_write_new();
  ASSERT_EQ(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
  for (const Member& m : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.name.c_str());
    archive_entry_set_filetype(e, m.type);
    archive_entry_set_perm(e, m.type == AE_IFDIR ? 0755 : 0644);
    archive_entry_set_uid(e, m.uid);
    archive_entry_set_gid(e, m.gid);
    archive_entry_set_mtime(e, 1700000000, 0);
    if (!m.hardlink.empty()) {
      archive_entry_set_hardlink(e, m.hardlink.c_str());
      archive_entry_set_size(e, 0);
    } else if (m.type == AE_IFLNK) {
      archive_entry_set_symlink(e, m.data.c_str());
    } else if (m.type == AE_IFREG) {
      archive_entry_set_size(e, static_cast<la_int64_t>(m.data.size()));
    }
    ASSERT_EQ(archive_write_header(a, e), ARCHIVE_OK)
        << archive_error_string(a);
    if (m.type == AE_IFREG && m.hardlink.empty() && !m.data.empty()) {
      ASSERT_EQ(archive_write_data(a, m.data.data(), m.data.size()),
                static_cast<la_ssize_t>(m.data.size()));
    }
    archive_entry_free(e);
  }
  ASSERT_EQ(archive_write_close(a), ARCHIVE_OK);
  archive_write_free(a);
}

class TarIngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    paths_.root = root_.path();
    MkfsOptions o;
    o.fqrn = kFqrn;
    ASSERT_TRUE(Mkfs(paths_, o).ok());
    // Revision 2: what a refused ingest must leave as it is.
    Ingest({Dir("victim"), File("victim/keep", "keep me\n")}, "");
    ASSERT_TRUE(last_.ok()) << last_.ToString();
    manifest_ = Manifest();
  }

  std::string Manifest() {
    auto m = cvmfs::ReadFile(root_.path() + "/srv/cvmfs/" + kFqrn +
                             "/.cvmfspublished");
    EXPECT_TRUE(m.ok());
    return m.ok() ? *m : "";
  }

  // Ingests the file `tarball`; the status is in last_.
  void IngestFile(const std::string& tarball, const std::string& base,
                  std::vector<std::string> deletes = {}) {
    auto repo = Repository::Open(paths_, kFqrn);
    ASSERT_TRUE(repo.ok()) << repo.status().ToString();
    TarIngestOptions t;
    t.tarball = tarball;
    t.base_dir = base;
    t.delete_paths = std::move(deletes);
    t.fqrn = kFqrn;
    auto stats = (*repo)->Publish(
        [&](CatalogTree* tree, IngestPipeline* p) {
          return IngestTar(t, tree, p);
        },
        {});
    last_ = stats.status();
  }

  void Ingest(const std::vector<Member>& members, const std::string& base) {
    std::string tar = work_.Sub("in" + std::to_string(++count_) + ".tar");
    WriteTar(tar, members);
    IngestFile(tar, base);
  }

  // The refusal names `message`, and clients still see revision 2.
  void ExpectRefused(const std::string& message) {
    EXPECT_FALSE(last_.ok());
    EXPECT_NE(last_.ToString().find(message), std::string::npos)
        << last_.ToString();
    EXPECT_EQ(Manifest(), manifest_);
    auto listing = Published();
    EXPECT_EQ(listing.size(), 2u);
    EXPECT_EQ(listing["victim/keep"].content,
              cvmfs::testing::Sha256Hex("keep me\n"));
  }

  std::map<std::string, ListingLine> Published() {
    auto repo = Repository::Open(paths_, kFqrn);
    EXPECT_TRUE(repo.ok());
    auto m = (*repo)->CurrentManifest();
    EXPECT_TRUE(m.ok());
    auto listing = cvmfs::testing::ListRepository(
        (*repo)->store(), m->manifest.root_catalog, work_.path());
    EXPECT_TRUE(listing.ok()) << listing.status().ToString();
    return listing.ok() ? *listing : std::map<std::string, ListingLine>{};
  }

  TempDir root_, work_;
  cvmfs::SystemPaths paths_;
  cvmfs::Status last_;
  std::string manifest_;
  int count_ = 0;
};

TEST_F(TarIngestTest, ZeroBytesAreNotAnEmptyArchive) {
  std::string empty = work_.Sub("empty");
  ASSERT_TRUE(cvmfs::WriteFileAtomic(empty, "", 0644).ok());
  IngestFile(empty, "victim", {"victim"});
  ExpectRefused("is empty, not a tar archive");
}

TEST_F(TarIngestTest, OtherFormatsAndGarbageAreRefused) {
  // An mtree specification names files of the publishing machine.
  std::string mtree = work_.Sub("spec");
  ASSERT_TRUE(cvmfs::WriteFileAtomic(mtree,
                                     "#mtree\n./secret type=file "
                                     "contents=/etc/hostname\n",
                                     0644)
                  .ok());
  IngestFile(mtree, "victim", {"victim"});
  ExpectRefused("is not a tar archive");
  std::string garbage = work_.Sub("garbage");
  ASSERT_TRUE(
      cvmfs::WriteFileAtomic(garbage, std::string(3000, '\x17'), 0644).ok());
  IngestFile(garbage, "victim", {"victim"});
  ExpectRefused("is not a tar archive");
}

TEST_F(TarIngestTest, ArchiveCutAtAMemberBoundaryIsRefused) {
  std::string tar = work_.Sub("cut.tar");
  WriteTar(tar, {File("a", std::string(1000, 'a')), File("b", "b")});
  auto full = cvmfs::ReadFile(tar);
  ASSERT_TRUE(full.ok());
  // The first member is a header and 2 data blocks (no pax header).
  const std::vector<std::pair<size_t, std::string>> cuts = {
      {3 * 512, "ends without the end-of-archive blocks"},
      {3 * 512 + 100, "not a complete tar archive"},
      {700, "runcated"},
      {300, "is not a tar archive"}};
  for (const auto& [cut, message] : cuts) {
    ASSERT_TRUE(cvmfs::WriteFileAtomic(tar, full->substr(0, cut), 0644).ok());
    IngestFile(tar, "victim", {"victim"});
    ExpectRefused(message);
  }
  // The whole archive, and one of only the end-of-archive blocks, are fine.
  ASSERT_TRUE(cvmfs::WriteFileAtomic(tar, *full, 0644).ok());
  IngestFile(tar, "whole");
  EXPECT_TRUE(last_.ok()) << last_.ToString();
  Ingest({}, "nothing");
  EXPECT_TRUE(last_.ok()) << last_.ToString();
  EXPECT_EQ(Published().count("nothing"), 1u);
}

TEST_F(TarIngestTest, PathsLongerThanClientsCanUseAreRefused) {
  // "/cvmfs/tar.example.org" + "/b" + "/" + name: 4095 bytes at most.
  const size_t prefix = std::string("/cvmfs/").size() + strlen(kFqrn) + 3;
  std::string dirs;
  while (prefix + dirs.size() + 200 < kMaxClientPathLength)
    dirs += std::string(99, 'd') + "/";
  std::string longest(kMaxClientPathLength - prefix - dirs.size(), 'f');
  Ingest({File(dirs + longest + "x")}, "b");
  ExpectRefused("more than 4095");
  Ingest({File(dirs + longest, "longest\n")}, "b");
  ASSERT_TRUE(last_.ok()) << last_.ToString();
  EXPECT_EQ(Published()["b/" + dirs + longest].content,
            cvmfs::testing::Sha256Hex("longest\n"));
}

TEST_F(TarIngestTest, TheVirtualDirectoryIsRefused) {
  Ingest({File(".cvmfs/x", "x\n")}, "");
  ExpectRefused("reserved for the publisher's virtual directory");
  Ingest({File("x", "x\n")}, ".cvmfs/snapshots");
  ExpectRefused("reserved for the publisher's virtual directory");
  Ingest({File(".cvmfs_other", "x\n")}, "");
  ASSERT_TRUE(last_.ok()) << last_.ToString();
}

TEST_F(TarIngestTest, TwoThousandLevelsAreIngested) {
  std::vector<Member> members;
  std::string path;
  for (int i = 0; i < 2000; ++i) {
    path += (path.empty() ? "" : "/") + std::string("a");
    members.push_back(Dir(path));
  }
  members.push_back(File(path + "/f", "deep\n"));
  Ingest(members, "deep");
  ASSERT_TRUE(last_.ok()) << last_.ToString();
  EXPECT_EQ(Published()["deep/" + path + "/f"].content,
            cvmfs::testing::Sha256Hex("deep\n"));
}

TEST_F(TarIngestTest, IdsAbove32BitsAreRefused) {
  Member m = File("big-uid");
  m.uid = int64_t{1} << 32;  // would be cut to 0, root
  Ingest({m}, "victim");
  ExpectRefused("tar member 'big-uid': uid 4294967296 does not fit 32 bits");
  m = File("big-gid");
  m.gid = (int64_t{1} << 32) + 5;
  Ingest({m}, "victim");
  ExpectRefused("tar member 'big-gid': gid 4294967301 does not fit 32 bits");
  m = File("max-uid");
  m.uid = m.gid = 0xffffffffLL;
  Ingest({m}, "ids");
  EXPECT_TRUE(last_.ok()) << last_.ToString();
}

TEST_F(TarIngestTest, SymlinkTargetsLongerThanClientsCanReadAreRefused) {
  Ingest({Link("long", std::string(70000, 't'))}, "victim");
  ExpectRefused("tar member 'long': symlink target of 70000 bytes");
  Ingest({Link("long", std::string(kMaxClientPathLength + 1, 't'))}, "victim");
  ExpectRefused("symlink target of 4096 bytes, more than 4095");
  Ingest({Link("longest", std::string(kMaxClientPathLength, 't'))}, "links");
  ASSERT_TRUE(last_.ok()) << last_.ToString();
  EXPECT_EQ(Published()["links/longest"].content,
            std::string(kMaxClientPathLength, 't'));
}

TEST_F(TarIngestTest, MembersBelowNonDirectoriesAreRefused) {
  Ingest({Link("link", "x"), File("link/file")}, "victim");
  ExpectRefused(
      "tar member 'link/file': parent /victim/link is a symbolic link, not a "
      "directory");
  Ingest({File("dup"), File("dup/in")}, "victim");
  ExpectRefused(
      "tar member 'dup/in': parent /victim/dup is a regular file, not a "
      "directory");
  // A non-directory of the published tree.
  Ingest({File("keep/in")}, "victim");
  ExpectRefused(
      "parent /victim/keep is a regular file in the published tree, not a "
      "directory");
  Ingest({File("x")}, "victim/keep");
  ExpectRefused("-b /victim/keep: parent /victim/keep is a regular file");
}

TEST_F(TarIngestTest, ALaterMemberReplacesAnEarlierOne) {
  Ingest({File("f2d"), Dir("f2d"), File("f2d/in", "in\n"), Dir("d2f"),
          File("d2f/in"), Dir("d2f/sub"), File("d2f", "file\n"), File("f2l"),
          Link("f2l", "target"), Link("l2f", "target"), File("l2f", "file\n"),
          Link("l2d", "target"), Dir("l2d"), File("l2d/in", "in\n"),
          // A hardlink group whose members are replaced.
          File("h1", "h\n"), Hardlink("h2", "h1"), Hardlink("h3", "h1"),
          Link("h2", "target"), File("h1", "new h1\n"),
          // A hardlink replacing a file, and a later link to the new file.
          File("g1", "g\n"), File("g2", "old g2\n"), Hardlink("g2", "g1"),
          Hardlink("g3", "g2")},
         "r");
  ASSERT_TRUE(last_.ok()) << last_.ToString();
  auto l = Published();
  auto sha = [](const std::string& s) { return cvmfs::testing::Sha256Hex(s); };
  EXPECT_EQ(l["r/f2d"].type, 'd');
  EXPECT_EQ(l["r/f2d/in"].content, sha("in\n"));
  EXPECT_EQ(l["r/d2f"].type, 'f');
  EXPECT_EQ(l["r/d2f"].content, sha("file\n"));
  EXPECT_EQ(l.count("r/d2f/in"), 0u);
  EXPECT_EQ(l.count("r/d2f/sub"), 0u);
  EXPECT_EQ(l["r/f2l"].type, 'l');
  EXPECT_EQ(l["r/l2f"].type, 'f');
  EXPECT_EQ(l["r/l2f"].content, sha("file\n"));
  EXPECT_EQ(l["r/l2d"].type, 'd');
  EXPECT_EQ(l["r/l2d/in"].content, sha("in\n"));
  EXPECT_EQ(l["r/h1"].content, sha("new h1\n"));
  EXPECT_EQ(l["r/h1"].linkcount, "1");
  EXPECT_EQ(l["r/h2"].type, 'l');
  EXPECT_EQ(l["r/h3"].content, sha("h\n"));
  EXPECT_EQ(l["r/h3"].linkcount, "1");
  for (const char* g : {"r/g1", "r/g2", "r/g3"}) {
    EXPECT_EQ(l[g].content, sha("g\n")) << g;
    EXPECT_EQ(l[g].linkcount, "3") << g;
  }
}

// Beyond the 8,192 members the ingester remembers, older members are
// answered by the catalogs: a hardlink to one (and to a file of the
// published tree, as tar extraction links to what is on disk) shares its
// content, a later member at its path replaces it, and a file is still no
// parent.
TEST_F(TarIngestTest, MembersBeyondTheWindowAreResolvedInTheTree) {
  std::vector<Member> members = {File("old", "old\n"), File("gone", "x\n"),
                                 File("h", "h\n"), Dir("fill")};
  for (int i = 0; i < 9000; ++i)
    members.push_back(File("fill/" + std::to_string(i), "f\n"));
  members.push_back(Hardlink("old2", "old"));
  members.push_back(Hardlink("h2", "h"));
  members.push_back(Dir("gone"));
  members.push_back(File("gone/in", "in\n"));
  Ingest(members, "r");
  ASSERT_TRUE(last_.ok()) << last_.ToString();
  auto l = Published();
  auto sha = [](const std::string& s) { return cvmfs::testing::Sha256Hex(s); };
  EXPECT_EQ(l["r/old2"].content, sha("old\n"));
  EXPECT_EQ(l["r/old"].linkcount, "2");
  EXPECT_EQ(l["r/old2"].linkcount, "2");
  EXPECT_EQ(l["r/h2"].content, sha("h\n"));
  EXPECT_EQ(l["r/gone"].type, 'd');
  EXPECT_EQ(l["r/gone/in"].content, sha("in\n"));
  EXPECT_EQ(l["r/fill/8999"].content, sha("f\n"));

  // A hardlink to a file of the published tree, in another directory (a
  // separate copy).
  Ingest({Dir("x"), Hardlink("x/h3", "h")}, "r");
  ASSERT_TRUE(last_.ok()) << last_.ToString();
  l = Published();
  EXPECT_EQ(l["r/x/h3"].content, sha("h\n"));
  EXPECT_EQ(l["r/x/h3"].linkcount, "1");
}

TEST_F(TarIngestTest, AFileBeyondTheWindowIsNoParent) {
  std::vector<Member> members = {File("old", "old\n"), Dir("fill")};
  for (int i = 0; i < 9000; ++i)
    members.push_back(File("fill/" + std::to_string(i), "f\n"));
  members.push_back(File("old/in"));
  Ingest(members, "s");
  ExpectRefused("parent /s/old is a regular file");
}

// A dirtab in the tarball makes its directories nested catalogs as they
// arrive; a later dirtab member that no longer matches one of them merges
// it back into its parent, without the marker it had been given.
TEST_F(TarIngestTest, DirtabRulesApplyAsTheTarballChangesThem) {
  Ingest({File(".cvmfsdirtab", "/a\n/b\n"), Dir("a"), File("a/f", "f\n"),
          Dir("b"), File("b/g", "g\n"), Dir("c"),
          File(".cvmfsdirtab", "/b\n/c\n"), File("c/h", "h\n")},
         "");
  ASSERT_TRUE(last_.ok()) << last_.ToString();
  auto l = Published();
  EXPECT_EQ(l["a/f"].content, cvmfs::testing::Sha256Hex("f\n"));
  EXPECT_EQ(l.count("a/.cvmfscatalog"), 0u);
  EXPECT_EQ(l.count("b/.cvmfscatalog"), 1u);
  EXPECT_EQ(l.count("c/.cvmfscatalog"), 1u);
  EXPECT_EQ(l["c/h"].content, cvmfs::testing::Sha256Hex("h\n"));
  auto repo = Repository::Open(paths_, kFqrn);
  ASSERT_TRUE(repo.ok());
  auto m = (*repo)->CurrentManifest();
  ASSERT_TRUE(m.ok());
  auto tree =
      CatalogTree::Open((*repo)->store(), m->manifest.root_catalog,
                        {cvmfs::HashAlgorithm::kSha1, 240, work_.path()});
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  EXPECT_FALSE((*tree)->IsNestedCatalogRoot("/a"));
  EXPECT_TRUE((*tree)->IsNestedCatalogRoot("/b"));
  EXPECT_TRUE((*tree)->IsNestedCatalogRoot("/c"));
  EXPECT_EQ((*tree)->List("/b").value().size(), 2u);
}

// GNU tar writes the sparse members (old GNU and pax 1.0 sparse formats).
TEST_F(TarIngestTest, SparseMembersReadBackWithTheirHoles) {
  if (std::system("tar --version 2>/dev/null | grep -q 'GNU tar'") != 0)
    GTEST_SKIP() << "needs GNU tar";
  TempDir src;
  const std::string s = src.path();
  const std::string hole = s + "/hole", ends = s + "/ends";
  ASSERT_EQ(std::system(("truncate -s 64M " + hole).c_str()), 0);
  ASSERT_EQ(std::system(("printf head >" + ends + " && truncate -s 32M " +
                         ends + " && printf tail >>" + ends)
                            .c_str()),
            0);
  std::string expected_ends = "head" + std::string((32 << 20) - 4, '\0');
  expected_ends += "tail";
  for (const char* format : {"gnu", "posix"}) {
    std::string tar = work_.Sub(std::string("sparse-") + format + ".tar");
    std::string cmd = std::string("tar --sparse --format=") + format + " -C " +
                      s + " -cf " + tar + " hole ends";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    struct stat st;
    ASSERT_EQ(stat(tar.c_str(), &st), 0);
    ASSERT_LT(st.st_size, 1 << 20) << "tar did not write sparse members";
    IngestFile(tar, format);
    ASSERT_TRUE(last_.ok()) << format << ": " << last_.ToString();
    auto l = Published();
    const std::string dir = std::string(format) + "/";
    EXPECT_EQ(l[dir + "hole"].size, std::to_string(64 << 20));
    EXPECT_EQ(l[dir + "hole"].content,
              cvmfs::testing::Sha256Hex(std::string(64 << 20, '\0')));
    EXPECT_EQ(l[dir + "ends"].size, std::to_string(expected_ends.size()));
    EXPECT_EQ(l[dir + "ends"].content,
              cvmfs::testing::Sha256Hex(expected_ends));
  }
}

}  // namespace
}  // namespace publisher
