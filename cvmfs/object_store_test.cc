// StoreObject: the stored bytes are the compressed content, named by their
// hash; an object that exists is not written again.
#include "cvmfs/object_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

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

TEST(LocalObjectStoreTest, GetAtMostReadsSmallObjectsOnly) {
  testing::TempDir dir;
  LocalObjectStore store(dir.Sub("store"));
  ASSERT_TRUE(store.CreateLayout().ok());
  ASSERT_TRUE(store.Put("data/ab/small", "12345").ok());
  auto small = store.GetAtMost("data/ab/small", 5);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  ASSERT_TRUE(small->has_value());
  EXPECT_EQ("12345", **small);
  auto large = store.GetAtMost("data/ab/small", 4);
  ASSERT_TRUE(large.ok());
  EXPECT_FALSE(large->has_value());
  EXPECT_TRUE(store.GetAtMost("data/ab/missing", 5).status().IsNotFound());
  // The default (Size, then Get) answers the same.
  MemoryObjectStore memory;
  ASSERT_TRUE(memory.Put("data/ab/small", "12345").ok());
  EXPECT_EQ("12345", **memory.GetAtMost("data/ab/small", 5));
  EXPECT_FALSE(memory.GetAtMost("data/ab/small", 4)->has_value());
  EXPECT_TRUE(memory.GetAtMost("data/ab/missing", 5).status().IsNotFound());
}

// The store resolves names from its root's descriptor, opened when the
// store is made or, for a root that did not exist yet, by CreateLayout;
// every operation finds the same files as by their full paths.
TEST(LocalObjectStoreTest, ARootMadeByCreateLayoutServesEveryOperation) {
  testing::TempDir dir;
  LocalObjectStore store(dir.Sub("new/store"));
  ASSERT_TRUE(store.CreateLayout().ok());
  ASSERT_TRUE(store.Put("data/01/a", "aaa").ok());
  EXPECT_EQ("aaa", *ReadFile(dir.Sub("new/store/data/01/a")));
  EXPECT_TRUE(store.Exists("data/01/a"));
  EXPECT_EQ(3u, *store.Size("data/01/a"));
  std::string streamed;
  ASSERT_TRUE(store
                  .ReadTo("data/01/a",
                          [&](const char* d, size_t n) {
                            streamed.append(d, n);
                            return Status::Ok();
                          })
                  .ok());
  EXPECT_EQ("aaa", streamed);
  ASSERT_TRUE(WriteFileAtomic(dir.Sub("spool"), "file bytes").ok());
  ASSERT_TRUE(store.PutFile("data/01/b", dir.Sub("spool")).ok());
  EXPECT_EQ("file bytes", *store.Get("data/01/b"));
  ASSERT_TRUE(store.Remove("data/01/a").ok());
  EXPECT_FALSE(PathExists(dir.Sub("new/store/data/01/a")));
  EXPECT_TRUE(store.Get("data/01/a").status().IsNotFound());
  auto all = store.ListObjects();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(std::vector<std::string>{"data/01/b"}, *all);
}

// Objects are 0644 whatever the publisher's umask (Apache reads them as
// another user).
TEST(LocalObjectStoreTest, ObjectsAreWorldReadableUnderAStrictUmask) {
  testing::TempDir dir;
  for (mode_t mask : {mode_t{022}, mode_t{077}}) {
    const mode_t saved = ::umask(mask);
    const std::string root = dir.Sub("store" + std::to_string(mask));
    LocalObjectStore store(root);
    Status created = store.CreateLayout();
    Status put = store.Put("data/02/x", "bytes");
    Result<bool> put_new = store.PutIfAbsent("data/02/y", "bytes");
    ::umask(saved);
    ASSERT_TRUE(created.ok()) << created.ToString();
    ASSERT_TRUE(put.ok()) << put.ToString();
    ASSERT_TRUE(put_new.ok()) << put_new.status().ToString();
    for (const char* name : {"/data/02/x", "/data/02/y"}) {
      struct stat st;
      ASSERT_EQ(0, ::stat((root + name).c_str(), &st));
      EXPECT_EQ(0644u, st.st_mode & 07777) << name << " under umask " << mask;
    }
  }
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
