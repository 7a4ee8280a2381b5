// Bundles through the file system (doc/client.md, "Bundles"): a catalog
// built by hand with a `bundles` table, mounted from memory. A cold open of
// a small file fetches its directory's bundle, the other files of the
// bundle are then cache hits, files not in a bundle are fetched on their
// own, CVMFS_BUNDLES=no fetches every file on its own, and prefetch
// fetches the bundles of the directories it plans.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/catalog_set.h"
#include "client/file_system.h"
#include "client/object_fetcher.h"
#include "cvmfs/bundle.h"
#include "cvmfs/catalog/catalog_test_util.h"
#include "cvmfs/catalog/writable_catalog.h"
#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/object_name.h"
#include "testing/memory_fetcher.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

using catalog_test::DirEntry;

struct File {
  std::string path, content, stored, object;
  Digest digest;
};

class BundleFileSystemTest : public ::testing::Test {
 protected:
  // /dir: a0..a4 (bundled), big (not bundled: too large), and /dir/sub:
  // s0..s3 (bundled).
  void SetUp() override {
    auto w =
        WritableCatalog::Create(tmp_.Sub("catalog.db"), "", DirEntry(), false);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->AddEntry("/dir", DirEntry()).ok());
    ASSERT_TRUE((*w)->AddEntry("/dir/sub", DirEntry()).ok());
    for (int i = 0; i < 5; ++i) AddFile(w->get(), "/dir/a" + std::to_string(i));
    AddFile(w->get(), "/dir/big", 3 * kBundleMemberMax);
    for (int i = 0; i < 4; ++i)
      AddFile(w->get(), "/dir/sub/s" + std::to_string(i));
    AddBundle(w->get(), "/dir", "a0", 0, 5);
    AddBundle(w->get(), "/dir/sub", "s0", 6, 10);
    // /walk: w0..w9, /walk/x: x0..x2, /walk/x/y: y0..y2, a bundle each.
    ASSERT_TRUE((*w)->AddEntry("/walk", DirEntry()).ok());
    ASSERT_TRUE((*w)->AddEntry("/walk/x", DirEntry()).ok());
    ASSERT_TRUE((*w)->AddEntry("/walk/x/y", DirEntry()).ok());
    for (int i = 0; i < 10; ++i)
      AddFile(w->get(), "/walk/w" + std::to_string(i));
    for (int i = 0; i < 3; ++i)
      AddFile(w->get(), "/walk/x/x" + std::to_string(i));
    for (int i = 0; i < 3; ++i)
      AddFile(w->get(), "/walk/x/y/y" + std::to_string(i));
    AddBundle(w->get(), "/walk", "w0", kWalk, kWalk + 10);
    AddBundle(w->get(), "/walk/x", "x0", kWalk + 10, kWalk + 13);
    AddBundle(w->get(), "/walk/x/y", "y0", kWalk + 13, kWalk + 16);
    ASSERT_TRUE((*w)->Commit(1, 1700000000, std::nullopt, 240).ok());
    auto db = ReadFile(tmp_.Sub("catalog.db"));
    ASSERT_TRUE(db.ok());
    const std::string stored = ZlibCompress(*db);
    root_ = HashString(HashAlgorithm::kSha1, stored);
    server_.Put(ObjectPath(root_, ObjectSuffix::kCatalog), stored);
  }

  static constexpr size_t kWalk = 10;  // files_ index of /walk/w0

  void AddFile(WritableCatalog* w, const std::string& path,
               size_t size = 2000) {
    File f;
    f.path = path;
    f.content = path + std::string(size, 'z') + path;
    // Not too compressible: the big file's object must stay large.
    for (size_t i = 0; i < f.content.size(); i += 7)
      f.content[i] = static_cast<char>('a' + (i * 31 + path.size()) % 26);
    f.stored = ZlibCompress(f.content);
    f.digest = HashString(HashAlgorithm::kSha1, f.stored);
    f.object = ObjectPath(f.digest, ObjectSuffix::kNone);
    server_.Put(f.object, f.stored);
    DirectoryEntry e;
    e.mode = S_IFREG | 0644;
    e.size = f.content.size();
    e.mtime = 1700000000;
    e.content_hash = f.digest;
    ASSERT_TRUE(w->AddEntry(path, e).ok());
    files_.push_back(std::move(f));
  }

  // A bundle of files_[from, to) of `dir`.
  void AddBundle(WritableCatalog* w, const std::string& dir,
                 const std::string& first, size_t from, size_t to) {
    std::vector<BundleMember> members;
    std::string body;
    for (size_t i = from; i < to; ++i) {
      members.push_back({files_[i].digest, files_[i].stored.size()});
      body += files_[i].stored;
    }
    const std::string bytes = SerializeBundleHeader(members) + body;
    BundleRef ref{dir, first, HashString(HashAlgorithm::kSha1, bytes),
                  bytes.size(), static_cast<uint32_t>(members.size())};
    bundles_.push_back(ObjectPath(ref.hash, ObjectSuffix::kBundle));
    server_.Put(bundles_.back(), bytes);
    ASSERT_TRUE(w->SetBundles(dir, {ref}).ok());
  }

  void Mount(bool bundles, bool prefetch,
             std::chrono::milliseconds speculate_after =
                 std::chrono::milliseconds(0)) {
    cache::CacheOptions options;
    options.dir = tmp_.Sub("cache");
    auto cache = cache::PosixCache::Open(options);
    ASSERT_TRUE(cache.ok()) << cache.status().ToString();
    cache_ = std::move(cache).value();
    objects_ = std::make_unique<ObjectFetcher>(&server_, cache_.get());
    if (bundles) objects_->EnableBundles();
    auto set =
        CatalogSet::Mount(objects_.get(), cache_.get(), root_, &next_inode_);
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    FileSystemOptions fs;
    fs.bundles = bundles;
    fs.prefetch.enabled = prefetch;
    fs.prefetch.speculate_after = speculate_after;
    MountedRevision revision;
    revision.root_hash = root_;
    fs_ =
        std::make_unique<FileSystem>(fs, objects_.get(), cache_.get(),
                                     std::move(set).value(), revision, nullptr);
    server_.ResetCounters();
  }

  // Reads the file at `path` (a/b/c) through the file system.
  std::string Read(const std::string& path) {
    uint64_t inode = kRootInode;
    size_t start = 1;
    while (start <= path.size()) {
      size_t end = path.find('/', start);
      if (end == std::string::npos) end = path.size();
      auto entry = fs_->Lookup(inode, path.substr(start, end - start));
      if (!entry.ok()) return "lookup: " + entry.status().ToString();
      inode = entry->inode;
      start = end + 1;
    }
    bool keep = false;
    auto file = fs_->Open(inode, &keep);
    if (!file.ok()) return "open: " + file.status().ToString();
    std::string out(1 << 20, '\0');
    auto n = fs_->Read(*file, out.data(), out.size(), 0);
    fs_->Release(*file);
    if (!n.ok()) return "read: " + n.status().ToString();
    out.resize(*n);
    return out;
  }

  uint64_t SingleRequests(size_t from, size_t to) const {
    uint64_t n = 0;
    for (size_t i = from; i < to; ++i) n += server_.requests(files_[i].object);
    return n;
  }

  testing::TempDir tmp_;
  MemoryFetcher server_;
  std::vector<File> files_;
  std::vector<std::string> bundles_;
  Digest root_;
  std::unique_ptr<cache::PosixCache> cache_;
  std::unique_ptr<ObjectFetcher> objects_;
  std::atomic<uint64_t> next_inode_{0};
  std::unique_ptr<FileSystem> fs_;
};

TEST_F(BundleFileSystemTest, ColdReadsOfADirectoryCostOneBundleRequest) {
  Mount(/*bundles=*/true, /*prefetch=*/false);
  for (size_t i = 0; i < 6; ++i)
    ASSERT_EQ(files_[i].content, Read(files_[i].path)) << files_[i].path;
  EXPECT_EQ(1u, server_.requests(bundles_[0]));
  EXPECT_EQ(0u, SingleRequests(0, 5));
  EXPECT_EQ(1u, server_.requests(files_[5].object)) << "big is not bundled";
  EXPECT_EQ(0u, server_.requests(bundles_[1])) << "sub was not read";
  EXPECT_EQ(2u, server_.total_requests());
  const BundleCounters c = fs_->Statistics().fetch.bundles;
  EXPECT_EQ(1u, c.fetched);
  EXPECT_EQ(5u, c.members_stored);
}

TEST_F(BundleFileSystemTest, BundlesOffFetchesEveryFileOnItsOwn) {
  Mount(/*bundles=*/false, /*prefetch=*/false);
  for (size_t i = 0; i < 6; ++i)
    ASSERT_EQ(files_[i].content, Read(files_[i].path)) << files_[i].path;
  EXPECT_EQ(0u, server_.requests(bundles_[0]));
  EXPECT_EQ(6u, SingleRequests(0, 6));
}

TEST_F(BundleFileSystemTest, MissingBundleFallsBackToSingleObjects) {
  server_.Remove(bundles_[0]);
  Mount(/*bundles=*/true, /*prefetch=*/false);
  for (size_t i = 0; i < 5; ++i)
    ASSERT_EQ(files_[i].content, Read(files_[i].path)) << files_[i].path;
  EXPECT_EQ(1u, server_.requests(bundles_[0]));
  EXPECT_EQ(5u, SingleRequests(0, 5));
  EXPECT_EQ(5u, fs_->Statistics().fetch.bundles.fallbacks);
}

TEST_F(BundleFileSystemTest, PrefetchFetchesTheBundlesOfWhatItPlans) {
  Mount(/*bundles=*/true, /*prefetch=*/true);
  // The second open speculates (a miss happened): /dir's subtree is
  // planned, and /dir/sub's files come with their bundle.
  ASSERT_EQ(files_[0].content, Read(files_[0].path));
  ASSERT_EQ(files_[1].content, Read(files_[1].path));
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::seconds(testing::kSanitized ? 60 : 10);
  while (!cache_->Contains(files_[9].digest) &&
         std::chrono::steady_clock::now() < deadline) {
    fs_->prefetch_triggers()->WaitIdle();
    fs_->prefetcher()->WaitIdle(std::chrono::milliseconds(100));
  }
  for (size_t i = 6; i < 10; ++i)
    EXPECT_TRUE(cache_->Contains(files_[i].digest)) << files_[i].path;
  EXPECT_EQ(1u, server_.requests(bundles_[1]));
  EXPECT_EQ(0u, SingleRequests(6, 10));
  server_.ResetCounters();
  for (size_t i = 6; i < 10; ++i)
    ASSERT_EQ(files_[i].content, Read(files_[i].path));
  EXPECT_EQ(0u, server_.total_requests());
}

// Without speculation (a fast link), a tree reader (tar: a long run of
// reads in listing order) that enters /walk/x gets the bundles of x's
// subtree fetched ahead: /walk/x/y is in the cache before it is read.
// A program that read only two files in order before does not.
class TreeReaderBundlesTest : public BundleFileSystemTest {
 protected:
  // Reads `run` files of /walk in order, then /walk/x/x0; true if y's
  // bundle came without a read of /walk/x/y.
  bool SubtreeFetchedAhead(size_t run) {
    Mount(/*bundles=*/true, /*prefetch=*/true, std::chrono::hours(1));
    // (The planner follows each read before the next, as it does a reader
    // that is not much faster than a catalog query.)
    for (size_t i = kWalk; i < kWalk + run; ++i) {
      EXPECT_EQ(files_[i].content, Read(files_[i].path));
      fs_->prefetch_triggers()->WaitIdle();
    }
    EXPECT_EQ(files_[kWalk + 10].content, Read(files_[kWalk + 10].path));
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::seconds(testing::kSanitized ? 20 : 3);
    while (!cache_->Contains(files_[kWalk + 15].digest) &&
           std::chrono::steady_clock::now() < deadline) {
      fs_->prefetch_triggers()->WaitIdle();
      fs_->prefetcher()->WaitIdle(std::chrono::milliseconds(100));
    }
    EXPECT_FALSE(fs_->prefetcher()->speculating());
    return server_.requests(bundles_[4]) == 1 &&
           cache_->Contains(files_[kWalk + 13].digest);
  }
};

TEST_F(TreeReaderBundlesTest, ATreeReaderGetsTheSubtreesBundlesAhead) {
  EXPECT_TRUE(SubtreeFetchedAhead(10));
  EXPECT_EQ(0u, SingleRequests(kWalk + 13, kWalk + 16));
  server_.ResetCounters();
  for (size_t i = kWalk + 13; i < kWalk + 16; ++i)
    ASSERT_EQ(files_[i].content, Read(files_[i].path));
  EXPECT_EQ(0u, server_.total_requests());
}

TEST_F(TreeReaderBundlesTest, AShortRunFetchesNothingAhead) {
  EXPECT_FALSE(SubtreeFetchedAhead(2));
  EXPECT_EQ(0u, server_.requests(bundles_[4]));
}

}  // namespace
}  // namespace cvmfs::client
