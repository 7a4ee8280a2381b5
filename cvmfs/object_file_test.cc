// Objects streamed from and to files: the same names and bytes as the
// in-memory StoreObject/ReadVerifiedObject, corruption refused.
#include "cvmfs/object_file.h"

#include <gtest/gtest.h>

#include <string>

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

// Several streaming blocks of compressible, not repetitive, bytes.
std::string Content() {
  std::string s;
  for (int i = 0; s.size() < (3u << 20) + 77; ++i)
    s += "row " + std::to_string(i * 7919 % 100003) + " of the catalog\n";
  return s;
}

TEST(ObjectFileTest, StoresTheBytesStoreObjectStores) {
  testing::TempDir dir;
  LocalObjectStore store(dir.Sub("store"));
  ASSERT_TRUE(store.CreateLayout().ok());
  const std::string content = Content();
  ASSERT_TRUE(WriteFileAtomic(dir.Sub("catalog.db"), content).ok());
  auto streamed =
      StoreFileObject(&store, dir.Sub("catalog.db"), ObjectSuffix::kCatalog,
                      HashAlgorithm::kSha1, dir.Sub("catalog.z"));
  ASSERT_TRUE(streamed.ok()) << streamed.status().ToString();
  EXPECT_FALSE(streamed->existed);
  EXPECT_FALSE(PathExists(dir.Sub("catalog.z")));
  MemoryObjectStore memory;
  auto whole = StoreObject(&memory, content, ObjectSuffix::kCatalog,
                           HashAlgorithm::kSha1);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(*whole, streamed->digest);
  const std::string name = ObjectPath(*whole, ObjectSuffix::kCatalog);
  EXPECT_EQ(*memory.Get(name), *store.Get(name));
  EXPECT_EQ(store.Get(name)->size(), streamed->stored_size);

  auto again =
      StoreFileObject(&store, dir.Sub("catalog.db"), ObjectSuffix::kCatalog,
                      HashAlgorithm::kSha1, dir.Sub("catalog.z"));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->existed);
  EXPECT_FALSE(PathExists(dir.Sub("catalog.z")));
}

TEST(ObjectFileTest, ReadsBackWhatWasStored) {
  testing::TempDir dir;
  const std::string content = Content();
  for (bool local : {false, true}) {
    SCOPED_TRACE(local ? "local store" : "memory store");
    LocalObjectStore disk(dir.Sub(local ? "local" : "unused"));
    MemoryObjectStore memory;
    ObjectStore* store = &memory;
    if (local) {
      ASSERT_TRUE(disk.CreateLayout().ok());
      store = &disk;
    }
    auto digest = StoreObject(store, content, ObjectSuffix::kCatalog,
                              HashAlgorithm::kShake128);
    ASSERT_TRUE(digest.ok());
    const std::string out = dir.Sub(local ? "a.db" : "b.db");
    Status st =
        ReadVerifiedObjectToFile(store, *digest, ObjectSuffix::kCatalog, out);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(content, *ReadFile(out));
  }
}

TEST(ObjectFileTest, ACorruptObjectLeavesNoFile) {
  testing::TempDir dir;
  MemoryObjectStore store;
  const std::string content = Content();
  auto digest = StoreObject(&store, content, ObjectSuffix::kCatalog,
                            HashAlgorithm::kSha1);
  ASSERT_TRUE(digest.ok());
  const std::string name = ObjectPath(*digest, ObjectSuffix::kCatalog);
  std::string bytes = *store.Get(name);
  bytes[bytes.size() / 2] ^= 0x20;
  ASSERT_TRUE(store.Put(name, bytes).ok());
  Status st = ReadVerifiedObjectToFile(&store, *digest, ObjectSuffix::kCatalog,
                                       dir.Sub("c.db"));
  EXPECT_EQ(Status::Code::kCorruption, st.code()) << st.ToString();
  EXPECT_FALSE(PathExists(dir.Sub("c.db")));
  st = ReadVerifiedObjectToFile(&store, Digest{HashAlgorithm::kSha1, {}},
                                ObjectSuffix::kCatalog, dir.Sub("d.db"));
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_FALSE(PathExists(dir.Sub("d.db")));
}

}  // namespace
}  // namespace cvmfs
