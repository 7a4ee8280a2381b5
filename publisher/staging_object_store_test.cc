#include "publisher/staging_object_store.h"

#include <gtest/gtest.h>

#include "testing/test_env.h"

namespace publisher {
namespace {

TEST(StagingObjectStoreTest, WritesAreStagedAndReadsFallBackUpstream) {
  cvmfs::testing::TempDir dir;
  cvmfs::MemoryObjectStore upstream;
  ASSERT_TRUE(upstream.Put("data/aa/old", "published").ok());
  StagingObjectStore store(&upstream, dir.path());
  ASSERT_TRUE(store.CreateLayout().ok());

  // What the repository has is read, but does not count as stored: a
  // publish stores (and sends) every object it needs.
  EXPECT_EQ(*store.Get("data/aa/old"), "published");
  EXPECT_EQ(*store.Size("data/aa/old"), 9u);
  EXPECT_FALSE(store.Exists("data/aa/old"));

  ASSERT_TRUE(store.Put("data/bb/new", "staged").ok());
  EXPECT_TRUE(store.Exists("data/bb/new"));
  EXPECT_EQ(*store.Get("data/bb/new"), "staged");
  EXPECT_FALSE(upstream.Exists("data/bb/new"));
  EXPECT_EQ(*store.ListObjects(), std::vector<std::string>{"data/bb/new"});
  EXPECT_TRUE(store.Get("data/cc/none").status().IsNotFound());
}

}  // namespace
}  // namespace publisher
