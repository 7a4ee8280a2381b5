// The shared cache: a CacheManager run in-process on a socket in a TempDir,
// with PosixCaches (RemoteQuota) and raw protocol clients talking to it.
#include "cache/cache_manager.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cache/cache_layout.h"
#include "cache/posix_cache.h"
#include "cache/quota_protocol.h"
#include "cache/remote_quota.h"
#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace cache {
namespace {

using cvmfs::Digest;
using cvmfs::Status;
using Code = cvmfs::Status::Code;
using std::chrono::milliseconds;

Digest IdOf(const std::string& content) {
  return cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, content);
}

std::string Content(int n, size_t size) {
  std::string s = "object " + std::to_string(n) + ":";
  s.resize(size, static_cast<char>('a' + n % 26));
  return s;
}

cvmfs::Result<CacheHandle> Store(PosixCache* cache, const std::string& content,
                                 ObjectType type = ObjectType::kRegular) {
  CVMFS_ASSIGN_OR_RETURN(auto txn,
                         cache->StartTxn(IdOf(content), type, "/file"));
  CVMFS_RETURN_IF_ERROR(txn->Write(content.data(), content.size()));
  return txn->Commit();
}

void Put(PosixCache* cache, const std::string& content) {
  auto handle = Store(cache, content);
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
}

// Polls `cond` for up to two seconds: the manager handles a disconnect
// asynchronously to the client that caused it.
template <typename Cond>
bool Eventually(Cond cond) {
  for (int i = 0; i < 200; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return cond();
}

// A CacheManager serving on its own thread.
class ManagerThread {
 public:
  ManagerThread(const std::string& dir, int64_t limit,
                milliseconds grace = milliseconds(60000)) {
    CacheManagerOptions options;
    options.dir = dir;
    options.quota_limit = limit;
    options.idle_grace = grace;
    auto m = CacheManager::Create(options);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    if (!m.ok()) return;
    manager_ = std::move(m).value();
    thread_ = std::thread([this] {
      result_ = manager_->Run();
      done_ = true;
    });
  }
  ~ManagerThread() { Stop(); }
  bool ok() const { return manager_ != nullptr; }
  // Stops it cleanly and releases the directory.
  void Stop() {
    if (thread_.joinable()) {
      manager_->Stop();
      thread_.join();
    }
    manager_.reset();
  }
  // Waits for Run() to return by itself (idle).
  bool WaitExit(milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (finished()) {
        thread_.join();
        manager_.reset();
        return true;
      }
      std::this_thread::sleep_for(milliseconds(10));
    }
    return false;
  }
  bool finished() const { return done_.load(); }
  const Status& result() const { return result_; }

 private:
  std::unique_ptr<CacheManager> manager_;
  std::thread thread_;
  Status result_;
  std::atomic<bool> done_{false};
};

class CacheManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = tmp_.Sub("shared"); }

  std::unique_ptr<ManagerThread> StartManager(
      int64_t limit, milliseconds grace = milliseconds(60000)) {
    auto m = std::make_unique<ManagerThread>(dir_, limit, grace);
    return m->ok() ? std::move(m) : nullptr;
  }
  // A mount's cache on the shared directory; never starts a manager.
  std::unique_ptr<PosixCache> Client(const std::string& name,
                                     int64_t limit = 1000) {
    CacheOptions options;
    options.dir = dir_;
    options.quota_limit = limit;
    options.shared = true;
    options.client_name = name;
    auto cache = PosixCache::Open(options);
    EXPECT_TRUE(cache.ok()) << cache.status().ToString();
    return cache.ok() ? std::move(cache).value() : nullptr;
  }
  cvmfs::UniqueFd RawConnection() {
    int err = 0;
    auto fd =
        ConnectUnixSocket(cvmfs::JoinPath(dir_, kManagerSocketName), &err);
    EXPECT_TRUE(fd.ok()) << fd.status().ToString();
    return fd.ok() ? std::move(fd).value() : cvmfs::UniqueFd();
  }
  bool OnDisk(const std::string& content) const {
    return cvmfs::PathExists(ObjectPath(dir_, IdOf(content)));
  }

  cvmfs::testing::TempDir tmp_;
  std::string dir_;
};

TEST_F(CacheManagerTest, TwoClientsShareOneQuotaAndOneLruOrder) {
  auto manager = StartManager(1000);
  ASSERT_NE(manager, nullptr);
  auto a = Client("a.test.org");
  auto b = Client("b.test.org");
  ASSERT_TRUE(a && b);
  // x1..x9 alternately from both mounts (900 of 1000 bytes).
  for (int i = 1; i <= 9; ++i) Put(i % 2 ? a.get() : b.get(), Content(i, 100));
  EXPECT_EQ(a->usage().size, 900u);
  EXPECT_EQ(b->usage().size, 900u);
  // b reads a's oldest object: it becomes the most recently used for all.
  ASSERT_TRUE(b->Open(IdOf(Content(1, 100))).ok());
  Put(b.get(), Content(10, 100));  // exactly at the limit: no cleanup
  EXPECT_EQ(a->usage().evictions, 0u);
  // x11 does not fit: the cache is cleaned to half the limit, least
  // recently used first, whoever stored or read the objects.
  Put(a.get(), Content(11, 100));
  for (int i = 2; i <= 6; ++i)
    EXPECT_FALSE(OnDisk(Content(i, 100))) << "x" << i << " was not evicted";
  for (int i : {1, 7, 8, 9, 10, 11})
    EXPECT_TRUE(OnDisk(Content(i, 100))) << "x" << i << " was evicted";
  PosixCache::Usage u = b->usage();
  EXPECT_EQ(u.size, 600u);
  EXPECT_EQ(u.limit, 1000u);
  EXPECT_EQ(u.evictions, 5u);
  EXPECT_EQ(a->List(false).size(), 6u);
  EXPECT_EQ(a->List(false).back().hash, IdOf(Content(11, 100)).ToString());
  // Both see the objects the other stored.
  EXPECT_TRUE(a->Contains(IdOf(Content(10, 100))));
  auto h = a->Open(IdOf(Content(10, 100)));
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->size(), 100u);
  // A prefetched object stored through the manager is volatile there: the
  // next cleanup takes it first, although it is the newest. x7 is then the
  // least recently used; a reader's open of x7 makes it the newest.
  {
    auto txn = a->StartTxn(IdOf(Content(12, 100)), ObjectType::kRegular,
                           "/prefetched", Access::kSpeculative);
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE((*txn)->Write(Content(12, 100).data(), 100).ok());
    ASSERT_TRUE((*txn)->Commit().ok());
  }
  EXPECT_EQ(b->List(false).front().hash, IdOf(Content(12, 100)).ToString());
  ASSERT_TRUE(b->Open(IdOf(Content(7, 100)), Access::kSpeculative).ok());
  EXPECT_EQ(b->List(false)[1].hash, IdOf(Content(7, 100)).ToString());
  ASSERT_TRUE(b->Open(IdOf(Content(7, 100))).ok());
  EXPECT_EQ(b->List(false).back().hash, IdOf(Content(7, 100)).ToString());
  // An object larger than half the limit is refused before it is written.
  auto txn = b->StartTxn(IdOf(Content(99, 600)), ObjectType::kRegular, "/big");
  ASSERT_TRUE(txn.ok());
  EXPECT_EQ((*txn)->Write(Content(99, 600).data(), 600).code(), Code::kNoSpace);
}

TEST_F(CacheManagerTest, OpenAndPinnedObjectsOfAnyClientStay) {
  auto manager = StartManager(1000);
  ASSERT_NE(manager, nullptr);
  auto a = Client("a.test.org");
  auto b = Client("b.test.org");
  ASSERT_TRUE(a && b);
  auto open = Store(a.get(), Content(1, 300));
  ASSERT_TRUE(open.ok());
  Put(a.get(), Content(2, 200));
  ASSERT_TRUE(a->Pin(IdOf(Content(2, 200))).ok());
  EXPECT_EQ(b->Evict(IdOf(Content(1, 300))).code(), Code::kBusy);
  EXPECT_EQ(b->Evict(IdOf(Content(2, 200))).code(), Code::kBusy);
  EXPECT_EQ(b->Unpin(IdOf(Content(2, 200))).code(), Code::kInvalidArgument)
      << "b must not release a's pin";
  // b fills the cache: only unlocked objects go.
  for (int i = 3; i <= 12; ++i) Put(b.get(), Content(i, 100));
  EXPECT_TRUE(OnDisk(Content(1, 300)));
  EXPECT_TRUE(OnDisk(Content(2, 200)));
  EXPECT_LE(b->usage().size, 1000u);
  EXPECT_EQ(b->Cleanup(0).code(), Code::kBusy);
  EXPECT_EQ(b->usage().size, 500u);
  // Released by a: now evictable by b.
  open->Reset();
  ASSERT_TRUE(a->Unpin(IdOf(Content(2, 200))).ok());
  EXPECT_TRUE(b->Cleanup(0).ok());
  EXPECT_FALSE(OnDisk(Content(1, 300)));
  EXPECT_EQ(a->usage().size, 0u);
}

TEST_F(CacheManagerTest, DisconnectReleasesOpensAndPins) {
  auto manager = StartManager(1000);
  ASSERT_NE(manager, nullptr);
  auto a = Client("a.test.org");
  ASSERT_TRUE(a);
  Put(a.get(), Content(1, 100));
  Put(a.get(), Content(2, 100));
  {
    // A mount that dies holding an open file and a pin: its connection
    // closes without any close or unpin.
    RemoteQuotaOptions options;
    options.launch.dir = dir_;
    options.launch.quota_limit = 1000;
    options.client_name = "crashing.test.org";
    auto crashing = RemoteQuota::Connect(options);
    ASSERT_TRUE(crashing.ok()) << crashing.status().ToString();
    ASSERT_TRUE((*crashing)->Open(IdOf(Content(1, 100)), Access::kUse).ok());
    ASSERT_TRUE((*crashing)->Pin(IdOf(Content(2, 100))).ok());
    EXPECT_EQ(a->usage().pinned, 100u);
    EXPECT_EQ(a->Evict(IdOf(Content(1, 100))).code(), Code::kBusy);
  }
  EXPECT_TRUE(Eventually([&] { return a->usage().pinned == 0; }));
  EXPECT_TRUE(a->Evict(IdOf(Content(1, 100))).ok());
  EXPECT_TRUE(a->Evict(IdOf(Content(2, 100))).ok());
  EXPECT_FALSE(OnDisk(Content(1, 100)));
}

TEST_F(CacheManagerTest, HandshakeVersionMismatchIsRefused) {
  auto manager = StartManager(1000);
  ASSERT_NE(manager, nullptr);
  cvmfs::UniqueFd fd = RawConnection();
  protocol::Request req;
  req.mutable_hello()->set_protocol_version(kQuotaProtocolVersion + 1);
  ASSERT_TRUE(SendFrame(fd.get(), req).ok());
  protocol::Reply reply;
  ASSERT_TRUE(ReceiveFrame(fd.get(), &reply).ok());
  Status st = StatusOf(reply);
  EXPECT_EQ(st.code(), Code::kNotSupported);
  EXPECT_NE(st.message().find(std::to_string(kQuotaProtocolVersion + 1)),
            std::string::npos)
      << st.message();
  EXPECT_FALSE(reply.has_hello());
  // ... and the connection is closed.
  EXPECT_EQ(ReceiveFrame(fd.get(), &reply).code(), Code::kUnavailable);
}

TEST_F(CacheManagerTest, FirstRequestMustBeHello) {
  auto manager = StartManager(1000);
  ASSERT_NE(manager, nullptr);
  cvmfs::UniqueFd fd = RawConnection();
  protocol::Request req;
  req.mutable_usage();
  ASSERT_TRUE(SendFrame(fd.get(), req).ok());
  protocol::Reply reply;
  ASSERT_TRUE(ReceiveFrame(fd.get(), &reply).ok());
  EXPECT_EQ(StatusOf(reply).code(), Code::kInvalidArgument);
  EXPECT_FALSE(reply.has_usage());
  EXPECT_EQ(ReceiveFrame(fd.get(), &reply).code(), Code::kUnavailable);
}

TEST_F(CacheManagerTest, GarbageFrameClosesOnlyThatConnection) {
  auto manager = StartManager(1000);
  ASSERT_NE(manager, nullptr);
  auto a = Client("a.test.org");
  ASSERT_TRUE(a);
  cvmfs::UniqueFd fd = RawConnection();
  const char oversized[] = "\xff\xff\xff\xff";
  ASSERT_EQ(::write(fd.get(), oversized, 4), 4);
  protocol::Reply reply;
  EXPECT_EQ(ReceiveFrame(fd.get(), &reply).code(), Code::kUnavailable);
  Put(a.get(), Content(1, 100));
  EXPECT_EQ(a->usage().size, 100u);
}

// Reproduced by quota_protocol_fuzzer (test/fuzz/corpus/quota_protocol_fuzzer/
// restore-4e9-holds): each hold of a restore was re-registered in a loop, so
// one request for 2^32 opens stalled the manager for every mount.
TEST_F(CacheManagerTest, RestoreOfMoreThanAClientCanHoldIsRefusedAtOnce) {
  auto manager = StartManager(1000);
  ASSERT_NE(manager, nullptr);
  cvmfs::UniqueFd fd = RawConnection();
  timeval timeout{5, 0};  // a stalled manager fails the test, not hangs it
  ASSERT_EQ(::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout,
                         sizeof(timeout)),
            0);
  protocol::Request hello;
  hello.mutable_hello()->set_protocol_version(kQuotaProtocolVersion);
  ASSERT_TRUE(SendFrame(fd.get(), hello).ok());
  protocol::Reply reply;
  ASSERT_TRUE(ReceiveFrame(fd.get(), &reply).ok());
  protocol::Request restore;
  protocol::Hold* hold = restore.mutable_restore()->add_holds();
  hold->set_id(IdOf("absent").ToString());
  hold->set_opens(4000000000u);
  hold->set_pins(4000000000u);
  ASSERT_TRUE(SendFrame(fd.get(), restore).ok());
  ASSERT_TRUE(ReceiveFrame(fd.get(), &reply).ok());
  EXPECT_EQ(StatusOf(reply).code(), Code::kInvalidArgument);
  // The connection still works.
  protocol::Request usage;
  usage.mutable_usage();
  ASSERT_TRUE(SendFrame(fd.get(), usage).ok());
  ASSERT_TRUE(ReceiveFrame(fd.get(), &reply).ok());
  EXPECT_TRUE(StatusOf(reply).ok());
  EXPECT_TRUE(reply.has_usage());
}

TEST_F(CacheManagerTest, NewManagerGetsTheClientsOpensAndPinsBack) {
  auto manager = StartManager(1000);
  ASSERT_NE(manager, nullptr);
  auto a = Client("a.test.org");
  ASSERT_TRUE(a);
  auto open = Store(a.get(), Content(1, 100));
  ASSERT_TRUE(open.ok());
  Put(a.get(), Content(2, 100));
  Put(a.get(), Content(3, 100));
  ASSERT_TRUE(a->Pin(IdOf(Content(2, 100))).ok());
  manager->Stop();  // the manager goes away
  // Cached objects stay readable without a manager.
  auto read = a->Open(IdOf(Content(3, 100)));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->size(), 100u);
  EXPECT_FALSE(a->Pin(IdOf(Content(3, 100))).ok());
  // A new manager recovers cachedb; a's next request reconnects and
  // registers what it holds (after the reconnect back-off).
  auto second = StartManager(1000);
  ASSERT_NE(second, nullptr);
  std::this_thread::sleep_for(milliseconds(1100));
  EXPECT_EQ(a->usage().pinned, 100u);
  auto b = Client("b.test.org");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->Evict(IdOf(Content(1, 100))).code(), Code::kBusy);
  EXPECT_EQ(b->Evict(IdOf(Content(2, 100))).code(), Code::kBusy);
  EXPECT_EQ(b->Evict(IdOf(Content(3, 100))).code(), Code::kBusy)
      << "the handle opened while no manager ran is registered too";
  open->Reset();
  read->Reset();
  EXPECT_TRUE(b->Evict(IdOf(Content(1, 100))).ok());
  EXPECT_TRUE(b->Evict(IdOf(Content(3, 100))).ok());
  ASSERT_TRUE(a->Unpin(IdOf(Content(2, 100))).ok());
  EXPECT_EQ(b->usage().pinned, 0u);
}

TEST_F(CacheManagerTest, StopsWhenIdleAndRemovesItsSocket) {
  auto manager = StartManager(1000, milliseconds(200));
  ASSERT_NE(manager, nullptr);
  const std::string socket = cvmfs::JoinPath(dir_, kManagerSocketName);
  {
    auto a = Client("a.test.org");
    ASSERT_TRUE(a);
    Put(a.get(), Content(1, 100));
    std::this_thread::sleep_for(milliseconds(400));
    EXPECT_FALSE(manager->finished()) << "stopped with a client connected";
  }
  ASSERT_TRUE(manager->WaitExit(milliseconds(5000)));
  EXPECT_TRUE(manager->result().ok()) << manager->result().ToString();
  EXPECT_FALSE(cvmfs::PathExists(socket));
  EXPECT_FALSE(cvmfs::PathExists(cvmfs::JoinPath(dir_, kRunningMarkerName)));
  // cachedb was written: a private owner now finds the object.
  auto owner = PosixCache::Open({dir_, 1000});
  ASSERT_TRUE(owner.ok()) << owner.status().ToString();
  EXPECT_EQ((*owner)->usage().size, 100u);
}

TEST_F(CacheManagerTest, StopsWhenItsDirectoryWasRemoved) {
  // The grace period is long enough for the removal to finish first.
  auto manager = StartManager(1000, milliseconds(1000));
  ASSERT_NE(manager, nullptr);
  ASSERT_TRUE(cvmfs::RemoveTree(dir_).ok());
  EXPECT_TRUE(manager->WaitExit(milliseconds(5000)))
      << "a manager nobody can reach any more keeps running";
}

TEST_F(CacheManagerTest, SecondManagerIsRefused) {
  auto manager = StartManager(1000);
  ASSERT_NE(manager, nullptr);
  CacheManagerOptions options;
  options.dir = dir_;
  options.quota_limit = 1000;
  EXPECT_EQ(CacheManager::Create(options).status().code(), Code::kBusy);
  // The first one still serves.
  EXPECT_NE(Client("a.test.org"), nullptr);
}

TEST_F(CacheManagerTest, NoManagerAndNoProgramIsUnavailable) {
  CacheOptions options;
  options.dir = dir_;
  options.quota_limit = 1000;
  options.shared = true;
  auto cache = PosixCache::Open(options);
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(cache.status().code(), Code::kUnavailable);
  EXPECT_NE(cache.status().message().find(dir_), std::string::npos)
      << cache.status().message();
}

TEST_F(CacheManagerTest, LimitChangesForEveryone) {
  auto manager = StartManager(1000);
  ASSERT_NE(manager, nullptr);
  auto a = Client("a.test.org");
  auto b = Client("b.test.org");
  ASSERT_TRUE(a && b);
  for (int i = 1; i <= 6; ++i) Put(a.get(), Content(i, 100));
  ASSERT_TRUE(b->SetLimit(400).ok());
  EXPECT_EQ(a->usage().limit, 400u);
  EXPECT_LE(a->usage().size, 200u);
  EXPECT_EQ(b->SetLimit(0).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace cache
