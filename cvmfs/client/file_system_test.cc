// The client's file system over the fixture repositories (published by
// CVMFS 2.12), served from memory: listings equal the fixtures' expected
// listings, bad objects never reach a reader or the cache, and a second
// mount with no server works from the cache.
#include "cvmfs/client/file_system.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "cvmfs/client/magic_xattrs.h"
#include "cvmfs/client/open_file.h"
#include "cvmfs/client/repository_mount.h"
#include "cvmfs/file_util.h"
#include "cvmfs/network/memory_fetcher.h"
#include "cvmfs/testing/repository_listing.h"
#include "cvmfs/testing/test_env.h"

namespace cvmfs::client {
namespace {

using testing::ListingLine;

// Loads every file a fixture's Stratum 0 serves into a MemoryFetcher.
void LoadTree(const std::string& root, const std::string& rel,
              MemoryFetcher* fetcher) {
  auto names = ListDirectory(root + rel);
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  for (const std::string& name : *names) {
    std::string path = rel.empty() ? name : rel + "/" + name;
    struct stat st;
    ASSERT_EQ(0, ::stat((root + path).c_str(), &st));
    if (S_ISDIR(st.st_mode)) {
      LoadTree(root, path, fetcher);
    } else {
      auto bytes = ReadFile(root + path);
      ASSERT_TRUE(bytes.ok());
      fetcher->Put(path, *bytes);
    }
  }
}

class FixtureMountTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::string fqrn() const { return GetParam(); }
  std::string fixture() const { return testing::FixturesDir() + "/" + fqrn(); }

  std::unique_ptr<MemoryFetcher> Server() {
    auto fetcher = std::make_unique<MemoryFetcher>();
    LoadTree(fixture() + "/srv/cvmfs/" + fqrn() + "/", "", fetcher.get());
    return fetcher;
  }

  MountConfig Config() {
    MountConfig c;
    c.fqrn = fqrn();
    c.cache.dir = tmp_.Sub("cache");
    c.cache.quota_limit = 256 << 20;
    c.public_key_files = {fixture() + "/" + fqrn() + ".pub"};
    c.fs.fqrn = fqrn();
    c.fs.claim_ownership = false;
    c.fs.variables = [](const std::string& name) -> std::optional<std::string> {
      if (name == "CVMFS_ARCH") return std::string("x86_64");
      return std::nullopt;
    };
    // The in-memory server answers in microseconds: speculate anyway, as
    // over a real network (NoSpeculationWhileMissesAreCheap tests the gate).
    c.fs.prefetch.speculate_after = std::chrono::milliseconds(0);
    return c;
  }
  // Prefetch off: for tests of what a demand read does with a fault that
  // the server injects once (a prefetch of the same object could take the
  // fault instead, and a prefetch's failure is never the reader's).
  MountConfig DemandOnlyConfig() {
    MountConfig c = Config();
    c.fs.prefetch.enabled = false;
    return c;
  }

  Result<std::unique_ptr<RepositoryMount>> Mount(
      std::unique_ptr<Fetcher> fetcher, MountConfig config) {
    return RepositoryMount::Create(
        std::move(config), [](const std::string&) {}, std::move(fetcher));
  }
  Result<std::unique_ptr<RepositoryMount>> Mount(
      std::unique_ptr<Fetcher> fetcher) {
    return Mount(std::move(fetcher), Config());
  }

  static Result<std::string> ReadAll(FileSystem* fs, uint64_t inode) {
    bool keep = false;
    CVMFS_ASSIGN_OR_RETURN(OpenFile * file, fs->Open(inode, &keep));
    std::string out;
    std::vector<char> buf(128 << 10);
    Status st;
    for (;;) {
      auto n = fs->Read(file, buf.data(), buf.size(),
                        static_cast<off_t>(out.size()));
      if (!n.ok()) {
        st = n.status();
        break;
      }
      if (*n == 0) break;
      out.append(buf.data(), *n);
    }
    fs->Release(file);
    if (!st.ok()) return st;
    return out;
  }

  // The listing as the fixtures' expected.tsv shows it, through the
  // FileSystem's operations only.
  void Walk(FileSystem* fs, uint64_t inode, const std::string& path,
            std::map<std::string, ListingLine>* out) {
    auto entries = fs->ReadDir(inode);
    ASSERT_TRUE(entries.ok()) << path << ": " << entries.status().ToString();
    for (const DirEntry& d : *entries) {
      if (d.name == "." || d.name == "..") continue;
      std::string child = path.empty() ? d.name : path + "/" + d.name;
      auto looked_up = fs->Lookup(inode, d.name);
      ASSERT_TRUE(looked_up.ok())
          << child << ": " << looked_up.status().ToString();
      ASSERT_EQ(looked_up->inode, d.inode)
          << child << ": readdir and lookup disagree";
      const struct stat& st = looked_up->attr;
      ASSERT_EQ(st.st_mode, d.attr.st_mode) << child;
      ListingLine line;
      char mode[16];
      std::snprintf(mode, sizeof(mode), "%o", st.st_mode & 07777);
      line.mode_octal = mode;
      line.mtime = std::to_string(st.st_mtime);
      line.linkcount = std::to_string(st.st_nlink);
      line.group = "-";
      line.content = "-";
      line.size = "0";
      if (S_ISDIR(st.st_mode)) {
        line.type = 'd';
        Walk(fs, looked_up->inode, child, out);
      } else if (S_ISLNK(st.st_mode)) {
        line.type = 'l';
        auto target = fs->ReadLink(looked_up->inode);
        ASSERT_TRUE(target.ok());
        line.content = *target;
        line.size = std::to_string(st.st_size);
      } else if (S_ISFIFO(st.st_mode)) {
        line.type = 'p';
      } else {
        line.type = 'f';
        line.size = std::to_string(st.st_size);
        auto content = ReadAll(fs, looked_up->inode);
        ASSERT_TRUE(content.ok())
            << child << ": " << content.status().ToString();
        line.content = testing::Sha256Hex(*content);
      }
      auto names = fs->ListXattr(looked_up->inode);
      ASSERT_TRUE(names.ok());
      std::map<std::string, std::string> catalog_xattrs;
      for (const std::string& n : *names) {
        if (MagicXattrs::IsMagic(n)) continue;  // not stored in the catalog
        auto v = fs->GetXattr(looked_up->inode, n);
        ASSERT_TRUE(v.ok()) << n;
        catalog_xattrs[n] = *v;
      }
      for (auto& [k, v] : catalog_xattrs)
        line.xattrs += (line.xattrs.empty() ? "" : ",") + k + "=" +
                       ToHex(v.data(), v.size());
      if (line.xattrs.empty()) line.xattrs = "-";
      (*out)[child] = line;
      fs->Forget(looked_up->inode, 1);
    }
  }

  void ExpectListing(FileSystem* fs, const std::string& expected_file) {
    auto expected = testing::ParseExpectedListing(expected_file);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    std::map<std::string, ListingLine> got;
    Walk(fs, kRootInode, "", &got);
    for (auto& [path, line] : *expected) {
      auto it = got.find(path);
      if (it == got.end()) {
        ADD_FAILURE() << "missing " << path;
        continue;
      }
      EXPECT_EQ(line.ToString(), it->second.ToString()) << path;
    }
    for (auto& [path, line] : got)
      EXPECT_TRUE(expected->count(path)) << "unexpected " << path;
  }

  testing::TempDir tmp_;
};

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

// Waits until the prefetch engine has nothing queued or running.
bool PrefetchIdle(FileSystem* fs) {
  for (int i = 0; i < 1000; ++i) {
    PrefetchCounters c = fs->prefetcher()->counters();
    if (c.pending == 0 && c.in_flight == 0 && c.queued > 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Reading one file of a directory fetches the others in the background;
// reading those then needs no download, and they count as used.
TEST_P(FixtureMountTest, FirstReadPrefetchesTheDirectory) {
  auto server = Server();
  MemoryFetcher* s = server.get();
  auto mount = Mount(std::move(server));
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  auto many = fs->Lookup(kRootInode, "many");
  ASSERT_TRUE(many.ok());
  const std::vector<std::string> names = {"f00000", "f00001", "f00002",
                                          "f00003", "f00004", "f00005"};
  auto file = fs->Lookup(many->inode, names[0]);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_TRUE(ReadAll(fs, file->inode).ok());
  ASSERT_TRUE(PrefetchIdle(fs));
  EXPECT_GE(fs->prefetcher()->counters().fetched, 10u);
  // Reading them makes no request of its own: every request from now on
  // is a prefetch (the budget, freed by the reads, lets more follow).
  // Duplicate contents in the fixture may already be cached: count
  // requests, not objects.
  const uint64_t before = s->total_requests();
  const uint64_t fetched = fs->prefetcher()->counters().fetched;
  for (size_t i = 1; i < names.size(); ++i) {
    auto next = fs->Lookup(many->inode, names[i]);
    ASSERT_TRUE(next.ok());
    ASSERT_TRUE(ReadAll(fs, next->inode).ok());
  }
  ASSERT_TRUE(PrefetchIdle(fs));
  EXPECT_EQ(s->total_requests() - before,
            fs->prefetcher()->counters().fetched - fetched);
  EXPECT_GE(fs->prefetcher()->counters().used, 1u);
}

// A metadata walk (find, ls -lR: listings, no file read) prefetches
// nothing: it would never use what it fetched.
TEST_P(FixtureMountTest, ListingWithoutReadsPrefetchesNothing) {
  auto server = Server();
  MemoryFetcher* s = server.get();
  auto mount = Mount(std::move(server));
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  const uint64_t before = s->total_requests();
  auto many = fs->Lookup(kRootInode, "many");
  ASSERT_TRUE(many.ok());
  ASSERT_TRUE(fs->ReadDir(many->inode).ok());
  auto dir = fs->Lookup(kRootInode, "d00");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(fs->ReadDir(dir->inode).ok());
  // Time for the planner thread, had anything been handed to it.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(before, s->total_requests());
  EXPECT_EQ(0u, fs->prefetcher()->counters().queued);
}

// Listing a directory while files are being read prefetches the files of
// its subtree, breadth first: a tree walker then finds even the deepest
// file in the cache.
TEST_P(FixtureMountTest, ListingPrefetchesTheSubtree) {
  auto server = Server();
  MemoryFetcher* s = server.get();
  auto mount = Mount(std::move(server));
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  // A program that reads files (one in a small directory beside d00).
  auto bin = fs->Lookup(kRootInode, "bin");
  ASSERT_TRUE(bin.ok());
  auto first = fs->Lookup(bin->inode, "tool.sh");
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(ReadAll(fs, first->inode).ok());
  ASSERT_TRUE(PrefetchIdle(fs));
  const uint64_t queued = fs->prefetcher()->counters().queued;
  auto dir = fs->Lookup(kRootInode, "d00");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(fs->ReadDir(dir->inode).ok());
  for (int i = 0; i < 1000 && fs->prefetcher()->counters().queued == queued;
       ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(PrefetchIdle(fs));
  uint64_t before = s->total_requests();
  uint64_t inode = dir->inode;
  for (int depth = 1; depth < 24; ++depth) {
    char name[8];
    std::snprintf(name, sizeof(name), "d%02d", depth);
    auto next = fs->Lookup(inode, name);
    ASSERT_TRUE(next.ok()) << name;
    inode = next->inode;
  }
  auto leaf = fs->Lookup(inode, "leaf.txt");
  ASSERT_TRUE(leaf.ok());
  ASSERT_TRUE(ReadAll(fs, leaf->inode).ok());
  EXPECT_EQ(before, s->total_requests());
  EXPECT_EQ(1u, fs->prefetcher()->counters().used);
}

// A tree walk lists each directory for planning about once: a directory
// that its parent's plan listed already is not planned again with its own
// subtree (d00 .. d23 is a chain: planning each level's subtree would list
// 24 + 23 + ... + 1 = 300 directories).
TEST_P(FixtureMountTest, TreeWalkPlansEachDirectoryOnce) {
  auto mount = Mount(Server());
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  auto bin = fs->Lookup(kRootInode, "bin");
  ASSERT_TRUE(bin.ok());
  auto first = fs->Lookup(bin->inode, "tool.sh");
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(ReadAll(fs, first->inode).ok());  // a program reads files
  ASSERT_TRUE(PrefetchIdle(fs));
  const uint64_t before = fs->prefetcher()->counters().directories_planned;
  auto dir = fs->Lookup(kRootInode, "d00");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(fs->ReadDir(dir->inode).ok());
  auto planned = [&] {
    return fs->prefetcher()->counters().directories_planned - before;
  };
  for (int i = 0; i < 1000 && planned() < 24; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(24u, planned());  // d00 and the 23 below it
  uint64_t inode = dir->inode;
  for (int depth = 1; depth < 24; ++depth) {
    char name[8];
    std::snprintf(name, sizeof(name), "d%02d", depth);
    auto next = fs->Lookup(inode, name);
    ASSERT_TRUE(next.ok()) << name;
    inode = next->inode;
    ASSERT_TRUE(fs->ReadDir(inode).ok());
  }
  auto leaf = fs->Lookup(inode, "leaf.txt");
  ASSERT_TRUE(leaf.ok());
  ASSERT_TRUE(ReadAll(fs, leaf->inode).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(24u, planned());
}

// Demand downloads that take less than speculate_after (here the in-memory
// server's microseconds against 1 s) turn speculation off: a listing
// queues nothing, and a read plans only its own directory's files, not its
// subdirectories'.
TEST_P(FixtureMountTest, NoSpeculationWhileMissesAreCheap) {
  MountConfig config = Config();
  config.fs.prefetch.speculate_after = std::chrono::seconds(1);
  auto mount = Mount(Server(), std::move(config));
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  auto bin = fs->Lookup(kRootInode, "bin");
  ASSERT_TRUE(bin.ok());
  auto first = fs->Lookup(bin->inode, "tool.sh");
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(ReadAll(fs, first->inode).ok());
  // bin/ is planned in the background: wait for it before counting.
  for (int i = 0;
       i < 1000 && fs->prefetcher()->counters().directories_planned < 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const uint64_t before = fs->prefetcher()->counters().directories_planned;
  ASSERT_EQ(1u, before);
  auto dir = fs->Lookup(kRootInode, "d00");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(fs->ReadDir(dir->inode).ok());
  auto planned = [&] {
    return fs->prefetcher()->counters().directories_planned - before;
  };
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(0u, planned());
  uint64_t inode = dir->inode;
  for (int depth = 1; depth < 24; ++depth) {
    char name[8];
    std::snprintf(name, sizeof(name), "d%02d", depth);
    auto next = fs->Lookup(inode, name);
    ASSERT_TRUE(next.ok()) << name;
    inode = next->inode;
  }
  auto leaf = fs->Lookup(inode, "leaf.txt");
  ASSERT_TRUE(leaf.ok());
  ASSERT_TRUE(ReadAll(fs, leaf->inode).ok());
  for (int i = 0; i < 1000 && planned() < 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(1u, planned());  // d23 alone
  PrefetchCounters c = fs->prefetcher()->counters();
  EXPECT_FALSE(c.speculating);
  EXPECT_GT(c.demand_latency_us, 0u);
}

TEST_P(FixtureMountTest, PrefetchOffFetchesNothingAhead) {
  auto server = Server();
  MemoryFetcher* s = server.get();
  MountConfig config = Config();
  config.fs.prefetch.enabled = false;
  auto mount = Mount(std::move(server), std::move(config));
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  auto many = fs->Lookup(kRootInode, "many");
  ASSERT_TRUE(many.ok());
  uint64_t before = s->total_requests();
  ASSERT_TRUE(fs->ReadDir(many->inode).ok());
  auto file = fs->Lookup(many->inode, "f00000");
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(ReadAll(fs, file->inode).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_LE(s->total_requests(), before + 1);
  EXPECT_FALSE(fs->prefetcher()->counters().enabled);
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

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureMountTest,
                         ::testing::Values("sha1-zlib.example.org",
                                           "shake128-none.example.org"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return n;
                         });

}  // namespace
}  // namespace cvmfs::client
