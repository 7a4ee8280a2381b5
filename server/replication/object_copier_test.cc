#include "server/replication/object_copier.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cvmfs/bundle.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/object_name.h"
#include "testing/memory_fetcher.h"
#include "testing/test_env.h"

namespace replication {
namespace {

using cvmfs::Digest;
using cvmfs::HashAlgorithm;
using cvmfs::ObjectPath;
using cvmfs::ObjectSuffix;

class ObjectCopierBundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.Sub("storage");
    ASSERT_EQ(::mkdir(root_.c_str(), 0755), 0);
    ASSERT_EQ(::mkdir((root_ + "/data").c_str(), 0755), 0);
    ASSERT_EQ(::mkdir((root_ + "/data/txn").c_str(), 0755), 0);
    for (int i = 0; i < 256; ++i) {
      char dir[8];
      std::snprintf(dir, sizeof(dir), "%02x", i);
      ASSERT_EQ(::mkdir((root_ + "/data/" + dir).c_str(), 0755), 0);
    }
    dest_.emplace(root_);
    for (int i = 0; i < 3; ++i)
      contents_.push_back("member " + std::to_string(i) + std::string(i, 'x'));
  }

  // Serves a bundle of contents_ that names its members by `digests`
  // (TrueDigests(), or wrong ones) and returns its digest.
  Digest ServeBundle(const std::vector<Digest>& digests) {
    std::vector<cvmfs::BundleMember> members;
    std::string body;
    for (size_t i = 0; i < contents_.size(); ++i) {
      members.push_back({digests[i], contents_[i].size()});
      body += contents_[i];
    }
    std::string bytes = cvmfs::SerializeBundleHeader(members) + body;
    Digest digest = cvmfs::HashString(HashAlgorithm::kSha1, bytes);
    fetcher_.Put(ObjectPath(digest, ObjectSuffix::kBundle), bytes);
    return digest;
  }
  std::vector<Digest> TrueDigests() const {
    std::vector<Digest> d;
    for (const auto& c : contents_)
      d.push_back(cvmfs::HashString(HashAlgorithm::kSha1, c));
    return d;
  }
  bool Stored(const std::string& rel) const {
    return ::access((root_ + "/" + rel).c_str(), F_OK) == 0;
  }

  cvmfs::testing::TempDir tmp_;
  std::string root_;
  std::optional<LocalDestination> dest_;
  cvmfs::MemoryFetcher fetcher_;
  std::vector<std::string> contents_;
};

// One request for the bundle stores every member as its own object; a
// later request for a member is answered by what the bundle stored.
TEST_F(ObjectCopierBundleTest, StoresTheMembersFromOneRequest) {
  const std::vector<Digest> digests = TrueDigests();
  const Digest bundle = ServeBundle(digests);
  ObjectCopier copier(&fetcher_, &*dest_, 4);
  ObjectCopier::Batch bundles;
  copier.EnqueueBundle(&bundles, bundle);
  ASSERT_TRUE(copier.Wait(bundles).ok());
  EXPECT_TRUE(Stored(ObjectPath(bundle, ObjectSuffix::kBundle)));
  for (size_t i = 0; i < digests.size(); ++i) {
    auto bytes = cvmfs::ReadFile(root_ + "/" +
                                 ObjectPath(digests[i], ObjectSuffix::kNone));
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    EXPECT_EQ(*bytes, contents_[i]);
  }
  ObjectCopier::Batch files;
  for (const Digest& d : digests)
    copier.Enqueue(&files, d, ObjectSuffix::kNone);
  ASSERT_TRUE(copier.Wait(files).ok());
  EXPECT_EQ(fetcher_.total_requests(), 1u);
  CopyCounters c = copier.counters();
  EXPECT_EQ(c.bundles, 1u);
  EXPECT_EQ(c.from_bundles, digests.size());
  EXPECT_EQ(c.copied, 1 + digests.size());
}

// A bundle the source lacks (CVMFS's gc removes them) is skipped and
// counted; its members are then copied one by one.
TEST_F(ObjectCopierBundleTest, ABundleTheSourceLacksIsSkipped) {
  const std::vector<Digest> digests = TrueDigests();
  for (size_t i = 0; i < digests.size(); ++i)
    fetcher_.Put(ObjectPath(digests[i], ObjectSuffix::kNone), contents_[i]);
  const Digest missing = cvmfs::HashString(HashAlgorithm::kSha1, "gone");
  ObjectCopier copier(&fetcher_, &*dest_, 2);
  ObjectCopier::Batch bundles;
  copier.EnqueueBundle(&bundles, missing);
  cvmfs::Status st = copier.Wait(bundles);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_FALSE(Stored(ObjectPath(missing, ObjectSuffix::kBundle)));
  ObjectCopier::Batch files;
  for (const Digest& d : digests)
    copier.Enqueue(&files, d, ObjectSuffix::kNone);
  ASSERT_TRUE(copier.Wait(files).ok());
  for (const Digest& d : digests)
    EXPECT_TRUE(Stored(ObjectPath(d, ObjectSuffix::kNone)));
  CopyCounters c = copier.counters();
  EXPECT_EQ(c.bundles_missing, 1u);
  EXPECT_EQ(c.bundles, 0u);
  EXPECT_EQ(c.copied, digests.size());
}

// A member whose bytes do not match its digest fails the copy; nothing of
// it is stored, nor the bundle (whose presence means its members are).
TEST_F(ObjectCopierBundleTest, AMemberNotMatchingItsDigestIsNotStored) {
  std::vector<Digest> digests = TrueDigests();
  digests[1] = cvmfs::HashString(HashAlgorithm::kSha1, "something else");
  const Digest bundle = ServeBundle(digests);
  ObjectCopier copier(&fetcher_, &*dest_, 2);
  ObjectCopier::Batch bundles;
  copier.EnqueueBundle(&bundles, bundle);
  cvmfs::Status st = copier.Wait(bundles);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_FALSE(Stored(ObjectPath(digests[1], ObjectSuffix::kNone)));
  EXPECT_FALSE(Stored(ObjectPath(bundle, ObjectSuffix::kBundle)));
}

// A bundle already in the storage is not downloaded again.
TEST_F(ObjectCopierBundleTest, APresentBundleIsNotFetched) {
  const Digest bundle = ServeBundle(TrueDigests());
  {
    ObjectCopier copier(&fetcher_, &*dest_, 2);
    ObjectCopier::Batch b;
    copier.EnqueueBundle(&b, bundle);
    ASSERT_TRUE(copier.Wait(b).ok());
  }
  fetcher_.ResetCounters();
  ObjectCopier copier(&fetcher_, &*dest_, 2);
  ObjectCopier::Batch b;
  copier.EnqueueBundle(&b, bundle);
  ASSERT_TRUE(copier.Wait(b).ok());
  EXPECT_EQ(fetcher_.total_requests(), 0u);
  EXPECT_EQ(copier.counters().already_present, 1u);
}

}  // namespace
}  // namespace replication
