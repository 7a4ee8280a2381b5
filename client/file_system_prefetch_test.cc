// Prefetch through the client's file system, over the fixture repositories
// served from memory (fixture_mount_test.h): what a first read, a listing
// and a tree walk queue, and what they do not.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "client/fixture_mount_test.h"
#include "cvmfs/object_name.h"
#include "testing/gated_fetcher.h"

namespace cvmfs::client {
namespace {

using fixture_test::Eventually;
using fixture_test::FixtureNames;
using fixture_test::FixtureTestName;
using fixture_test::PrefetchSettled;

class FixturePrefetchTest : public fixture_test::FixtureMountTest {
 protected:
  // Prefetch time stands still unless a test advances it: what the
  // triggers decide does not depend on how fast the machine is.
  FixturePrefetchTest() { prefetch_clock_ = &clock_; }
  ManualClock clock_;

  // A program that reads files: bin/tool.sh (a small directory beside d00).
  static void ReadTool(FileSystem* fs) {
    auto bin = fs->Lookup(kRootInode, "bin");
    ASSERT_TRUE(bin.ok());
    auto tool = fs->Lookup(bin->inode, "tool.sh");
    ASSERT_TRUE(tool.ok());
    ASSERT_TRUE(ReadAll(fs, tool->inode).ok());
  }
  // Walks d01 .. d23 below d00 (listing each if `list`) and returns the
  // inode of d23/leaf.txt, 0 if a step failed.
  static uint64_t LeafOfChain(FileSystem* fs, uint64_t d00, bool list) {
    uint64_t inode = d00;
    for (int depth = 1; depth < 24; ++depth) {
      char name[8];
      std::snprintf(name, sizeof(name), "d%02d", depth);
      auto next = fs->Lookup(inode, name);
      EXPECT_TRUE(next.ok()) << name;
      if (!next.ok()) return 0;
      inode = next->inode;
      if (list) {
        EXPECT_TRUE(fs->ReadDir(inode).ok()) << name;
      }
    }
    auto leaf = fs->Lookup(inode, "leaf.txt");
    EXPECT_TRUE(leaf.ok());
    return leaf.ok() ? leaf->inode : 0;
  }
};

// Waits until the prefetch engine has nothing queued or running, and
// something was queued.
bool PrefetchIdle(FileSystem* fs) {
  if (!PrefetchSettled(fs)) return false;
  PrefetchCounters c = fs->prefetcher()->counters();
  return c.pending == 0 && c.in_flight == 0 && c.queued > 0;
}

// Reading one file of a directory fetches the others in the background;
// reading those then needs no download, and they count as used.
TEST_P(FixturePrefetchTest, FirstReadPrefetchesTheDirectory) {
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
TEST_P(FixturePrefetchTest, ListingWithoutReadsPrefetchesNothing) {
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
  // Whatever was handed to the planner thread is done.
  ASSERT_TRUE(PrefetchSettled(fs));
  EXPECT_EQ(before, s->total_requests());
  EXPECT_EQ(0u, fs->prefetcher()->counters().queued);
}

// A listing long after the last file was read is a metadata walk too: it
// prefetches nothing.
TEST_P(FixturePrefetchTest, ListingLongAfterTheLastReadPrefetchesNothing) {
  auto mount = Mount(Server());
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  ASSERT_NO_FATAL_FAILURE(ReadTool(fs));
  ASSERT_TRUE(PrefetchSettled(fs));
  const PrefetchCounters before = fs->prefetcher()->counters();
  clock_.Advance(std::chrono::seconds(3));
  auto dir = fs->Lookup(kRootInode, "d00");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(fs->ReadDir(dir->inode).ok());
  ASSERT_TRUE(PrefetchSettled(fs));
  EXPECT_EQ(before.queued, fs->prefetcher()->counters().queued);
  EXPECT_EQ(before.directories_planned,
            fs->prefetcher()->counters().directories_planned);
}

// Listing a directory while files are being read prefetches the files of
// its subtree, breadth first: a tree walker then finds even the deepest
// file in the cache.
TEST_P(FixturePrefetchTest, ListingPrefetchesTheSubtree) {
  auto server = Server();
  MemoryFetcher* s = server.get();
  auto mount = Mount(std::move(server));
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  ASSERT_NO_FATAL_FAILURE(ReadTool(fs));
  ASSERT_TRUE(PrefetchIdle(fs));
  auto dir = fs->Lookup(kRootInode, "d00");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(fs->ReadDir(dir->inode).ok());
  ASSERT_TRUE(PrefetchIdle(fs));  // the listing's plan is done
  uint64_t before = s->total_requests();
  // Counted from here: the tool's own first read may or may not have met
  // its directory's prefetch in flight, depending on thread timing.
  const uint64_t used = fs->prefetcher()->counters().used;
  const uint64_t leaf = LeafOfChain(fs, dir->inode, /*list=*/false);
  ASSERT_NE(0u, leaf);
  ASSERT_TRUE(ReadAll(fs, leaf).ok());
  EXPECT_EQ(before, s->total_requests());
  EXPECT_EQ(used + 1, fs->prefetcher()->counters().used);
}

// A tree walk lists each directory for planning about once: a directory
// that its parent's plan listed already is not planned again with its own
// subtree (d00 .. d23 is a chain: planning each level's subtree would list
// 24 + 23 + ... + 1 = 300 directories).
TEST_P(FixturePrefetchTest, TreeWalkPlansEachDirectoryOnce) {
  auto mount = Mount(Server());
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  ASSERT_NO_FATAL_FAILURE(ReadTool(fs));
  ASSERT_TRUE(PrefetchIdle(fs));
  const uint64_t before = fs->prefetcher()->counters().directories_planned;
  auto dir = fs->Lookup(kRootInode, "d00");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(fs->ReadDir(dir->inode).ok());
  auto planned = [&] {
    return fs->prefetcher()->counters().directories_planned - before;
  };
  ASSERT_TRUE(PrefetchSettled(fs));
  EXPECT_EQ(24u, planned());  // d00 and the 23 below it
  const uint64_t leaf = LeafOfChain(fs, dir->inode, /*list=*/true);
  ASSERT_NE(0u, leaf);
  ASSERT_TRUE(ReadAll(fs, leaf).ok());
  ASSERT_TRUE(PrefetchSettled(fs));
  EXPECT_EQ(24u, planned());
}

// Demand downloads that take less than speculate_after (here the in-memory
// server's microseconds against 1 s) turn speculation off: a listing
// queues nothing, and a read plans only its own directory's files, not its
// subdirectories'.
TEST_P(FixturePrefetchTest, NoSpeculationWhileMissesAreCheap) {
  MountConfig config = Config();
  config.fs.prefetch.speculate_after = std::chrono::seconds(1);
  auto mount = Mount(Server(), std::move(config));
  ASSERT_TRUE(mount.ok());
  FileSystem* fs = (*mount)->file_system();
  ASSERT_NO_FATAL_FAILURE(ReadTool(fs));
  // bin/ is planned in the background: wait for it before counting.
  ASSERT_TRUE(PrefetchSettled(fs));
  const uint64_t before = fs->prefetcher()->counters().directories_planned;
  ASSERT_EQ(1u, before);
  auto dir = fs->Lookup(kRootInode, "d00");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(fs->ReadDir(dir->inode).ok());
  auto planned = [&] {
    return fs->prefetcher()->counters().directories_planned - before;
  };
  ASSERT_TRUE(PrefetchSettled(fs));
  EXPECT_EQ(0u, planned());
  const uint64_t leaf = LeafOfChain(fs, dir->inode, /*list=*/false);
  ASSERT_NE(0u, leaf);
  ASSERT_TRUE(ReadAll(fs, leaf).ok());
  ASSERT_TRUE(PrefetchSettled(fs));
  EXPECT_EQ(1u, planned());  // d23 alone
  PrefetchCounters c = fs->prefetcher()->counters();
  EXPECT_FALSE(c.speculating);
  EXPECT_GT(c.round_trip_us, 0u);
}

// A server that answers every request `delay` late on `clock`: a slow
// link, as the mount measures it (on that clock) from its manifest
// download and the client from every small download after it.
class SlowLink : public Fetcher {
 public:
  SlowLink(std::unique_ptr<MemoryFetcher> inner, ManualClock* clock,
           std::chrono::milliseconds delay)
      : inner_(std::move(inner)), clock_(clock), delay_(delay) {}
  DownloadResult Fetch(const DownloadRequest& r, DownloadSink* s) override {
    clock_->Advance(delay_);
    return inner_->Fetch(r, s);
  }
  MemoryFetcher* server() { return inner_.get(); }

 private:
  std::unique_ptr<MemoryFetcher> inner_;
  ManualClock* clock_;
  std::chrono::milliseconds delay_;
};

// On a slow link the mount knows what a miss costs from its manifest
// download, but a warm cache needs no guessing: speculation starts with the
// first miss. A directory planned before that (without its subtree) is
// planned again with it when a program reads on there.
TEST_P(FixturePrefetchTest, SpeculationStartsWithTheFirstMissOnASlowLink) {
  MountConfig config = Config();
  config.fs.prefetch.speculate_after = std::chrono::milliseconds(10);
  // Room for the whole tree: many/ (2,900 files) comes before nested/.
  config.fs.prefetch.max_objects = 8192;
  {  // Caches the catalogs, nested/ included, and nothing else.
    auto cold = Mount(Server(), config);
    ASSERT_TRUE(cold.ok()) << cold.status().ToString();
    auto nested = (*cold)->file_system()->Lookup(kRootInode, "nested");
    ASSERT_TRUE(nested.ok());
    ASSERT_TRUE((*cold)->file_system()->Lookup(nested->inode, "sub03").ok());
  }
  ManualClock link_clock;  // the mount's: downloads take 40 ms on it
  config.clock = &link_clock;
  auto slow = std::make_unique<SlowLink>(Server(), &link_clock,
                                         std::chrono::milliseconds(40));
  SlowLink* link = slow.get();
  auto mount = Mount(std::move(slow), config);
  ASSERT_TRUE(mount.ok()) << mount.status().ToString();
  FileSystem* fs = (*mount)->file_system();
  auto nested = fs->Lookup(kRootInode, "nested");
  ASSERT_TRUE(nested.ok());
  auto sub03 = fs->Lookup(nested->inode, "sub03");
  ASSERT_TRUE(sub03.ok());  // attached from the cache: no miss
  PrefetchCounters c = fs->prefetcher()->counters();
  EXPECT_GE(c.round_trip_us, 10000u);
  EXPECT_EQ(0u, c.demand_misses);
  EXPECT_FALSE(c.speculating);
  // The first read misses: the root is planned without its subtree (the
  // trigger comes before the miss), then speculation starts.
  auto hello = fs->Lookup(kRootInode, "hello.txt");
  ASSERT_TRUE(hello.ok());
  ASSERT_TRUE(ReadAll(fs, hello->inode).ok());
  c = fs->prefetcher()->counters();
  EXPECT_GE(c.demand_misses, 1u);
  EXPECT_TRUE(c.speculating);
  // The next read in the root plans it again, with the subtree: a file
  // deep in nested/ is fetched before anyone asks. (The first plan queued
  // nothing: without speculation a window waits for reads in order.)
  ASSERT_TRUE(PrefetchSettled(fs));
  c = fs->prefetcher()->counters();
  ASSERT_GE(c.directories_planned, 1u);
  EXPECT_EQ(0u, c.queued);
  auto dash = fs->Lookup(kRootInode, "-leading-dash");
  ASSERT_TRUE(dash.ok());
  ASSERT_TRUE(ReadAll(fs, dash->inode).ok());
  auto deep = fs->Lookup(sub03->inode, "file48.txt");
  ASSERT_TRUE(deep.ok());
  ASSERT_TRUE(PrefetchIdle(fs));
  const uint64_t before = link->server()->total_requests();
  ASSERT_TRUE(ReadAll(fs, deep->inode).ok());
  EXPECT_EQ(before, link->server()->total_requests());
}

// On a fast link, readers that keep many downloads in flight by themselves
// (64 processes reading a tree) get no prefetch: it would add no
// parallelism, only work on the CPUs they need. Once they are done, reads
// trigger it again.
TEST_P(FixturePrefetchTest, ParallelReadersOnAFastLinkTriggerNothing) {
  auto gated = std::make_unique<testing::GatedFetcher>(Server());
  testing::GatedFetcher* gate = gated.get();
  MountConfig config = Config();
  config.fs.prefetch.speculate_after = std::chrono::seconds(1);  // fast link
  // clock_ says when the parallel readers' state ends.
  auto mount = Mount(std::move(gated), std::move(config));
  ASSERT_TRUE(mount.ok()) << mount.status().ToString();
  FileSystem* fs = (*mount)->file_system();
  auto lookup = [&](const std::vector<std::string>& path) -> uint64_t {
    uint64_t inode = kRootInode;
    for (const std::string& name : path) {
      auto next = fs->Lookup(inode, name);
      EXPECT_TRUE(next.ok()) << name;
      if (!next.ok()) return 0;
      inode = next->inode;
    }
    return inode;
  };
  std::vector<uint64_t> files;
  for (int i = 0; i < Prefetcher::kParallelDemand; ++i) {
    char name[8];
    std::snprintf(name, sizeof(name), "f%05d", i);
    files.push_back(lookup({"many", name}));
    ASSERT_NE(0u, files.back());
  }
  // Looked up now: nested/ is a nested catalog, downloaded while open.
  const uint64_t late = lookup({"nested", "sub00", "file00.txt"});
  const uint64_t after = lookup({"nested", "sub01", "file01.txt"});
  ASSERT_TRUE(late != 0 && after != 0);
  gate->HoldAll();
  // Releases the downloads and joins the readers, also when an assertion
  // below returns early.
  struct Readers {
    testing::GatedFetcher* gate;
    std::vector<std::thread> threads;
    void Join() {
      gate->Release();
      for (std::thread& t : threads)
        if (t.joinable()) t.join();
    }
    ~Readers() { Join(); }
  } readers{gate, {}};
  for (uint64_t inode : files)
    readers.threads.emplace_back(
        [fs, inode] { EXPECT_TRUE(ReadAll(fs, inode).ok()); });
  Eventually([fs] { return fs->prefetcher()->demand_parallel(); });
  ASSERT_TRUE(fs->prefetcher()->demand_parallel());
  // The first reads may have planned many/ before the readers were seen
  // (or not, on a busy machine): wait until the planner is done.
  fs->prefetch_triggers()->WaitIdle();
  const uint64_t planned = fs->prefetcher()->counters().directories_planned;
  // The late reader waits for its download at the gate, after its open
  // was seen (and triggered nothing).
  const uint64_t opens = fs->Statistics().total_opens;
  readers.threads.emplace_back(
      [fs, late] { EXPECT_TRUE(ReadAll(fs, late).ok()); });
  Eventually([fs, opens] { return fs->Statistics().total_opens > opens; });
  fs->prefetch_triggers()->WaitIdle();
  EXPECT_EQ(planned, fs->prefetcher()->counters().directories_planned);
  readers.Join();
  EXPECT_TRUE(fs->prefetcher()->demand_parallel());  // held a while
  clock_.Advance(Prefetcher::kParallelHold);
  EXPECT_FALSE(fs->prefetcher()->demand_parallel());
  ASSERT_TRUE(ReadAll(fs, after).ok());
  fs->prefetch_triggers()->WaitIdle();
  EXPECT_GT(fs->prefetcher()->counters().directories_planned, planned);
}

// Content objects requested so far: neither catalogs (C) nor
// certificates (X).
size_t ContentRequests(const MemoryFetcher& s) {
  size_t n = 0;
  for (const DownloadRequest& r : s.request_log()) {
    const std::string& p = r.url_path;
    n += p.rfind("data/", 0) == 0 && p.back() != 'C' && p.back() != 'X';
  }
  return n;
}

// Reads 1 MiB of large/big.dat at `start` in the kernel's 128 KiB pieces;
// the content objects requested, once the fetches ahead (if any) are done.
// 0 if big.dat is not chunked: in sha1-zlib it is two chunks (0-10146618,
// then 2.4 MB), in shake128-none one 6 MiB object.
size_t ChunksFetchedForARecord(FileSystem* fs, const MemoryFetcher& s,
                               uint64_t start) {
  auto large = fs->Lookup(kRootInode, "large");
  EXPECT_TRUE(large.ok());
  if (!large.ok()) return 0;
  auto big = fs->Lookup(large->inode, "big.dat");
  EXPECT_TRUE(big.ok());
  if (!big.ok()) return 0;
  bool keep = false;
  auto file = fs->Open(big->inode, &keep);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  if (!file.ok()) return 0;
  if ((*file)->num_chunks() < 2) {
    fs->Release(*file);
    return 0;
  }
  std::vector<char> buf(128 << 10);
  for (uint64_t off = start; off < start + (1 << 20); off += buf.size()) {
    auto n = fs->Read(*file, buf.data(), buf.size(), static_cast<off_t>(off));
    EXPECT_TRUE(n.ok()) << n.status().ToString();
  }
  EXPECT_TRUE(PrefetchSettled(fs));  // the fetches ahead are done
  fs->Release(*file);
  return ContentRequests(s);
}

// A random 1 MiB record in the first chunk fetches that chunk only (it
// used to fetch the next one too: the record's pieces were in order).
TEST_P(FixturePrefetchTest, ARandomRecordFetchesNoChunkAhead) {
  auto server = Server();
  MemoryFetcher* s = server.get();
  auto mount = Mount(std::move(server));
  ASSERT_TRUE(mount.ok());
  const size_t fetched =
      ChunksFetchedForARecord((*mount)->file_system(), *s, 4 << 20);
  if (fetched == 0) GTEST_SKIP() << "large/big.dat is not chunked here";
  EXPECT_EQ(1u, fetched);
}

// Reading from the start of the file fetches the next chunk ahead.
TEST_P(FixturePrefetchTest, AReadFromTheStartFetchesTheNextChunk) {
  auto server = Server();
  MemoryFetcher* s = server.get();
  auto mount = Mount(std::move(server));
  ASSERT_TRUE(mount.ok());
  const size_t fetched =
      ChunksFetchedForARecord((*mount)->file_system(), *s, 0);
  if (fetched == 0) GTEST_SKIP() << "large/big.dat is not chunked here";
  EXPECT_EQ(2u, fetched);
}

TEST_P(FixturePrefetchTest, PrefetchOffFetchesNothingAhead) {
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
  ASSERT_TRUE(PrefetchSettled(fs));
  EXPECT_LE(s->total_requests(), before + 1);
  EXPECT_FALSE(fs->prefetcher()->counters().enabled);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixturePrefetchTest, FixtureNames(),
                         FixtureTestName);

}  // namespace
}  // namespace cvmfs::client
