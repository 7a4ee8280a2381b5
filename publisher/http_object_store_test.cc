#include "publisher/http_object_store.h"

#include <gtest/gtest.h>

#include "testing/http_test_server.h"

namespace publisher {
namespace {

TEST(HttpObjectStoreTest, ReadsTheServedRepository) {
  cvmfs::testing::HttpTestServer server;
  ASSERT_TRUE(server.ok());
  server.Put(".cvmfspublished", "manifest");
  server.Put("data/ab/cdefC", "catalog bytes");
  HttpObjectStore store(server.RepoUrl() + "/", "read-only here");
  EXPECT_EQ(*store.Get(".cvmfspublished"), "manifest");
  EXPECT_EQ(*store.Get("data/ab/cdefC"), "catalog bytes");
  EXPECT_EQ(*store.Size("data/ab/cdefC"), 13u);
  EXPECT_TRUE(store.Exists("data/ab/cdefC"));
  EXPECT_FALSE(store.Exists("data/ab/missing"));
  EXPECT_TRUE(store.Get("data/ab/missing").status().IsNotFound());
}

TEST(HttpObjectStoreTest, RefusesWritesWithItsReason) {
  cvmfs::testing::HttpTestServer server;
  ASSERT_TRUE(server.ok());
  HttpObjectStore store(server.RepoUrl(), "published through the gateway X");
  cvmfs::Status put = store.Put("data/ab/cd", "x");
  EXPECT_EQ(put.code(), cvmfs::Status::Code::kNotSupported);
  EXPECT_NE(put.message().find("published through the gateway X"),
            std::string::npos);
  EXPECT_FALSE(store.Remove("data/ab/cd").ok());
  EXPECT_FALSE(store.ListObjects().ok());
  EXPECT_EQ(server.requests(), 0);
}

TEST(HttpObjectStoreTest, AServerErrorIsNoMissingObject) {
  cvmfs::testing::HttpTestServer server;
  ASSERT_TRUE(server.ok());
  server.set_status(500);
  HttpObjectStore store(server.RepoUrl(), "");
  auto got = store.Get(".cvmfspublished");
  ASSERT_FALSE(got.ok());
  EXPECT_FALSE(got.status().IsNotFound());
}

}  // namespace
}  // namespace publisher
