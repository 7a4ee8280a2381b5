// Revision updates while mounted: a repository published with our publisher
// library is served from its storage directory as it changes; the client
// switches revisions without remounting, keeps open files on their old
// content, refuses replayed (older) manifests and blacklisted revisions.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "client/magic_xattrs.h"
#include "client/open_file.h"
#include "client/repository_mount.h"
#include "cvmfs/clock.h"
#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "cvmfs/mutex.h"
#include "cvmfs/object_name.h"
#include "cvmfs/object_store.h"
#include "cvmfs/signature.h"
#include "publisher/repository.h"
#include "publisher/tar_ingest.h"
#include "testing/storage_fetcher.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

using testing::StorageFetcher;

class RevisionUpdateTest : public ::testing::Test {
 protected:
  const std::string fqrn_ = "update.example.org";

  void SetUp() override {
    paths_.root = root_.path();
    publisher::MkfsOptions o;
    o.fqrn = fqrn_;
    ASSERT_TRUE(publisher::Mkfs(paths_, o).ok());
  }

  void Publish(const std::string& script,
               std::vector<std::string> remove = {}) {
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
    t.delete_paths = std::move(remove);
    auto stats = (*repo)->Publish(
        [&](publisher::CatalogTree* tree, publisher::IngestPipeline* p) {
          return publisher::IngestTar(t, tree, p);
        },
        {});
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  }

  std::unique_ptr<RepositoryMount> Mount() {
    auto m = TryMount();
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? std::move(m).value() : nullptr;
  }

  Result<std::unique_ptr<RepositoryMount>> TryMount(
      const std::string& cache = "cache",
      std::function<void(const Status&)> on_revision_blacklisted = nullptr,
      size_t memcache_bytes = 16u << 20) {
    MountConfig c;
    c.fs.memcache_bytes = memcache_bytes;
    c.fqrn = fqrn_;
    c.on_revision_blacklisted = std::move(on_revision_blacklisted);
    c.cache.dir = work_.Sub(cache);
    c.cache.quota_limit = 64 << 20;
    c.public_key_files = {paths_.KeysDir() + "/" + fqrn_ + ".pub"};
    c.blacklist_file = paths_.EtcCvmfs() + "/blacklist";
    c.config_repository_blacklist_file = ConfigRepositoryBlacklist();
    c.fs.fqrn = fqrn_;
    c.clock = clock_;
    c.event_log = [this](Severity severity, const std::string& what) {
      cvmfs::MutexLock lock(&events_mu_);
      events_.emplace_back(severity, what);
    };
    auto fetcher = std::make_unique<StorageFetcher>(paths_.Storage(fqrn_));
    fetcher_ = fetcher.get();
    return RepositoryMount::Create(
        std::move(c), [](const std::string&) {}, std::move(fetcher));
  }

  void WriteBlacklist(const std::string& text) {
    ASSERT_TRUE(
        WriteFileAtomic(paths_.EtcCvmfs() + "/blacklist", text, 0644).ok());
  }
  std::string BlacklistFile() const { return paths_.EtcCvmfs() + "/blacklist"; }
  std::string ConfigRepositoryBlacklist() const {
    return work_.Sub("config-repo-blacklist");
  }

  static uint64_t Resolve(FileSystem* fs, const std::string& path) {
    uint64_t inode = kRootInode;
    size_t pos = 0;
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

  static std::string Read(FileSystem* fs, OpenFile* f) {
    char buf[256];
    auto n = fs->Read(f, buf, sizeof(buf), 0);
    return n.ok() ? std::string(buf, *n) : "<" + n.status().ToString() + ">";
  }

  testing::TempDir root_, work_;
  SystemPaths paths_;
  StorageFetcher* fetcher_ = nullptr;
  const Clock* clock_ = SteadyClock();  // the revision updater's
  // What the mount told its operator (MountConfig::event_log).
  cvmfs::Mutex events_mu_;
  std::vector<std::pair<Severity, std::string>> events_ GUARDED_BY(events_mu_);
  // Whether an event of `severity` starts with `prefix`.
  bool Told(Severity severity, const std::string& prefix) {
    cvmfs::MutexLock lock(&events_mu_);
    for (const auto& [s, what] : events_)
      if (s == severity && what.rfind(prefix, 0) == 0) return true;
    return false;
  }
};

// The next automatic check is due a TTL after the mount, on the mount's
// clock; a shorter CVMFS_MAX_TTL brings it forward.
TEST_F(RevisionUpdateTest, NextCheckFollowsTheClock) {
  Publish("echo one > f");
  ManualClock clock;
  clock_ = &clock;
  auto mount = Mount();
  ASSERT_TRUE(mount);
  const int64_t ttl = mount->SecondsUntilCheck();
  ASSERT_GT(ttl, 60);
  clock.Advance(std::chrono::seconds(60));
  EXPECT_EQ(ttl - 60, mount->SecondsUntilCheck());
  mount->set_max_ttl_s(30);
  EXPECT_EQ(30, mount->SecondsUntilCheck());
  clock.Advance(std::chrono::seconds(31));
  EXPECT_EQ(0, mount->SecondsUntilCheck());
}

// user.expires counts down to the next revision check, and starts again
// after a check: it does not count from the mount (which left it at 0 for
// good once the first TTL had passed).
TEST_F(RevisionUpdateTest, ExpiresCountsToTheNextCheck) {
  Publish("echo one > f");
  ManualClock clock;
  clock_ = &clock;
  auto mount = Mount();
  ASSERT_TRUE(mount);
  FileSystem* fs = mount->file_system();
  auto expires = [fs] {
    auto v = MagicXattrs::MountValue("expires", fs->Statistics());
    return v.ok() ? *v : v.status().ToString();
  };
  const int64_t ttl = mount->SecondsUntilCheck();
  ASSERT_GT(ttl, 120);
  EXPECT_EQ(std::to_string(ttl / 60), expires());
  clock.Advance(std::chrono::seconds(ttl + 30));
  EXPECT_EQ("0", expires());
  ASSERT_TRUE(mount->CheckForUpdate(true).ok());
  EXPECT_EQ(std::to_string(mount->SecondsUntilCheck() / 60), expires());
  EXPECT_EQ(std::to_string(ttl / 60), expires());
}

TEST_F(RevisionUpdateTest, SwitchKeepsOpenFilesAndShowsNewContent) {
  Publish("mkdir a b && echo one > a/file && echo x > b/old");
  auto mount = Mount();
  ASSERT_TRUE(mount);
  FileSystem* fs = mount->file_system();
  uint64_t old_revision = fs->revision().revision;
  uint64_t old_inode = Resolve(fs, "a/file");
  ASSERT_NE(0u, old_inode);
  bool keep = false;
  auto open_old = fs->Open(old_inode, &keep);
  ASSERT_TRUE(open_old.ok());

  auto same = mount->CheckForUpdate(true);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ("Catalog up to date", *same);

  Publish("mkdir a c && echo two! > a/file && echo new > c/new", {"b"});
  EXPECT_TRUE(Told(
      Severity::kInfo,
      "mounted revision " + std::to_string(old_revision) + " of " + fqrn_));
  auto switched = mount->CheckForUpdate(true);
  ASSERT_TRUE(switched.ok()) << switched.status().ToString();
  EXPECT_NE(std::string::npos, switched->find("switched to revision"));
  EXPECT_EQ(old_revision + 1, fs->revision().revision);
  // The operator sees both revisions (syslog, daemon_log.h).
  EXPECT_TRUE(Told(Severity::kInfo, "switched to catalog revision " +
                                        std::to_string(old_revision + 1) +
                                        " from " +
                                        std::to_string(old_revision) + " ("));

  // The file opened before the switch keeps its content...
  EXPECT_EQ("one\n", Read(fs, *open_old));
  fs->Release(*open_old);
  // ...and its old inode still answers, with the old size.
  auto old_attr = fs->GetAttr(old_inode);
  ASSERT_TRUE(old_attr.ok());
  EXPECT_EQ(4, old_attr->st_size);
  // New lookups see the new revision, under a new inode.
  uint64_t new_inode = Resolve(fs, "a/file");
  ASSERT_NE(0u, new_inode);
  EXPECT_NE(old_inode, new_inode);
  auto open_new = fs->Open(new_inode, &keep);
  ASSERT_TRUE(open_new.ok());
  EXPECT_EQ("two!\n", Read(fs, *open_new));
  fs->Release(*open_new);
  EXPECT_EQ(0u, Resolve(fs, "b"));
  EXPECT_NE(0u, Resolve(fs, "c/new"));
  auto listing = fs->ReadDir(kRootInode);
  ASSERT_TRUE(listing.ok());
  std::vector<std::string> names;
  for (auto& d : *listing) names.push_back(d.name);
  EXPECT_EQ((std::vector<std::string>{".", "..", "a", "c"}), names);
}

// An inode of the old revision that the client dropped for room (the
// kernel still holds it) is rebuilt from the old revision's catalogs, which
// stay open for the kernel's entry timeout after the switch.
TEST_F(RevisionUpdateTest, DroppedInodesOfTheOldRevisionReadTheOldRevision) {
  Publish(
      "mkdir a d && echo one > a/file && for i in $(seq 64); do echo $i > "
      "d/f$i; done");
  auto mount = TryMount("cache", nullptr, /*memcache_bytes=*/1);
  ASSERT_TRUE(mount.ok()) << mount.status().ToString();
  FileSystem* fs = (*mount)->file_system();
  const uint64_t old_inode = Resolve(fs, "a/file");
  ASSERT_NE(0u, old_inode);
  // 64 more inodes with consecutive numbers: every shard of the table
  // (one entry each at this size) gets a newer one.
  for (int i = 1; i <= 64; ++i)
    ASSERT_NE(0u, Resolve(fs, "d/f" + std::to_string(i)));
  const uint64_t rebuilt = fs->Statistics().inode_rebuilds;
  Publish("mkdir a && echo two! > a/file");
  auto switched = (*mount)->CheckForUpdate(true);
  ASSERT_TRUE(switched.ok()) << switched.status().ToString();
  auto old_attr = fs->GetAttr(old_inode);
  ASSERT_TRUE(old_attr.ok()) << old_attr.status().ToString();
  EXPECT_EQ(4, old_attr->st_size);
  EXPECT_GT(fs->Statistics().inode_rebuilds, rebuilt);
  bool keep = false;
  auto file = fs->Open(old_inode, &keep);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ("one\n", Read(fs, *file));
  fs->Release(*file);
  // The new revision under its new inode.
  const uint64_t new_inode = Resolve(fs, "a/file");
  ASSERT_NE(0u, new_inode);
  EXPECT_EQ(5, fs->GetAttr(new_inode)->st_size);
}

TEST_F(RevisionUpdateTest, ReplayedOlderManifestIsRefused) {
  Publish("echo one > f");
  auto old_manifest = ReadFile(paths_.Storage(fqrn_) + "/.cvmfspublished");
  ASSERT_TRUE(old_manifest.ok());
  Publish("echo two > f");
  auto mount = Mount();
  ASSERT_TRUE(mount);
  uint64_t revision = mount->file_system()->revision().revision;
  // A stale mirror or an attacker serves the older (validly signed) manifest.
  fetcher_->Override(".cvmfspublished", *old_manifest);
  auto r = mount->CheckForUpdate(true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string::npos, r.status().message().find("not newer"))
      << r.status().ToString();
  EXPECT_EQ(revision, mount->file_system()->revision().revision);
}

TEST_F(RevisionUpdateTest, BlacklistedRevisionIsRefusedAtMountAndUpdate) {
  Publish("echo one > f");
  auto mount = Mount();
  ASSERT_TRUE(mount);
  uint64_t revision = mount->file_system()->revision().revision;
  Publish("echo two > f");
  ASSERT_TRUE(WriteFileAtomic(paths_.EtcCvmfs() + "/blacklist",
                              "# broken releases\n<" + fqrn_ + " " +
                                  std::to_string(revision + 5) + "\n",
                              0644)
                  .ok());
  auto r = mount->CheckForUpdate(true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string::npos, r.status().message().find("blacklisted"))
      << r.status().ToString();
  mount.reset();
  auto again = TryMount();
  ASSERT_FALSE(again.ok());
  EXPECT_NE(std::string::npos, again.status().message().find("blacklisted"));
}

// As CVMFS: the configuration repository's blacklist adds to the local one;
// refusals name the file.
TEST_F(RevisionUpdateTest, ConfigRepositoryBlacklistCountsToo) {
  Publish("echo one > f");
  WriteBlacklist("# nothing\n");
  ASSERT_TRUE(Mount());
  ASSERT_TRUE(
      WriteFileAtomic(ConfigRepositoryBlacklist(), "<" + fqrn_ + " 99\n", 0644)
          .ok());
  auto refused = TryMount("cache2");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string::npos, refused.status().message().find("blacklisted"));
  EXPECT_NE(std::string::npos,
            refused.status().message().find(ConfigRepositoryBlacklist()))
      << refused.status().ToString();
  ASSERT_TRUE(
      WriteFileAtomic(ConfigRepositoryBlacklist(), "<x.y 2\nbad\n", 0644).ok());
  EXPECT_FALSE(TryMount("cache3").ok());  // malformed: refused, as CVMFS
}

// As CVMFS: at the TTL check the mounted revision is checked against the
// reread blacklist first; if it is refused the mount is aborted, even if
// the server has a newer, allowed revision.
TEST_F(RevisionUpdateTest, BlacklistedMountedRevisionAbortsAtTheCheck) {
  Publish("echo one > f");
  std::vector<Status> aborts;
  auto m =
      TryMount("cache", [&aborts](const Status& s) { aborts.push_back(s); });
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto mount = std::move(m).value();
  const uint64_t revision = mount->file_system()->revision().revision;
  ASSERT_TRUE(mount->CheckForUpdate(true).ok());
  EXPECT_TRUE(aborts.empty());
  Publish("echo two > f");
  WriteBlacklist("<" + fqrn_ + " " + std::to_string(revision + 1) + "\n");
  auto r = mount->CheckForUpdate(true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kPermission);
  EXPECT_TRUE(Told(Severity::kError,
                   "the mounted revision " + std::to_string(revision)));
  ASSERT_EQ(aborts.size(), 1u);
  const std::string& why = aborts[0].message();
  EXPECT_NE(why.find("revision " + std::to_string(revision) + " of " + fqrn_),
            std::string::npos)
      << why;
  EXPECT_NE(why.find(BlacklistFile()), std::string::npos) << why;
  EXPECT_EQ(mount->file_system()->revision().revision, revision);
}

// An offline start (no manifest from any server) mounts the cached
// revision only if the blacklist allows it.
TEST_F(RevisionUpdateTest, OfflineStartChecksTheRevisionBlacklist) {
  Publish("echo one > f");
  uint64_t revision = 0;
  {
    auto mount = Mount();
    ASSERT_TRUE(mount);
    revision = mount->file_system()->revision().revision;
  }
  const std::string manifest = paths_.Storage(fqrn_) + "/.cvmfspublished";
  ASSERT_EQ(0, ::rename(manifest.c_str(), (manifest + ".away").c_str()));
  {
    auto offline = TryMount();
    ASSERT_TRUE(offline.ok()) << offline.status().ToString();
    EXPECT_TRUE((*offline)->offline_start());
  }
  WriteBlacklist("<" + fqrn_ + " " + std::to_string(revision + 1) + "\n");
  auto refused = TryMount();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kPermission);
  EXPECT_NE(refused.status().message().find("blacklisted"), std::string::npos)
      << refused.status().ToString();
  // "<FQRN N" refuses revisions below N only.
  WriteBlacklist("<" + fqrn_ + " " + std::to_string(revision) + "\n");
  EXPECT_TRUE(TryMount().ok());
}

// A blacklisted certificate: a fresh mount is refused (no offline start
// works around it); a running mount refuses the new manifest at the check
// and keeps serving its revision (the revision itself is not refused).
TEST_F(RevisionUpdateTest, BlacklistedCertificate) {
  Publish("echo one > f");
  std::vector<Status> aborts;
  auto m =
      TryMount("cache", [&aborts](const Status& s) { aborts.push_back(s); });
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto mount = std::move(m).value();
  const uint64_t revision = mount->file_system()->revision().revision;
  Publish("echo two > f");
  auto pem = ReadFile(paths_.KeysDir() + "/" + fqrn_ + ".crt");
  ASSERT_TRUE(pem.ok()) << pem.status().ToString();
  auto cert = Certificate::FromPem(*pem);
  ASSERT_TRUE(cert.ok());
  WriteBlacklist("# compromised key\n" + cert->Fingerprint() + "\n");
  auto r = mount->CheckForUpdate(true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kPermission);
  EXPECT_NE(r.status().message().find("certificate " + cert->Fingerprint()),
            std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find(BlacklistFile()), std::string::npos);
  EXPECT_EQ(mount->file_system()->revision().revision, revision);
  EXPECT_TRUE(aborts.empty());
  mount.reset();
  auto again = TryMount();  // the cache has a breadcrumb: still refused
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("is blacklisted"), std::string::npos)
      << again.status().ToString();
}

// An expired whitelist: a fresh mount fails naming it; a running mount
// keeps its revision and refuses the newer manifest.
TEST_F(RevisionUpdateTest, ExpiredWhitelist) {
  Publish("echo one > f");
  auto mount = Mount();
  ASSERT_TRUE(mount);
  const uint64_t revision = mount->file_system()->revision().revision;
  Publish("echo two > f");
  {
    auto repo = publisher::Repository::Open(paths_, fqrn_);
    ASSERT_TRUE(repo.ok());
    ASSERT_TRUE((*repo)->Resign(0).ok());  // expires now, i.e. this hour
  }
  auto r = mount->CheckForUpdate(true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("whitelist of " + fqrn_ + " expired"),
            std::string::npos)
      << r.status().ToString();
  EXPECT_EQ(mount->file_system()->revision().revision, revision);
  auto fresh = TryMount("fresh-cache");
  ASSERT_FALSE(fresh.ok());
  EXPECT_NE(fresh.status().message().find("expired"), std::string::npos)
      << fresh.status().ToString();
}

}  // namespace
}  // namespace cvmfs::client

namespace cvmfs::client {
namespace {

// Notifications (doc/notifications.md): the mount is at revision N, N+1 is
// published and announced, and the servers (a Stratum 1 not yet
// synchronized) still give N's manifest.
class AnnouncementTest : public RevisionUpdateTest {
 protected:
  void SetUp() override {
    RevisionUpdateTest::SetUp();
    Publish("echo one > f");
    const std::string published = paths_.Storage(fqrn_) + "/.cvmfspublished";
    auto old_manifest = ReadFile(published);
    ASSERT_TRUE(old_manifest.ok());
    old_manifest_ = *old_manifest;
    mount_ = Mount();
    ASSERT_TRUE(mount_);
    old_revision_ = mount_->file_system()->revision().revision;
    Publish("echo two > f");
    auto new_manifest = ReadFile(published);
    ASSERT_TRUE(new_manifest.ok());
    new_manifest_ = *new_manifest;
    ASSERT_TRUE(WriteFileAtomic(published, old_manifest_, 0644).ok());
  }
  void TearDown() override {
    mount_.reset();
    RevisionUpdateTest::TearDown();
  }
  uint64_t revision() const {
    return mount_->file_system()->revision().revision;
  }

  std::string old_manifest_, new_manifest_;
  std::unique_ptr<RepositoryMount> mount_;
  uint64_t old_revision_ = 0;
};

// An announced manifest is verified like one from a server; a newer one is
// switched to at the next check; an older or forged one is ignored.
TEST_F(AnnouncementTest, AnnouncedManifestIsVerifiedAndFollowed) {
  std::string forged = new_manifest_;
  const size_t s = forged.find("\nS");
  ASSERT_NE(std::string::npos, s);
  forged.insert(s + 2, "9");  // a higher revision, same signature
  EXPECT_FALSE(mount_->FollowAnnouncement(forged).ok());
  EXPECT_FALSE(mount_->FollowAnnouncement("not a manifest").ok());
  EXPECT_FALSE(mount_->FollowAnnouncement(old_manifest_).ok());  // not newer
  EXPECT_TRUE(Told(Severity::kWarning, "notification ignored: "));
  EXPECT_EQ(old_revision_, revision());

  auto followed = mount_->FollowAnnouncement(new_manifest_);
  ASSERT_TRUE(followed.ok()) << followed.status().ToString();
  auto switched = mount_->CheckForUpdate(true);
  ASSERT_TRUE(switched.ok()) << switched.status().ToString();
  EXPECT_EQ(old_revision_ + 1, revision());
  const auto c = mount_->notification_counters();
  EXPECT_EQ(4u, c.received);
  EXPECT_EQ(3u, c.ignored);
  EXPECT_EQ(1u, c.triggered);
}

// An announced revision whose catalogs are not there yet (the servers have
// not caught up) is kept: the retry after the failed switch takes it,
// although the servers still give the older manifest.
TEST_F(AnnouncementTest, AnnouncedManifestSurvivesAFailedSwitch) {
  auto parsed = Manifest::Parse(new_manifest_);
  ASSERT_TRUE(parsed.ok());
  const std::string catalog =
      paths_.Storage(fqrn_) + "/" +
      ObjectPath(parsed->manifest.root_catalog, ObjectSuffix::kCatalog);
  const std::string hidden = catalog + ".hidden";
  ASSERT_EQ(0, std::rename(catalog.c_str(), hidden.c_str()));

  ASSERT_TRUE(mount_->FollowAnnouncement(new_manifest_).ok());
  EXPECT_FALSE(mount_->CheckForUpdate(true).ok());  // catalog missing
  EXPECT_EQ(old_revision_, revision());
  ASSERT_EQ(0, std::rename(hidden.c_str(), catalog.c_str()));
  auto retried = mount_->CheckForUpdate(true);
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_EQ(old_revision_ + 1, revision());
}

}  // namespace
}  // namespace cvmfs::client
