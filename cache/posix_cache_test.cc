#include "cache/posix_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <random>
#include <thread>

#include "cache/cache_layout.h"
#include "cvmfs/file_util.h"
#include "cvmfs/sqlite_db.h"
#include "testing/test_env.h"

namespace cache {
namespace {

using cvmfs::Digest;
using cvmfs::HashAlgorithm;
using Code = cvmfs::Status::Code;

Digest IdOf(const std::string& content,
            HashAlgorithm algo = HashAlgorithm::kSha1) {
  return cvmfs::HashString(algo, content);
}

std::string Content(int n, size_t size) {
  std::string s = "object " + std::to_string(n) + ":";
  s.resize(size, static_cast<char>('a' + n % 26));
  return s;
}

cvmfs::Result<CacheHandle> Store(PosixCache* cache, const std::string& content,
                                 ObjectType type = ObjectType::kRegular,
                                 const std::string& description = "/file") {
  CVMFS_ASSIGN_OR_RETURN(auto txn,
                         cache->StartTxn(IdOf(content), type, description));
  // Two writes, to exercise appending.
  size_t half = content.size() / 2;
  CVMFS_RETURN_IF_ERROR(txn->Write(content.data(), half));
  CVMFS_RETURN_IF_ERROR(
      txn->Write(content.data() + half, content.size() - half));
  return txn->Commit();
}

// Stores and closes; fails the test on error.
void Put(PosixCache* cache, const std::string& content,
         ObjectType type = ObjectType::kRegular,
         const std::string& description = "/file") {
  auto handle = Store(cache, content, type, description);
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
}

std::string ReadAll(const CacheHandle& handle) {
  std::string out(handle.size(), '\0');
  ssize_t n = ::pread(handle.fd(), out.data(), out.size(), 0);
  EXPECT_EQ(n, static_cast<ssize_t>(out.size()));
  return out;
}

std::vector<std::string> ListedHashes(const PosixCache& cache,
                                      bool pinned_only = false) {
  std::vector<std::string> out;
  for (const auto& e : cache.List(pinned_only)) out.push_back(e.hash);
  return out;
}

class PosixCacheTest : public ::testing::Test {
 protected:
  std::unique_ptr<PosixCache> OpenCache(int64_t limit = 1000) {
    auto cache = PosixCache::Open({dir_, limit});
    EXPECT_TRUE(cache.ok()) << cache.status().ToString();
    return cache.ok() ? std::move(cache).value() : nullptr;
  }
  std::string PathOf(const std::string& content) const {
    return ObjectPath(dir_, IdOf(content));
  }
  std::vector<std::string> TxnFiles() const {
    return *cvmfs::ListDirectory(dir_ + "/txn");
  }

  cvmfs::testing::TempDir tmp_;
  std::string dir_ = tmp_.Sub("shared");
};

TEST_F(PosixCacheTest, CreatesTheCvmfsLayout) {
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  for (int i = 0; i <= 0xff; ++i)
    EXPECT_TRUE(cvmfs::IsDirectory(dir_ + "/" + BucketName(i))) << i;
  EXPECT_TRUE(cvmfs::IsDirectory(dir_ + "/00"));
  EXPECT_TRUE(cvmfs::IsDirectory(dir_ + "/ff"));
  EXPECT_TRUE(cvmfs::IsDirectory(dir_ + "/txn"));
  EXPECT_TRUE(cvmfs::IsDirectory(dir_ + "/quarantaine"));
  EXPECT_TRUE(cvmfs::PathExists(dir_ + "/lock_cachedb"));
  EXPECT_TRUE(cvmfs::PathExists(dir_ + "/cachemgr.running"));
  cache.reset();
  EXPECT_FALSE(cvmfs::PathExists(dir_ + "/cachemgr.running"));

  auto db = cvmfs::SqliteDb::Open(dir_ + "/cachedb",
                                  cvmfs::SqliteDb::OpenMode::kReadWrite);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto schema = cvmfs::ReadProperty(db->get(), "schema");
  ASSERT_TRUE(schema.ok());
  EXPECT_EQ(schema->value_or(""), "1.0");
  EXPECT_TRUE((*db)
                  ->Prepare("SELECT sha1, size, acseq, path, type, pinned "
                            "FROM cache_catalog;")
                  .ok());
  EXPECT_EQ(*(*db)->QueryInt64("SELECT count(*) FROM sqlite_master WHERE "
                               "name='idx_cache_catalog_acseq';"),
            1);
}

// Private, as CVMFS's cache: the directory 0700 (also one made 0755
// before), the list of what was read (cachedb) 0600.
TEST_F(PosixCacheTest, CacheIsPrivateToItsUser) {
  ASSERT_TRUE(cvmfs::MakeDirs(dir_, 0755).ok());
  ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  struct stat st;
  ASSERT_EQ(::stat(dir_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((dir_ + "/00").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u);
  ASSERT_EQ(::stat((dir_ + "/cachedb").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// Root around mount(2) (cvmfs/credentials.h): what is stored then belongs
// to CVMFS_USER all the same, or the user could not read it afterwards.
TEST_F(PosixCacheTest, ObjectsStoredAsRootBelongToTheOwner) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  CacheOptions options{dir_, 1000};
  options.owner = cvmfs::UserIds{"nobody", 65534, 65534};
  auto cache = PosixCache::Open(options);
  ASSERT_TRUE(cache.ok()) << cache.status().ToString();
  Put(cache->get(), "stored as root");
  struct stat st;
  ASSERT_EQ(::stat(PathOf("stored as root").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// CVMFS_ALIEN_CACHE: one unmanaged directory that caches of several nodes
// write and read at once; each sees what the others stored, whole, and
// the directory keeps the mode the site gave it.
TEST_F(PosixCacheTest, AlienCacheIsSharedAndLeftAsTheSiteMadeIt) {
  ASSERT_TRUE(cvmfs::MakeDirs(dir_, 0770).ok());
  ASSERT_EQ(::chmod(dir_.c_str(), 0770), 0);
  CacheOptions alien{dir_, -1};
  alien.alien = true;
  auto node1 = PosixCache::Open(alien);
  auto node2 = PosixCache::Open(alien);
  ASSERT_TRUE(node1.ok()) << node1.status().ToString();
  ASSERT_TRUE(node2.ok()) << node2.status().ToString();
  struct stat st;
  ASSERT_EQ(::stat(dir_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0770u);
  EXPECT_FALSE(cvmfs::PathExists(dir_ + "/cachedb"));
  EXPECT_FALSE(cvmfs::PathExists(dir_ + "/lock_cachedb"));
  const std::string a = Content(1, 5000), b = Content(2, 7000);
  Put(node1->get(), a);
  Put(node2->get(), b);
  Put(node2->get(), a);  // stored twice: the rename replaces it whole
  for (PosixCache* node : {node1->get(), node2->get()}) {
    for (const std::string& c : {a, b}) {
      auto h = node->Open(IdOf(c));
      ASSERT_TRUE(h.ok()) << h.status().ToString();
      EXPECT_EQ(c, ReadAll(*h));
    }
  }
  auto txn = cvmfs::ListDirectory(dir_ + "/txn");
  ASSERT_TRUE(txn.ok());
  EXPECT_TRUE(txn->empty());
  CacheOptions managed{dir_, 1 << 20};
  managed.alien = true;
  EXPECT_FALSE(PosixCache::Open(managed).ok());
}

// user.ncleanup24: a managed cache counts its cleanups of the last day;
// an unmanaged one cannot tell (-1).
TEST_F(PosixCacheTest, CountsCleanupsOfTheLastDay) {
  {
    auto cache = PosixCache::Open(CacheOptions{dir_ + "-unmanaged", -1});
    ASSERT_TRUE(cache.ok());
    EXPECT_EQ(-1, (*cache)->usage().cleanups_24h);
  }
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(0, cache->usage().cleanups_24h);
  Put(cache.get(), Content(1, 300));
  ASSERT_TRUE(cache->Cleanup(0).ok());
  EXPECT_EQ(1, cache->usage().cleanups_24h);
  ASSERT_TRUE(cache->Cleanup(0).ok());  // nothing left to remove
  EXPECT_EQ(1, cache->usage().cleanups_24h);
}

TEST_F(PosixCacheTest, RejectsInvalidLimits) {
  for (const CacheOptions& bad :
       {CacheOptions{dir_, 0}, CacheOptions{dir_, -2}, CacheOptions{"", 100}}) {
    EXPECT_EQ(PosixCache::Open(bad).status().code(), Code::kInvalidArgument);
  }
  EXPECT_FALSE(cvmfs::PathExists(dir_));
}

TEST_F(PosixCacheTest, StoresAndOpensObjectsUnderCvmfsNames) {
  auto cache = OpenCache(1 << 20);
  for (HashAlgorithm algo : {HashAlgorithm::kSha1, HashAlgorithm::kRmd160,
                             HashAlgorithm::kShake128}) {
    std::string content = Content(int(algo), 1000);
    Digest id = IdOf(content, algo);
    auto txn = cache->StartTxn(id, ObjectType::kRegular, "/x");
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE((*txn)->Write(content.data(), content.size()).ok());
    auto committed = (*txn)->Commit();
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    EXPECT_EQ(ReadAll(*committed), content);

    std::string text = id.ToString();  // e.g. "ab...-rmd160"
    std::string path = dir_ + "/" + text.substr(0, 2) + "/" + text.substr(2);
    struct stat st;
    ASSERT_EQ(::stat(path.c_str(), &st), 0) << path;
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_EQ(uint64_t(st.st_size), content.size());

    auto opened = cache->Open(id);
    ASSERT_TRUE(opened.ok());
    EXPECT_EQ(opened->size(), content.size());
    EXPECT_EQ(ReadAll(*opened), content);
  }
  EXPECT_TRUE(TxnFiles().empty());
  EXPECT_EQ(cache->Open(IdOf("absent")).status().code(), Code::kNotFound);
  auto usage = cache->usage();
  EXPECT_EQ(usage.size, 3000u);
  EXPECT_EQ(usage.hits, 3u);
  EXPECT_EQ(usage.misses, 1u);
}

TEST_F(PosixCacheTest, AbortedTransactionLeavesNothing) {
  auto cache = OpenCache();
  std::string content = Content(1, 100);
  {
    auto txn = cache->StartTxn(IdOf(content), ObjectType::kRegular, "/a");
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE((*txn)->Write(content.data(), content.size()).ok());
    EXPECT_EQ(TxnFiles().size(), 1u);
  }
  EXPECT_TRUE(TxnFiles().empty());
  EXPECT_FALSE(cache->Contains(IdOf(content)));
  EXPECT_FALSE(cvmfs::PathExists(PathOf(content)));
  // Larger than half the limit: the write fails and poisons the commit.
  std::string big = Content(2, 501);
  auto txn = cache->StartTxn(IdOf(big), ObjectType::kRegular, "/big");
  ASSERT_TRUE(txn.ok());
  EXPECT_EQ((*txn)->Write(big.data(), big.size()).code(), Code::kNoSpace);
  EXPECT_EQ((*txn)->Commit().status().code(), Code::kNoSpace);
  EXPECT_EQ((*txn)->Commit().status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(TxnFiles().empty());
  EXPECT_EQ(cache->usage().size, 0u);
}

TEST_F(PosixCacheTest, EvictsLeastRecentlyUsedToHalfTheLimit) {
  auto cache = OpenCache(1000);
  std::vector<std::string> c;
  for (int i = 0; i < 4; ++i) {
    c.push_back(Content(i, 250));
    Put(cache.get(), c[i]);
  }
  ASSERT_TRUE(cache->Open(IdOf(c[0])).ok());  // 0 becomes most recent
  Put(cache.get(), Content(9, 100));          // 1100 > 1000: clean to 500
  EXPECT_FALSE(cvmfs::PathExists(PathOf(c[1])));
  EXPECT_FALSE(cvmfs::PathExists(PathOf(c[2])));
  EXPECT_TRUE(cvmfs::PathExists(PathOf(c[3])));
  EXPECT_TRUE(cvmfs::PathExists(PathOf(c[0])));
  EXPECT_EQ(
      ListedHashes(*cache),
      (std::vector<std::string>{IdOf(c[3]).ToString(), IdOf(c[0]).ToString(),
                                IdOf(Content(9, 100)).ToString()}));
  auto usage = cache->usage();
  EXPECT_EQ(usage.size, 600u);
  EXPECT_EQ(usage.evictions, 2u);
  // Lowering the limit cleans up to the new threshold (150).
  ASSERT_TRUE(cache->SetLimit(400).ok());
  EXPECT_EQ(cache->usage().size, 100u);
  EXPECT_EQ(cache->SetLimit(0).code(), Code::kInvalidArgument);
}

// Prefetched objects (Access::kSpeculative) are evicted before used ones
// until a reader opens them, also after a restart (the volatile bit is kept
// in cachedb), and a prefetcher's open is not counted as a hit.
TEST_F(PosixCacheTest, UnusedPrefetchedObjectsAreEvictedFirst) {
  std::vector<std::string> c = {Content(0, 200), Content(1, 200),
                                Content(2, 200), Content(3, 200)};
  auto store = [&](PosixCache* cache, const std::string& content,
                   cache::Access access) {
    auto txn =
        cache->StartTxn(IdOf(content), ObjectType::kRegular, "/p", access);
    ASSERT_TRUE(txn.ok()) << txn.status().ToString();
    ASSERT_TRUE((*txn)->Write(content.data(), content.size()).ok());
    ASSERT_TRUE((*txn)->Commit().ok());
  };
  {
    auto cache = OpenCache(1000);
    Put(cache.get(), c[0]);
    store(cache.get(), c[1], cache::Access::kSpeculative);
    store(cache.get(), c[2], cache::Access::kSpeculative);
    Put(cache.get(), c[3]);
    ASSERT_TRUE(cache->Open(IdOf(c[1]), cache::Access::kSpeculative).ok());
    EXPECT_EQ(cache->usage().hits, 0u);
    ASSERT_TRUE(cache->Open(IdOf(c[2])).ok());  // a reader: used now
    EXPECT_EQ(cache->usage().hits, 1u);
  }
  auto cache = OpenCache(1000);
  EXPECT_EQ(
      ListedHashes(*cache),
      (std::vector<std::string>{IdOf(c[1]).ToString(), IdOf(c[0]).ToString(),
                                IdOf(c[3]).ToString(), IdOf(c[2]).ToString()}));
  Put(cache.get(), Content(9, 300));  // 1100 > 1000: clean to 500
  EXPECT_FALSE(cvmfs::PathExists(PathOf(c[1])));
  EXPECT_FALSE(cvmfs::PathExists(PathOf(c[0])));
  EXPECT_TRUE(cvmfs::PathExists(PathOf(c[2])));
}

TEST_F(PosixCacheTest, PinningRules) {
  auto cache = OpenCache(1000);
  std::string a = Content(1, 300), b = Content(2, 300), c = Content(3, 100);
  EXPECT_EQ(cache->Pin(IdOf(a)).code(), Code::kNotFound);
  Put(cache.get(), a, ObjectType::kCatalog, "/");
  Put(cache.get(), b, ObjectType::kCatalog, "/sub");
  Put(cache.get(), c);
  ASSERT_TRUE(cache->Pin(IdOf(a)).ok());
  EXPECT_EQ(cache->Pin(IdOf(b)).code(), Code::kNoSpace);  // 600 > 500
  EXPECT_EQ(cache->usage().pinned, 300u);
  EXPECT_EQ(ListedHashes(*cache, true),
            std::vector<std::string>{IdOf(a).ToString()});
  EXPECT_EQ(cache->Evict(IdOf(a)).code(), Code::kBusy);
  EXPECT_EQ(cache->Cleanup(0).code(), Code::kBusy);
  EXPECT_TRUE(cvmfs::PathExists(PathOf(a)));
  EXPECT_FALSE(cvmfs::PathExists(PathOf(b)));
  EXPECT_EQ(cache->usage().size, 300u);
  ASSERT_TRUE(cache->Unpin(IdOf(a)).ok());
  EXPECT_EQ(cache->Unpin(IdOf(a)).code(), Code::kInvalidArgument);
  EXPECT_TRUE(cache->Cleanup(0).ok());
  EXPECT_FALSE(cvmfs::PathExists(PathOf(a)));
}

TEST_F(PosixCacheTest, OpenHandlesBlockEviction) {
  auto cache = OpenCache(1000);
  std::string a = Content(1, 200);
  auto handle = Store(cache.get(), a);
  ASSERT_TRUE(handle.ok());
  EXPECT_EQ(cache->Evict(IdOf(a)).code(), Code::kBusy);
  EXPECT_EQ(cache->Cleanup(0).code(), Code::kBusy);
  EXPECT_TRUE(cvmfs::PathExists(PathOf(a)));
  CacheHandle moved = std::move(handle.value());
  EXPECT_EQ(cache->Evict(IdOf(a)).code(), Code::kBusy);
  moved.Reset();
  EXPECT_TRUE(cache->Evict(IdOf(a)).ok());
  EXPECT_FALSE(cvmfs::PathExists(PathOf(a)));
  EXPECT_EQ(cache->Evict(IdOf(a)).code(), Code::kNotFound);
}

TEST_F(PosixCacheTest, NoSpaceWhenLockedDataFillsTheCache) {
  auto cache = OpenCache(1000);
  std::string p1 = Content(1, 250), p2 = Content(2, 250), o = Content(3, 400);
  std::string free = Content(4, 50);
  Put(cache.get(), p1);
  Put(cache.get(), p2);
  ASSERT_TRUE(cache->Pin(IdOf(p1)).ok());
  ASSERT_TRUE(cache->Pin(IdOf(p2)).ok());
  auto open = Store(cache.get(), o);
  ASSERT_TRUE(open.ok());
  Put(cache.get(), free);
  // 900 bytes locked: 150 more cannot fit, and nothing is evicted trying.
  auto full = Store(cache.get(), Content(5, 150));
  EXPECT_EQ(full.status().code(), Code::kNoSpace);
  EXPECT_NE(full.status().message().find(dir_), std::string::npos);
  EXPECT_TRUE(cache->Contains(IdOf(free)));
  EXPECT_TRUE(TxnFiles().empty());
  EXPECT_FALSE(cvmfs::PathExists(PathOf(Content(5, 150))));
  // 100 fit once the unlocked object goes.
  Put(cache.get(), Content(6, 100));
  EXPECT_FALSE(cache->Contains(IdOf(free)));
  EXPECT_EQ(cache->usage().size, 1000u);
}

TEST_F(PosixCacheTest, ReadAheadLeavesTheQuotaAlone) {
  auto cache = OpenCache();
  std::vector<std::string> c = {Content(1, 10), Content(2, 20), Content(3, 30)};
  for (const std::string& content : c) Put(cache.get(), content);
  const std::vector<std::string> order = ListedHashes(*cache);
  auto size = cache->ReadAhead(IdOf(c[0]));
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  EXPECT_EQ(*size, 10u);
  // Not used (the LRU order stands) and not held open (evictable).
  EXPECT_EQ(ListedHashes(*cache), order);
  EXPECT_TRUE(cache->Evict(IdOf(c[0])).ok());
  EXPECT_EQ(cache->ReadAhead(IdOf(c[0])).status().code(), Code::kNotFound);
  EXPECT_EQ(cache->ReadAhead(IdOf(Content(4, 40))).status().code(),
            Code::kNotFound);
  EXPECT_EQ(cache->usage().hits + cache->usage().misses, 0u);
}

TEST_F(PosixCacheTest, PersistsAcrossRestartsKeepingLruOrder) {
  std::vector<std::string> c = {Content(1, 10), Content(2, 20), Content(3, 30)};
  {
    auto cache = OpenCache();
    Put(cache.get(), c[0], ObjectType::kCatalog, "/");
    Put(cache.get(), c[1], ObjectType::kRegular, "/b");
    Put(cache.get(), c[2], ObjectType::kRegular, "/c");
    ASSERT_TRUE(cache->Open(IdOf(c[0])).ok());
    ASSERT_TRUE(cache->Pin(IdOf(c[0])).ok());
  }
  auto cache = OpenCache();
  auto list = cache->List(false);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].hash, IdOf(c[1]).ToString());
  EXPECT_EQ(list[1].hash, IdOf(c[2]).ToString());
  EXPECT_EQ(list[2].hash, IdOf(c[0]).ToString());
  EXPECT_EQ(list[2].type, ObjectType::kCatalog);
  EXPECT_EQ(list[2].description, "/");
  EXPECT_EQ(list[2].size, 10u);
  EXPECT_FALSE(list[2].pinned);  // pins belong to the process that took them
  EXPECT_EQ(list[0].description, "/b");
  EXPECT_EQ(cache->usage().size, 60u);
}

TEST_F(PosixCacheTest, CleanShutdownLeavesCachedbExact) {
  std::vector<PosixCache::Entry> before;
  {
    auto cache = OpenCache(1 << 20);
    for (int i = 0; i < 300; ++i) Put(cache.get(), Content(i, 100 + i));
    for (int i = 0; i < 300; i += 7)
      ASSERT_TRUE(cache->Open(IdOf(Content(i, 100 + i))).ok());
    for (int i = 1; i < 300; i += 5)
      ASSERT_TRUE(cache->Evict(IdOf(Content(i, 100 + i))).ok());
    ASSERT_TRUE(cache->Pin(IdOf(Content(0, 100))).ok());
    before = cache->List(false);
  }
  auto db = cvmfs::SqliteDb::Open(dir_ + "/cachedb",
                                  cvmfs::SqliteDb::OpenMode::kReadWrite);
  ASSERT_TRUE(db.ok());
  auto stmt = (*db)->Prepare(
      "SELECT sha1, size, path, type, pinned FROM cache_catalog "
      "ORDER BY acseq;");
  ASSERT_TRUE(stmt.ok());
  size_t i = 0;
  while (*stmt->Step()) {
    ASSERT_LT(i, before.size());
    EXPECT_EQ(stmt->ColumnText(0), before[i].hash);
    EXPECT_EQ(uint64_t(stmt->ColumnInt64(1)), before[i].size);
    EXPECT_EQ(stmt->ColumnText(2), before[i].description);
    EXPECT_EQ(stmt->ColumnInt64(3), int(before[i].type));
    EXPECT_EQ(stmt->ColumnInt64(4), before[i].pinned ? 1 : 0);
    ++i;
  }
  EXPECT_EQ(i, before.size());
}

TEST_F(PosixCacheTest, RebuildsAMissingOrCorruptCachedb) {
  std::vector<std::string> c = {Content(1, 10), Content(2, 20)};
  {
    auto cache = OpenCache();
    for (const auto& s : c) Put(cache.get(), s, ObjectType::kCatalog, "/x");
  }
  auto expect_rebuilt = [&](const char* what) {
    SCOPED_TRACE(what);
    auto cache = OpenCache();
    ASSERT_NE(cache, nullptr);
    auto list = cache->List(false);
    ASSERT_EQ(list.size(), 2u);
    for (const auto& e : list)
      EXPECT_EQ(e.description, "unknown (automatic rebuild)");
    EXPECT_EQ(cache->usage().size, 30u);
    auto h = cache->Open(IdOf(c[1]));
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(ReadAll(*h), c[1]);
  };
  ASSERT_EQ(::unlink((dir_ + "/cachedb").c_str()), 0);
  expect_rebuilt("deleted");
  ASSERT_TRUE(
      cvmfs::WriteFileAtomic(dir_ + "/cachedb", std::string(4096, 'x')).ok());
  expect_rebuilt("garbage");
  {
    auto db = cvmfs::SqliteDb::Open(dir_ + "/cachedb",
                                    cvmfs::SqliteDb::OpenMode::kReadWrite);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(cvmfs::WriteProperty(db->get(), "schema", "2.0").ok());
  }
  expect_rebuilt("wrong schema");
  {
    auto db = cvmfs::SqliteDb::Open(dir_ + "/cachedb",
                                    cvmfs::SqliteDb::OpenMode::kReadWrite);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("DROP TABLE cache_catalog;").ok());
  }
  expect_rebuilt("table missing");
}

TEST_F(PosixCacheTest, NoticesFilesChangedBehindItsBack) {
  std::string gone = Content(1, 10), kept = Content(2, 20);
  std::string alien = Content(3, 30);
  {
    auto cache = OpenCache();
    Put(cache.get(), gone);
    Put(cache.get(), kept, ObjectType::kRegular, "/kept");
  }
  ASSERT_EQ(::unlink(PathOf(gone).c_str()), 0);
  ASSERT_TRUE(cvmfs::WriteFileAtomic(PathOf(alien), alien, 0600).ok());
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir_ + "/txn/fetchLEFTOV", "x").ok());
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir_ + "/00/not-an-object", "x").ok());
  {
    auto cache = OpenCache();
    EXPECT_FALSE(cache->Contains(IdOf(gone)));
    EXPECT_TRUE(cache->Contains(IdOf(alien)));
    auto list = cache->List(false);
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].hash, IdOf(alien).ToString());  // unknown files go first
    EXPECT_EQ(list[1].description, "/kept");          // known keep their row
    EXPECT_EQ(cache->usage().size, 50u);
    EXPECT_TRUE(TxnFiles().empty());
    EXPECT_TRUE(cvmfs::PathExists(dir_ + "/00/not-an-object"));
    // Deleted while running: the next Open() notices and forgets it.
    ASSERT_EQ(::unlink(PathOf(kept).c_str()), 0);
    EXPECT_EQ(cache->Open(IdOf(kept)).status().code(), Code::kNotFound);
    EXPECT_FALSE(cache->Contains(IdOf(kept)));
    EXPECT_EQ(cache->usage().size, 30u);
  }
}

TEST_F(PosixCacheTest, AfterACrashSizesAreReadAgain) {
  std::string a = Content(1, 100);
  {
    auto cache = OpenCache();
    Put(cache.get(), a);
  }
  // A crash: the marker stays and a file changed size unnoticed.
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir_ + "/cachemgr.running", "").ok());
  ASSERT_TRUE(cvmfs::WriteFileAtomic(PathOf(a), a + a, 0600).ok());
  auto cache = OpenCache();
  EXPECT_EQ(cache->usage().size, 200u);
}

TEST_F(PosixCacheTest, CleansUpWhenReopenedWithASmallerLimit) {
  {
    auto cache = OpenCache(1000);
    for (int i = 0; i < 4; ++i) Put(cache.get(), Content(i, 200));
  }
  auto cache = OpenCache(500);
  EXPECT_EQ(cache->usage().size, 200u);
  EXPECT_TRUE(cache->Contains(IdOf(Content(3, 200))));
  EXPECT_FALSE(cvmfs::PathExists(PathOf(Content(0, 200))));
}

TEST_F(PosixCacheTest, SecondOwnerGetsBusy) {
  auto first = OpenCache();
  ASSERT_NE(first, nullptr);
  auto second = PosixCache::Open({dir_, 1000});
  ASSERT_EQ(second.status().code(), Code::kBusy);
  EXPECT_NE(second.status().message().find(dir_), std::string::npos);
  EXPECT_NE(second.status().message().find("CVMFS_SHARED_CACHE=no"),
            std::string::npos);
  first.reset();
  EXPECT_NE(OpenCache(), nullptr);
}

TEST_F(PosixCacheTest, UnmanagedCacheHasNoQuota) {
  std::string a = Content(1, 5000);
  {
    auto cache = OpenCache(-1);
    auto other = OpenCache(-1);  // no lock: unmanaged caches may be shared
    ASSERT_NE(other, nullptr);
    Put(cache.get(), a);
    EXPECT_TRUE(other->Contains(IdOf(a)));
    EXPECT_EQ(cache->Cleanup(0).code(), Code::kNotSupported);
    EXPECT_EQ(cache->SetLimit(10).code(), Code::kNotSupported);
    EXPECT_EQ(cache->usage().limit, UINT64_MAX);
  }
  EXPECT_FALSE(cvmfs::PathExists(dir_ + "/cachedb"));
  auto cache = OpenCache(-1);
  auto h = cache->Open(IdOf(a));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(ReadAll(*h), a);
  EXPECT_EQ(cache->Evict(IdOf(a)).code(), Code::kBusy);
  h->Reset();
  EXPECT_TRUE(cache->Evict(IdOf(a)).ok());
  EXPECT_FALSE(cvmfs::PathExists(PathOf(a)));
}

TEST_F(PosixCacheTest, BreadcrumbRoundTrip) {
  auto cache = OpenCache();
  auto none = cache->LoadBreadcrumb("atlas.cern.ch");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  PosixCache::Breadcrumb crumb;
  crumb.root_hash = IdOf("root catalog", HashAlgorithm::kShake128);
  crumb.timestamp = 1700000000;
  crumb.revision = 42;
  ASSERT_TRUE(cache->StoreBreadcrumb("atlas.cern.ch", crumb).ok());
  auto text = cvmfs::ReadFile(dir_ + "/cvmfschecksum.atlas.cern.ch");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, crumb.root_hash.ToString() + "T1700000000R42");
  auto loaded = cache->LoadBreadcrumb("atlas.cern.ch");
  ASSERT_TRUE(loaded.ok() && loaded->has_value());
  EXPECT_TRUE(**loaded == crumb);
  EXPECT_EQ(cache->StoreBreadcrumb("../x", crumb).code(),
            Code::kInvalidArgument);
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir_ + "/cvmfschecksum.bad", "zzT1").ok());
  EXPECT_EQ(cache->LoadBreadcrumb("bad").status().code(), Code::kCorruption);
}

TEST(BreadcrumbTest, ParsesOldFormats) {
  Digest h = IdOf("x");
  auto no_revision = ParseBreadcrumb(h.ToString() + "T123\n");
  ASSERT_TRUE(no_revision.ok());
  EXPECT_EQ(no_revision->timestamp, 123u);
  EXPECT_EQ(no_revision->revision, 0u);
  auto hash_only = ParseBreadcrumb(h.ToString());
  ASSERT_TRUE(hash_only.ok());
  EXPECT_EQ(hash_only->root_hash, h);
  EXPECT_FALSE(ParseBreadcrumb(h.ToString() + "TxR1").ok());
  EXPECT_FALSE(ParseBreadcrumb(h.ToString() + "T1R").ok());
  EXPECT_FALSE(ParseBreadcrumb("").ok());
}

TEST(CacheLayoutTest, ObjectNamesRoundTrip) {
  Digest rmd = IdOf("x", HashAlgorithm::kRmd160);
  std::string name = ObjectName(rmd);
  EXPECT_EQ(name.substr(0, 3), rmd.Hex().substr(0, 2) + "/");
  EXPECT_EQ(name.substr(name.size() - 7), "-rmd160");
  EXPECT_EQ(ParseObjectName(name.substr(0, 2), name.substr(3)), rmd);
  std::string sha = IdOf("y").ToString();
  EXPECT_EQ(ParseObjectName(sha.substr(0, 2), sha.substr(2)), IdOf("y"));
  EXPECT_FALSE(ParseObjectName(sha.substr(0, 2), sha.substr(2) + "C"));
  EXPECT_FALSE(ParseObjectName("ab", "cd"));
  EXPECT_FALSE(ParseObjectName("AB", sha.substr(2)));
}

// 8 threads store and open overlapping objects while evictions happen.
TEST_F(PosixCacheTest, ConcurrentStoresAndOpens) {
  constexpr int kObjects = 48, kThreads = 8, kRounds = 400;
  std::vector<std::string> contents;
  for (int i = 0; i < kObjects; ++i)
    contents.push_back(Content(i, 100 + 37 * i));
  auto cache = OpenCache(20000);  // about half the objects fit
  std::atomic<int> failures{0};
  auto worker = [&](int t) {
    std::mt19937 rng(t);
    for (int r = 0; r < kRounds; ++r) {
      const std::string& c = contents[rng() % kObjects];
      auto h = cache->Open(IdOf(c));
      if (!h.ok()) {
        if (!h.status().IsNotFound()) ++failures;
        h = Store(cache.get(), c);
        // NoSpace is legitimate while other threads hold many objects open.
        if (!h.ok() && h.status().code() != Code::kNoSpace) ++failures;
      }
      if (h.ok() && ReadAll(*h) != c) ++failures;
      // Pin/unpin pairs race with evictions; either may lose (NotFound).
      if (rng() % 16 == 0 && cache->Pin(IdOf(c)).ok()) {
        if (!cache->Unpin(IdOf(c)).ok()) ++failures;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_TRUE(TxnFiles().empty());
  // The quota and the files agree.
  uint64_t listed = 0;
  for (const auto& e : cache->List(false)) {
    auto id = Digest::Parse(e.hash);
    struct stat st;
    ASSERT_EQ(::stat(ObjectPath(dir_, *id).c_str(), &st), 0) << e.hash;
    EXPECT_EQ(uint64_t(st.st_size), e.size);
    listed += e.size;
  }
  EXPECT_EQ(listed, cache->usage().size);
  EXPECT_LE(listed, 20000u);
  EXPECT_GT(cache->usage().evictions, 0u);
  size_t files = 0;
  for (int i = 0; i <= 0xff; ++i)
    files += cvmfs::ListDirectory(dir_ + "/" + BucketName(i))->size();
  EXPECT_EQ(files, cache->List(false).size());
}

}  // namespace
}  // namespace cache
