#include "publisher/s3_config.h"

#include <gtest/gtest.h>

namespace publisher {
namespace {

KeyValueFile Minimal() {
  return KeyValueFile::Parse(
      "CVMFS_S3_HOST=127.0.0.1\nCVMFS_S3_PORT=8333\nCVMFS_S3_BUCKET=b\n"
      "CVMFS_S3_ACCESS_KEY=ak\nCVMFS_S3_SECRET_KEY=sk\n");
}

TEST(S3ConfigTest, ParsesCvmfsKeysWithDefaults) {
  KeyValueFile kv = Minimal();
  kv.Set("CVMFS_S3_DNS_BUCKETS", "false");
  kv.Set("CVMFS_S3_MAX_NUMBER_OF_PARALLEL_CONNECTIONS", "8");
  auto c = S3Config::FromKeyValues(kv);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->host, "127.0.0.1");
  EXPECT_EQ(c->port, 8333);
  EXPECT_EQ(c->max_connections, 8u);
  EXPECT_TRUE(c->peek_before_put);
  EXPECT_EQ(c->region, "us-east-1");
  EXPECT_EQ(c->BucketUrl(), "http://127.0.0.1:8333/b");
  kv.Set("CVMFS_S3_DNS_BUCKETS", "true");
  kv.Set("CVMFS_S3_USE_HTTPS", "yes");
  EXPECT_EQ(S3Config::FromKeyValues(kv)->BucketUrl(),
            "https://b.127.0.0.1:8333");
}

TEST(S3ConfigTest, RefusesUnknownAndUnsupportedKeysByName) {
  KeyValueFile kv = Minimal();
  kv.Set("CVMFS_S3_HOSTNAME", "x");
  auto c = S3Config::FromKeyValues(kv);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().ToString().find("CVMFS_S3_HOSTNAME"), std::string::npos);

  kv = Minimal();
  kv.Set("CVMFS_S3_FLAVOR", "azure");
  c = S3Config::FromKeyValues(kv);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().ToString().find("CVMFS_S3_FLAVOR=azure"),
            std::string::npos);

  kv = Minimal();
  kv.Set("CVMFS_S3_PORT", "99999");
  EXPECT_FALSE(S3Config::FromKeyValues(kv).ok());
  kv = Minimal();
  kv.Set("CVMFS_S3_SECRET_KEY", "");
  c = S3Config::FromKeyValues(kv);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().ToString().find("CVMFS_S3_SECRET_KEY"),
            std::string::npos);
}

TEST(S3ConfigTest, ParsesUpstream) {
  auto u =
      ParseS3Upstream("S3,/var/spool/cvmfs/r/tmp,r.cern.ch@/etc/cvmfs/s3.conf");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->tmp_dir, "/var/spool/cvmfs/r/tmp");
  EXPECT_EQ(u->prefix, "r.cern.ch");
  EXPECT_EQ(u->config_file, "/etc/cvmfs/s3.conf");
  EXPECT_FALSE(ParseS3Upstream("S3,/tmp,r.cern.ch").ok());
  EXPECT_FALSE(ParseS3Upstream("local,/tmp,/srv").ok());
  EXPECT_FALSE(ParseS3Upstream("S3,/tmp,../x@/c").ok());
}

}  // namespace
}  // namespace publisher
