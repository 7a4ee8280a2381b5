// The client's file system over the fixture repositories (published by
// CVMFS 2.12), served from memory: listings equal the fixtures' expected
// listings, bad objects never reach a reader or the cache, and a second
// mount with no server works from the cache.
#include "client/file_system.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "client/fixture_mount_test.h"
#include "cvmfs/catalog/catalog_test_util.h"
#include "cvmfs/catalog/history_db.h"

namespace cvmfs::client {
namespace {

using fixture_test::FixtureMountTest;
using fixture_test::FixtureNames;
using fixture_test::FixtureTestName;
using testing::ListingLine;

TEST_P(FixtureMountTest, ListingEqualsExpected) {
  auto mount = Mount(Server());
  ASSERT_TRUE(mount.ok()) << mount.status().ToString();
  ExpectListing((*mount)->file_system(), fixture() + "/expected.tsv");
}

TEST_P(FixtureMountTest, TagV1ListingEqualsExpected) {
  MountConfig config = Config();
  config.tag = "v1";
  auto mount = Mount(Server(), config);
  ASSERT_TRUE(mount.ok()) << mount.status().ToString();
  ExpectListing((*mount)->file_system(), fixture() + "/expected-v1.tsv");
}

// The fixture's tag `name` from its history database.
Tag FixtureTag(const std::string& fqrn, const std::string& name) {
  const std::string repo =
      testing::FixturesDir() + "/" + fqrn + "/srv/cvmfs/" + fqrn;
  testing::TempDir tmp;
  const std::string file = tmp.Sub("history.db");
  auto manifest = catalog_test::ReadManifest(repo);
  EXPECT_TRUE(manifest.ok());
  EXPECT_TRUE(
      catalog_test::UnpackObject(repo, Digest::Parse((*manifest)['H']).value(),
                                 ObjectSuffix::kHistory, file)
          .ok());
  auto tag = HistoryDb::OpenReadOnly(file).value()->Get(name).value();
  EXPECT_TRUE(tag.has_value()) << name;
  return tag.value_or(Tag{});
}
int64_t TagTimestamp(const std::string& fqrn, const std::string& name) {
  return FixtureTag(fqrn, name).timestamp;
}
uint64_t TagRevision(const std::string& fqrn, const std::string& name) {
  return FixtureTag(fqrn, name).revision;
}

// CVMFS_REPOSITORY_DATE mounts the newest trunk tag published at or before
// the date: at v1's own second that is v1 (revision 2), and the tag name is
// what the `tag` attribute shows, as in CVMFS.
TEST_P(FixtureMountTest, DateOfV1ListingEqualsExpected) {
  MountConfig config = Config();
  config.date = TagTimestamp(fqrn(), "v1");
  {
    auto mount = Mount(Server(), config);
    ASSERT_TRUE(mount.ok()) << mount.status().ToString();
    ExpectListing((*mount)->file_system(), fixture() + "/expected-v1.tsv");
    EXPECT_EQ((*mount)->file_system()->revision().revision, 2u);
    // The tag the date resolved to (a tag of revision 2), not "".
    const std::string tag = (*mount)->file_system()->Statistics().tag;
    EXPECT_EQ(TagRevision(fqrn(), tag), 2u) << tag;
  }
  // A second later is v2, the current revision.
  config.date = *config.date + 1;
  auto later = Mount(Server(), config);
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  ExpectListing((*later)->file_system(), fixture() + "/expected.tsv");
}

TEST_P(FixtureMountTest, DateBeforeTheFirstRevisionFailsNamingIt) {
  MountConfig config = Config();
  config.date = 946684800;  // 2000-01-01T00:00:00Z
  auto mount = Mount(Server(), config);
  ASSERT_FALSE(mount.ok());
  EXPECT_NE(mount.status().message().find(
                "no repository state as early as utc timestamp "
                "2000-01-01T00:00:00Z"),
            std::string::npos)
      << mount.status().ToString();
}

// CVMFS_MEMCACHE_SIZE bounds what is remembered about inodes the kernel
// holds: with almost no room every inode is dropped right after its lookup,
// and each operation on it rebuilds it from its number (catalog, rowid,
// parent rows), through nested catalogs, hardlinks and bind mountpoints.
TEST_P(FixtureMountTest, InodesDroppedForRoomAreRebuiltFromTheirNumber) {
  MountConfig config = Config();
  config.fs.memcache_bytes = 1;  // one entry per shard at most
  auto mount = Mount(Server(), config);
  ASSERT_TRUE(mount.ok()) << mount.status().ToString();
  FileSystem* fs = (*mount)->file_system();
  // Held by "the kernel" (never forgotten) while the tree is walked.
  std::vector<uint64_t> held;
  for (const DirEntry& d : fs->ReadDir(kRootInode).value()) {
    if (d.info == nullptr) continue;
    fs->RememberListed(d);
    held.push_back(d.inode);
  }
  ExpectListing(fs, fixture() + "/expected.tsv");
  const MountStatistics st = fs->Statistics();
  EXPECT_LE(st.known_inodes, 32u + 1);
  EXPECT_GT(st.inode_evictions, 0u);
  EXPECT_GT(st.inode_rebuilds, 0u);
  // Listed entries the kernel still holds answer after they were dropped.
  for (uint64_t inode : held) EXPECT_TRUE(fs->GetAttr(inode).ok()) << inode;
  // A number no catalog handed out is stale, not an error.
  auto stale = fs->GetAttr(uint64_t{1} << 50);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(fs->io_errors(), 0u);
}

TEST_P(FixtureMountTest, RemountWithoutServerServesTheCache) {
  std::map<std::string, ListingLine> first;
  {
    auto mount = Mount(Server());
    ASSERT_TRUE(mount.ok()) << mount.status().ToString();
    Walk((*mount)->file_system(), kRootInode, "", &first);
  }
  auto offline = std::make_unique<MemoryFetcher>();  // knows nothing...
  MemoryFetcher* server = offline.get();
  for (const char* name : {".cvmfswhitelist", ".cvmfspublished"})
    server->FailNext(
        name, 1000,
        Status::Unavailable("connection refused"));  // ...and is down
  auto mount = Mount(std::move(offline));
  ASSERT_TRUE(mount.ok()) << mount.status().ToString();
  EXPECT_TRUE((*mount)->offline_start());
  std::map<std::string, ListingLine> second;
  Walk((*mount)->file_system(), kRootInode, "", &second);
  EXPECT_EQ(first.size(), second.size());
  for (auto& [path, line] : first)
    EXPECT_EQ(line.ToString(), second[path].ToString()) << path;
  // Only the manifest and whitelist were asked for; every object came from the
  // cache.
  for (const DownloadRequest& r : server->request_log())
    EXPECT_TRUE(r.url_path[0] == '.') << r.url_path;
}

// The no_open path (reads by inode, listings by inode) gives the same bytes
// and entries as open/read and opendir/readdir.
TEST_P(FixtureMountTest, ReadsAndListingsByInodeMatchOpenAndReadDir) {
  auto mount = Mount(Server());
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  auto large = fs->Lookup(kRootInode, "large");
  ASSERT_TRUE(large.ok());
  auto listing = fs->ListingFor(large->inode);
  auto direct = fs->ReadDir(large->inode);
  ASSERT_TRUE(listing.ok() && direct.ok());
  ASSERT_EQ(direct->size(), (*listing)->size());
  for (size_t i = 0; i < direct->size(); ++i) {
    EXPECT_EQ((*direct)[i].name, (**listing)[i].name);
    EXPECT_EQ((*direct)[i].inode, (**listing)[i].inode);
  }
  for (const char* name : {"big.dat", "under4m.dat"}) {
    auto file = fs->Lookup(large->inode, name);
    ASSERT_TRUE(file.ok()) << name;
    auto expected = ReadAll(fs, file->inode);
    ASSERT_TRUE(expected.ok());
    // Odd-sized reads crossing chunk boundaries, out of order.
    std::string got(expected->size(), '\0');
    const size_t step = 1000003;
    std::vector<size_t> offsets;
    for (size_t off = 0; off < got.size(); off += step) offsets.push_back(off);
    std::reverse(offsets.begin(), offsets.end());
    for (size_t off : offsets) {
      size_t want = std::min(step, got.size() - off);
      auto n = fs->ReadInode(file->inode, got.data() + off, want,
                             static_cast<off_t>(off));
      ASSERT_TRUE(n.ok()) << n.status().ToString();
      ASSERT_EQ(want, *n);
    }
    EXPECT_TRUE(got == *expected) << name;
  }
}

TEST_P(FixtureMountTest, CorruptObjectIsEioAndNeverCached) {
  auto server = Server();
  MemoryFetcher* s = server.get();
  auto mount = Mount(std::move(server), DemandOnlyConfig());
  ASSERT_TRUE(mount.ok()) << mount.status().ToString();
  FileSystem* fs = (*mount)->file_system();
  auto hello = fs->Lookup(kRootInode, "hello.txt");
  ASSERT_TRUE(hello.ok()) << hello.status().ToString();
  auto hash = fs->GetXattr(hello->inode, "user.hash");
  ASSERT_TRUE(hash.ok());
  auto digest = Digest::Parse(*hash);
  ASSERT_TRUE(digest.ok());
  std::string object = ObjectPath(*digest, ObjectSuffix::kNone);
  // The server (and a proxy on retry) deliver garbage twice.
  s->ServeOnce(object, "garbage");
  s->ServeOnce(object, "more garbage");
  auto bad = ReadAll(fs, hello->inode);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Status::Code::kCorruption, bad.status().code())
      << bad.status().ToString();
  EXPECT_FALSE((*mount)->cache()->Contains(*digest));
  // The second request asked proxies to revalidate.
  bool saw_no_cache = false;
  for (const DownloadRequest& r : s->request_log())
    if (r.url_path == object && r.no_cache) saw_no_cache = true;
  EXPECT_TRUE(saw_no_cache);
  // Once the server is right again, the right bytes.
  auto good = ReadAll(fs, hello->inode);
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_TRUE((*mount)->cache()->Contains(*digest));
  EXPECT_GE(fs->io_errors(), 1u);
}

// Signed files and catalogs are asked for as metadata (bounded by the
// fetcher's overall deadline, doc/client.md); file content is not.
TEST_P(FixtureMountTest, SignedFilesAndCatalogsAreFetchedAsMetadata) {
  auto server = Server();
  MemoryFetcher* s = server.get();
  auto mount = Mount(std::move(server), DemandOnlyConfig());
  ASSERT_TRUE(mount.ok()) << mount.status().ToString();
  FileSystem* fs = (*mount)->file_system();
  auto hello = fs->Lookup(kRootInode, "hello.txt");
  ASSERT_TRUE(hello.ok()) << hello.status().ToString();
  ASSERT_TRUE(ReadAll(fs, hello->inode).ok());
  int signed_files = 0, catalogs = 0, content = 0;
  for (const DownloadRequest& r : s->request_log()) {
    const char last = r.url_path.back();
    if (r.url_path == ".cvmfspublished" || r.url_path == ".cvmfswhitelist" ||
        last == 'X') {
      ++signed_files;
      EXPECT_TRUE(r.metadata) << r.url_path;
    } else if (last == 'C') {
      ++catalogs;
      EXPECT_TRUE(r.metadata) << r.url_path;
    } else if (r.url_path.rfind("data/", 0) == 0 && last != 'H' &&
               last != 'M') {
      ++content;
      EXPECT_FALSE(r.metadata) << r.url_path;
    }
  }
  EXPECT_EQ(3, signed_files);
  EXPECT_GE(catalogs, 1);
  EXPECT_GE(content, 1);
}

TEST_P(FixtureMountTest, TruncatedTransferFailsWithoutPoisoningTheCache) {
  auto server = Server();
  MemoryFetcher* s = server.get();
  auto mount = Mount(std::move(server), DemandOnlyConfig());
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  auto hello = fs->Lookup(kRootInode, "hello.txt");
  ASSERT_TRUE(hello.ok());
  auto digest = Digest::Parse(*fs->GetXattr(hello->inode, "user.hash"));
  std::string object = ObjectPath(*digest, ObjectSuffix::kNone);
  s->TruncateNext(object, 3, 1);
  auto bad = ReadAll(fs, hello->inode);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Status::Code::kUnavailable, bad.status().code());
  EXPECT_FALSE((*mount)->cache()->Contains(*digest));
  EXPECT_TRUE(ReadAll(fs, hello->inode).ok());
}

TEST_P(FixtureMountTest, ObjectMissingOnTheServerIsAnIoErrorNotAMissingFile) {
  auto server = Server();
  MemoryFetcher* s = server.get();
  auto mount = Mount(std::move(server), DemandOnlyConfig());
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  auto hello = fs->Lookup(kRootInode, "hello.txt");
  ASSERT_TRUE(hello.ok());
  auto digest = Digest::Parse(*fs->GetXattr(hello->inode, "user.hash"));
  s->Remove(ObjectPath(*digest, ObjectSuffix::kNone));
  auto bad = ReadAll(fs, hello->inode);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Status::Code::kIoError, bad.status().code())
      << bad.status().ToString();
}

TEST_P(FixtureMountTest, OlderManifestThanTheBreadcrumbIsRefused) {
  {
    auto mount = Mount(Server());
    ASSERT_TRUE(mount.ok());
  }
  // Pretend this cache saw a newer revision before.
  auto cache = cache::PosixCache::Open(Config().cache);
  ASSERT_TRUE(cache.ok());
  auto crumb = (*cache)->LoadBreadcrumb(fqrn());
  ASSERT_TRUE(crumb.ok() && *crumb);
  cache::PosixCache::Breadcrumb newer = **crumb;
  newer.revision += 10;
  ASSERT_TRUE((*cache)->StoreBreadcrumb(fqrn(), newer).ok());
  cache->reset();
  auto mount = Mount(Server());
  ASSERT_FALSE(mount.ok());
  EXPECT_NE(std::string::npos,
            mount.status().message().find("older than revision"))
      << mount.status().ToString();
}

TEST_P(FixtureMountTest, WrongMasterKeyIsRefused) {
  MountConfig config = Config();
  // The other fixture's key did not sign this whitelist.
  std::string other = fqrn() == "sha1-zlib.example.org"
                          ? "shake128-none.example.org"
                          : "sha1-zlib.example.org";
  config.public_key_files = {testing::FixturesDir() + "/" + other + "/" +
                             other + ".pub"};
  auto mount = Mount(Server(), config);
  ASSERT_FALSE(mount.ok());
  EXPECT_NE(std::string::npos, mount.status().message().find("whitelist"))
      << mount.status().ToString();
}

TEST_P(FixtureMountTest, ManyParallelReaders) {
  auto mount = Mount(Server());
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  std::map<std::string, ListingLine> expected;
  Walk(fs, kRootInode, "", &expected);
  // Fresh mount with an empty cache: all threads race for the same objects.
  testing::TempDir other;
  MountConfig config = Config();
  config.cache.dir = other.Sub("cache");
  auto mount2 = Mount(Server(), config);
  ASSERT_TRUE(mount2.ok());
  FileSystem* fs2 = (*mount2)->file_system();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (auto& [path, line] : expected) {
        if (line.type != 'f') continue;
        // Resolve the path component by component.
        uint64_t inode = kRootInode;
        size_t pos = 0;
        bool ok = true;
        while (pos < path.size()) {
          size_t slash = path.find('/', pos);
          if (slash == std::string::npos) slash = path.size();
          auto r = fs2->Lookup(inode, path.substr(pos, slash - pos));
          if (!r.ok()) {
            ok = false;
            break;
          }
          inode = r->inode;
          pos = slash + 1;
        }
        auto content = ok ? ReadAll(fs2, inode)
                          : Result<std::string>(Status::NotFound(path));
        if (!content.ok() || testing::Sha256Hex(*content) != line.content)
          ++failures;
      }
      (void)t;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(0, failures.load());
  EXPECT_GT((*mount2)->file_system()->objects()->counters().collapsed +
                (*mount2)->file_system()->objects()->counters().hits,
            0u);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureMountTest, FixtureNames(),
                         FixtureTestName);

}  // namespace
}  // namespace cvmfs::client
