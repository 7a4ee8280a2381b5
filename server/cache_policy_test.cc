#include "server/cache_policy.h"

#include <gtest/gtest.h>

namespace server {
namespace {

TEST(CachePolicyTest, MetadataExpiresAfter61Seconds) {
  for (const char* path : {".cvmfspublished", ".cvmfswhitelist", ".cvmfsreflog",
                           ".cvmfs_master_replica", ".cvmfs_last_snapshot",
                           "sub/.cvmfspublished"}) {
    CachePolicy p = CachePolicyFor(path);
    EXPECT_EQ(p.max_age_seconds, 61) << path;
    EXPECT_EQ(p.content_type, "application/x-cvmfs") << path;
  }
}

TEST(CachePolicyTest, ObjectsExpireAfterThreeDays) {
  for (const char* path :
       {"data/ab/cdef0123456789abcdef0123456789abcdef", "data/ab/cdefC",
        "data/ab/cdefH", "data/txn/x", "something", ".cvm"}) {
    CachePolicy p = CachePolicyFor(path);
    EXPECT_EQ(p.max_age_seconds, 259200) << path;
    EXPECT_EQ(p.content_type, "application/octet-stream") << path;
  }
}

TEST(CachePolicyTest, JsonMetaInformation) {
  CachePolicy p = CachePolicyFor("info/v1/repositories.json");
  EXPECT_EQ(p.max_age_seconds, 61);
  EXPECT_EQ(p.content_type, "application/json");
  EXPECT_EQ(CachePolicyFor(".json").content_type, "application/octet-stream");
}

}  // namespace
}  // namespace server
