// StoreObject: the stored bytes are the compressed content, named by their
// hash; an object that exists is not written again.
#include "cvmfs/object_store.h"

#include <gtest/gtest.h>

#include <string>

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

const std::string kContent(10000, 'x');

TEST(StoreObjectTest, StoresTheCompressedBytesUnderTheirHash) {
  MemoryObjectStore store;
  auto digest = StoreObject(&store, kContent, ObjectSuffix::kCatalog,
                            HashAlgorithm::kShake128);
  ASSERT_TRUE(digest.ok()) << digest.status().ToString();
  EXPECT_EQ(HashAlgorithm::kShake128, digest->algorithm);
  const std::string name = ObjectPath(*digest, ObjectSuffix::kCatalog);
  auto stored = store.Get(name);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(ZlibCompress(kContent), *stored);
  auto read = ReadVerifiedObject(&store, *digest, ObjectSuffix::kCatalog);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(kContent, *read);
}

TEST(StoreObjectTest, AnExistingObjectIsNotWrittenAgain) {
  MemoryObjectStore store;
  StoreObjectOptions options;
  auto first = StoreObject(&store, kContent, ObjectSuffix::kNone, options);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->existed);
  EXPECT_EQ(ZlibCompress(kContent).size(), first->stored_size);
  auto second = StoreObject(&store, kContent, ObjectSuffix::kNone, options);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->existed);
  EXPECT_EQ(first->digest, second->digest);
  EXPECT_EQ(1u, store.puts());
}

TEST(LocalObjectStoreTest, PutIfAbsentWritesOnceAndPutReplaces) {
  testing::TempDir dir;
  LocalObjectStore store(dir.Sub("store"));
  ASSERT_TRUE(store.CreateLayout().ok());
  auto first = store.PutIfAbsent("data/ab/cdef", "bytes");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(*first);
  auto again = store.PutIfAbsent("data/ab/cdef", "other");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(*again);
  EXPECT_EQ("bytes", *store.Get("data/ab/cdef"));
  ASSERT_TRUE(store.Put("data/ab/cdef", "replaced").ok());
  EXPECT_EQ("replaced", *store.Get("data/ab/cdef"));
  // Nothing is left behind in data/txn, and no object is half there.
  auto txn = ListDirectory(dir.Sub("store/data/txn"));
  ASSERT_TRUE(txn.ok());
  EXPECT_TRUE(txn->empty());
  EXPECT_FALSE(store.PutIfAbsent("data/zz/missing-dir", "x").ok());
  // StoreObject learns from it that an object existed.
  auto stored =
      StoreObject(&store, kContent, ObjectSuffix::kNone, StoreObjectOptions{});
  ASSERT_TRUE(stored.ok());
  EXPECT_FALSE(stored->existed);
  auto twice =
      StoreObject(&store, kContent, ObjectSuffix::kNone, StoreObjectOptions{});
  ASSERT_TRUE(twice.ok());
  EXPECT_TRUE(twice->existed);
}

TEST(StoreObjectTest, UncompressedAndWithTheCallersCompressor) {
  MemoryObjectStore store;
  StoreObjectOptions raw;
  raw.compression = Compression::kNone;
  auto plain = StoreObject(&store, kContent, ObjectSuffix::kNone, raw);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(HashString(HashAlgorithm::kSha1, kContent), plain->digest);
  EXPECT_EQ(kContent.size(), plain->stored_size);

  Compressor compressor(6);
  std::string scratch, expected;
  compressor.Compress(kContent, &expected);
  StoreObjectOptions own;
  own.compressor = &compressor;
  own.scratch = &scratch;
  auto deflated = StoreObject(&store, kContent, ObjectSuffix::kPartial, own);
  ASSERT_TRUE(deflated.ok());
  EXPECT_EQ(expected, scratch);
  EXPECT_EQ(HashString(HashAlgorithm::kSha1, expected), deflated->digest);
  EXPECT_EQ(expected,
            *store.Get(ObjectPath(deflated->digest, ObjectSuffix::kPartial)));
}

}  // namespace
}  // namespace cvmfs
