// Recorded prefetch lists end to end without FUSE: a workload's opens are
// recorded on one mount, stored with the publisher library in a new
// revision, and a second mount with an empty cache fetches every listed
// object once the list's first file is opened, before the workload reads
// them. Lists naming missing objects do not break reads; repositories
// without lists behave as before.
#include "client/prefetch/prefetch_list_loader.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <set>
#include <thread>

#include "client/open_file.h"
#include "client/repository_mount.h"
#include "client/talk/talk_commands.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "cvmfs/object_store.h"
#include "publisher/prefetch_lists.h"
#include "publisher/repository.h"
#include "publisher/tar_ingest.h"
#include "testing/storage_fetcher.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

using testing::StorageFetcher;

class PrefetchListTest : public ::testing::Test {
 protected:
  const std::string fqrn_ = "lists.example.org";

  void SetUp() override {
    paths_.root = root_.path();
    publisher::MkfsOptions o;
    o.fqrn = fqrn_;
    ASSERT_TRUE(publisher::Mkfs(paths_, o).ok());
    // The workload's trigger sits alone in its directory, so directory
    // prefetch (which would fetch its siblings) does not blur what the
    // list fetched.
    Publish(
        "mkdir -p t x y/deep z && echo start > t/start && echo one > x/one && "
        "echo two > y/deep/two && touch y/.cvmfscatalog && "
        "head -c 20000000 /dev/urandom > z/big && echo unread > x/unread");
  }

  void Publish(const std::string& script) {
    std::string dir = work_.Sub("tree");
    std::string cmd = "rm -rf " + dir + " && mkdir -p " + dir + " && cd " +
                      dir + " && " + script + " && tar -cf " +
                      work_.Sub("in.tar") + " -C " + dir + " .";
    ASSERT_EQ(0, std::system(cmd.c_str()));
    auto repo = publisher::Repository::Open(paths_, fqrn_);
    ASSERT_TRUE(repo.ok());
    publisher::TarIngestOptions t;
    t.tarball = work_.Sub("in.tar");
    t.base_dir = "/";
    auto stats = (*repo)->Publish(
        [&](publisher::CatalogTree* tree, publisher::IngestPipeline* p) {
          return publisher::IngestTar(t, tree, p);
        },
        {});
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  }

  Result<publisher::PrefetchListChange> AddList(
      const std::string& name, const std::vector<std::string>& paths) {
    CVMFS_ASSIGN_OR_RETURN(auto repo,
                           publisher::Repository::Open(paths_, fqrn_));
    return publisher::AddPrefetchList(repo.get(), name, paths, {});
  }

  std::unique_ptr<RepositoryMount> Mount(const std::string& cache,
                                         size_t max_objects = 512,
                                         bool prefetch = true) {
    MountConfig c;
    c.fs.prefetch.max_objects = max_objects;
    c.fs.prefetch.enabled = prefetch;
    // These tests count the requests of single objects; the publisher
    // writes bundles, which a cold read would fetch instead.
    c.fs.bundles = false;
    c.fqrn = fqrn_;
    c.cache.dir = work_.Sub(cache);
    c.cache.quota_limit = 256 << 20;
    c.public_key_files = {paths_.KeysDir() + "/" + fqrn_ + ".pub"};
    c.fs.fqrn = fqrn_;
    auto fetcher = std::make_unique<StorageFetcher>(paths_.Storage(fqrn_));
    fetcher_ = fetcher.get();
    if (!held_.empty()) fetcher_->Hold(held_);
    for (const std::string& h : hidden_) fetcher_->Hide(h);
    auto m = RepositoryMount::Create(
        std::move(c), [](const std::string&) {}, std::move(fetcher));
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? std::move(m).value() : nullptr;
  }

  static uint64_t Resolve(FileSystem* fs, const std::string& path) {
    uint64_t inode = kRootInode;
    size_t pos = 1;
    while (pos < path.size()) {
      size_t slash = path.find('/', pos);
      if (slash == std::string::npos) slash = path.size();
      auto r = fs->Lookup(inode, path.substr(pos, slash - pos));
      if (!r.ok()) return 0;
      inode = r->inode;
      pos = slash + 1;
    }
    return inode;
  }

  static Result<std::string> ReadAll(FileSystem* fs, const std::string& path) {
    uint64_t inode = Resolve(fs, path);
    if (inode == 0) return Status::NotFound(path);
    bool keep = false;
    CVMFS_ASSIGN_OR_RETURN(OpenFile * f, fs->Open(inode, &keep));
    std::string out(16 << 20, '\0');
    auto n = fs->Read(f, out.data(), out.size(), 0);
    fs->Release(f);
    if (!n.ok()) return n.status();
    out.resize(*n);
    return out;
  }

  // Waits until the lists and the prefetch engine have nothing left to do.
  static void WaitPrefetched(RepositoryMount* m) {
    ASSERT_TRUE(m->prefetch_lists()->WaitIdle(10000));
    m->file_system()->prefetch_triggers()->WaitIdle();
    if (m->file_system()->prefetcher()->WaitIdle(std::chrono::seconds(10)))
      return;
    FAIL() << "prefetch did not finish";
  }

  // The data objects (URL paths) the current revision's lists name.
  std::vector<std::string> ListedObjects() {
    auto repo = publisher::Repository::Open(paths_, fqrn_);
    EXPECT_TRUE(repo.ok());
    auto lists = publisher::CurrentPrefetchLists(repo->get());
    EXPECT_TRUE(lists.ok()) << lists.status().ToString();
    std::vector<std::string> out;
    for (const PrefetchList& l : *lists)
      for (const PrefetchFile& f : l.files) {
        if (f.hash) out.push_back(ObjectPath(*f.hash, ObjectSuffix::kNone));
        for (const PrefetchChunk& c : f.chunks)
          out.push_back(ObjectPath(c.hash, ObjectSuffix::kPartial));
      }
    return out;
  }

  testing::TempDir root_, work_;
  SystemPaths paths_;
  StorageFetcher* fetcher_ = nullptr;
  std::string held_;
  std::set<std::string> hidden_;
};

const std::vector<std::string> kWorkload = {"/t/start", "/x/one", "/y/deep/two",
                                            "/z/big"};

// The test: a recorded list round-trips through publish.
TEST_F(PrefetchListTest, RecordedListRoundTripsThroughPublish) {
  std::string recorded;
  {
    auto m = Mount("cache-record");
    ASSERT_TRUE(m);
    OpenRecorder* recorder = m->open_recorder();
    recorder->Start();
    for (const std::string& p : kWorkload)
      ASSERT_TRUE(ReadAll(m->file_system(), p).ok()) << p;
    ASSERT_TRUE(ReadAll(m->file_system(), "/x/one").ok());  // a second open
    auto recording = recorder->Stop();
    ASSERT_TRUE(recording.has_value());
    EXPECT_EQ(recording->paths, kWorkload);
    recorded = FormatRecordedPaths(recording->paths, "test recording");
  }
  auto paths = ParseRecordedPaths(recorded);
  ASSERT_TRUE(paths.ok());
  auto change = AddList("workload", *paths);
  ASSERT_TRUE(change.ok()) << change.status().ToString();
  EXPECT_TRUE(change->warnings.empty());
  ASSERT_EQ(change->lists.size(), 1u);
  EXPECT_EQ(change->lists[0].files.size(), kWorkload.size());
  EXPECT_GT(change->lists[0].files[3].chunks.size(), 1u) << "z/big is chunked";
  const std::vector<std::string> objects = ListedObjects();
  ASSERT_GE(objects.size(), 5u);

  auto m = Mount("cache-cold");
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->prefetch_lists()->WaitIdle(10000));
  EXPECT_NE(m->prefetch_lists()->Report().find("workload: 4 files"),
            std::string::npos)
      << m->prefetch_lists()->Report();
  for (const std::string& o : objects)
    EXPECT_EQ(fetcher_->Requests(o), 0) << o << " fetched before the trigger";

  // Opening the trigger (not reading anything else) fetches the whole list.
  uint64_t trigger = Resolve(m->file_system(), "/t/start");
  bool keep = false;
  auto f = m->file_system()->Open(trigger, &keep);
  ASSERT_TRUE(f.ok());
  m->file_system()->Release(*f);
  WaitPrefetched(m.get());
  for (const std::string& o : objects) EXPECT_EQ(fetcher_->Requests(o), 1) << o;
  EXPECT_EQ(m->prefetch_lists()->counters().lists_fired, 1u);

  // The workload then reads everything without a single further request.
  for (const std::string& p : kWorkload)
    ASSERT_TRUE(ReadAll(m->file_system(), p).ok()) << p;
  for (const std::string& o : objects) EXPECT_EQ(fetcher_->Requests(o), 1) << o;
  EXPECT_NE(m->prefetch_lists()->Report().find("done"), std::string::npos);
}

TEST_F(PrefetchListTest, MissingObjectsDoNotBreakReads) {
  ASSERT_TRUE(AddList("w", {"/t/start", "/x/one", "/y/deep/two"}).ok());
  const std::vector<std::string> objects = ListedObjects();
  ASSERT_EQ(objects.size(), 3u);
  hidden_.insert(objects[1]);  // /x/one's object is gone from the server
  auto m = Mount("cache");
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->prefetch_lists()->WaitIdle(10000));
  auto start = ReadAll(m->file_system(), "/t/start");
  ASSERT_TRUE(start.ok()) << start.status().ToString();
  EXPECT_EQ(*start, "start\n");
  WaitPrefetched(m.get());
  EXPECT_GE(m->file_system()->prefetcher()->counters().errors, 1u);
  auto two = ReadAll(m->file_system(), "/y/deep/two");
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(*two, "two\n");
  EXPECT_EQ(fetcher_->Requests(objects[2]), 1);
  // Only the read of the file whose object is gone fails, as without lists.
  EXPECT_EQ(m->file_system()->io_errors(), 0u);
  EXPECT_FALSE(ReadAll(m->file_system(), "/x/one").ok());
}

TEST_F(PrefetchListTest, ListSetThatDoesNotLoadIsIgnored) {
  ASSERT_TRUE(AddList("w", {"/t/start", "/x/one"}).ok());
  auto repo = publisher::Repository::Open(paths_, fqrn_);
  ASSERT_TRUE(repo.ok());
  auto manifest = (*repo)->CurrentManifest();
  ASSERT_TRUE(manifest.ok());
  // Find the list set object through the root catalog and hide it.
  auto raw =
      ReadVerifiedObject((*repo)->store(), manifest->manifest.root_catalog,
                         ObjectSuffix::kCatalog);
  ASSERT_TRUE(raw.ok());
  ASSERT_TRUE(WriteFileAtomic(work_.Sub("root.db"), *raw, 0600).ok());
  auto root = Catalog::Open(work_.Sub("root.db"));
  ASSERT_TRUE(root.ok());
  auto ref = PrefetchListsObjectOf(**root);
  ASSERT_TRUE(ref.ok() && ref->has_value());
  hidden_.insert(ObjectPath(**ref, ObjectSuffix::kNone));

  auto m = Mount("cache");
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->prefetch_lists()->WaitIdle(10000));
  EXPECT_NE(m->prefetch_lists()->Report().find("not loaded"), std::string::npos)
      << m->prefetch_lists()->Report();
  EXPECT_EQ(m->prefetch_lists()->counters().load_errors, 1u);
  auto one = ReadAll(m->file_system(), "/x/one");
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(m->file_system()->io_errors(), 0u);
}

TEST_F(PrefetchListTest, RepositoryWithoutListsBehavesAsBefore) {
  auto m = Mount("cache");
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->prefetch_lists()->WaitIdle(10000));
  EXPECT_NE(m->prefetch_lists()->Report().find(": none"), std::string::npos);
  for (const std::string& p : kWorkload)
    ASSERT_TRUE(ReadAll(m->file_system(), p).ok()) << p;
  WaitPrefetched(m.get());
  const PrefetchListCounters c = m->prefetch_lists()->counters();
  EXPECT_EQ(c.lists_fired + c.queued + c.cached + c.left_out + c.load_errors,
            0u);
  EXPECT_EQ(m->file_system()->io_errors(), 0u);
}

// A workload that starts with the mount opens its trigger while the list
// set is still downloading: the open is remembered and fires the list.
TEST_F(PrefetchListTest, TriggerOpenedWhileLoadingFiresAfterLoad) {
  ASSERT_TRUE(AddList("w", {"/t/start", "/x/one", "/y/deep/two"}).ok());
  const std::vector<std::string> objects = ListedObjects();
  {
    auto repo = publisher::Repository::Open(paths_, fqrn_);
    auto manifest = (*repo)->CurrentManifest();
    auto raw =
        ReadVerifiedObject((*repo)->store(), manifest->manifest.root_catalog,
                           ObjectSuffix::kCatalog);
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE(WriteFileAtomic(work_.Sub("root.db"), *raw, 0600).ok());
    auto root = Catalog::Open(work_.Sub("root.db"));
    auto ref = PrefetchListsObjectOf(**root);
    ASSERT_TRUE(ref.ok() && ref->has_value());
    held_ = ObjectPath(**ref, ObjectSuffix::kNone);
  }
  auto m = Mount("cache");
  ASSERT_TRUE(m);
  EXPECT_NE(m->prefetch_lists()->Report().find("loading"), std::string::npos);
  ASSERT_TRUE(ReadAll(m->file_system(), "/t/start").ok());
  fetcher_->Release();
  WaitPrefetched(m.get());
  EXPECT_EQ(m->prefetch_lists()->counters().lists_fired, 1u);
  EXPECT_EQ(fetcher_->Requests(objects[1]), 1);
  EXPECT_EQ(fetcher_->Requests(objects[2]), 1);
}

// Lists added while mounted take effect with the revision switch; a list
// fires once per revision.
TEST_F(PrefetchListTest, RevisionSwitchLoadsNewLists) {
  auto m = Mount("cache");
  ASSERT_TRUE(m);
  ASSERT_TRUE(AddList("w", {"/t/start", "/y/deep/two"}).ok());
  const std::vector<std::string> objects = ListedObjects();
  auto switched = m->CheckForUpdate(true);
  ASSERT_TRUE(switched.ok()) << switched.status().ToString();
  ASSERT_TRUE(m->prefetch_lists()->WaitIdle(10000));
  EXPECT_NE(m->prefetch_lists()->Report().find("1 loaded"), std::string::npos)
      << m->prefetch_lists()->Report();
  ASSERT_TRUE(ReadAll(m->file_system(), "/t/start").ok());
  ASSERT_TRUE(ReadAll(m->file_system(), "/t/start").ok());
  WaitPrefetched(m.get());
  EXPECT_EQ(m->prefetch_lists()->counters().lists_fired, 1u);
  EXPECT_EQ(fetcher_->Requests(objects[1]), 1);
}

// A list longer than the prefetch budget is fed as the workload uses what
// was fetched: the engine never holds more than its budget, and every
// listed object is still fetched exactly once.
TEST_F(PrefetchListTest, ListLongerThanTheBudgetFollowsTheWorkload) {
  const std::vector<std::string> files = {"/t/start", "/x/one", "/y/deep/two",
                                          "/x/unread"};
  ASSERT_TRUE(AddList("w", files).ok());
  const std::vector<std::string> objects = ListedObjects();
  ASSERT_EQ(objects.size(), 4u);
  auto m = Mount("cache", /*max_objects=*/1);
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->prefetch_lists()->WaitIdle(10000));
  bool keep = false;
  auto f = m->file_system()->Open(Resolve(m->file_system(), "/t/start"), &keep);
  ASSERT_TRUE(f.ok());
  m->file_system()->Release(*f);
  // The list's feeder thread signals no "fed as far as the budget goes".
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  int fetched = 0;
  for (size_t i = 1; i < objects.size(); ++i)
    fetched += fetcher_->Requests(objects[i]);
  EXPECT_LE(fetched, 1)
      << "more than the budget of one object was fetched ahead";
  EXPECT_NE(m->prefetch_lists()->Report().find("feeding"), std::string::npos)
      << m->prefetch_lists()->Report();
  for (const std::string& p : files)
    ASSERT_TRUE(ReadAll(m->file_system(), p).ok()) << p;
  WaitPrefetched(m.get());
  for (const std::string& o : objects) EXPECT_EQ(fetcher_->Requests(o), 1) << o;
  EXPECT_NE(m->prefetch_lists()->Report().find("done"), std::string::npos)
      << m->prefetch_lists()->Report();
}

// CVMFS_PREFETCH=no turns lists off with the rest of prefetching.
TEST_F(PrefetchListTest, PrefetchOffFetchesNothingAhead) {
  ASSERT_TRUE(AddList("w", {"/t/start", "/x/one", "/y/deep/two"}).ok());
  const std::vector<std::string> objects = ListedObjects();
  auto m = Mount("cache", 512, /*prefetch=*/false);
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->prefetch_lists()->WaitIdle(10000));
  ASSERT_TRUE(ReadAll(m->file_system(), "/t/start").ok());
  ASSERT_TRUE(m->prefetch_lists()->WaitIdle(10000));
  EXPECT_NE(m->prefetch_lists()->Report().find("stopped (prefetch off)"),
            std::string::npos)
      << m->prefetch_lists()->Report();
  EXPECT_EQ(fetcher_->Requests(objects[1]), 0);
  EXPECT_EQ(fetcher_->Requests(objects[2]), 0);
  auto two = ReadAll(m->file_system(), "/y/deep/two");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, "two\n");
}

// The talk commands: the recording is the reply of `prefetch record stop`.
TEST_F(PrefetchListTest, TalkCommandsRecordAndReport) {
  ASSERT_TRUE(AddList("w", {"/t/start", "/x/one"}).ok());
  auto m = Mount("cache");
  ASSERT_TRUE(m);
  TalkContext context;
  context.mount = m.get();
  TalkCommands talk(context);
  EXPECT_EQ(talk.Execute("prefetch record stop"), "Not recording\n");
  EXPECT_EQ(talk.Execute("prefetch record start"), "OK\n");
  ASSERT_TRUE(ReadAll(m->file_system(), "/y/deep/two").ok());
  ASSERT_TRUE(ReadAll(m->file_system(), "/x/one").ok());
  EXPECT_EQ(talk.Execute("prefetch record status"), "Recording (2 files)\n");
  EXPECT_NE(talk.Execute("prefetch record stop /tmp/file").find("Usage"),
            std::string::npos);
  const std::string list = talk.Execute("prefetch record stop");
  auto paths = ParseRecordedPaths(list);
  ASSERT_TRUE(paths.ok()) << list;
  EXPECT_EQ(*paths, (std::vector<std::string>{"/y/deep/two", "/x/one"}));
  EXPECT_EQ(list.substr(0, 2), "# ");
  EXPECT_NE(list.find("lists.example.org revision"), std::string::npos) << list;
  ASSERT_TRUE(m->prefetch_lists()->WaitIdle(10000));
  const std::string report = talk.Execute("prefetch lists");
  EXPECT_NE(report.find("w: 2 files, 2 objects"), std::string::npos) << report;
  EXPECT_NE(report.find("trigger /t/start: not fired"), std::string::npos)
      << report;
}

}  // namespace
}  // namespace cvmfs::client
