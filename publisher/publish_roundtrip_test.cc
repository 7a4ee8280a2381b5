// Publishes a tree holding every kind of entry through the library (mkfs,
// tar ingest, commit) and reads it back through the library: the listing of
// the published revision equals the source tree.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstdlib>
#include <random>

#include "cvmfs/catalog_walker.h"
#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_name.h"
#include "publisher/check.h"
#include "publisher/dirtab_catalogs.h"
#include "publisher/repository.h"
#include "publisher/tar_ingest.h"
#include "testing/repository_listing.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::testing::ListingLine;
using cvmfs::testing::TempDir;

void WriteFile(const std::string& path, const std::string& data,
               int mode = 0644) {
  ASSERT_TRUE(cvmfs::WriteFileAtomic(path, data, mode).ok()) << path;
}

std::string RandomBytes(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = rng();
    for (size_t j = 0; j < 8 && i + j < n; ++j)
      s[i + j] = static_cast<char>(v >> (8 * j));
  }
  return s;
}

// The expected listing of a directory on disk (what clients must show).
std::map<std::string, ListingLine> ListSource(const std::string& root) {
  std::map<std::string, ListingLine> out;
  std::function<void(const std::string&)> walk = [&](const std::string& rel) {
    auto names = cvmfs::ListDirectory(root + rel);
    for (auto& n : *names) {
      std::string r = rel + "/" + n, abs = root + r;
      struct stat st;
      lstat(abs.c_str(), &st);
      ListingLine l;
      char mode[16];
      snprintf(mode, sizeof(mode), "%o", st.st_mode & 07777);
      l.mode_octal = mode;
      l.mtime = std::to_string(st.st_mtime);
      l.content = "-";
      l.size = "0";
      l.group = "-";
      l.linkcount = S_ISDIR(st.st_mode) ? "1" : std::to_string(st.st_nlink);
      if (S_ISDIR(st.st_mode)) {
        l.type = 'd';
      } else if (S_ISLNK(st.st_mode)) {
        l.type = 'l';
        char buf[4096];
        ssize_t k = readlink(abs.c_str(), buf, sizeof(buf));
        l.content = std::string(buf, k);
        l.size = std::to_string(k);
      } else if (S_ISFIFO(st.st_mode)) {
        l.type = 'p';
      } else {
        l.type = 'f';
        l.size = std::to_string(st.st_size);
        l.content = cvmfs::testing::Sha256Hex(*cvmfs::ReadFile(abs));
      }
      char names_buf[4096];
      ssize_t len = llistxattr(abs.c_str(), names_buf, sizeof(names_buf));
      std::map<std::string, std::string> xattrs;
      for (ssize_t p = 0; p < len; p += strlen(names_buf + p) + 1) {
        std::string key(names_buf + p);
        if (key.rfind("user.", 0) != 0) continue;
        char val[256];
        ssize_t vl = lgetxattr(abs.c_str(), key.c_str(), val, sizeof(val));
        xattrs[key] = std::string(val, vl);
      }
      for (auto& [k, v] : xattrs) {
        if (!l.xattrs.empty()) l.xattrs += ",";
        l.xattrs += k + "=" + cvmfs::ToHex(v.data(), v.size());
      }
      if (l.xattrs.empty()) l.xattrs = "-";
      out[r.substr(1)] = l;
      if (S_ISDIR(st.st_mode)) walk(r);
    }
  };
  walk("");
  return out;
}

class PublishRoundTripTest : public ::testing::Test {
 protected:
  void SetUp() override {
    paths_.root = root_.path();
    MkfsOptions o;
    o.fqrn = "test.example.org";
    ASSERT_TRUE(Mkfs(paths_, o).ok());
  }

  std::unique_ptr<Repository> Open() {
    auto repo = Repository::Open(paths_, "test.example.org");
    EXPECT_TRUE(repo.ok()) << repo.status().ToString();
    return std::move(*repo);
  }

  cvmfs::Result<PublishStats> IngestDir(const std::string& dir,
                                        const std::string& base) {
    std::string tar = work_.Sub("in.tar");
    std::string cmd = "tar --xattrs --xattrs-include='user.*' -cf " + tar +
                      " -C " + dir + " .";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    auto repo = Open();
    TarIngestOptions t;
    t.tarball = tar;
    t.base_dir = base;
    return repo->Publish(
        [&](CatalogTree* tree, IngestPipeline* p) {
          return IngestTar(t, tree, p);
        },
        {});
  }

  std::map<std::string, ListingLine> Published() {
    auto repo = Open();
    auto m = repo->CurrentManifest();
    EXPECT_TRUE(m.ok());
    auto listing = cvmfs::testing::ListRepository(
        repo->store(), m->manifest.root_catalog, work_.path());
    EXPECT_TRUE(listing.ok()) << listing.status().ToString();
    return *listing;
  }

  // Mountpoints of the current revision's catalogs, and check's verdict
  // (objects, content hashes and every catalog's counters).
  std::vector<std::string> Mountpoints() {
    auto repo = Open();
    auto m = repo->CurrentManifest();
    EXPECT_TRUE(m.ok());
    std::vector<std::string> mountpoints;
    cvmfs::CatalogWalker walker(repo->store(), work_.path());
    EXPECT_TRUE(walker
                    .Walk(m->manifest.root_catalog,
                          [&](const cvmfs::CatalogVisit& v) {
                            mountpoints.push_back(v.mountpoint);
                            return cvmfs::Status::Ok();
                          })
                    .ok());
    std::sort(mountpoints.begin(), mountpoints.end());
    auto report = CheckRevision(repo->store(), m->manifest.root_catalog, true,
                                work_.path());
    EXPECT_TRUE(report.ok());
    for (const std::string& p : report->problems) ADD_FAILURE() << p;
    return mountpoints;
  }

  void MakeDirs(const std::vector<std::string>& dirs) {
    for (const std::string& d : dirs)
      ASSERT_TRUE(cvmfs::MakeDirs(src_.path() + "/" + d).ok()) << d;
  }

  TempDir root_, work_, src_;
  cvmfs::SystemPaths paths_;
};

using Paths = std::vector<std::string>;

TEST_F(PublishRoundTripTest, EveryEntryKindReadsBackEqual) {
  std::string s = src_.path();
  WriteFile(s + "/empty", "");
  WriteFile(s + "/hello.txt", "hello world\n");
  WriteFile(s + "/big.dat", RandomBytes(20 << 20, 7));  // chunked
  WriteFile(s + "/exec.sh", "#!/bin/sh\n", 0755);
  ASSERT_EQ(mkdir((s + "/dir").c_str(), 0700), 0);
  WriteFile(s + "/dir/name with spaces.txt", "x");
  WriteFile(s + "/dir/caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac.txt", "utf8");
  WriteFile(s + "/dir/-dash", "dash");
  WriteFile(s + "/dir/" + std::string(255, 'n'), "long name");
  ASSERT_EQ(symlink("hello.txt", (s + "/rel-link").c_str()), 0);
  ASSERT_EQ(symlink("/etc/hostname", (s + "/abs-link").c_str()), 0);
  ASSERT_EQ(symlink("missing", (s + "/dangling").c_str()), 0);
  ASSERT_EQ(symlink("$(CVMFS_ARCH)/lib", (s + "/variant").c_str()), 0);
  ASSERT_EQ(mkfifo((s + "/fifo").c_str(), 0644), 0);
  ASSERT_EQ(mkdir((s + "/nested").c_str(), 0755), 0);
  WriteFile(s + "/nested/.cvmfscatalog", "");
  ASSERT_EQ(mkdir((s + "/nested/deeper").c_str(), 0755), 0);
  WriteFile(s + "/nested/deeper/.cvmfscatalog", "");
  WriteFile(s + "/nested/deeper/file", "deep");
  WriteFile(s + "/nested/a", "a");
  WriteFile(s + "/hl1", "hardlinked");
  ASSERT_EQ(link((s + "/hl1").c_str(), (s + "/hl2").c_str()), 0);
  WriteFile(s + "/xattr.txt", "attrs");
  ASSERT_EQ(
      setxattr((s + "/xattr.txt").c_str(), "user.origin", "fixture", 7, 0), 0);
  ASSERT_EQ(setxattr((s + "/xattr.txt").c_str(), "user.empty", "", 0, 0), 0);

  auto expected = ListSource(s);  // before tar touches anything
  auto stats = IngestDir(s, "");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->revision, 2u);

  auto published = Published();
  // Variant symlinks are shown expanded.
  expected["variant"].content = "x86_64/lib";
  expected["variant"].size = "10";
  EXPECT_EQ(published.size(), expected.size());
  for (auto& [path, line] : expected) {
    auto it = published.find(path);
    if (it == published.end()) {
      ADD_FAILURE() << "missing " << path;
      continue;
    }
    EXPECT_EQ(it->second.ToString(), line.ToString()) << path;
  }

  // Structure: chunked big file, nested catalogs, hardlink group.
  auto repo = Open();
  auto m = repo->CurrentManifest();
  ASSERT_TRUE(m.ok());
  std::vector<std::string> mountpoints;
  cvmfs::CatalogWalker walker(repo->store(), work_.path());
  ASSERT_TRUE(walker
                  .Walk(m->manifest.root_catalog,
                        [&](const cvmfs::CatalogVisit& v) {
                          mountpoints.push_back(v.mountpoint);
                          if (v.mountpoint.empty()) {
                            auto big = v.catalog->Lookup("/big.dat");
                            EXPECT_TRUE(big.ok() && (*big)->chunked);
                            auto chunks = v.catalog->Chunks("/big.dat");
                            EXPECT_GE(chunks->size(), 2u);
                            auto h1 = v.catalog->Lookup("/hl1");
                            auto h2 = v.catalog->Lookup("/hl2");
                            EXPECT_NE((*h1)->hardlink_group, 0u);
                            EXPECT_EQ((*h1)->hardlink_group,
                                      (*h2)->hardlink_group);
                            EXPECT_EQ((*h1)->linkcount, 2u);
                            auto counters = v.catalog->ReadCounters();
                            EXPECT_EQ(counters->subtree.nested,
                                      1);  // /nested/deeper below /nested
                            EXPECT_EQ(counters->self.nested, 1);
                          }
                          return cvmfs::Status::Ok();
                        })
                  .ok());
  EXPECT_EQ(mountpoints,
            (std::vector<std::string>{"", "/nested", "/nested/deeper"}));

  auto report = CheckRevision(repo->store(), m->manifest.root_catalog, true,
                              work_.path());
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->problems.empty()) << report->problems.front();
}

TEST_F(PublishRoundTripTest, RepublishingTheSameTreeWritesNoDataObject) {
  std::string s = src_.path();
  for (int i = 0; i < 50; ++i)
    WriteFile(s + "/f" + std::to_string(i), RandomBytes(1000 + i, i));
  WriteFile(s + "/big", RandomBytes(9 << 20, 99));
  auto first = IngestDir(s, "sw");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_GT(first->objects_stored, 50u);
  auto second = IngestDir(s, "sw");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->objects_stored, 0u);
  EXPECT_EQ(second->objects_existing, first->objects_stored);
  EXPECT_EQ(second->revision, first->revision + 1);
}

TEST_F(PublishRoundTripTest, FailedPublishLeavesPreviousRevisionIntact) {
  std::string s = src_.path();
  WriteFile(s + "/a", "a");
  ASSERT_TRUE(IngestDir(s, "").ok());
  auto before = cvmfs::ReadFile(root_.path() +
                                "/srv/cvmfs/test.example.org/.cvmfspublished");
  auto listing_before = Published();

  // A truncated tarball fails and changes nothing that clients see.
  std::string tar = work_.Sub("bad.tar");
  WriteFile(s + "/b", RandomBytes(100000, 3));
  std::string cmd =
      "tar -cf " + tar + " -C " + s + " . && truncate -s 60000 " + tar;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  {
    auto repo = Open();
    TarIngestOptions t;
    t.tarball = tar;
    auto st =
        repo->Publish([&](CatalogTree* tree,
                          IngestPipeline* p) { return IngestTar(t, tree, p); },
                      {});
    EXPECT_FALSE(st.ok());
  }
  auto after = cvmfs::ReadFile(root_.path() +
                               "/srv/cvmfs/test.example.org/.cvmfspublished");
  EXPECT_EQ(*before, *after);
  EXPECT_EQ(Published().size(), listing_before.size());
  // And the next publish works.
  auto ok = IngestDir(s, "");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(Published().count("b"), 1u);
}

TEST_F(PublishRoundTripTest, DeleteAndReplaceAcrossRevisions) {
  std::string s = src_.path();
  ASSERT_EQ(mkdir((s + "/d").c_str(), 0755), 0);
  WriteFile(s + "/d/.cvmfscatalog", "");
  WriteFile(s + "/d/x", "x");
  ASSERT_TRUE(IngestDir(s, "base").ok());
  EXPECT_EQ(Published().count("base/d/x"), 1u);
  auto repo = Open();
  TarIngestOptions t;
  t.tarball = work_.Sub("empty.tar");
  ASSERT_EQ(std::system(("tar -cf " + t.tarball + " -T /dev/null").c_str()), 0);
  t.delete_paths = {"base/d"};
  auto st =
      repo->Publish([&](CatalogTree* tree,
                        IngestPipeline* p) { return IngestTar(t, tree, p); },
                    {});
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  auto listing = Published();
  EXPECT_EQ(listing.count("base/d"), 0u);
  EXPECT_EQ(listing.count("base"), 1u);
}

TEST_F(PublishRoundTripTest, DirtabMakesNestedCatalogsShallowFirst) {
  const std::string s = src_.path();
  WriteFile(s + "/.cvmfsdirtab",
            "# one catalog per package and version\n"
            "/software/*\n"
            "/software/*/v*\n"
            "! *.git\n"
            "! /software/tmp\n");
  MakeDirs({"software/gcc/v1/bin", "software/gcc/v2", "software/gcc/other",
            "software/python", "software/tmp", "software/repo.git",
            "software/.hidden", "docs"});
  WriteFile(s + "/software/gcc/v1/bin/gcc", "gcc 1");
  WriteFile(s + "/software/gcc/v2/README", "gcc 2");
  WriteFile(s + "/software/python/python3", "python");
  WriteFile(s + "/docs/index.html", "docs");
  auto stats = IngestDir(s, "");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(Mountpoints(), (Paths{"", "/software/gcc", "/software/gcc/v1",
                                  "/software/gcc/v2", "/software/python"}));
  auto listing = Published();
  for (const char* dir : {"software/gcc", "software/gcc/v1", "software/gcc/v2",
                          "software/python"}) {
    auto marker = listing.find(std::string(dir) + "/.cvmfscatalog");
    ASSERT_NE(marker, listing.end()) << dir;
    EXPECT_EQ(marker->second.type, 'f');
    EXPECT_EQ(marker->second.size, "0");
  }
  EXPECT_EQ(listing.count("software/tmp/.cvmfscatalog"), 0u);
  EXPECT_EQ(listing.count("software/repo.git/.cvmfscatalog"), 0u);
  EXPECT_EQ(listing.count("software/.hidden/.cvmfscatalog"), 0u);

  // Root counters: two catalogs nested in it, two more below /software/gcc;
  // 9 regular files in all (4 files, the dirtab, 4 markers).
  auto repo = Open();
  auto m = repo->CurrentManifest();
  ASSERT_TRUE(m.ok());
  cvmfs::CatalogWalker walker(repo->store(), work_.path());
  ASSERT_TRUE(walker
                  .Walk(m->manifest.root_catalog,
                        [&](const cvmfs::CatalogVisit& v) {
                          auto c = v.catalog->ReadCounters();
                          EXPECT_TRUE(c.ok());
                          if (v.mountpoint.empty()) {
                            EXPECT_EQ(c->self.nested, 2);
                            EXPECT_EQ(c->subtree.nested, 2);
                            EXPECT_EQ(c->Total().regular, 9);
                            EXPECT_EQ(c->self.regular,
                                      2);  // the dirtab and docs/index.html
                          }
                          if (v.mountpoint == "/software/gcc/v1") {
                            EXPECT_EQ(c->self.regular,
                                      2);  // bin/gcc and the marker
                            EXPECT_EQ(c->self.dir, 2);  // its root and bin
                          }
                          return cvmfs::Status::Ok();
                        })
                  .ok());

  // Next revision: the dirtab comes from the published revision; new
  // directories get catalogs, also inside the existing nested catalog.
  ASSERT_TRUE(cvmfs::RemoveTree(s).ok());
  ASSERT_EQ(mkdir(s.c_str(), 0755), 0);
  MakeDirs({"ruby/v3", "gcc/v3"});
  WriteFile(s + "/ruby/v3/ruby", "ruby");
  auto next = IngestDir(s, "software");
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(Mountpoints(),
            (Paths{"", "/software/gcc", "/software/gcc/v1", "/software/gcc/v2",
                   "/software/gcc/v3", "/software/python", "/software/ruby",
                   "/software/ruby/v3"}));
}

TEST_F(PublishRoundTripTest, DirtabLeavesDirectoriesTheTarballDoesNotTouch) {
  const std::string s = src_.path();
  MakeDirs({"software/old"});
  WriteFile(s + "/software/old/f", "old");
  ASSERT_TRUE(IngestDir(s, "").ok());
  // A tarball with only the dirtab: /software/old is not touched by it.
  TempDir only_dirtab;
  WriteFile(only_dirtab.path() + "/.cvmfsdirtab", "/software/*\n");
  ASSERT_TRUE(IngestDir(only_dirtab.path(), "").ok());
  EXPECT_EQ(Mountpoints(), (Paths{""}));
  TempDir fresh;
  WriteFile(fresh.path() + "/f", "new");
  ASSERT_TRUE(IngestDir(fresh.path(), "software/new").ok());
  EXPECT_EQ(Mountpoints(), (Paths{"", "/software/new"}));
}

TEST_F(PublishRoundTripTest, BadDirtabFailsThePublishNamingTheLine) {
  const std::string s = src_.path();
  WriteFile(s + "/.cvmfsdirtab", "/software/*\n# x\n! /software/*\n");
  MakeDirs({"software/a"});
  const std::string manifest =
      root_.path() + "/srv/cvmfs/test.example.org/.cvmfspublished";
  auto before = cvmfs::ReadFile(manifest);
  auto stats = IngestDir(s, "");
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().ToString().find("/.cvmfsdirtab line 3"),
            std::string::npos)
      << stats.status().ToString();
  EXPECT_EQ(*before, *cvmfs::ReadFile(manifest));

  // Too large a dirtab is refused too.
  WriteFile(s + "/.cvmfsdirtab", std::string(kMaxDirtabSize + 1, '#'));
  stats = IngestDir(s, "");
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().ToString().find("at most"), std::string::npos)
      << stats.status().ToString();
}

}  // namespace
}  // namespace publisher
