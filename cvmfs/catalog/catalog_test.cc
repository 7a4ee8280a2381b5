// Known answers from the catalogs of the fixture repositories (written by
// CVMFS 2.12 itself).
#include "cvmfs/catalog/catalog.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <sstream>

#include "cvmfs/catalog/catalog_test_util.h"
#include "cvmfs/catalog/flags.h"

namespace cvmfs {
namespace {

using catalog_test::FixtureRepo;
using catalog_test::UnpackAllCatalogs;
using catalog_test::UnpackedCatalog;

class FixtureCatalogTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto catalogs = UnpackAllCatalogs(GetParam(), tmp_.path());
    ASSERT_TRUE(catalogs.ok()) << catalogs.status().ToString();
    catalogs_ = *catalogs;
    ASSERT_EQ(catalogs_.size(), 3u);
    auto root = Catalog::Open(catalogs_[0].file);
    ASSERT_TRUE(root.ok()) << root.status().ToString();
    root_ = std::move(*root);
  }
  bool sha1() const { return GetParam() == "sha1-zlib"; }
  HashAlgorithm algo() const {
    return sha1() ? HashAlgorithm::kSha1 : HashAlgorithm::kShake128;
  }

  DirectoryEntry MustLookup(Catalog* catalog, const std::string& path) {
    auto e = catalog->Lookup(path);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    if (!e.ok() || !e->has_value()) {
      ADD_FAILURE() << "no entry " << path;
      return DirectoryEntry();
    }
    return **e;
  }

  testing::TempDir tmp_;
  std::vector<UnpackedCatalog> catalogs_;
  std::unique_ptr<Catalog> root_;
};

TEST_P(FixtureCatalogTest, Properties) {
  EXPECT_DOUBLE_EQ(root_->schema(), 2.5);
  EXPECT_EQ(root_->schema_revision(), 7);
  EXPECT_EQ(root_->root_prefix(), "");
  EXPECT_TRUE(root_->is_root());
  EXPECT_EQ(root_->ttl(), 240u);
  EXPECT_EQ(root_->revision(), sha1() ? 3u : 2u);
  EXPECT_EQ(root_->last_modified(), sha1() ? 1795356101 : 1795356125);
  ASSERT_TRUE(root_->previous_revision().has_value());
  EXPECT_EQ(root_->previous_revision()->ToString(),
            sha1() ? "9e318952e9171de82b515259fad9ef9af2430503"
                   : "05832039d05734e118a3e38a78903d445be73cb9-shake128");
  EXPECT_EQ(root_->Property("TTL"), "240");
  EXPECT_FALSE(root_->Property("root_prefix").has_value());

  auto nested = Catalog::Open(catalogs_[1].file);
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ((*nested)->root_prefix(), "/nested");
  EXPECT_FALSE((*nested)->is_root());
  EXPECT_EQ((*nested)->revision(), 1u);
  EXPECT_FALSE((*nested)->Property("TTL").has_value());
  EXPECT_EQ((*nested)->ttl(), kDefaultCatalogTtl);
  // A first revision stores 40 zeros, which reads as "no predecessor".
  EXPECT_EQ((*nested)->Property("previous_revision"), std::string(40, '0'));
  EXPECT_FALSE((*nested)->previous_revision().has_value());
}

TEST_P(FixtureCatalogTest, RootEntry) {
  DirectoryEntry root = MustLookup(root_.get(), "");
  EXPECT_EQ(root.name, "");
  EXPECT_TRUE(root.IsDirectory());
  EXPECT_EQ(root.mode, static_cast<uint32_t>(S_IFDIR | 0755));
  EXPECT_EQ(root.size, 4096u);
  EXPECT_EQ(root.linkcount, sha1() ? 14u : 13u);  // 2 + subdirectories
  EXPECT_EQ(root.uid, 0u);
  EXPECT_EQ(root.gid, 0u);
  EXPECT_FALSE(root.content_hash.has_value());
  EXPECT_FALSE(root.mtime_ns.has_value());
  EXPECT_EQ(root.rowid, 1);
  EXPECT_EQ(EncodeFlags(root), kFlagDir);
}

TEST_P(FixtureCatalogTest, Files) {
  DirectoryEntry f = MustLookup(root_.get(), "/new_repository");
  EXPECT_EQ(f.name, "new_repository");
  EXPECT_TRUE(f.IsRegular());
  EXPECT_EQ(f.mode, static_cast<uint32_t>(S_IFREG | 0644));
  EXPECT_EQ(f.size, sha1() ? 51u : 55u);
  EXPECT_EQ(f.mtime, sha1() ? 1795356098 : 1795356122);
  EXPECT_EQ(f.linkcount, 1u);
  EXPECT_EQ(f.hardlink_group, 0u);
  EXPECT_EQ(f.symlink, "");
  ASSERT_TRUE(f.content_hash.has_value());
  EXPECT_EQ(f.content_hash->algorithm, algo());
  EXPECT_EQ(f.hash_algorithm, algo());
  EXPECT_EQ(f.compression, sha1() ? Compression::kZlib : Compression::kNone);
  EXPECT_EQ(EncodeFlags(f), sha1() ? 4u : 2564u);
  if (sha1()) {
    EXPECT_EQ(f.content_hash->ToString(),
              "e23693e14f3ba613718ecd81d20f7118497f8e64");
  }

  DirectoryEntry empty = MustLookup(root_.get(), "/empty");
  EXPECT_EQ(empty.size, 0u);
  EXPECT_TRUE(empty.content_hash.has_value());  // the hash of the empty object
}

TEST_P(FixtureCatalogTest, DirectoriesAndNestedMountpoint) {
  DirectoryEntry d00 = MustLookup(root_.get(), "/d00");
  EXPECT_TRUE(d00.IsDirectory());
  EXPECT_EQ(d00.linkcount, 3u);
  EXPECT_EQ(d00.size, 4096u);
  EXPECT_EQ(d00.mtime, 1700000000);

  DirectoryEntry mp = MustLookup(root_.get(), "/nested");
  EXPECT_TRUE(mp.nested_mountpoint);
  EXPECT_FALSE(mp.nested_root);
  EXPECT_EQ(EncodeFlags(mp), 3u);
  EXPECT_EQ(mp.linkcount, 8u);

  auto nested = Catalog::Open(catalogs_[1].file);
  ASSERT_TRUE(nested.ok());
  DirectoryEntry nroot = MustLookup(nested->get(), "/nested");
  EXPECT_TRUE(nroot.nested_root);
  EXPECT_EQ(EncodeFlags(nroot), 33u);
  EXPECT_EQ(nroot.name, "nested");
  EXPECT_EQ(nroot.rowid, 1);
  // The nested root's parent key is that of "" (it lists under the root).
  auto under_root = (*nested)->List("");
  ASSERT_TRUE(under_root.ok());
  ASSERT_EQ(under_root->size(), 1u);
  EXPECT_EQ((*under_root)[0].name, "nested");
  // Nothing below the mountpoint lives in the parent catalog.
  auto below = root_->List("/nested");
  ASSERT_TRUE(below.ok());
  EXPECT_TRUE(below->empty());
}

TEST_P(FixtureCatalogTest, Symlinks) {
  DirectoryEntry l = MustLookup(root_.get(), "/links/variant");
  EXPECT_TRUE(l.IsSymlink());
  EXPECT_EQ(l.symlink, "$(CVMFS_ARCH)/lib");
  EXPECT_EQ(l.size, 17u);  // raw target length
  EXPECT_EQ(l.mode, static_cast<uint32_t>(S_IFLNK | 0777));
  EXPECT_EQ(EncodeFlags(l), 12u);
  EXPECT_FALSE(l.content_hash.has_value());

  auto list = root_->List("/links");
  ASSERT_TRUE(list.ok());
  std::vector<std::string> names;
  for (const auto& e : *list) names.push_back(e.name);
  std::vector<std::string> expected = {"absolute", "dangling",
                                       "dirlink",  "up-hello",
                                       "variant",  "variant-default"};
  EXPECT_EQ(names, expected);
}

TEST_P(FixtureCatalogTest, SpecialFile) {
  DirectoryEntry fifo = MustLookup(root_.get(), "/special/fifo");
  EXPECT_TRUE(fifo.IsSpecial());
  EXPECT_TRUE(S_ISFIFO(fifo.mode));
  EXPECT_EQ(EncodeFlags(fifo), 20u);
  EXPECT_EQ(fifo.size, 0u);
  EXPECT_FALSE(fifo.content_hash.has_value());
}

TEST_P(FixtureCatalogTest, ChunkedFile) {
  DirectoryEntry big = MustLookup(root_.get(), "/large/big.dat");
  EXPECT_EQ(big.size, sha1() ? 12582912u : 6291456u);
  auto chunks = root_->Chunks("/large/big.dat");
  ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
  if (!sha1()) {
    // In the shake128-none fixture big.dat is 6 MiB and stored unchunked.
    EXPECT_FALSE(big.chunked);
    EXPECT_TRUE(chunks->empty());
    return;
  }
  EXPECT_TRUE(big.chunked);
  EXPECT_EQ(EncodeFlags(big), 68u);
  EXPECT_FALSE(big.content_hash.has_value());
  ASSERT_EQ(chunks->size(), 2u);
  EXPECT_EQ((*chunks)[0].offset, 0u);
  EXPECT_EQ((*chunks)[0].size, 10146618u);
  EXPECT_EQ((*chunks)[0].hash.ToString(),
            "276b0345920137a6e9793509ac5282d707cb15cb");
  EXPECT_EQ((*chunks)[1].offset, 10146618u);
  EXPECT_EQ((*chunks)[1].size, 2436294u);
  EXPECT_EQ((*chunks)[1].hash.ToString(),
            "723229595078c68d8bdaeaf369b50addcca077dc");
  // The chunk objects exist with suffix P.
  for (const auto& c : *chunks) {
    EXPECT_TRUE(PathExists(FixtureRepo(GetParam()) + "/" +
                           ObjectPath(c.hash, ObjectSuffix::kPartial)));
  }
  auto none = root_->Chunks("/new_repository");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_P(FixtureCatalogTest, Xattrs) {
  DirectoryEntry t = MustLookup(root_.get(), "/xattr/tagged.txt");
  ASSERT_EQ(t.xattrs.entries.size(), 2u);
  EXPECT_EQ(t.xattrs.entries[0],
            std::make_pair(std::string("user.empty"), std::string()));
  EXPECT_EQ(t.xattrs.entries[1],
            std::make_pair(std::string("user.origin"), std::string("fixture")));
  EXPECT_TRUE(MustLookup(root_.get(), "/hello.txt").xattrs.empty());
}

TEST_P(FixtureCatalogTest, NestedCatalogRefs) {
  auto refs = root_->NestedCatalogs();
  ASSERT_TRUE(refs.ok());
  ASSERT_EQ(refs->size(), 1u);
  EXPECT_EQ((*refs)[0].path, "/nested");
  EXPECT_EQ((*refs)[0].hash, catalogs_[1].hash);
  EXPECT_EQ((*refs)[0].hash.algorithm, algo());
  EXPECT_EQ((*refs)[0].size, 65536u);
  if (sha1()) {
    EXPECT_EQ((*refs)[0].hash.ToString(),
              "05240effb49bb8c16950f327ef91041879a6f7e6");
  }
  auto found = root_->FindNested("/nested");
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ(**found, (*refs)[0]);
  auto missing = root_->FindNested("/d00");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  auto bind = root_->BindMountpoints();
  ASSERT_TRUE(bind.ok());
  EXPECT_TRUE(bind->empty());

  auto nested = Catalog::Open(catalogs_[1].file);
  ASSERT_TRUE(nested.ok());
  auto inner = (*nested)->FindNested("/nested/inner");
  ASSERT_TRUE(inner.ok() && inner->has_value());
  EXPECT_EQ((*inner)->size, 57344u);
}

TEST_P(FixtureCatalogTest, CountersEqualStatisticsTable) {
  for (const auto& unpacked : catalogs_) {
    auto catalog = Catalog::Open(unpacked.file);
    ASSERT_TRUE(catalog.ok());
    auto counters = (*catalog)->ReadCounters();
    ASSERT_TRUE(counters.ok());
    auto db = SqliteDb::Open(unpacked.file, SqliteDb::OpenMode::kReadOnly);
    ASSERT_TRUE(db.ok());
    auto stmt = (*db)->Prepare("SELECT counter, value FROM statistics;");
    ASSERT_TRUE(stmt.ok());
    int rows = 0;
    while (*stmt->Step()) {
      ++rows;
      int64_t* value = counters->Find(stmt->ColumnText(0));
      ASSERT_NE(value, nullptr) << stmt->ColumnText(0);
      EXPECT_EQ(*value, stmt->ColumnInt64(1)) << stmt->ColumnText(0);
    }
    EXPECT_EQ(rows, 24);
  }
  auto counters = root_->ReadCounters();
  ASSERT_TRUE(counters.ok());
  EXPECT_EQ(counters->self.dir, sha1() ? 36 : 35);
  EXPECT_EQ(counters->self.nested, 1);
  EXPECT_EQ(counters->self.special, 1);
  EXPECT_EQ(counters->self.symlink, 7);
  EXPECT_EQ(counters->self.xattr, 1);
  EXPECT_EQ(counters->subtree.dir, 8);
  EXPECT_EQ(counters->subtree.regular, 53);
  EXPECT_EQ(counters->subtree.nested, 1);
}

TEST_P(FixtureCatalogTest, ForEachEntryAndMaxRowId) {
  int64_t rows = 0, max_seen = 0;
  PathHash root_key = HashPath("");
  Status s =
      root_->ForEachEntry([&](const PathHash& key, const PathHash& parent,
                              const DirectoryEntry& e) {
        ++rows;
        max_seen = std::max(max_seen, e.rowid);
        if (e.rowid == 1) {
          EXPECT_EQ(key, root_key);
          EXPECT_EQ(parent, (PathHash{0, 0}));
        }
        return Status::Ok();
      });
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto max_rowid = root_->MaxRowId();
  ASSERT_TRUE(max_rowid.ok());
  EXPECT_EQ(*max_rowid, max_seen);
  auto counters = root_->ReadCounters();
  const CounterSet& c = counters->self;
  EXPECT_EQ(rows, c.regular + c.dir + c.symlink + c.special);
}

// Every entry of the newest revision, from the catalogs, against the
// listing the CVMFS client produced (expected.tsv).
TEST_P(FixtureCatalogTest, WalkMatchesClientListing) {
  std::map<std::string, DirectoryEntry> tree;
  for (const auto& unpacked : catalogs_) {
    auto catalog = Catalog::Open(unpacked.file);
    ASSERT_TRUE(catalog.ok());
    Status s =
        (*catalog)->Walk([&](const std::string& path, const DirectoryEntry& e) {
          if (path.empty()) return Status::Ok();
          if (e.nested_root) {
            auto mountpoint = tree.find(path.substr(1));  // parents come first
            EXPECT_TRUE(mountpoint != tree.end() &&
                        mountpoint->second.nested_mountpoint)
                << path;
            return Status::Ok();
          }
          EXPECT_TRUE(tree.emplace(path.substr(1), e).second) << path;
          return Status::Ok();
        });
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  auto tsv = ReadFile(cvmfs::testing::FixturesDir() + "/" + GetParam() +
                      ".example.org/expected.tsv");
  ASSERT_TRUE(tsv.ok());
  std::istringstream lines(*tsv);
  std::string line;
  size_t count = 0;
  while (std::getline(lines, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    std::string field;
    while (std::getline(fields, field, '\t')) f.push_back(field);
    ASSERT_EQ(f.size(), 9u) << line;
    ++count;
    auto it = tree.find(f[0]);
    ASSERT_NE(it, tree.end()) << f[0];
    const DirectoryEntry& e = it->second;
    char type = e.IsDirectory() ? 'd'
                : e.IsSymlink() ? 'l'
                : e.IsRegular() ? 'f'
                                : 'p';
    EXPECT_EQ(std::string(1, type), f[1]) << f[0];
    EXPECT_EQ(std::stoul(f[2], nullptr, 8), e.mode & 07777u) << f[0];
    // The client shows variant symlinks ($(VAR)) expanded; the catalog
    // holds the raw target and its length.
    bool variant = e.symlink.find("$(") != std::string::npos;
    if (type == 'f' || (type == 'l' && !variant)) {
      EXPECT_EQ(std::to_string(e.size), f[3]) << f[0];
    }
    EXPECT_EQ(std::to_string(e.mtime), f[4]) << f[0];
    if (type == 'l' && !variant) {
      EXPECT_EQ(e.symlink, f[5]) << f[0];
      EXPECT_EQ(e.size, e.symlink.size()) << f[0];
    }
    if (type == 'f') {
      EXPECT_EQ(std::to_string(e.linkcount), f[6]) << f[0];
    }
    std::string xattrs;
    for (const auto& [k, v] : e.xattrs.entries) {
      if (!xattrs.empty()) xattrs += ",";
      xattrs += k + "=" + ToHex(v.data(), v.size());
    }
    EXPECT_EQ(xattrs.empty() ? "-" : xattrs, f[8]) << f[0];
  }
  EXPECT_EQ(count, tree.size());
}

TEST(CatalogTest, OpenRejectsNonCatalogs) {
  testing::TempDir tmp;
  std::string junk = tmp.Sub("junk.db");
  ASSERT_TRUE(WriteFileAtomic(junk, std::string(4096, 'x')).ok());
  EXPECT_FALSE(Catalog::Open(junk).ok());
  EXPECT_FALSE(Catalog::Open(tmp.Sub("missing.db")).ok());
  {
    auto db = SqliteDb::Open(tmp.Sub("empty.db"), SqliteDb::OpenMode::kCreate);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("CREATE TABLE t (x INTEGER);").ok());
  }
  auto empty = Catalog::Open(tmp.Sub("empty.db"));
  EXPECT_TRUE(empty.status().IsCorruption()) << empty.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureCatalogTest,
                         ::testing::Values("sha1-zlib", "shake128-none"),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace cvmfs
