// CheckCache on a cache directory made by the test: verified objects of the
// three stored forms, a damaged one, foreign files, a vanished bucket.
#include "cache/cache_check.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cache/cache_layout.h"
#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace cache {
namespace {

using cvmfs::Digest;
using cvmfs::HashAlgorithm;

class CacheCheckTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(CreateLayout(dir_).ok()); }
  // Stores `content` under the name a publisher gives it.
  Digest Put(const std::string& content, const std::string& stored_form,
             HashAlgorithm algo = HashAlgorithm::kSha1) {
    Digest id = cvmfs::HashString(algo, stored_form);
    EXPECT_TRUE(
        cvmfs::WriteFileAtomic(ObjectPath(dir_, id), content, 0600).ok());
    return id;
  }
  std::string Libdeflate(const std::string& s) {
    std::string z;
    cvmfs::Compressor(6).Compress(s, &z);
    return z;
  }
  CacheCheckReport Check(CacheCheckOptions o = {}) {
    out_.str("");
    return CheckCache(dir_, o, out_);
  }

  cvmfs::testing::TempDir tmp_;
  std::string dir_ = tmp_.Sub("cache");
  std::ostringstream out_;
};

TEST_F(CacheCheckTest, ObjectsOfEveryStoredFormVerify) {
  Put("ours", Libdeflate("ours"));
  Put("cvmfs", cvmfs::ZlibCompress("cvmfs", 6));
  Put("raw", "raw");
  Put("shake", Libdeflate("shake"), HashAlgorithm::kShake128);
  Put("rmd", cvmfs::ZlibCompress("rmd", 6), HashAlgorithm::kRmd160);
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir_ + "/ab/not-an-object", "x").ok());
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir_ + "/cachedb", "db").ok());
  CacheCheckReport r = Check();
  EXPECT_EQ(r.files, 5u) << out_.str();
  EXPECT_EQ(r.ExitCode(), 0) << out_.str();
  EXPECT_NE(out_.str().find("Verified 5 files"), std::string::npos);
  EXPECT_TRUE(cvmfs::PathExists(dir_ + "/cachedb")) << "nothing fixed";
  EXPECT_TRUE(cvmfs::PathExists(dir_ + "/ab/not-an-object"));
}

TEST_F(CacheCheckTest, DamagedObjectIsReportedThenQuarantined) {
  Digest good = Put("good", Libdeflate("good"));
  Digest bad = Put("damaged", Libdeflate("original"));
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir_ + "/cachedb", "db").ok());
  CacheCheckReport r = Check();
  EXPECT_EQ(r.unfixed, 1u);
  EXPECT_EQ(r.ExitCode(), kCheckUnfixed);
  EXPECT_NE(out_.str().find(ObjectPath(dir_, bad) + " does not match"),
            std::string::npos)
      << out_.str();
  EXPECT_TRUE(cvmfs::PathExists(ObjectPath(dir_, bad)));

  CacheCheckOptions fix;
  fix.fix = true;
  fix.threads = 4;
  r = Check(fix);
  EXPECT_EQ(r.ExitCode(), kCheckFixed) << out_.str();
  EXPECT_FALSE(cvmfs::PathExists(ObjectPath(dir_, bad)));
  auto moved = cvmfs::ReadFile(dir_ + "/quarantaine/" + bad.ToString());
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(*moved, "damaged");
  EXPECT_TRUE(cvmfs::PathExists(ObjectPath(dir_, good)));
  EXPECT_FALSE(cvmfs::PathExists(dir_ + "/cachedb")) << "rebuilt next mount";
  EXPECT_EQ(Check().ExitCode(), 0) << out_.str();
}

TEST_F(CacheCheckTest, ForceRebuildUnlinksCachedb) {
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir_ + "/cachedb", "db").ok());
  CacheCheckOptions o;
  o.force_rebuild = true;
  EXPECT_EQ(Check(o).ExitCode(), kCheckFixed);
  EXPECT_FALSE(cvmfs::PathExists(dir_ + "/cachedb"));
}

TEST_F(CacheCheckTest, NotACacheIsAnOperationalError) {
  std::ostringstream out;
  CacheCheckReport r = CheckCache(tmp_.Sub("nothing"), {}, out);
  EXPECT_EQ(r.ExitCode(), kCheckOperational);
  EXPECT_NE(out.str().find("txn does not exist"), std::string::npos);
}

TEST_F(CacheCheckTest, MissingBucketLeavesAnError) {
  ASSERT_TRUE(cvmfs::RemoveTree(dir_ + "/7f").ok());
  EXPECT_EQ(Check().ExitCode(), kCheckUnfixed);
  EXPECT_NE(out_.str().find("7f does not exist"), std::string::npos);
}

TEST_F(CacheCheckTest, LeftoversInTxnAreOnlyAWarning) {
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir_ + "/txn/fetchABCDEF", "x").ok());
  EXPECT_EQ(Check().ExitCode(), 0);
  EXPECT_NE(out_.str().find("txn is not empty"), std::string::npos);
}

}  // namespace
}  // namespace cache
